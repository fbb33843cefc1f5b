//! Tables declared by users' `macro_rules!`, with every kind of fragment the attribute's parts can
//! arrive as (`$f:ident`, `$vis:vis`, `$v:literal`, `$v:expr`, `$k:path`, `$m:meta`, `$t:tt`,
//! a whole `$i:item`), and the ways Rust writes the same number or name (`3020u32`, `0xBCC`,
//! `0o5714`, `3_020`, `r#cuInit`). Each table is called through an in-process resolver that records what
//! was asked: the methods work, and each function is requested at exactly the ABI it is pinned
//! to. CPU only.

use cuda_driver_table::{
    driver_table, sys, Config, LookupResult, Query, Resolver, StreamMode, Versioning,
};
use std::ffi::{c_int, c_uint, c_void, CStr};
use std::ptr::NonNull;
use std::sync::Mutex;

extern "C" fn fake_init(flags: c_uint) -> sys::CUresult {
    if flags == 0 {
        sys::CUresult::CUDA_SUCCESS
    } else {
        sys::CUresult::CUDA_ERROR_INVALID_VALUE
    }
}

extern "C" fn fake_driver_get_version(v: *mut c_int) -> sys::CUresult {
    // SAFETY: the caller passes a valid place for the version (the generated method forwards it).
    unsafe { *v = 13_000 };
    sys::CUresult::CUDA_SUCCESS
}

extern "C" fn fake_ctx_create_v2(
    ctx: *mut sys::CUcontext,
    _flags: c_uint,
    _dev: sys::CUdevice,
) -> sys::CUresult {
    // SAFETY: as above, a valid place for the context.
    unsafe { *ctx = std::ptr::dangling_mut() };
    sys::CUresult::CUDA_SUCCESS
}

extern "C" fn fake_mem_alloc_v2(dptr: *mut sys::CUdeviceptr, bytes: usize) -> sys::CUresult {
    // SAFETY: as above, a valid place for the device pointer.
    unsafe { *dptr = 0x1000 + bytes as sys::CUdeviceptr };
    sys::CUresult::CUDA_SUCCESS
}

/// Hands out the functions above at exactly the ABIs their signatures are (`cuInit` 2000,
/// `cuDriverGetVersion` 2020, `cuCtxCreate` and `cuMemAlloc` 3020) and records every request.
struct Fake {
    requests: Mutex<Vec<(String, Query)>>,
}

// SAFETY: every pointer handed out is a function of exactly the C signature of the ABI it is
// returned for, and only for that ABI; anything else is `SymbolNotFound`.
unsafe impl Resolver for Fake {
    fn describe(&self) -> String {
        "a fake driver".to_string()
    }
    fn versioning(&self) -> Versioning {
        Versioning::Versioned
    }
    fn lookup(&self, symbol: &CStr, query: Query, _: StreamMode) -> LookupResult {
        let name = symbol.to_str().unwrap_or_default();
        self.requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((name.to_string(), query));
        let f: *mut c_void = match (name, query) {
            ("cuInit", Query::ByVersion(2000)) => fake_init as *mut c_void,
            ("cuDriverGetVersion", Query::ByVersion(2020)) => {
                fake_driver_get_version as *mut c_void
            }
            ("cuCtxCreate", Query::ByVersion(3020)) => fake_ctx_create_v2 as *mut c_void,
            ("cuMemAlloc", Query::ByVersion(3020)) => fake_mem_alloc_v2 as *mut c_void,
            _ => return LookupResult::SymbolNotFound,
        };
        NonNull::new(f).map_or(LookupResult::SymbolNotFound, LookupResult::Found)
    }
}

static FAKE: Fake = Fake {
    requests: Mutex::new(Vec::new()),
};

const FAKE_CONFIG: Config = Config::custom(&FAKE);

/// The versions `name` was requested at so far.
fn requested(name: &str) -> Vec<Query> {
    FAKE.requests
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .filter(|(n, _)| n == name)
        .map(|(_, q)| *q)
        .collect()
}

/// The struct's name, visibility and functions as `ident` and `vis` fragments.
macro_rules! by_ident {
    ($vis:vis $name:ident: $($f:ident),*) => {
        #[driver_table($($f),*, driver = newest)]
        $vis struct $name;
    };
}

/// A pin as a `literal` fragment.
macro_rules! pin_literal {
    ($name:ident, $f:ident = $v:literal) => {
        #[driver_table(cuInit, $f = $v, driver = newest)]
        pub struct $name;
    };
}

/// A pin as an `expr` fragment.
macro_rules! pin_expr {
    ($name:ident, $f:ident = $v:expr) => {
        #[driver_table(cuInit, $f = $v, driver = newest)]
        pub struct $name;
    };
}

/// The crate path as a `path` fragment, attributes as `meta` fragments.
macro_rules! with_path {
    ($(#[$m:meta])* $name:ident, $k:path) => {
        #[driver_table(cuInit, cuMemAlloc, crate = $k, driver = newest)]
        $(#[$m])*
        pub struct $name;
    };
}

/// The whole argument list as token trees.
macro_rules! tokens {
    ($name:ident, $($t:tt)*) => {
        #[driver_table($($t)*, driver = newest)]
        pub struct $name;
    };
}

/// The struct as an `item` fragment.
macro_rules! item {
    ($i:item) => {
        #[driver_table(cuInit, cuMemAlloc = 3020, driver = newest)]
        $i
    };
}

by_ident!(pub(crate) Idents: cuInit, cuDriverGetVersion, cuCtxCreate);
pin_literal!(Literal, cuCtxCreate = 3020);
pin_literal!(Suffixed, cuCtxCreate = 3020u32);
pin_literal!(Hex, cuCtxCreate = 0xBCC);
pin_expr!(Expr, cuMemAlloc = 3_020);
with_path!(
    #[derive(Debug)]
    #[doc = "A table through a path fragment."]
    Path,
    ::cuda_driver_table
);
tokens!(Tokens, r#cuInit, cuMemAlloc = 3020, backend = driver);
item!(
    pub struct Item;
);

#[driver_table(cuInit, cuCtxCreate = 0o5714, driver = newest)]
pub struct Octal;

static IDENTS: Idents = Idents::with_config(FAKE_CONFIG);
static LITERAL: Literal = Literal::with_config(FAKE_CONFIG);
static SUFFIXED: Suffixed = Suffixed::with_config(FAKE_CONFIG);
static HEX: Hex = Hex::with_config(FAKE_CONFIG);
static EXPR: Expr = Expr::with_config(FAKE_CONFIG);
static PATH: Path = Path::with_config(FAKE_CONFIG);
static TOKENS: Tokens = Tokens::with_config(FAKE_CONFIG);
static ITEM: Item = Item::with_config(FAKE_CONFIG);
static OCTAL: Octal = Octal::with_config(FAKE_CONFIG);

/// Every pin in this file is to ABI 3020: only that version may have been asked for.
fn only_3020_was_asked(name: &str) {
    let asked = requested(name);
    assert!(!asked.is_empty(), "{name} was never requested");
    assert!(
        asked.iter().all(|q| *q == Query::ByVersion(3020)),
        "{name}: {asked:?}"
    );
}

#[test]
fn ident_and_vis_fragments_make_a_working_table() {
    let mut version = 0;
    // SAFETY: `version` is a valid place for the version; `cuInit` takes a plain integer.
    unsafe {
        IDENTS.cuInit(0).expect("cuInit");
        IDENTS
            .cuDriverGetVersion(&mut version)
            .expect("cuDriverGetVersion");
    }
    assert_eq!(version, 13_000);
    assert_eq!(requested("cuInit")[0], Query::ByVersion(2000));
    assert_eq!(requested("cuDriverGetVersion"), [Query::ByVersion(2020)]);
    let names: Vec<_> = Idents::FUNCTIONS.iter().map(|f| f.name).collect();
    assert_eq!(names, ["cuInit", "cuDriverGetVersion", "cuCtxCreate"]);
}

#[test]
fn pins_as_literals_expressions_suffixed_or_in_another_radix_pin_the_abi() {
    let mut ctx = std::ptr::null_mut();
    for table in [&LITERAL as &dyn CtxCreate, &SUFFIXED, &HEX, &OCTAL] {
        table.create(&mut ctx);
        assert!(!ctx.is_null());
    }
    for functions in [
        Literal::FUNCTIONS,
        Suffixed::FUNCTIONS,
        Hex::FUNCTIONS,
        Octal::FUNCTIONS,
    ] {
        assert_eq!(functions[1].typedef, "PFN_cuCtxCreate_v3020");
    }
    only_3020_was_asked("cuCtxCreate");

    let mut dptr = 0;
    // SAFETY: `dptr` is a valid place for the device pointer.
    unsafe { EXPR.cuMemAlloc(&mut dptr, 16) }.expect("cuMemAlloc");
    assert_eq!(dptr, 0x1010);
    assert_eq!(Expr::FUNCTIONS[1].typedef, "PFN_cuMemAlloc_v3020");
    only_3020_was_asked("cuMemAlloc");
}

/// The pinned `cuCtxCreate` of each table above, whatever the table.
trait CtxCreate: Sync {
    fn create(&self, ctx: &mut sys::CUcontext);
}

macro_rules! ctx_create {
    ($($table:ty),*) => {$(
        impl CtxCreate for $table {
            fn create(&self, ctx: &mut sys::CUcontext) {
                // A `PFN_cuCtxCreate_v3020` (three arguments): only the pinned ABI has this type.
                let _: fn(&Self) -> sys::PFN_cuCtxCreate_v3020 = |t| t.pfn_cuCtxCreate().ok();
                // SAFETY: `ctx` is a valid place for the context; the fake checks nothing else.
                unsafe { self.cuCtxCreate(ctx, 0, 0) }.expect("cuCtxCreate");
            }
        }
    )*};
}
ctx_create!(Literal, Suffixed, Hex, Octal);

#[test]
fn path_meta_tt_and_item_fragments_make_working_tables() {
    let mut dptr = 0;
    // SAFETY: `dptr` is a valid place for the device pointer; `cuInit` takes a plain integer.
    unsafe {
        PATH.cuInit(0).expect("cuInit through a path fragment");
        PATH.cuMemAlloc(&mut dptr, 1).expect("cuMemAlloc");
        TOKENS.cuInit(0).expect("cuInit written r#cuInit");
        TOKENS.cuMemAlloc(&mut dptr, 2).expect("cuMemAlloc");
        ITEM.cuInit(0).expect("cuInit of an item fragment");
        ITEM.cuMemAlloc(&mut dptr, 3).expect("cuMemAlloc");
    }
    assert_eq!(dptr, 0x1003);
    // The `meta` fragments reached the struct: it is `Debug`.
    assert!(format!("{PATH:?}").starts_with("Path"));
    // `r#cuInit` is `cuInit`, and `backend = driver` was read after it.
    assert_eq!(Tokens::FUNCTIONS[0].name, "cuInit");
    assert!(matches!(
        Tokens::new().config().backend(),
        cuda_driver_table::Backend::Driver
    ));
    only_3020_was_asked("cuMemAlloc");
}
