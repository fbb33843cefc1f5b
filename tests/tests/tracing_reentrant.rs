//! A subscriber that calls a table from inside one of its events (`--features tracing`): the
//! call is made, nothing recurses without end, nothing deadlocks, whether the event is a
//! resolution that succeeded or failed, or a call, and whether the subscriber is global or
//! scoped, through a method or a raw accessor.
#![cfg(feature = "tracing")]

use std::ffi::{c_uint, c_void, CStr};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

use cuda_driver_table::{
    driver_table, sys, Config, LookupResult, Query, Resolver, StreamMode, Versioning,
};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

static INIT_CALLS: AtomicUsize = AtomicUsize::new(0);

/// The tests run one at a time: `tracing` caches each call site's interest across threads, and
/// a global subscriber set while another thread's scoped one is emitting can make that cache
/// miss an event of the other test.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Takes the tests' lock, and registers this file's call sites with `tracing` outside of any
/// event: a call site that `tracing` first meets inside a subscriber's event is registered while
/// dispatch is off on that thread, and its first event can be lost, which would make the counts
/// below depend on which test runs first.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    let guard = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let quiet = Box::leak(Box::new(Cuda::with_config(Config::custom(&FAKE))));
    tracing::subscriber::with_default(std::sync::Arc::new(Reentrant::new(Reaction::None)), || {
        init(quiet).unwrap();
        device_get(quiet).unwrap_err();
    });
    guard
}

extern "C" fn fake_init(_: c_uint) -> sys::CUresult {
    INIT_CALLS.fetch_add(1, Ordering::SeqCst);
    sys::CUresult::CUDA_SUCCESS
}

/// Knows `cuInit` only: `cuDeviceGet` fails to resolve, every time.
struct Fake;

// SAFETY: `fake_init` has exactly the signature of `cuInit`'s ABI 2000.
unsafe impl Resolver for Fake {
    fn describe(&self) -> String {
        "a fake driver".to_owned()
    }
    fn versioning(&self) -> Versioning {
        Versioning::Versioned
    }
    fn lookup(&self, symbol: &CStr, _: Query, _: StreamMode) -> LookupResult {
        match symbol.to_bytes() {
            b"cuInit" => NonNull::new(fake_init as *mut c_void)
                .map_or(LookupResult::SymbolNotFound, LookupResult::Found),
            _ => LookupResult::SymbolNotFound,
        }
    }
}

static FAKE: Fake = Fake;

#[driver_table(cuInit, cuDeviceGet, driver = newest)]
struct Cuda;

/// What the subscriber does from inside each event it receives.
#[derive(Clone, Copy)]
enum Reaction {
    /// Nothing.
    None,
    /// Call `cuInit` through its method (traced).
    Method(&'static Cuda),
    /// Take `cuInit` through its raw accessor and call it (untraced).
    Accessor(&'static Cuda),
    /// Try `cuDeviceGet`, which never resolves.
    Failing(&'static Cuda),
}

/// A subscriber that, on every event, calls a table.
struct Reentrant {
    reaction: Reaction,
    events: AtomicUsize,
    /// Results of the calls made from inside events: successes and failures.
    ok: AtomicUsize,
    failed: AtomicUsize,
}

impl Reentrant {
    fn new(reaction: Reaction) -> Self {
        Self {
            reaction,
            events: AtomicUsize::new(0),
            ok: AtomicUsize::new(0),
            failed: AtomicUsize::new(0),
        }
    }
}

impl Subscriber for Reentrant {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {
        self.events.fetch_add(1, Ordering::SeqCst);
        let result = match self.reaction {
            Reaction::None => return,
            // SAFETY: cuInit takes any flags here (the fake).
            Reaction::Method(cu) => unsafe { cu.cuInit(0) },
            Reaction::Accessor(cu) => cu.pfn_cuInit().map(|f| {
                // SAFETY: as above.
                unsafe { f(0) };
            }),
            Reaction::Failing(cu) => {
                let mut device = 0;
                // SAFETY: `device` is a valid place for the device.
                unsafe { cu.cuDeviceGet(&mut device, 0) }
            }
        };
        match result {
            Ok(()) => self.ok.fetch_add(1, Ordering::SeqCst),
            Err(_) => self.failed.fetch_add(1, Ordering::SeqCst),
        };
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

fn fresh_table() -> &'static Cuda {
    Box::leak(Box::new(Cuda::with_config(Config::custom(&FAKE))))
}

/// Runs `outer` on a fresh table under a scoped subscriber reacting with `reaction(table)`, and
/// returns the subscriber's counts `(events, ok, failed)`.
fn scoped(
    reaction: fn(&'static Cuda) -> Reaction,
    outer: fn(&Cuda) -> Result<(), cuda_driver_table::Error>,
) -> (usize, usize, usize, Result<(), cuda_driver_table::Error>) {
    let cu = fresh_table();
    let subscriber = std::sync::Arc::new(Reentrant::new(reaction(cu)));
    let result = tracing::subscriber::with_default(subscriber.clone(), || outer(cu));
    (
        subscriber.events.load(Ordering::SeqCst),
        subscriber.ok.load(Ordering::SeqCst),
        subscriber.failed.load(Ordering::SeqCst),
        result,
    )
}

fn init(cu: &Cuda) -> Result<(), cuda_driver_table::Error> {
    // SAFETY: the fake accepts any flags.
    unsafe { cu.cuInit(0) }
}

fn device_get(cu: &Cuda) -> Result<(), cuda_driver_table::Error> {
    let mut device = 0;
    // SAFETY: `device` is a valid place for the device.
    unsafe { cu.cuDeviceGet(&mut device, 0) }
}

#[test]
fn a_method_called_from_the_resolution_event_finds_the_function_resolved() {
    let _serial = serial();
    let before = INIT_CALLS.load(Ordering::SeqCst);
    let (events, ok, failed, result) = scoped(Reaction::Method, init);
    result.unwrap();
    // The outer call's resolution and call events; the inner calls emit nothing.
    assert_eq!((events, ok, failed), (2, 2, 0));
    // The outer call and one inner call per event.
    assert!(INIT_CALLS.load(Ordering::SeqCst) >= before + 3);
}

#[test]
fn an_accessor_called_from_the_resolution_event_finds_the_function_resolved() {
    let _serial = serial();
    let (events, ok, failed, result) = scoped(Reaction::Accessor, init);
    result.unwrap();
    assert_eq!((events, ok, failed), (2, 2, 0));
}

#[test]
fn a_failed_resolution_retried_from_its_own_event_does_not_recurse() {
    let _serial = serial();
    let (events, ok, failed, result) = scoped(Reaction::Failing, device_get);
    let error = result.unwrap_err().to_string();
    assert!(error.contains("cuDeviceGet"), "{error}");
    // One event (the outer failure); the retry inside it fails again, silently.
    assert_eq!((events, ok, failed), (1, 0, 1));
}

#[test]
fn a_global_subscriber_that_calls_the_table_does_not_recurse() {
    let _serial = serial();
    static TABLE: Cuda = Cuda::with_config(Config::custom(&FAKE));
    let subscriber = std::sync::Arc::new(Reentrant::new(Reaction::Method(&TABLE)));
    tracing::subscriber::set_global_default(subscriber.clone()).unwrap();
    // On a thread of its own: the other tests' threads have scoped subscribers, this one the
    // global.
    std::thread::spawn(|| {
        init(&TABLE).unwrap();
        // And a failing resolution under the global subscriber.
        device_get(&TABLE).unwrap_err();
    })
    .join()
    .unwrap();
    // Resolution and call of cuInit, then the failed resolution of cuDeviceGet.
    assert_eq!(subscriber.events.load(Ordering::SeqCst), 3);
    assert_eq!(subscriber.ok.load(Ordering::SeqCst), 3);
}
