//! Every message byte for byte, and the report of `resolve_all`: shared causes once.

use super::*;
use crate::backend::{Driver, Os, Runtime};

// The messages on Linux; `windows_messages_name_the_windows_files` has those of Windows.
const CUDART: CudaLibrary = Runtime::library(Os::Unix);
const LIBCUDA: CudaLibrary = Driver::library(Os::Unix);

#[test]
fn error_is_one_pointer() {
    assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
    assert_eq!(
        std::mem::size_of::<Result<std::ptr::NonNull<std::ffi::c_void>, Error>>(),
        2 * std::mem::size_of::<usize>()
    );
}

#[test]
fn code_only_for_cuda_errors() {
    let e: Error = ErrorKind::Cuda {
        function: "cuMemAlloc",
        code: 2,
        name: Some("CUDA_ERROR_OUT_OF_MEMORY".into()),
        description: Some("out of memory".into()),
        ptx: None,
    }
    .into();
    assert_eq!(e.code(), Some(2));
    assert_eq!(
        e.to_string(),
        "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory"
    );
    let e: Error = ErrorKind::SymbolNotFound {
        function: "cuFoo",
        version: 2000,
    }
    .into();
    assert_eq!(e.code(), None);
}

const UNVERSIONED_REASON: &str = "only has the unversioned cudaGetDriverEntryPoint, which \
     returns the newest ABI up to its own version, and could not hand out the driver's \
     cuGetProcAddress, which asks by version. To fix: update the NVIDIA driver to CUDA 11.3 or \
     newer (the first with cuGetProcAddress)";

/// The message of every variant, pinned byte for byte (`Display` is written by hand).
#[test]
fn display_messages() {
    let cases: Vec<(ErrorKind, String)> = vec![
        (
            ErrorKind::LibraryNotFound {
                library: CUDART,
                origin: Origin::Search,
                tried: vec![
                    ("\"libcudart.so.12\"".into(), "not found".into()),
                    ("\"/opt/cuda/lib64/libcudart.so\"".into(), "bad ELF".into()),
                ],
            },
            "could not load the CUDA runtime library (libcudart); tried:\n  \
             \"libcudart.so.12\": not found\n  \"/opt/cuda/lib64/libcudart.so\": bad ELF\n\
             To fix: install the CUDA runtime (a CUDA toolkit or the nvidia-cuda-runtime \
             wheel), set CUDA_DRIVER_TABLE_CUDART to the library's full path, or give it in \
             code with Config::library(..), or use the driver backend Config::driver()"
                .into(),
        ),
        (
            ErrorKind::LibraryNotFound {
                library: LIBCUDA,
                origin: Origin::Search,
                tried: vec![],
            },
            "could not load the CUDA driver library (libcuda.so.1); tried: nothing\n\
             To fix: install the NVIDIA driver, set CUDA_DRIVER_TABLE_LIBCUDA to the \
             library's full path, or give it in code with Config::library(..)"
                .into(),
        ),
        (
            ErrorKind::LibraryNotFound {
                library: LIBCUDA,
                origin: Origin::Code,
                tried: vec![(
                    "\"/x/libcuda.so.1 \" (from Config::library)".into(),
                    "cannot open shared object file: No such file or directory".into(),
                )],
            },
            "could not load the CUDA driver library (libcuda.so.1); tried:\n  \
             \"/x/libcuda.so.1 \" (from Config::library): cannot open shared object file: No \
             such file or directory\n\
             To fix: give Config::library(..) the library's full path (or a bare file name \
             for the system loader), or leave it out to search for the library"
                .into(),
        ),
        (
            ErrorKind::LibraryNotFound {
                library: CUDART,
                origin: Origin::Environment,
                tried: vec![(
                    "\"lib/libcudart.so\" (from $CUDA_DRIVER_TABLE_CUDART)".into(),
                    "a relative path is not used".into(),
                )],
            },
            "could not load the CUDA runtime library (libcudart); tried:\n  \
             \"lib/libcudart.so\" (from $CUDA_DRIVER_TABLE_CUDART): a relative path is not \
             used\n\
             To fix: set CUDA_DRIVER_TABLE_CUDART to the library's full path (or a bare file \
             name for the system loader), or unset it to search for the library"
                .into(),
        ),
        (
            ErrorKind::NotACudaLibrary {
                library: LIBCUDA,
                origin: Origin::Code,
                path: "/x/libcuda.so".into(),
                missing: vec!["cuGetProcAddress_v2", "cuGetProcAddress"],
            },
            "\"/x/libcuda.so\" loaded, but it is not a usable CUDA driver library: it exports \
             none of cuGetProcAddress_v2, cuGetProcAddress\n\
             To fix: give Config::library(..) the path of the CUDA driver library (libcuda.so.1)"
                .into(),
        ),
        (
            ErrorKind::NotACudaLibrary {
                library: CUDART,
                origin: Origin::Environment,
                path: "/x/libfoo.so".into(),
                missing: vec!["cudaGetDriverEntryPoint"],
            },
            "\"/x/libfoo.so\" loaded, but it is not a usable CUDA runtime library: it exports \
             none of cudaGetDriverEntryPoint\n\
             To fix: set CUDA_DRIVER_TABLE_CUDART to the path of the CUDA runtime library \
             (libcudart), or unset it to search for it"
                .into(),
        ),
        (
            ErrorKind::DriverTooOld {
                function: "cuMemAlloc",
                requested: 12050,
                driver: Some(12020),
            },
            "cuMemAlloc: requested at version 12050 (CUDA 12.5), but the driver is older \
             (CUDA 12.2); update the NVIDIA driver, or pin an older ABI of cuMemAlloc that this \
             driver has (cuMemAlloc = 3020)"
                .into(),
        ),
        (
            ErrorKind::DriverTooOld {
                function: "cuMemAlloc",
                requested: 12050,
                driver: None,
            },
            "cuMemAlloc: requested at version 12050 (CUDA 12.5), but the driver is older \
             (its version is unknown); update the NVIDIA driver, or pin an older ABI of \
             cuMemAlloc (cuMemAlloc = 3020)"
                .into(),
        ),
        // The newest older ABI the driver has: cuCtxCreate has 2000, 3020, 11040 and 12050.
        (
            ErrorKind::DriverTooOld {
                function: "cuCtxCreate",
                requested: 12050,
                driver: Some(12020),
            },
            "cuCtxCreate: requested at version 12050 (CUDA 12.5), but the driver is older \
             (CUDA 12.2); update the NVIDIA driver, or pin an older ABI of cuCtxCreate that \
             this driver has (cuCtxCreate = 11040)"
                .into(),
        ),
        (
            ErrorKind::DriverTooOld {
                function: "cuCtxCreate",
                requested: 12050,
                driver: Some(11030),
            },
            "cuCtxCreate: requested at version 12050 (CUDA 12.5), but the driver is older \
             (CUDA 11.3); update the NVIDIA driver, or pin an older ABI of cuCtxCreate that \
             this driver has (cuCtxCreate = 3020)"
                .into(),
        ),
        // Older ABIs, but none this driver has: nothing to pin.
        (
            ErrorKind::DriverTooOld {
                function: "cuStreamGetCaptureInfo",
                requested: 12030,
                driver: Some(10000),
            },
            "cuStreamGetCaptureInfo: requested at version 12030 (CUDA 12.3), but the driver is \
             older (CUDA 10.0); update the NVIDIA driver"
                .into(),
        ),
        // One ABI: nothing older to pin.
        (
            ErrorKind::DriverTooOld {
                function: "cuLibraryLoadData",
                requested: 12000,
                driver: Some(11080),
            },
            "cuLibraryLoadData: requested at version 12000 (CUDA 12.0), but the driver is older \
             (CUDA 11.8); update the NVIDIA driver"
                .into(),
        ),
        (
            ErrorKind::DriverTooOld {
                function: "cuLibraryLoadData",
                requested: 12000,
                driver: None,
            },
            "cuLibraryLoadData: requested at version 12000 (CUDA 12.0), but the driver is older \
             (its version is unknown); update the NVIDIA driver"
                .into(),
        ),
        // Not in the history (a custom resolver's name): no ABI to advise.
        (
            ErrorKind::DriverTooOld {
                function: "cuNoSuchFunction",
                requested: 12000,
                driver: Some(11080),
            },
            "cuNoSuchFunction: requested at version 12000 (CUDA 12.0), but the driver is older \
             (CUDA 11.8); update the NVIDIA driver"
                .into(),
        ),
        (
            ErrorKind::SymbolNotFound {
                function: "cuFoo",
                version: 2000,
            },
            "cuFoo (ABI 2000) was not found in the driver; the driver may be too old for it".into(),
        ),
        (
            ErrorKind::VersionNotSufficient {
                function: "cuFoo",
                version: 2000,
            },
            "cuFoo: the driver has it, but only in an ABI newer than the pinned ABI 2000; \
             pin a newer ABI"
                .into(),
        ),
        (
            ErrorKind::UnversionedLookupUnsafe {
                function: "cuCtxCreate",
                requested: 3020,
                runtime_version: 12040,
                would_get: Some(11040),
            },
            format!(
                "cuCtxCreate is pinned to ABI 3020 but libcudart 12.4 would return ABI \
                 11040: libcudart 12.4 {UNVERSIONED_REASON}"
            ),
        ),
        (
            ErrorKind::UnversionedLookupUnsafe {
                function: "cuNoSuchFunction",
                requested: 12000,
                runtime_version: 12000,
                would_get: None,
            },
            format!(
                "cuNoSuchFunction is pinned to ABI 12000, but the ABI history does not know \
                 it, so it cannot be proven that libcudart 12.0 would return that ABI: \
                 libcudart 12.0 {UNVERSIONED_REASON}"
            ),
        ),
        (
            ErrorKind::UnversionedLookupUnsafe {
                function: "cuCtxCreate",
                requested: 3020,
                runtime_version: 1000,
                would_get: None,
            },
            format!(
                "cuCtxCreate is pinned to ABI 3020, but libcudart 1.0 has no ABI of it at or \
                 below its own version: libcudart 1.0 {UNVERSIONED_REASON}"
            ),
        ),
        (
            ErrorKind::LookupFailed {
                function: "cuMemAlloc",
                status: Status::new(
                    35,
                    "cudaErrorInsufficientDriver",
                    "CUDA driver version is insufficient for CUDA runtime version",
                ),
                backend: "libcudart 12.4 (/usr/lib/libcudart.so.12)".into(),
            },
            "looking up cuMemAlloc through libcudart 12.4 (/usr/lib/libcudart.so.12) failed: \
             cudaErrorInsufficientDriver (35): CUDA driver version is insufficient for CUDA \
             runtime version"
                .into(),
        ),
        (
            ErrorKind::Cuda {
                function: "cuMemAlloc",
                code: 2,
                name: Some("CUDA_ERROR_OUT_OF_MEMORY".into()),
                description: Some("out of memory".into()),
                ptx: None,
            },
            "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory".into(),
        ),
        (
            ErrorKind::Cuda {
                function: "cuFoo",
                code: 999,
                name: Some("CUDA_ERROR_UNKNOWN".into()),
                description: None,
                ptx: None,
            },
            "cuFoo failed: CUDA_ERROR_UNKNOWN (999)".into(),
        ),
        (
            ErrorKind::Cuda {
                function: "cuFoo",
                code: 12345,
                name: None,
                description: None,
                ptx: None,
            },
            "cuFoo failed: unknown CUresult (12345)".into(),
        ),
    ];
    for (kind, expected) in cases {
        assert_eq!(kind.to_string(), expected);
        assert!(std::error::Error::source(&kind).is_none());
        let e = Error::from(kind);
        assert_eq!(e.to_string(), expected);
        assert!(std::error::Error::source(&e).is_none());
    }
}

/// On Windows the messages name `nvcuda.dll` and `cudart64_*.dll`, the files a user looks for
/// there, and nothing of Linux's.
#[test]
fn windows_messages_name_the_windows_files() {
    let cases: Vec<(ErrorKind, &str)> = vec![
        (
            ErrorKind::LibraryNotFound {
                library: Driver::library(Os::Windows),
                origin: Origin::Search,
                tried: vec![("\"nvcuda.dll\"".into(), "not found".into())],
            },
            "could not load the CUDA driver library (nvcuda.dll); tried:\n  \"nvcuda.dll\": not \
             found\n\
             To fix: install the NVIDIA driver, set CUDA_DRIVER_TABLE_LIBCUDA to the library's \
             full path, or give it in code with Config::library(..)",
        ),
        (
            ErrorKind::LibraryNotFound {
                library: Runtime::library(Os::Windows),
                origin: Origin::Search,
                tried: vec![("\"cudart64_13.dll\"".into(), "not found".into())],
            },
            "could not load the CUDA runtime library (cudart64_*.dll); tried:\n  \
             \"cudart64_13.dll\": not found\n\
             To fix: install the CUDA runtime (a CUDA toolkit or the nvidia-cuda-runtime wheel), \
             set CUDA_DRIVER_TABLE_CUDART to the library's full path, or give it in code with \
             Config::library(..), or use the driver backend Config::driver()",
        ),
        (
            ErrorKind::NotACudaLibrary {
                library: Driver::library(Os::Windows),
                origin: Origin::Code,
                path: r"C:\Windows\System32\kernel32.dll".into(),
                missing: vec!["cuGetProcAddress_v2", "cuGetProcAddress"],
            },
            "\"C:\\Windows\\System32\\kernel32.dll\" loaded, but it is not a usable CUDA driver \
             library: it exports none of cuGetProcAddress_v2, cuGetProcAddress\n\
             To fix: give Config::library(..) the path of the CUDA driver library (nvcuda.dll)",
        ),
        (
            ErrorKind::NotACudaLibrary {
                library: Runtime::library(Os::Windows),
                origin: Origin::Environment,
                path: r"C:\x\nvcuda.dll".into(),
                missing: vec!["cudaGetDriverEntryPointByVersion"],
            },
            "\"C:\\x\\nvcuda.dll\" loaded, but it is not a usable CUDA runtime library: it \
             exports none of cudaGetDriverEntryPointByVersion\n\
             To fix: set CUDA_DRIVER_TABLE_CUDART to the path of the CUDA runtime library \
             (cudart64_*.dll), or unset it to search for it",
        ),
    ];
    for (kind, expected) in cases {
        let text = Error::from(kind).to_string();
        assert_eq!(text, expected);
        assert!(!text.contains("libcuda") && !text.contains(".so"), "{text}");
    }
}

/// The codes that say which driver is really there (a stub, a driver whose kernel module is of
/// another version, a forward-compatibility driver on a GPU without support for it) are
/// explained: the cause on one line, the fix on the next, after the driver's own message.
#[test]
#[cfg(not(windows))]
fn which_driver_is_there_is_explained_with_its_fix() {
    let cuda = |code, name: &str, description: &str| {
        Error::from(ErrorKind::Cuda {
            function: "cuInit",
            code,
            name: Some(name.to_owned()),
            description: Some(description.to_owned()),
            ptx: None,
        })
        .to_string()
    };
    assert_eq!(
        cuda(
            803,
            "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
            "system has unsupported display driver / cuda driver combination"
        ),
        "cuInit failed: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803): system has unsupported display \
         driver / cuda driver combination\n\
         The driver's library (libcuda.so.1) and its loaded kernel module are of different \
         versions: typically the driver was upgraded without a reboot (the module's version is \
         in /proc/driver/nvidia/version).\n\
         To fix: reboot, or unload and reload the nvidia kernel modules, so that the module \
         running is the installed driver's"
    );
    assert_eq!(
        cuda(
            804,
            "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
            "forward compatibility was attempted on non supported HW"
        ),
        "cuInit failed: CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE (804): forward compatibility \
         was attempted on non supported HW\n\
         The libcuda loaded is a forward-compatibility driver (the cuda-compat package's, \
         usually found through LD_LIBRARY_PATH), and this GPU does not support forward \
         compatibility.\n\
         To fix: remove the cuda-compat folder from LD_LIBRARY_PATH (and from \
         CUDA_DRIVER_TABLE_LIBCUDA), so that the installed driver's libcuda.so.1 is loaded; for \
         a newer CUDA, update the driver itself"
    );
    // libcudart's lookup, over a stub libcuda, fails with its own code of the same number.
    let stub = Error::from(ErrorKind::LookupFailed {
        function: "cuInit",
        status: Status::new(34, "cudaErrorStubLibrary", "CUDA driver is a stub library"),
        backend: "the CUDA runtime (libcudart.so.13)".into(),
    });
    assert_eq!(
        stub.to_string(),
        "looking up cuInit through the CUDA runtime (libcudart.so.13) failed: \
         cudaErrorStubLibrary (34): CUDA driver is a stub library\n\
         The libcuda loaded is a stub (a CUDA toolkit's lib64/stubs/libcuda.so, made for \
         linking), whose every function fails: the NVIDIA driver is not installed, or its \
         libcuda.so.1 is not the one found first.\n\
         To fix: install the NVIDIA driver, and point neither CUDA_DRIVER_TABLE_LIBCUDA nor \
         LD_LIBRARY_PATH at a stubs folder"
    );
    // Once in a report, with the cause shared by every function.
    let report = Errors(vec![stub.clone(), stub]).to_string();
    assert_eq!(report.matches("stubs/libcuda.so").count(), 1, "{report}");
    assert!(report.ends_with("at a stubs folder"), "{report}");
    // Other codes keep their one line.
    assert_eq!(
        cuda(3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"),
        "cuInit failed: CUDA_ERROR_NOT_INITIALIZED (3): initialization error"
    );
}

/// On Windows the explanations name `nvcuda.dll` and nothing of Linux's.
#[test]
fn which_driver_is_there_is_explained_in_windows_words_there() {
    for code in [34, 803] {
        let (cause, fix) = cause_and_fix(code, true).unwrap();
        for text in [cause, fix] {
            assert!(
                !text.contains("libcuda")
                    && !text.contains("LD_LIBRARY_PATH")
                    && !text.contains("/proc")
                    && !text.contains("kernel module"),
                "{text}"
            );
        }
    }
    assert!(cause_and_fix(34, true).unwrap().0.contains("nvcuda.dll"));
    assert!(cause_and_fix(34, false).unwrap().0.contains("libcuda.so"));
    assert_eq!(cause_and_fix(35, false), None);
}

#[test]
fn lookup_failure_without_description_has_no_trailing_colon() {
    let e = Error::from(ErrorKind::LookupFailed {
        function: "cuInit",
        status: Status::new(12345, "unknown CUresult", ""),
        backend: "the CUDA driver (libcuda.so.1, cuGetProcAddress_v2)".into(),
    });
    assert_eq!(
        e.to_string(),
        "looking up cuInit through the CUDA driver (libcuda.so.1, cuGetProcAddress_v2) \
         failed: unknown CUresult (12345)"
    );
}

/// `fn main() -> Result<(), Error>` prints `Error: {:?}`: that must be the message, with
/// its lines; `{:#?}` still shows the structure.
#[test]
fn debug_is_the_message_and_alternate_debug_the_structure() {
    let e = Error::from(ErrorKind::SymbolNotFound {
        function: "cuFoo",
        version: 2000,
    });
    assert_eq!(format!("{e:?}"), e.to_string());
    let structure = format!("{e:#?}");
    assert!(
        structure.starts_with("Error(\n    SymbolNotFound {"),
        "{structure}"
    );
    assert!(structure.contains("function: \"cuFoo\""), "{structure}");
}

#[test]
fn function_and_shared_cause() {
    let not_found = ErrorKind::LibraryNotFound {
        library: LIBCUDA,
        origin: Origin::Search,
        tried: vec![],
    };
    assert_eq!(not_found.function(), None);
    assert_eq!(not_found.shared_cause(), Some(not_found.to_string()));
    let lookup = |function| ErrorKind::LookupFailed {
        function,
        status: Status::new(
            35,
            "cudaErrorInsufficientDriver",
            "CUDA driver version is insufficient",
        ),
        backend: "libcudart 12.9 (/x)".into(),
    };
    assert_eq!(lookup("cuInit").function(), Some("cuInit"));
    assert_eq!(
        lookup("cuInit").shared_cause(),
        lookup("cuMemAlloc").shared_cause()
    );
    let own = ErrorKind::SymbolNotFound {
        function: "cuFoo",
        version: 2000,
    };
    assert_eq!(own.function(), Some("cuFoo"));
    assert_eq!(own.shared_cause(), None);
}

fn library_not_found() -> Error {
    ErrorKind::LibraryNotFound {
        library: CUDART,
        origin: Origin::Search,
        tried: vec![(
            "\"libcudart.so.13\"".into(),
            "cannot open shared object file".into(),
        )],
    }
    .into()
}

/// A failure shared by every function (here: no library) is written once, with the count.
#[test]
fn errors_report_a_shared_failure_once() {
    let all = Errors::from_vec(vec![library_not_found(); 447]).unwrap_err();
    let text = all.to_string();
    assert_eq!(
        text,
        format!(
            "447 driver functions could not be resolved, all for one reason:\n{}",
            library_not_found()
        )
    );
    assert_eq!(text.matches("libcudart.so.13").count(), 1, "{text}");
    assert_eq!(format!("{all:?}"), text);
    assert_eq!(all.as_slice().len(), 447);
}

/// Shared causes first, with the functions they affect; each function's own failure on a line.
#[test]
fn errors_list_shared_causes_and_own_failures() {
    let lookup = |function| -> Error {
        ErrorKind::LookupFailed {
            function,
            status: Status::new(
                35,
                "cudaErrorInsufficientDriver",
                "CUDA driver version is insufficient",
            ),
            backend: "libcudart 12.9 (/x)".into(),
        }
        .into()
    };
    let names = ["cuA", "cuB", "cuC", "cuD", "cuE", "cuF"];
    let mut list: Vec<Error> = names.iter().map(|n| lookup(n)).collect();
    list.push(
        ErrorKind::SymbolNotFound {
            function: "cuFoo",
            version: 2000,
        }
        .into(),
    );
    list.push(lookup("cuG"));
    let text = Errors::from_vec(list).unwrap_err().to_string();
    assert_eq!(
        text,
        "8 driver functions could not be resolved:\n  \
         - 7 functions (cuA, cuB, cuC, cuD, cuE, ...): looking them up through libcudart 12.9 \
         (/x) failed: cudaErrorInsufficientDriver (35): CUDA driver version is insufficient\n  \
         - cuFoo (ABI 2000) was not found in the driver; the driver may be too old for it"
    );
    let one = Errors::from_vec(vec![lookup("cuInit")]).unwrap_err();
    assert_eq!(
        one.to_string(),
        format!(
            "1 driver function could not be resolved:\n  - {}",
            lookup("cuInit")
        )
    );
}

/// Functions refused by one libcudart's unversioned lookup share its reason and its remedy:
/// written once for all of them, not once per function.
#[test]
fn unversioned_refusals_share_one_reason() {
    let refused = |function, requested, would_get| -> Error {
        ErrorKind::UnversionedLookupUnsafe {
            function,
            requested,
            runtime_version: 12040,
            would_get,
        }
        .into()
    };
    let list = vec![
        refused("cuCtxCreate", 12050, Some(11040)),
        refused("cuCtxGetDevice", 13000, Some(2000)),
        refused("cuCheckpointProcessLock", 12080, None),
    ];
    let text = Errors::from_vec(list).unwrap_err().to_string();
    assert_eq!(
        text,
        format!(
            "3 driver functions could not be resolved, all for one reason:\nlibcudart 12.4 \
             cannot be shown to return their pinned ABIs: libcudart 12.4 {UNVERSIONED_REASON}"
        )
    );
    assert_eq!(text.matches("To fix").count(), 1, "{text}");
}

/// `resolve_all()?` in `fn main() -> Result<(), Error>`: the report converts into an `Error`
/// that prints the same.
#[test]
fn errors_convert_into_an_error() {
    fn main_like(errors: Vec<Error>) -> Result<(), Error> {
        Errors::from_vec(errors)?;
        Ok(())
    }
    assert_eq!(main_like(Vec::new()), Ok(()));
    let errors = vec![library_not_found(); 3];
    let report = Errors::from_vec(errors.clone()).unwrap_err();
    let e = main_like(errors).unwrap_err();
    assert_eq!(e.to_string(), report.to_string());
    assert_eq!(format!("{e:?}"), report.to_string());
    assert_eq!(e.kind().function(), None);
    assert_eq!(e.code(), None);
    assert_eq!(e.into_kind(), ErrorKind::ResolveAll(report));
}

/// Errors cross `catch_unwind`: every error type is unwind safe.
#[test]
fn error_types_are_unwind_safe() {
    fn unwind_safe<T: std::panic::UnwindSafe + std::panic::RefUnwindSafe>() {}
    unwind_safe::<Error>();
    unwind_safe::<ErrorKind>();
    unwind_safe::<Errors>();
    unwind_safe::<Status>();
}

#[test]
fn no_cuda_library_says_what_each_search_found() {
    let not_found = |library: CudaLibrary, name: &str| -> Error {
        ErrorKind::LibraryNotFound {
            library,
            origin: Origin::Search,
            tried: vec![(
                format!("\"{name}\""),
                "No such file or directory".to_owned(),
            )],
        }
        .into()
    };
    let e = Error::from(ErrorKind::NoCudaLibrary {
        runtime: not_found(CUDART, "libcudart.so.13"),
        driver: not_found(LIBCUDA, "libcuda.so.1"),
    });
    let text = e.to_string();
    assert!(
        text.starts_with("no CUDA library could be used: neither the CUDA runtime nor"),
        "{text}"
    );
    let runtime_at = text.find("libcudart.so.13").expect("the runtime's search");
    let driver_at = text.find("libcuda.so.1").expect("the driver's search");
    assert!(runtime_at < driver_at, "{text}");
    assert_eq!(e.kind().function(), None);
}

/// The default configuration on a machine with neither library: every function of a
/// `resolve_all` fails for that one reason, which the report writes once (the README's first
/// program prints it so without a driver).
#[test]
fn errors_report_no_cuda_library_once() {
    let neither = || -> Error {
        ErrorKind::NoCudaLibrary {
            runtime: library_not_found(),
            driver: ErrorKind::LibraryNotFound {
                library: LIBCUDA,
                origin: Origin::Search,
                tried: vec![(
                    "\"libcuda.so.1\"".into(),
                    "cannot open shared object file".into(),
                )],
            }
            .into(),
        }
        .into()
    };
    let all = Errors::from_vec(vec![neither(); 9]).unwrap_err();
    let text = all.to_string();
    assert_eq!(
        text,
        format!(
            "9 driver functions could not be resolved, all for one reason:\n{}",
            neither()
        )
    );
    assert_eq!(
        text.matches("no CUDA library could be used").count(),
        1,
        "{text}"
    );
}

/// `quoted` shows a path as a message needs it: in quotes, with a quote, control characters and
/// bytes that are not UTF-8 escaped, and everything else (spaces at its ends, backslashes, other
/// scripts) as it is.
#[test]
fn quoted_escapes_what_a_message_would_hide() {
    assert_eq!(
        quoted(OsStr::new(" /opt/cuda lib/\\x\"y\"\n\t\u{1b}é ")),
        "\" /opt/cuda lib/\\x\\\"y\\\"\\n\\t\\u{1b}é \""
    );
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        assert_eq!(
            quoted(OsStr::from_bytes(b"a\xFF\x80b\x0A\\")),
            "\"a\\xFF\\x80b\\n\\\""
        );
    }
}

/// What PTX the driver refused needs, against the driver present: with the fix where a driver
/// too old is the cause.
#[test]
fn unsupported_ptx_says_what_it_needs_against_the_driver() {
    let text = |isa, driver| UnsupportedPtx::new(isa, "sm_90".into(), driver).to_string();
    assert_eq!(
        text((9, 1), Some(12080)),
        "The PTX is ISA 9.1 for sm_90, which needs a CUDA 13.1 driver; this driver is CUDA 12.8.\n\
         To fix: update the NVIDIA driver to CUDA 13.1 or newer, or make the PTX for ISA 8.7 or \
         older (what a CUDA 12.8 toolkit writes)"
    );
    assert_eq!(
        text((9, 1), None),
        "The PTX is ISA 9.1 for sm_90, which needs a CUDA 13.1 driver; this driver's version is \
         unknown.\n\
         To fix: update the NVIDIA driver to CUDA 13.1 or newer, or make the PTX for an older ISA"
    );
    // The driver loads that ISA: its version is not the cause, and no fix is made up.
    assert_eq!(
        text((5, 0), Some(12080)),
        "The PTX is ISA 5.0 for sm_90, which needs a CUDA 8.0 driver; this driver is CUDA 12.8."
    );
    let (major, minor) = crate::ptx::newest_known_isa();
    assert_eq!(
        text((99, 0), Some(12080)),
        format!(
            "The PTX is ISA 99.0 for sm_90, newer than this crate knows (it knows ISAs up to \
             {major}.{minor}, and the drivers that load them); this driver is CUDA 12.8.\n\
             To fix: update the NVIDIA driver, or make the PTX for ISA 8.7 or older (what a CUDA \
             12.8 toolkit writes)"
        )
    );
    // The image's text is shown, never sent to a terminal as it is.
    assert!(
        text((9, 1), Some(13010)).starts_with("The PTX is ISA 9.1 for sm_90, "),
        "the driver loads it"
    );
    assert_eq!(
        UnsupportedPtx::new((9, 1), "\u{1b}[31mred\n".into(), Some(13010)).to_string(),
        "The PTX is ISA 9.1 for \\u{1b}[31mred\\n, which needs a CUDA 13.1 driver; this driver is \
         CUDA 13.1."
    );
    // In the error, after the driver's message.
    let e = Error::from(ErrorKind::Cuda {
        function: "cuModuleLoadData",
        code: 222,
        name: Some("CUDA_ERROR_UNSUPPORTED_PTX_VERSION".into()),
        description: Some("the provided PTX was compiled with an unsupported toolchain.".into()),
        ptx: Some(UnsupportedPtx::new((5, 0), "sm_52".into(), Some(12080))),
    });
    assert_eq!(
        e.to_string(),
        "cuModuleLoadData failed: CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222): the provided PTX was \
         compiled with an unsupported toolchain.\n\
         The PTX is ISA 5.0 for sm_52, which needs a CUDA 8.0 driver; this driver is CUDA 12.8."
    );
}
