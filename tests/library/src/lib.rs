//! A library on `cuda-driver-table`: it declares its table, and its functions take the table as
//! `&Cuda`, so that an application passes its `static` and a test a table configured with a
//! fake driver.
//!
//! ```
//! use cuda_driver_table_library_test::{driver_version, Cuda};
//!
//! static CU: Cuda = Cuda::new();
//!
//! // On a machine without a driver this is an error that lists what was tried.
//! match driver_version(&CU) {
//!     Ok(version) => println!("CUDA driver {version}"),
//!     Err(e) => println!("no driver: {e}"),
//! }
//! ```

use cuda_driver_table::{driver_table, Error};

/// The driver functions this library calls, each at the newest ABI a CUDA 12.0 driver has.
#[driver_table(cuDriverGetVersion, driver = 12000)]
pub struct Cuda;

/// The version of the CUDA driver that `cu` loads, in `cuDriverGetVersion`'s numbering (`12040`
/// is CUDA 12.4).
///
/// # Errors
///
/// When no driver is found, or `cuDriverGetVersion` fails.
pub fn driver_version(cu: &Cuda) -> Result<i32, Error> {
    let mut version = 0;
    // SAFETY: `version` is a valid place for the number the driver writes.
    unsafe { cu.cuDriverGetVersion(&mut version)? };
    Ok(version)
}

#[cfg(test)]
mod tests {
    use super::{driver_version, Cuda};
    use cuda_driver_table::fake::{function, Fake};
    use cuda_driver_table::sys::CUresult;

    #[test]
    fn reads_the_version_the_driver_reports() {
        let driver = Fake::new()
            .on(function!(Cuda::cuDriverGetVersion), |(version,)| {
                // SAFETY: the caller passes a valid place (cuDriverGetVersion's contract).
                unsafe { *version = 12040 };
                CUresult::CUDA_SUCCESS
            })
            .build();
        let cu = Cuda::with_config(driver.config());
        assert_eq!(driver_version(&cu).unwrap(), 12040);
    }
}
