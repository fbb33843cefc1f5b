//! What `#[driver_table]` generates, checked on the CPU: several tables in one crate with
//! different pins and options, their types, constructors, configuration and function specs.
//! Nothing here loads a CUDA library, except one test that loads a path that does not exist.

// Every table below is public and documented: this fails if the macro generates an undocumented
// public item. (The macro adds a paragraph to the struct's docs; that it keeps the user's is
// checked by the macro's unit tests.)
#![deny(missing_docs)]

use std::path::Path;

use cuda_driver_table::{
    manifest, sys, Backend, Config, CudaLibrary, Error, ErrorKind, Errors, FunctionSpec, StreamMode,
};

/// The tables live in a module so that using them from outside checks that the struct keeps
/// its visibility.
pub mod tables {
    use cuda_driver_table::driver_table;

    /// A table with the CUDA 3.2 `cuCtxCreate` (`PFN_cuCtxCreate_v3020`).
    #[driver_table(cuInit, cuCtxCreate = 3020, cuLaunchKernel, driver = newest)]
    #[derive(Debug)]
    pub struct Pinned;

    /// The same functions at the release's default ABIs (`cuCtxCreate` is `v12050` in 13.0).
    #[driver_table(cuInit, cuCtxCreate, cuLaunchKernel, driver = newest)]
    pub(crate) struct Latest;

    /// `new()` uses the per-thread default stream.
    #[driver_table(cuInit, cuLaunchKernel, per_thread, driver = newest)]
    pub struct PerThread;

    #[driver_table(cuInit, backend = driver, driver = newest)]
    /// `new()` uses the driver backend (the doc comment may also follow the attribute).
    pub struct OnDriver;

    /// Both options at once.
    #[driver_table(backend = driver, per_thread, cuInit, driver = newest)]
    pub struct OnDriverPerThread;

    /// `backend = runtime` written out: libcudart only, no falling back to libcuda.
    #[driver_table(cuInit, backend = runtime, driver = newest)]
    pub struct RuntimeOnly;
}

use tables::{Latest, OnDriver, OnDriverPerThread, PerThread, Pinned, RuntimeOnly};

// Tables are const-constructible, so they can be statics, with any configuration.
static PINNED: Pinned = Pinned::new();
static LATEST: Latest = Latest::new();
// SAFETY: `/x` is never loaded (the test only reads the configuration back).
static EXPLICIT: Latest = Latest::with_config(unsafe { Config::driver().library("/x") });
// SAFETY: no such file exists; loading it fails before anything is run.
static MISSING_LIBRARY: OnDriver = OnDriver::with_config(unsafe {
    Config::driver().library("/nonexistent/cuda-driver-table/libcuda.so.1")
});

// The pin decides the field's, the accessor's and the method's types: these only compile if the
// pinned table has the CUDA 3.2 signature and the default one the CUDA 12.5 signature.
const _: fn(&Pinned) -> sys::PFN_cuCtxCreate_v3020 = |t| t.pfn_cuCtxCreate().ok();
const _: fn(&Latest) -> sys::PFN_cuCtxCreate_v12050 = |t| t.pfn_cuCtxCreate().ok();
const _: unsafe fn(&Pinned, *mut sys::CUcontext, u32, sys::CUdevice_v1) -> Result<(), Error> =
    Pinned::cuCtxCreate;
const _: unsafe fn(
    &Latest,
    *mut sys::CUcontext,
    *mut sys::CUctxCreateParams,
    u32,
    sys::CUdevice,
) -> Result<(), Error> = Latest::cuCtxCreate;

fn assert_send_sync<T: Send + Sync>() {}
fn assert_unwind_safe<T: std::panic::UnwindSafe + std::panic::RefUnwindSafe>() {}

fn spec<'a>(specs: &'a [FunctionSpec], name: &str) -> &'a FunctionSpec {
    specs
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("{name} is not in the table"))
}

#[test]
fn tables_with_different_pins_coexist() {
    let names = |specs: &[FunctionSpec]| specs.iter().map(|s| s.name).collect::<Vec<_>>();
    assert_eq!(
        names(Pinned::FUNCTIONS),
        ["cuInit", "cuCtxCreate", "cuLaunchKernel"]
    );
    assert_eq!(names(Latest::FUNCTIONS), names(Pinned::FUNCTIONS));

    let pinned = spec(Pinned::FUNCTIONS, "cuCtxCreate");
    assert_eq!(pinned.abi.version, 3020);
    assert_eq!(pinned.typedef, "PFN_cuCtxCreate_v3020");
    assert_eq!(pinned.abi.export, Some("cuCtxCreate_v2"));

    let latest = spec(Latest::FUNCTIONS, "cuCtxCreate");
    assert_eq!(latest.abi.version, 12050);
    assert_eq!(latest.typedef, "PFN_cuCtxCreate_v12050");
    assert_eq!(latest.abi.export, Some("cuCtxCreate_v4"));

    // Unpinned functions are the same in both.
    assert_eq!(
        spec(Pinned::FUNCTIONS, "cuInit"),
        spec(Latest::FUNCTIONS, "cuInit")
    );
}

#[test]
fn options_choose_the_configuration_of_new() {
    let legacy = Pinned::new();
    assert_eq!(legacy.config().stream_mode(), StreamMode::Legacy);
    assert!(matches!(legacy.config().backend(), Backend::Runtime));
    assert_eq!(legacy.config().library_path(), None);
    // Without `backend = ...`: the default configuration, which falls back to libcuda where no
    // libcudart is found; `backend = runtime` written out does not.
    assert!(legacy.config().falls_back_to_driver());
    assert!(!RuntimeOnly::new().config().falls_back_to_driver());
    assert!(matches!(
        RuntimeOnly::new().config().backend(),
        Backend::Runtime
    ));
    assert!(!OnDriver::new().config().falls_back_to_driver());

    let per_thread = PerThread::new();
    assert_eq!(per_thread.config().stream_mode(), StreamMode::PerThread);
    assert!(matches!(per_thread.config().backend(), Backend::Runtime));

    let driver = OnDriver::new();
    assert_eq!(driver.config().stream_mode(), StreamMode::Legacy);
    assert!(matches!(driver.config().backend(), Backend::Driver));

    let both = OnDriverPerThread::new();
    assert_eq!(both.config().stream_mode(), StreamMode::PerThread);
    assert!(matches!(both.config().backend(), Backend::Driver));
}

#[test]
fn with_config_works_in_a_static() {
    assert!(matches!(EXPLICIT.config().backend(), Backend::Driver));
    assert_eq!(EXPLICIT.config().library_path(), Some(Path::new("/x")));
    assert_eq!(EXPLICIT.config().stream_mode(), StreamMode::Legacy);
    assert!(matches!(LATEST.config().backend(), Backend::Runtime));
    // The options of the attribute only choose what `new()` does.
    let t = PerThread::with_config(Config::runtime());
    assert_eq!(t.config().stream_mode(), StreamMode::Legacy);
}

#[test]
fn default_is_new() {
    let t: PerThread = Default::default();
    assert_eq!(t.config().stream_mode(), StreamMode::PerThread);
    let t = OnDriver::default();
    assert!(matches!(t.config().backend(), Backend::Driver));
}

#[test]
fn struct_keeps_its_attributes_and_is_send_and_sync() {
    // `#[derive(Debug)]` on the user's struct applies to the generated one.
    let debug = format!("{PINNED:?}");
    assert!(debug.starts_with("Pinned"), "{debug}");
    assert_send_sync::<Pinned>();
    assert_send_sync::<Latest>();
    assert_send_sync::<PerThread>();
    assert_send_sync::<OnDriver>();
}

/// Tables, configurations and errors cross `catch_unwind`: a static table is used inside the
/// closure by reference.
#[test]
fn tables_configs_and_errors_are_unwind_safe() {
    assert_unwind_safe::<Pinned>();
    assert_unwind_safe::<OnDriver>();
    assert_unwind_safe::<Config>();
    assert_unwind_safe::<Error>();
    assert_unwind_safe::<Errors>();
    let outcome = std::panic::catch_unwind(|| MISSING_LIBRARY.resolve_all());
    assert!(outcome.unwrap().is_err());
}

/// The README's `main`: `resolve_all()?` and a call's `?` in one function returning `Error`.
#[test]
fn resolve_all_and_calls_share_one_error_type() {
    fn main_like() -> Result<(), Error> {
        MISSING_LIBRARY.resolve_all()?;
        // SAFETY: `cuInit(0)` has no pointer arguments.
        unsafe { MISSING_LIBRARY.cuInit(0)? };
        Ok(())
    }
    let e = main_like().unwrap_err();
    let ErrorKind::ResolveAll(errors) = e.kind() else {
        panic!("{e:#?}")
    };
    assert_eq!(errors.as_slice().len(), OnDriver::FUNCTIONS.len());
    assert_eq!(e.to_string(), errors.to_string());
}

#[test]
fn per_thread_spec_of_cu_launch_kernel() {
    let launch = spec(PerThread::FUNCTIONS, "cuLaunchKernel");
    assert_eq!(launch.abi.version, 4000);
    assert_eq!(
        launch.abi.per_thread,
        Some(manifest::PerThread {
            version: 7000,
            export: Some("cuLaunchKernel_ptsz"),
        })
    );
    assert_eq!(
        launch.per_thread_typedef,
        Some("PFN_cuLaunchKernel_v7000_ptsz")
    );
    assert_eq!(
        launch.abi.request(StreamMode::PerThread),
        (7000, StreamMode::PerThread)
    );
    assert_eq!(
        launch.abi.request(StreamMode::Legacy),
        (4000, StreamMode::Legacy)
    );
    assert_eq!(
        launch.abi.expected_export(StreamMode::PerThread),
        Some("cuLaunchKernel_ptsz")
    );
    assert_eq!(
        launch.abi.expected_export(StreamMode::Legacy),
        Some("cuLaunchKernel")
    );
    // The spec does not depend on the table's stream mode: the mode picks at resolution.
    assert_eq!(launch, spec(Pinned::FUNCTIONS, "cuLaunchKernel"));

    // A function without a per-thread twin is requested as legacy in both modes.
    let init = spec(PerThread::FUNCTIONS, "cuInit");
    assert_eq!(init.abi.per_thread, None);
    assert_eq!(
        init.abi.request(StreamMode::PerThread),
        (2000, StreamMode::Legacy)
    );
    assert_eq!(
        init.abi.request(StreamMode::Legacy),
        (2000, StreamMode::Legacy)
    );
}

#[test]
fn raw_pointer_of_an_unlisted_function_is_none() {
    // Answered from the table's list alone: no library is loaded.
    assert!(PINNED.raw_pointer("cuMemAlloc").is_none());
}

#[test]
fn a_missing_library_is_an_error_value() {
    // SAFETY: `cuInit(0)` has no pointer arguments; here it is never reached.
    let err = unsafe { MISSING_LIBRARY.cuInit(0) }.unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::LibraryNotFound {
                library: CudaLibrary {
                    name: "libcuda",
                    ..
                },
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("/nonexistent/cuda-driver-table/libcuda.so.1"),
        "{err}"
    );
    // The accessor reports the same failure instead of a pointer.
    assert!(MISSING_LIBRARY.pfn_cuInit().is_err());
    assert!(MISSING_LIBRARY.resolve_all().is_err());
}

/// The driver floor follows the pins and the stream mode: the newest version a field is
/// requested at, never below the 11030 the lookup needs.
#[test]
fn the_driver_floor_of_a_table() {
    // cuInit 2000, cuCtxCreate 3020, cuLaunchKernel 4000 (per-thread twin 7000): all below 11.3.
    assert_eq!(Pinned::MIN_DRIVER_VERSION, 11030);
    assert_eq!(PINNED.min_driver_version(), 11030);
    // The default cuCtxCreate is ABI 12050.
    assert_eq!(Latest::MIN_DRIVER_VERSION, 12050);
    assert_eq!(PerThread::MIN_DRIVER_VERSION, 11030);
    // Usable in const context, e.g. for a `--version` string.
    const FLOOR: u32 = Latest::MIN_DRIVER_VERSION;
    assert_eq!(cuda_driver_table::CudaVersion(FLOOR).to_string(), "12.5");

    // The per-thread mode is the configuration's: a table made per-thread at run time counts
    // the per-thread twins (cuStreamGetCaptureInfo's are at 12030 like its default ABI).
    assert_eq!(
        Latest::with_config(Config::runtime().per_thread()).min_driver_version(),
        12050
    );
    /// cuStreamGetCaptureInfo's default ABI is 12030.
    #[cuda_driver_table::driver_table(cuStreamGetCaptureInfo, driver = newest)]
    struct CaptureLatest;
    assert_eq!(CaptureLatest::MIN_DRIVER_VERSION, 12030);
}
