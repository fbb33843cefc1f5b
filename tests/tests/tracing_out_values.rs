//! Traced out-values are read only where `cuda.h` promises the driver wrote them
//! (`--features tracing`, on the CPU, and under Miri): `cuStreamGetCaptureInfo` on a stream that
//! is not capturing succeeds and writes the capture status alone ("Valid data (other than capture
//! status) is returned only if [...] the returned capture status is
//! CU_STREAM_CAPTURE_STATUS_ACTIVE"), so its event shows `out.captureStatus_out` and no value
//! read from the other places, which here are uninitialised (`MaybeUninit`), as the method's
//! `# Safety` allows.
#![cfg(feature = "tracing")]

use std::ffi::{c_void, CStr};
use std::mem::MaybeUninit;
use std::ptr::NonNull;

use cuda_driver_table::{
    driver_table, sys, Config, LookupResult, Query, Resolver, StreamMode, Versioning,
};
use cuda_driver_table_tests::events::{calls_of, record};

/// `cuStreamGetCaptureInfo` (ABI 12030) on a stream that is not capturing, as the driver answers
/// it: success, the status `CU_STREAM_CAPTURE_STATUS_NONE`, nothing else written.
extern "C" fn not_capturing(
    _: sys::CUstream,
    status: *mut sys::CUstreamCaptureStatus,
    _id: *mut sys::cuuint64_t,
    _graph: *mut sys::CUgraph,
    _dependencies: *mut *const sys::CUgraphNode,
    _edge_data: *mut *const sys::CUgraphEdgeData,
    _count: *mut usize,
) -> sys::CUresult {
    // SAFETY: the caller passes a valid place for the status (cuda.h: "required").
    unsafe { status.write(sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE) };
    sys::CUresult::CUDA_SUCCESS
}

/// Hands out `not_capturing` for `cuStreamGetCaptureInfo`.
struct Driver;

// SAFETY: the one pointer handed out has the C signature of `cuStreamGetCaptureInfo` at ABI 12030,
// the ABI the table below asks for (its default in CUDA 13.0's records).
unsafe impl Resolver for Driver {
    fn describe(&self) -> String {
        "a stream that is not capturing".to_owned()
    }
    fn versioning(&self) -> Versioning {
        Versioning::Versioned
    }
    fn lookup(&self, symbol: &CStr, query: Query, _: StreamMode) -> LookupResult {
        if symbol.to_bytes() != b"cuStreamGetCaptureInfo" || query != Query::ByVersion(12030) {
            return LookupResult::SymbolNotFound;
        }
        NonNull::new(not_capturing as *mut c_void)
            .map_or(LookupResult::SymbolNotFound, LookupResult::Found)
    }
}

static DRIVER: Driver = Driver;

#[driver_table(cuStreamGetCaptureInfo, driver = newest)]
struct Cuda;

#[test]
fn capture_info_of_a_stream_that_is_not_capturing_shows_the_status_alone() {
    let cu = Cuda::with_config(Config::custom(&DRIVER));
    let mut status = MaybeUninit::<sys::CUstreamCaptureStatus>::uninit();
    let mut id = MaybeUninit::<sys::cuuint64_t>::uninit();
    let mut graph = MaybeUninit::<sys::CUgraph>::uninit();
    let mut dependencies = MaybeUninit::<*const sys::CUgraphNode>::uninit();
    let mut edge_data = MaybeUninit::<*const sys::CUgraphEdgeData>::uninit();
    let mut count = MaybeUninit::<usize>::uninit();
    let events = record(|| {
        // SAFETY: every pointer is a valid place of its type; the driver writes into them what
        // it returns and reads none of them.
        unsafe {
            cu.cuStreamGetCaptureInfo(
                std::ptr::null_mut(),
                status.as_mut_ptr(),
                id.as_mut_ptr(),
                graph.as_mut_ptr(),
                dependencies.as_mut_ptr(),
                edge_data.as_mut_ptr(),
                count.as_mut_ptr(),
            )
        }
        .unwrap();
    });
    // SAFETY: the call succeeded, and a successful call writes the status.
    let status = unsafe { status.assume_init() };
    assert_eq!(
        status,
        sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE
    );
    let calls = calls_of(&events, "cuStreamGetCaptureInfo");
    assert_eq!(calls.len(), 1, "{events:#?}");
    let call = calls[0];
    assert_eq!(call.fields["result"], "CUDA_SUCCESS");
    assert_eq!(
        call.fields["out.captureStatus_out"],
        format!("{status:?}"),
        "{call:#?}"
    );
    assert_eq!(call.out_values(), ["out.captureStatus_out"], "{call:#?}");
    // The places themselves are shown, as any other argument.
    assert_eq!(call.fields["id_out"], format!("{:?}", id.as_mut_ptr()));
}
