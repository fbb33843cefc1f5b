//! Call tracing (`--features tracing`), on the CPU through an in-process resolver: each generated
//! method emits one event with its C name, its arguments under their C parameter names, the
//! result and the time; a failing `CUresult` is at DEBUG, a success at TRACE; resolution emits its
//! own event; raw `pfn_*` accessors emit none.
#![cfg(feature = "tracing")]

use std::collections::BTreeMap;
use std::ffi::{c_char, c_uint, c_void, CStr};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cuda_driver_table::{
    driver_table, sys, Config, LookupResult, Query, Resolver, StreamMode, Versioning,
};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

extern "C" fn fake_init(flags: c_uint) -> sys::CUresult {
    if flags == 0 {
        sys::CUresult::CUDA_SUCCESS
    } else {
        sys::CUresult::CUDA_ERROR_INVALID_VALUE
    }
}

extern "C" fn fake_mem_alloc(dptr: *mut sys::CUdeviceptr, bytesize: usize) -> sys::CUresult {
    // SAFETY: the caller passes a valid place for the device pointer.
    unsafe { *dptr = 0xd000 + bytesize as sys::CUdeviceptr };
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
// (`cuInit` 2000, `cuMemAlloc` 3020, `cuGetErrorName`/`String` 6000).
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
            b"cuGetErrorName" | b"cuGetErrorString" => fake_error_name as *mut c_void,
            _ => return LookupResult::SymbolNotFound,
        };
        NonNull::new(f).map_or(LookupResult::SymbolNotFound, LookupResult::Found)
    }
}

static FAKE: Fake = Fake;

#[driver_table(cuInit, cuMemAlloc, cuMemFree, cuDeviceGet)]
struct Cuda;

/// One recorded event: level, target and fields as text.
#[derive(Debug, Clone)]
struct Recorded {
    level: Level,
    target: String,
    fields: BTreeMap<String, String>,
}

/// A subscriber that keeps every event.
#[derive(Clone, Default)]
struct Recorder {
    events: Arc<Mutex<Vec<Recorded>>>,
    next_id: Arc<AtomicU64>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(self.next_id.fetch_add(1, Ordering::Relaxed) + 1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        self.events.lock().unwrap().push(Recorded {
            level: *event.metadata().level(),
            target: event.metadata().target().to_owned(),
            fields,
        });
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

fn record(f: impl FnOnce()) -> Vec<Recorded> {
    let recorder = Recorder::default();
    tracing::subscriber::with_default(recorder.clone(), f);
    let events = recorder.events.lock().unwrap().clone();
    events
}

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
    assert_eq!(p, 0xd000 + 128);
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
