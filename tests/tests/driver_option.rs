//! `driver = N` and exported symbols as names, end to end on the CPU: tables are called through
//! an in-process resolver that records what was asked, so each function is seen requested at the
//! ABI the option or the symbol selects; `MIN_DRIVER_VERSION` and `min_driver_version()` stay at
//! or below the driver in both stream modes.

use cuda_driver_table::{
    driver_table, manifest, sys, Config, LookupResult, Query, Resolver, StreamMode, Versioning,
};
use std::ffi::{c_int, c_uint, c_void, CStr};
use std::ptr::NonNull;
use std::sync::Mutex;

extern "C" fn fake_init(_: c_uint) -> sys::CUresult {
    sys::CUresult::CUDA_SUCCESS
}

extern "C" fn fake_ctx_create_v2(
    ctx: *mut sys::CUcontext,
    _: c_uint,
    _: sys::CUdevice,
) -> sys::CUresult {
    // SAFETY: the caller passes a valid place for the context (the generated method forwards it).
    unsafe { *ctx = std::ptr::dangling_mut() };
    sys::CUresult::CUDA_SUCCESS
}

extern "C" fn fake_ctx_create_v3(
    ctx: *mut sys::CUcontext,
    _: *mut sys::CUexecAffinityParam,
    _: c_int,
    _: c_uint,
    _: sys::CUdevice_v1,
) -> sys::CUresult {
    // SAFETY: as above.
    unsafe { *ctx = std::ptr::dangling_mut() };
    sys::CUresult::CUDA_SUCCESS
}

extern "C" fn fake_mem_alloc_v2(dptr: *mut sys::CUdeviceptr, bytes: usize) -> sys::CUresult {
    // SAFETY: as above, a valid place for the device pointer.
    unsafe { *dptr = 0x1000 + bytes as sys::CUdeviceptr };
    sys::CUresult::CUDA_SUCCESS
}

extern "C" fn fake_memcpy_htod(_: sys::CUdeviceptr, _: *const c_void, _: usize) -> sys::CUresult {
    sys::CUresult::CUDA_SUCCESS
}

/// Hands out the functions above at exactly the ABIs (and stream flags) their signatures are, and
/// records every request.
struct Fake {
    requests: Mutex<Vec<(String, Query, StreamMode)>>,
}

// SAFETY: every pointer handed out is a function of exactly the C signature of the ABI it is
// returned for (the per-thread twins of `cuMemcpyHtoD` have the signature of ABI 3020), and only
// for that ABI and flag; anything else is `SymbolNotFound`.
unsafe impl Resolver for Fake {
    fn describe(&self) -> String {
        "a fake driver".to_string()
    }
    fn versioning(&self) -> Versioning {
        Versioning::Versioned
    }
    fn lookup(&self, symbol: &CStr, query: Query, mode: StreamMode) -> LookupResult {
        let name = symbol.to_str().unwrap_or_default();
        self.requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((name.to_string(), query, mode));
        let Query::ByVersion(version) = query else {
            return LookupResult::SymbolNotFound;
        };
        let f: *mut c_void = match (name, version, mode) {
            ("cuInit", 2000, StreamMode::Legacy) => fake_init as *mut c_void,
            ("cuCtxCreate", 3020, StreamMode::Legacy) => fake_ctx_create_v2 as *mut c_void,
            ("cuCtxCreate", 11040, StreamMode::Legacy) => fake_ctx_create_v3 as *mut c_void,
            ("cuMemAlloc", 3020, StreamMode::Legacy) => fake_mem_alloc_v2 as *mut c_void,
            ("cuMemcpyHtoD", 3020, StreamMode::Legacy)
            | ("cuMemcpyHtoD", 7000, StreamMode::PerThread) => fake_memcpy_htod as *mut c_void,
            _ => return LookupResult::SymbolNotFound,
        };
        NonNull::new(f).map_or(LookupResult::SymbolNotFound, LookupResult::Found)
    }
}

impl Fake {
    const fn new() -> Self {
        Fake {
            requests: Mutex::new(Vec::new()),
        }
    }

    /// The requests for `name` so far.
    fn requests_of(&self, name: &str) -> Vec<(Query, StreamMode)> {
        self.requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|(n, _, _)| n == name)
            .map(|(_, q, m)| (*q, *m))
            .collect()
    }
}

/// The typedef each function of a table is bound to.
fn typedefs(functions: &[cuda_driver_table::FunctionSpec]) -> Vec<&'static str> {
    functions.iter().map(|f| f.typedef).collect()
}

#[driver_table(cuInit, cuCtxCreate, cuMemAlloc, driver = 12000)]
struct For12;

/// The same functions without the option: the release's newest ABIs.
#[driver_table(cuInit, cuCtxCreate, cuMemAlloc, driver = newest)]
struct Newest;

#[test]
fn each_plain_name_is_requested_at_the_newest_abi_the_driver_has() {
    static FAKE: Fake = Fake::new();
    static CU: For12 = For12::with_config(Config::custom(&FAKE));
    assert_eq!(
        typedefs(For12::FUNCTIONS),
        [
            "PFN_cuInit_v2000",
            "PFN_cuCtxCreate_v11040",
            "PFN_cuMemAlloc_v3020"
        ]
    );
    // The method has the signature of ABI 11040 (five parameters).
    let _: fn(&For12) -> sys::PFN_cuCtxCreate_v11040 = |t| t.pfn_cuCtxCreate().ok();
    let mut ctx = std::ptr::null_mut();
    // SAFETY: `ctx` is a valid place for the context; the fake reads nothing else.
    unsafe { CU.cuCtxCreate(&mut ctx, std::ptr::null_mut(), 0, 0, 0) }.expect("cuCtxCreate");
    assert!(!ctx.is_null());
    assert_eq!(
        FAKE.requests_of("cuCtxCreate"),
        [(Query::ByVersion(11040), StreamMode::Legacy)]
    );
    // Without the option, the newest ABI of the release.
    assert_ne!(Newest::FUNCTIONS[1].typedef, "PFN_cuCtxCreate_v11040");
    const { assert!(Newest::MIN_DRIVER_VERSION > 12000) };
}

#[driver_table(
    per_thread,
    cuInit,
    cuCtxCreate,
    cuMemcpyHtoD,
    cuLaunchKernel,
    cuStreamSynchronize,
    cuEventRecord,
    driver = 11030
)]
struct PerThread11030;

#[driver_table(all, driver = 11040)]
struct All11040;

#[test]
fn the_driver_floor_is_at_most_the_driver_in_both_stream_modes() {
    // In the stream mode the attribute selects.
    const _: () = assert!(For12::MIN_DRIVER_VERSION <= 12000);
    const _: () = assert!(PerThread11030::MIN_DRIVER_VERSION <= 11030);
    const _: () = assert!(All11040::MIN_DRIVER_VERSION <= 11040);
    // And in the other mode, as a configuration switched at run time makes it.
    for (floor, driver) in [
        (
            For12::with_config(Config::runtime().per_thread()).min_driver_version(),
            12000,
        ),
        (For12::new().min_driver_version(), 12000),
        (PerThread11030::new().min_driver_version(), 11030),
        (
            PerThread11030::with_config(Config::runtime()).min_driver_version(),
            11030,
        ),
        (All11040::new().min_driver_version(), 11040),
        (
            All11040::with_config(Config::runtime().per_thread()).min_driver_version(),
            11040,
        ),
    ] {
        assert!(floor <= driver, "{floor} > {driver}");
    }
    // Every function of a per-thread table is asked for at a version the driver has, the
    // per-thread twins (`cuMemcpyHtoD_v2_ptds`, ABI 7000) included.
    for spec in PerThread11030::FUNCTIONS.iter().chain(All11040::FUNCTIONS) {
        for mode in [StreamMode::Legacy, StreamMode::PerThread] {
            let (version, _) = spec.abi.request(mode);
            assert!(version <= 11040, "{} at {version} in {mode:?}", spec.name);
        }
    }
    assert_eq!(
        PerThread11030::FUNCTIONS[2]
            .abi
            .request(StreamMode::PerThread),
        (7000, StreamMode::PerThread)
    );
}

#[test]
fn all_under_a_driver_is_every_function_such_a_driver_has() {
    let all = manifest::functions();
    assert!(All11040::FUNCTIONS.len() < all.len());
    // A function the 11.4 driver does not have is left out; one it has is at its newest ABI
    // at or below 11040.
    let names: Vec<&str> = All11040::FUNCTIONS.iter().map(|f| f.name).collect();
    assert!(!names.contains(&"cuLibraryLoadData"));
    let ctx_create = All11040::FUNCTIONS
        .iter()
        .find(|f| f.name == "cuCtxCreate")
        .expect("cuCtxCreate is older than 11.4");
    assert_eq!(ctx_create.typedef, "PFN_cuCtxCreate_v11040");
}

/// `driver` as a `literal` fragment.
macro_rules! driver_literal {
    ($name:ident, $v:literal) => {
        #[driver_table(cuInit, cuCtxCreate, driver = $v)]
        pub struct $name;
    };
}

/// `driver` as an `expr` fragment.
macro_rules! driver_expr {
    ($name:ident, $v:expr) => {
        #[driver_table(cuInit, cuCtxCreate, driver = $v)]
        pub struct $name;
    };
}

driver_literal!(LiteralString, "12.0");
driver_literal!(LiteralNumber, 12000);
driver_expr!(ExprUnderscores, 12_000);
driver_expr!(ExprSuffixed, 11_040u32);

#[test]
fn driver_as_a_macro_rules_fragment_selects_the_same_abis() {
    for functions in [
        LiteralString::FUNCTIONS,
        LiteralNumber::FUNCTIONS,
        ExprUnderscores::FUNCTIONS,
        ExprSuffixed::FUNCTIONS,
    ] {
        assert_eq!(
            typedefs(functions),
            ["PFN_cuInit_v2000", "PFN_cuCtxCreate_v11040"]
        );
    }
}

#[driver_table(cuInit, cuCtxCreate_v2, cuMemAlloc_v2, driver = newest)]
struct ByExport;

#[test]
fn an_exported_symbol_selects_its_abi_and_the_method_keeps_the_c_name() {
    static FAKE: Fake = Fake::new();
    static CU: ByExport = ByExport::with_config(Config::custom(&FAKE));
    let names: Vec<&str> = ByExport::FUNCTIONS.iter().map(|f| f.name).collect();
    assert_eq!(names, ["cuInit", "cuCtxCreate", "cuMemAlloc"]);
    assert_eq!(
        typedefs(ByExport::FUNCTIONS),
        [
            "PFN_cuInit_v2000",
            "PFN_cuCtxCreate_v3020",
            "PFN_cuMemAlloc_v3020"
        ]
    );
    let _: fn(&ByExport) -> sys::PFN_cuCtxCreate_v3020 = |t| t.pfn_cuCtxCreate().ok();
    let (mut ctx, mut dptr) = (std::ptr::null_mut(), 0);
    // SAFETY: `ctx` and `dptr` are valid places; the fake reads nothing else.
    unsafe {
        CU.cuCtxCreate(&mut ctx, 0, 0).expect("cuCtxCreate");
        CU.cuMemAlloc(&mut dptr, 16).expect("cuMemAlloc");
    }
    assert_eq!(dptr, 0x1010);
    assert_eq!(
        FAKE.requests_of("cuCtxCreate"),
        [(Query::ByVersion(3020), StreamMode::Legacy)]
    );
    assert_eq!(
        FAKE.requests_of("cuMemAlloc"),
        [(Query::ByVersion(3020), StreamMode::Legacy)]
    );
}

#[driver_table(per_thread, cuMemcpyHtoD_v2_ptds, cuLaunchKernel_ptsz, driver = newest)]
struct ByPerThreadExport;

#[test]
fn a_per_thread_symbol_is_its_abi_requested_with_the_per_thread_flag() {
    static FAKE: Fake = Fake::new();
    static FAKE_LEGACY: Fake = Fake::new();
    static CU: ByPerThreadExport = ByPerThreadExport::new_with(&FAKE, StreamMode::PerThread);
    let typedefs = typedefs(ByPerThreadExport::FUNCTIONS);
    assert_eq!(
        typedefs,
        ["PFN_cuMemcpyHtoD_v3020", "PFN_cuLaunchKernel_v4000"]
    );
    // SAFETY: the fake reads nothing.
    unsafe { CU.cuMemcpyHtoD(0, std::ptr::null(), 0) }.expect("cuMemcpyHtoD");
    assert_eq!(
        FAKE.requests_of("cuMemcpyHtoD"),
        [(Query::ByVersion(7000), StreamMode::PerThread)]
    );
    // The symbol names the ABI; the table's stream mode chooses the flag: switched to the
    // legacy stream at run time, the same table asks for the legacy ABI.
    let legacy = ByPerThreadExport::new_with(&FAKE_LEGACY, StreamMode::Legacy);
    // SAFETY: as above.
    unsafe { legacy.cuMemcpyHtoD(0, std::ptr::null(), 0) }.expect("cuMemcpyHtoD");
    assert_eq!(
        FAKE_LEGACY.requests_of("cuMemcpyHtoD"),
        [(Query::ByVersion(3020), StreamMode::Legacy)]
    );
}

impl ByPerThreadExport {
    const fn new_with(fake: &'static Fake, mode: StreamMode) -> Self {
        let config = Config::custom(fake);
        Self::with_config(match mode {
            StreamMode::PerThread => config.per_thread(),
            StreamMode::Legacy => config,
        })
    }
}

#[driver_table(cuInit, cuCtxCreate_v3, driver = 12000)]
struct ExportUnderDriver;

#[test]
fn an_exported_symbol_the_driver_has_is_taken_as_written() {
    assert_eq!(
        typedefs(ExportUnderDriver::FUNCTIONS),
        ["PFN_cuInit_v2000", "PFN_cuCtxCreate_v11040"]
    );
    const _: () = assert!(ExportUnderDriver::MIN_DRIVER_VERSION <= 12000);
}
