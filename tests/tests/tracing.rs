//! Call tracing (`--features tracing`), on the CPU through an in-process resolver: each generated
//! method emits one event with its C name, its arguments under their C parameter names, the
//! result and the time; a failing `CUresult` is at DEBUG, a success at TRACE, with what the driver
//! wrote through the out-values (`out.dptr`); resolution emits its own event; raw `pfn_*`
//! accessors emit none.
#![cfg(feature = "tracing")]

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use cuda_driver_table::{
    driver_table, sys, Config, LookupResult, Query, Resolver, StreamMode, Versioning,
};
use cuda_driver_table_tests::events::{record, record_up_to, Recorded};
use tracing::Level;

extern "C" fn fake_init(flags: c_uint) -> sys::CUresult {
    if flags == 0 {
        sys::CUresult::CUDA_SUCCESS
    } else {
        sys::CUresult::CUDA_ERROR_INVALID_VALUE
    }
}

/// Allocates at `0xdead0000 + bytesize`; fails without writing from 1 TiB on.
extern "C" fn fake_mem_alloc(dptr: *mut sys::CUdeviceptr, bytesize: usize) -> sys::CUresult {
    if bytesize >= 1 << 40 {
        return sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY;
    }
    // SAFETY: the caller passes a valid place for the device pointer.
    unsafe { *dptr = 0xdead_0000 + bytesize as sys::CUdeviceptr };
    sys::CUresult::CUDA_SUCCESS
}

/// Writes 40 GiB free of 80, each where its pointer is not null (as the driver does).
extern "C" fn fake_mem_get_info(free: *mut usize, total: *mut usize) -> sys::CUresult {
    for (place, value) in [(free, 40usize << 30), (total, 80 << 30)] {
        if !place.is_null() {
            // SAFETY: the caller passes a valid place, or null.
            unsafe { *place = value };
        }
    }
    sys::CUresult::CUDA_SUCCESS
}

extern "C" fn fake_driver_get_version(version: *mut c_int) -> sys::CUresult {
    // SAFETY: the caller passes a valid place for the version.
    unsafe { *version = 13000 };
    sys::CUresult::CUDA_SUCCESS
}

/// The context `fake_ctx_get_current` returns.
const FAKE_CONTEXT: usize = 0x5eed_0000;

extern "C" fn fake_ctx_get_current(pctx: *mut sys::CUcontext) -> sys::CUresult {
    // SAFETY: the caller passes a valid place for the context.
    unsafe { *pctx = std::ptr::without_provenance_mut(FAKE_CONTEXT) };
    sys::CUresult::CUDA_SUCCESS
}

/// Succeeds without writing anything, whatever it is given: a stand-in for a call whose
/// out-value must not be read (here, because the event that would show it is not enabled).
extern "C" fn fake_ctx_get_flags(_: *mut c_uint) -> sys::CUresult {
    sys::CUresult::CUDA_SUCCESS
}

extern "C" fn fake_mem_free(_: sys::CUdeviceptr) -> sys::CUresult {
    sys::CUresult::CUDA_SUCCESS
}

extern "C" fn fake_error_name(_: sys::CUresult, out: *mut *const c_char) -> sys::CUresult {
    // SAFETY: the caller passes a valid place for the string pointer.
    unsafe { *out = c"CUDA_ERROR_INVALID_VALUE".as_ptr() };
    sys::CUresult::CUDA_SUCCESS
}

/// Hands out the functions above at any version at or above their ABI.
struct Fake;

// SAFETY: each pointer is a function of exactly the C signature of the ABI it is returned for
// (`cuInit` 2000, `cuMemAlloc` 3020, `cuMemFree` 3020, `cuMemGetInfo` 3020, `cuDriverGetVersion`
// 2020, `cuCtxGetCurrent` 4000, `cuCtxGetFlags` 7000, `cuGetErrorName`/`String` 6000).
unsafe impl Resolver for Fake {
    fn describe(&self) -> String {
        "a fake driver".to_owned()
    }
    fn versioning(&self) -> Versioning {
        Versioning::Versioned
    }
    fn lookup(&self, symbol: &CStr, _: Query, _: StreamMode) -> LookupResult {
        let f: *mut c_void = match symbol.to_bytes() {
            b"cuInit" => fake_init as *mut c_void,
            b"cuMemAlloc" => fake_mem_alloc as *mut c_void,
            b"cuMemFree" => fake_mem_free as *mut c_void,
            b"cuMemGetInfo" => fake_mem_get_info as *mut c_void,
            b"cuDriverGetVersion" => fake_driver_get_version as *mut c_void,
            b"cuCtxGetCurrent" => fake_ctx_get_current as *mut c_void,
            b"cuCtxGetFlags" => fake_ctx_get_flags as *mut c_void,
            b"cuGetErrorName" | b"cuGetErrorString" => fake_error_name as *mut c_void,
            _ => return LookupResult::SymbolNotFound,
        };
        NonNull::new(f).map_or(LookupResult::SymbolNotFound, LookupResult::Found)
    }
}

static FAKE: Fake = Fake;

#[driver_table(
    cuInit,
    cuMemAlloc,
    cuMemFree,
    cuDeviceGet,
    cuMemGetInfo,
    cuDriverGetVersion,
    cuCtxGetCurrent,
    cuCtxGetFlags,
    driver = newest
)]
struct Cuda;

#[test]
fn every_call_is_one_event_with_its_arguments_result_and_time() {
    let cu = Cuda::with_config(Config::custom(&FAKE));
    let mut p: sys::CUdeviceptr = 0;
    let events = record(|| {
        // SAFETY: `p` is a valid place for the device pointer.
        unsafe { cu.cuMemAlloc(&mut p, 64) }.unwrap();
        // SAFETY: the fake accepts any pointer it is given a place for.
        unsafe { cu.cuMemAlloc(&mut p, 128) }.unwrap();
    });
    assert_eq!(p, 0xdead_0000 + 128);
    // One resolution, then two calls.
    assert_eq!(events.len(), 3, "{events:#?}");
    assert!(events.iter().all(|e| e.target == "cuda_driver_table"));

    let resolution = &events[0];
    assert_eq!(resolution.level, Level::TRACE);
    assert_eq!(resolution.fields["resolved"], "cuMemAlloc");
    assert_eq!(resolution.fields["abi"], "3020");
    assert_eq!(resolution.fields["flag"], "Legacy");
    assert_eq!(resolution.fields["backend"], "a fake driver");
    assert!(resolution.fields.contains_key("elapsed_ns"));

    let call = &events[2];
    assert_eq!(call.level, Level::TRACE);
    assert_eq!(call.fields["function"], "cuMemAlloc");
    // Pointers in hex, integers by value, under the C parameter names.
    let dptr = &call.fields["dptr"];
    assert!(dptr.starts_with("0x"), "{dptr}");
    assert_eq!(*dptr, format!("{:?}", std::ptr::addr_of_mut!(p)));
    assert_eq!(call.fields["bytesize"], "128");
    assert_eq!(call.fields["result"], "CUDA_SUCCESS");
    assert!(call.fields["elapsed_ns"].parse::<u64>().is_ok());
    // What the driver wrote there.
    assert_eq!(call.fields["out.dptr"], "0xdead0080");
}

/// After a successful call, the event shows each value the driver wrote through an out-value
/// (`out.<parameter>`), beside the address it wrote it to: device pointers in hex, integers by
/// value, handles as pointers.
#[test]
fn a_successful_call_shows_what_the_driver_wrote_through_its_out_values() {
    let cu = Cuda::with_config(Config::custom(&FAKE));
    let mut dptr: sys::CUdeviceptr = 0;
    let mut version: c_int = 0;
    let mut ctx: sys::CUcontext = std::ptr::null_mut();
    let events = record(|| {
        // SAFETY: each pointer is a valid place for what the function returns.
        unsafe {
            cu.cuMemAlloc(&mut dptr, 0).unwrap();
            cu.cuDriverGetVersion(&mut version).unwrap();
            cu.cuCtxGetCurrent(&mut ctx).unwrap();
        }
    });
    let calls: Vec<&Recorded> = events
        .iter()
        .filter(|e| e.fields.contains_key("function"))
        .collect();
    assert_eq!(calls.len(), 3, "{events:#?}");
    assert_eq!(calls[0].fields["function"], "cuMemAlloc");
    assert_eq!(calls[0].fields["out.dptr"], "0xdead0000");
    assert_eq!(
        calls[0].fields["dptr"],
        format!("{:?}", std::ptr::addr_of_mut!(dptr))
    );
    assert_eq!(calls[1].fields["out.driverVersion"], "13000");
    assert_eq!(calls[2].fields["out.pctx"], format!("{FAKE_CONTEXT:#x}"));
    // Only out-values: `bytesize` has no `out.` twin.
    let outs: Vec<&String> = calls[0]
        .fields
        .keys()
        .filter(|k| k.starts_with("out."))
        .collect();
    assert_eq!(outs, ["out.dptr"]);
}

/// As `tracing-subscriber`'s `fmt()` prints it, an out-value follows the arguments, under the
/// name of the pointer it went through.
#[test]
fn fmt_prints_an_out_value_beside_its_pointer() {
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(Level::TRACE)
        .with_ansi(false)
        .without_time()
        .with_writer(move || writer.clone())
        .finish();
    let cu = Cuda::with_config(Config::custom(&FAKE));
    let mut dptr: sys::CUdeviceptr = 0;
    tracing::subscriber::with_default(subscriber, || {
        // SAFETY: `dptr` is a valid place for the device pointer.
        unsafe { cu.cuMemAlloc(&mut dptr, 0) }.unwrap();
    });
    let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    let line = text.lines().last().expect("a line");
    let expected = format!(
        "TRACE cuda_driver_table: function=\"cuMemAlloc\" dptr={:?} bytesize=0 out.dptr=0xdead0000 result=\"CUDA_SUCCESS\" elapsed_ns=",
        std::ptr::addr_of_mut!(dptr)
    );
    assert!(line.starts_with(&expected), "{line}");
}

/// A failed call's event has no out-value: nothing is read, here through a pointer that reading
/// would fault on (and that Miri would report).
#[test]
fn a_failed_call_reads_nothing_through_its_out_values() {
    let cu = Cuda::with_config(Config::custom(&FAKE));
    let nowhere = NonNull::<sys::CUdeviceptr>::dangling().as_ptr();
    let events = record(|| {
        // SAFETY: the fake fails this size without touching `nowhere`.
        let e = unsafe { cu.cuMemAlloc(nowhere, 1 << 40) }.unwrap_err();
        assert_eq!(e.code(), Some(2));
    });
    let call = events.last().expect("an event");
    assert_eq!(call.level, Level::DEBUG);
    assert_eq!(call.fields["code"], "2");
    assert_eq!(call.fields["dptr"], format!("{nowhere:?}"));
    assert!(!call.fields.contains_key("out.dptr"), "{call:#?}");
}

/// A null out pointer (`cuMemGetInfo` takes one for a value the caller does not want) is not
/// read: its event has no field for it, and the other out-value's field.
#[test]
fn a_null_out_pointer_is_not_read_and_has_no_field() {
    let cu = Cuda::with_config(Config::custom(&FAKE));
    let mut free = 0usize;
    let events = record(|| {
        // SAFETY: `free` is a valid place, and the fake writes nothing through a null pointer.
        unsafe { cu.cuMemGetInfo(&mut free, std::ptr::null_mut()) }.unwrap();
    });
    let call = events.last().expect("an event");
    assert_eq!(call.fields["function"], "cuMemGetInfo");
    assert_eq!(call.fields["out.free"], (40usize << 30).to_string());
    assert_eq!(call.fields["total"], "0x0");
    assert!(!call.fields.contains_key("out.total"), "{call:#?}");
}

/// The out-values are read for the event of a successful call (TRACE) only: a subscriber that
/// takes DEBUG but not TRACE gets no event for the call, and nothing is read (here through a
/// pointer that reading would fault on, given to a fake that succeeds without writing).
#[test]
fn out_values_are_read_only_when_the_success_event_is_enabled() {
    let cu = Cuda::with_config(Config::custom(&FAKE));
    let nowhere = NonNull::<c_uint>::dangling().as_ptr();
    let events = record_up_to(Level::DEBUG, || {
        // SAFETY: the fake does not touch its argument.
        unsafe { cu.cuCtxGetFlags(nowhere) }.unwrap();
    });
    assert!(
        events.iter().all(|e| !e.fields.contains_key("function")),
        "{events:#?}"
    );
}

/// Device pointers are integers in C; their traces show them in hex like host pointers.
#[test]
fn device_pointers_are_shown_in_hex() {
    let cu = Cuda::with_config(Config::custom(&FAKE));
    let events = record(|| {
        // SAFETY: the fake frees nothing.
        unsafe { cu.cuMemFree(0xd040) }.unwrap();
    });
    let call = events.last().expect("an event");
    assert_eq!(call.fields["function"], "cuMemFree");
    assert_eq!(call.fields["dptr"], "0xd040");
}

#[test]
fn a_failing_result_is_a_debug_event_with_its_name_and_code() {
    let cu = Cuda::with_config(Config::custom(&FAKE));
    let events = record(|| {
        // SAFETY: cuInit takes any flags value (the fake refuses non-zero ones).
        let e = unsafe { cu.cuInit(7) }.unwrap_err();
        assert_eq!(e.code(), Some(1));
    });
    let call = events.last().expect("an event");
    assert_eq!(call.level, Level::DEBUG);
    assert_eq!(call.fields["function"], "cuInit");
    assert_eq!(call.fields["Flags"], "7");
    assert_eq!(call.fields["result"], "CUDA_ERROR_INVALID_VALUE");
    assert_eq!(call.fields["code"], "1");
}

#[test]
fn a_failed_resolution_is_a_debug_event_and_raw_accessors_are_not_traced() {
    let cu = Cuda::with_config(Config::custom(&FAKE));
    let events = record(|| {
        assert!(cu.pfn_cuDeviceGet().is_err());
        let f = cu.pfn_cuInit().unwrap();
        // SAFETY: cuInit(0) has no preconditions.
        let _ = unsafe { f(0) };
    });
    // Two resolutions (one failed), and no event for the call through the raw pointer.
    assert_eq!(events.len(), 2, "{events:#?}");
    assert_eq!(events[0].level, Level::DEBUG);
    assert_eq!(events[0].fields["resolved"], "cuDeviceGet");
    assert!(
        events[0].fields["error"].contains("not found"),
        "{events:#?}"
    );
    assert_eq!(events[1].level, Level::TRACE);
    assert_eq!(events[1].fields["resolved"], "cuInit");
    assert!(events.iter().all(|e| !e.fields.contains_key("function")));
}

#[test]
fn without_a_subscriber_nothing_is_recorded_and_calls_work() {
    let cu = Cuda::with_config(Config::custom(&FAKE));
    // SAFETY: cuInit(0) has no preconditions.
    unsafe { cu.cuInit(0) }.unwrap();
}
