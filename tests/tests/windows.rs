//! A table program on Windows: generated tables call through the stand-in `nvcuda.dll` and
//! `cudart64_13.dll` (`tests/windows/*.c`), loaded by their full paths, and get what the
//! stand-ins write; a failing `CUresult` is an error named by the stand-in's `cuGetErrorName`.
//!
//! Windows only: the test command builds it for `x86_64-pc-windows-gnu` and runs it under Wine
//! (`scripts/windows.sh`), which builds the stand-ins with mingw and names their folder in
//! `CUDA_DRIVER_TABLE_TEST_WINDOWS_DLLS` (`skip` skips this on purpose). Elsewhere it is empty.
#![cfg(windows)]

use std::path::PathBuf;

use cuda_driver_table::{driver_table, Config};

#[driver_table(cuInit, cuDriverGetVersion, cuDeviceGetCount, cuDeviceGet, driver = newest)]
struct Cuda;

const DLLS_VAR: &str = "CUDA_DRIVER_TABLE_TEST_WINDOWS_DLLS";

/// The stand-in `dll`; `None` when skipped on purpose.
fn stand_in(dll: &str) -> Option<PathBuf> {
    match std::env::var_os(DLLS_VAR) {
        Some(v) if v == "skip" => {
            eprintln!("{DLLS_VAR}=skip: the Windows table program is skipped");
            None
        }
        Some(v) => {
            let path = PathBuf::from(v).join(dll);
            assert!(path.is_file(), "{} is missing", path.display());
            Some(path)
        }
        None => panic!(
            "{DLLS_VAR} is not set. Run `bash scripts/windows.sh`, which builds the stand-in DLLs \
             from tests/windows/*.c with mingw and runs this under Wine, or set it to `skip` to \
             skip this test on purpose"
        ),
    }
}

/// Through each backend, the table's methods call the stand-in's functions with their arguments
/// and return what they wrote; `cuDeviceGetCount` before `cuInit` and `cuDeviceGet` of a device
/// that does not exist fail with the stand-in's `CUresult`, named by it.
#[test]
fn a_table_calls_through_both_backends() {
    let (Some(nvcuda), Some(cudart)) = (stand_in("nvcuda.dll"), stand_in("cudart64_13.dll")) else {
        return;
    };
    // SAFETY: the stand-ins export the lookup functions of the driver and of libcudart with their
    // C signatures, and hand out functions of the signatures cuda.h declares.
    let configs = unsafe {
        [
            (Config::driver().library_owned(&nvcuda), "the CUDA driver ("),
            (Config::runtime().library_owned(&cudart), "libcudart 13.0 ("),
        ]
    };
    for (config, described) in configs {
        let cu = Cuda::with_config(config);
        let backend = cu.config().resolver().unwrap().describe();
        assert!(backend.starts_with(described), "{backend}");

        let (mut count, mut version, mut device) = (-1, 0, -1);
        // SAFETY: each out-pointer is a valid place for its value.
        let before_init = unsafe { cu.cuDeviceGetCount(&mut count) }.unwrap_err();
        assert_eq!(
            before_init.to_string(),
            "cuDeviceGetCount failed: CUDA_ERROR_NOT_INITIALIZED (3): initialization error",
            "{backend}"
        );
        // SAFETY: as above.
        unsafe {
            cu.cuInit(0).unwrap();
            cu.cuDriverGetVersion(&mut version).unwrap();
            cu.cuDeviceGetCount(&mut count).unwrap();
            cu.cuDeviceGet(&mut device, 0).unwrap();
        }
        assert_eq!((version, count, device), (12080, 1, 0), "{backend}");
        // SAFETY: as above.
        let e = unsafe { cu.cuDeviceGet(&mut device, 7) }.unwrap_err();
        assert_eq!(e.code(), Some(101));
        assert_eq!(
            e.to_string(),
            "cuDeviceGet failed: CUDA_ERROR_INVALID_DEVICE (101): invalid device ordinal"
        );
        cu.resolve_all().unwrap();
    }
}
