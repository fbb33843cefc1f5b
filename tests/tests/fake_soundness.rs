//! The fake device under every safe use (`--features fake`): two devices in one process, sizes
//! that overflow or that the host cannot back, freed pinned memory, `kernel_args!` arrays lent
//! on another thread or nested, values invalid for their parameter's type, a kernel's closure
//! asking its own device, ten thousand devices, a device replaced in a `Fake` or used after
//! `finish`, and handles that end with their context. Each case is a finding or a clean answer,
//! never a crash, a panic, undefined behaviour (Miri runs this file) or a hang.
#![cfg(feature = "fake")]

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, Ordering};

use cuda_driver_table::fake::{Device, Fake, Fault, FindingKind, Launch};
use cuda_driver_table::sys::{CUcontext, CUdeviceptr, CUfunction, CUmodule, CUresult};
use cuda_driver_table::{driver_table, kernel_args, Error, ErrorKind};

#[driver_table(
    cuInit,
    cuDevicePrimaryCtxRetain,
    cuDevicePrimaryCtxRelease,
    cuCtxSetCurrent,
    cuMemAlloc,
    cuMemFree,
    cuMemAllocHost,
    cuMemFreeHost,
    cuMemAllocPitch,
    cuMemcpy,
    cuMemcpyHtoD,
    cuMemcpyDtoH,
    cuMemGetInfo,
    cuStreamCreate,
    cuEventCreate,
    cuModuleLoadData,
    cuModuleGetFunction,
    cuModuleUnload,
    cuLaunchKernel,
    driver = 12000
)]
struct Cuda;

type Result<T = (), E = Error> = std::result::Result<T, E>;

/// `cuInit` and the primary context, current on this thread.
fn start(cu: &Cuda) -> Result<CUcontext> {
    let mut ctx = null_mut();
    // SAFETY: `ctx` is a valid place for a context.
    unsafe {
        cu.cuInit(0)?;
        cu.cuDevicePrimaryCtxRetain(&mut ctx, 0)?;
        cu.cuCtxSetCurrent(ctx)?;
    }
    Ok(ctx)
}

fn stop(cu: &Cuda) -> Result {
    // SAFETY: device 0 is the fake's only device.
    unsafe { cu.cuDevicePrimaryCtxRelease(0) }
}

fn alloc(cu: &Cuda, bytes: usize) -> Result<CUdeviceptr> {
    let mut d = 0;
    // SAFETY: `d` is a valid place for a device pointer.
    unsafe { cu.cuMemAlloc(&mut d, bytes) }?;
    Ok(d)
}

fn free(cu: &Cuda, d: CUdeviceptr) -> Result {
    // SAFETY: any value may be passed; the device checks it.
    unsafe { cu.cuMemFree(d) }
}

/// The code of a failing call.
fn code(error: &Error) -> u32 {
    error.code().expect("a CUDA error")
}

/// The description of a failing call's error (the device's finding for it).
fn description(error: &Error) -> String {
    match error.kind() {
        ErrorKind::Cuda {
            description: Some(d),
            ..
        } => d.clone(),
        other => panic!("expected a CUDA error with a description, got {other:?}"),
    }
}

/// The messages of the findings of `kind` in what `device` reports.
fn found(device: &Device, kind: FindingKind) -> Vec<String> {
    device
        .findings()
        .iter()
        .filter(|f| f.kind() == kind)
        .map(|f| f.message().to_owned())
        .collect()
}

/// A module with the kernel `name` in it, and the kernel.
fn function_named(cu: &Cuda, name: &std::ffi::CStr) -> Result<(CUmodule, CUfunction)> {
    let (mut module, mut f) = (null_mut(), null_mut());
    // SAFETY: valid places; the image is any bytes for the fake.
    unsafe {
        cu.cuModuleLoadData(&mut module, c"any image".as_ptr().cast())?;
        cu.cuModuleGetFunction(&mut f, module, name.as_ptr())?;
    }
    Ok((module, f))
}

/// Launches `f` on one thread with `params`.
///
/// # Safety
///
/// `params` is null or a `kernelParams` array alive for the call.
unsafe fn launch(cu: &Cuda, f: CUfunction, params: *mut *mut c_void) -> Result {
    // SAFETY: the caller's contract.
    unsafe { cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, null_mut(), params, null_mut()) }
}

#[test]
fn a_pointer_of_another_device_is_a_finding_naming_both_never_host_memory() -> Result {
    let (a, b) = (Device::new(), Device::new());
    let (cu_a, cu_b) = (Cuda::with_config(a.config()), Cuda::with_config(b.config()));
    start(&cu_a)?;
    start(&cu_b)?;
    let on_a = alloc(&cu_a, 64)?;
    let on_b = alloc(&cu_b, 64)?;
    let mut host = [0_u8; 64];
    // B is handed A's pointer as a device pointer, and as the other side of a unified copy:
    // each fails naming both devices, and nothing is read as host memory.
    // SAFETY: `host` is valid for 64 bytes; the device pointers are checked by the device.
    let errors = unsafe {
        [
            cu_b.cuMemcpyDtoH(host.as_mut_ptr().cast(), on_a, 64),
            cu_b.cuMemcpy(on_b, on_a, 64),
            cu_b.cuMemcpy(on_a, on_b, 64),
            cu_b.cuMemcpyDtoH(std::ptr::without_provenance_mut(on_a as usize), on_b, 64),
        ]
    };
    for error in errors {
        let error = error.expect_err("a pointer of another device");
        assert_eq!(code(&error), CUresult::CUDA_ERROR_INVALID_VALUE.0);
        assert!(
            description(&error).contains("pointer of fake device")
                || description(&error).contains("device pointer of fake device"),
            "{error}"
        );
    }
    assert_eq!(found(&b, FindingKind::InvalidPointer).len(), 4);
    assert!(found(&a, FindingKind::InvalidPointer).is_empty());
    free(&cu_a, on_a)?;
    free(&cu_b, on_b)?;
    stop(&cu_a)?;
    stop(&cu_b)?;
    let _ = b.finish();
    a.finish().map_err(|r| panic!("{r}"))
}

#[test]
fn sizes_that_overflow_are_errors_never_panics() -> Result {
    let device = Device::new().with_memory(usize::MAX);
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let (mut d, mut pitch) = (0, 0);
    // SAFETY: valid places.
    let error = unsafe { cu.cuMemAllocPitch(&mut d, &mut pitch, usize::MAX - 10, 2, 4) }
        .expect_err("more bytes than an address has");
    assert_eq!(code(&error), CUresult::CUDA_ERROR_OUT_OF_MEMORY.0);
    // All of memory is free, but not all of it fits in the device's addresses.
    let error = alloc(&cu, usize::MAX / 2).expect_err("more than the device's addresses");
    assert_eq!(code(&error), CUresult::CUDA_ERROR_OUT_OF_MEMORY.0);
    assert!(
        description(&error).contains("never handed out twice"),
        "{error}"
    );
    stop(&cu)?;
    device.finish().map_err(|r| panic!("{r}"))
}

/// An allocation the host cannot back fails with a finding, or (where the host maps memory
/// lazily and lets it) succeeds: never an abort.
#[test]
#[cfg_attr(miri, ignore = "Miri allocates what it is asked for, byte by byte")]
fn an_allocation_the_host_cannot_back_is_out_of_memory_never_an_abort() -> Result {
    let device = Device::new().with_memory(1 << 44);
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    match alloc(&cu, (1 << 40) - (64 << 20)) {
        Ok(d) => free(&cu, d)?,
        Err(error) => {
            assert_eq!(code(&error), CUresult::CUDA_ERROR_OUT_OF_MEMORY.0);
            assert_eq!(found(&device, FindingKind::HostOutOfMemory).len(), 1);
        }
    }
    stop(&cu)?;
    let _ = device.finish();
    Ok(())
}

#[test]
fn memory_shrunk_below_what_is_in_use_has_none_free() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let d = alloc(&cu, 4096)?;
    let device = device.with_memory(1024);
    let (mut free_bytes, mut total) = (1, 0);
    // SAFETY: valid places.
    unsafe { cu.cuMemGetInfo(&mut free_bytes, &mut total) }?;
    assert_eq!((free_bytes, total), (0, 1024));
    let error = alloc(&cu, 1).expect_err("nothing is free");
    assert_eq!(code(&error), CUresult::CUDA_ERROR_OUT_OF_MEMORY.0);
    free(&cu, d)?;
    stop(&cu)?;
    device.finish().map_err(|r| panic!("{r}"))
}

#[test]
fn a_copy_into_freed_pinned_memory_is_a_use_after_free() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let d = alloc(&cu, 64)?;
    let mut pinned = null_mut();
    // SAFETY: `pinned` is a valid place; the copy's host side is checked by the device, which
    // kept the freed pinned memory.
    let error = unsafe {
        cu.cuMemAllocHost(&mut pinned, 64)?;
        cu.cuMemFreeHost(pinned)?;
        cu.cuMemcpyDtoH(pinned, d, 64)
    }
    .expect_err("the pinned memory was freed");
    let said = description(&error);
    assert!(
        said.starts_with("use after free: cuMemcpyDtoH (call "),
        "{said}"
    );
    assert!(said.contains("that cuMemAllocHost (call"), "{said}");
    assert!(said.contains("cuMemFreeHost (call"), "{said}");
    free(&cu, d)?;
    stop(&cu)?;
    let _ = device.finish();
    Ok(())
}

/// `flag ? x : 0` into `out`, for a kernel taking a `bool`.
fn pick(k: &mut Launch, (out, flag, x): (CUdeviceptr, bool, u32)) -> Result<(), Fault> {
    k.write(out, 0, if flag { x } else { 0 })
}

#[test]
fn kernel_args_are_matched_on_another_thread_and_nested_and_by_type() -> Result {
    let device = Device::new();
    device.kernel("pick", pick);
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let (_, f) = function_named(&cu, c"pick")?;
    let out = alloc(&cu, 4)?;
    let (yes, two, x) = (true, 2_u8, 7_u32);
    // A `u8` for the `bool`: a finding, never a `bool` read from the byte 2.
    let error = kernel_args![&out, &two, &x]
        .with_params(|params| {
            // SAFETY: the array lives through the launch.
            unsafe { launch(&cu, f, params) }
        })
        .expect_err("a u8 is no bool");
    assert!(
        description(&error).contains("with a `u8` of 1 byte as parameter 2 (a `bool` of 1 byte)"),
        "{error}"
    );
    // Launched from another thread while this one lends the array: matched all the same.
    let short = 1_u8;
    let elsewhere = kernel_args![&out, &yes, &short].with_params(|params| {
        // Raw pointers are not `Send`; an `AtomicPtr` carries each, provenance and all.
        let (params, f) = (AtomicPtr::new(params), AtomicPtr::new(f));
        std::thread::scope(|s| {
            s.spawn(|| {
                start(&cu)?;
                let (params, f) = (params.load(Ordering::Relaxed), f.load(Ordering::Relaxed));
                // SAFETY: the array lives until `with_params` returns, after this thread ends.
                unsafe { launch(&cu, f, params) }
            })
            .join()
            .expect("the launching thread")
        })
    });
    let error = elsewhere.expect_err("a u8 for the u32, seen from the other thread");
    assert!(
        description(&error).contains("with a `u8` of 1 byte as parameter 3"),
        "{error}"
    );
    // The outer array launched inside a nested `with_params`: matched as itself.
    let nested = kernel_args![&out, &yes, &short].with_params(|outer| {
        kernel_args![&x].with_params(|_inner| {
            // SAFETY: the outer array lives through this call.
            unsafe { launch(&cu, f, outer) }
        })
    });
    assert!(nested.is_err(), "the outer array's u8 is refused");
    // The right values: the kernel runs.
    kernel_args![&out, &yes, &x].with_params(|params| {
        // SAFETY: as above.
        unsafe { launch(&cu, f, params) }
    })?;
    assert_eq!(device.read(out, 4), Some(7_u32.to_ne_bytes().to_vec()));
    // An array built by hand says nothing of its values: refused for a `bool` parameter.
    let mut by_hand: [*mut c_void; 3] = [
        (&raw const out).cast_mut().cast(),
        (&raw const yes).cast_mut().cast(),
        (&raw const x).cast_mut().cast(),
    ];
    // SAFETY: the array and its values live through the launch.
    let error = unsafe { launch(&cu, f, by_hand.as_mut_ptr()) }.expect_err("a bool by hand");
    assert!(
        description(&error).contains("no `kernel_args!` is lending now"),
        "{error}"
    );
    assert_eq!(found(&device, FindingKind::ParameterMismatch).len(), 4);
    free(&cu, out)?;
    stop(&cu)?;
    let _ = device.finish();
    Ok(())
}

#[test]
fn a_kernel_closure_asking_its_device_is_answered_never_a_deadlock() -> Result {
    // Leaked, so that the kernel's closure can hold it (`'static`).
    let device: &'static Device = Box::leak(Box::new(Device::new()));
    let cu: &'static Cuda = Box::leak(Box::new(Cuda::with_config(device.config())));
    device.kernel("ask", move |k: &mut Launch, (d,): (CUdeviceptr,)| {
        assert_eq!(device.used_memory(), 16, "answered while the kernel runs");
        assert_eq!(device.read(d, 4), None);
        assert_eq!(device.findings().len(), 1);
        assert!(device.check().is_err());
        let mut more = 0;
        // SAFETY: `more` is a valid place.
        let refused = unsafe { cu.cuMemAlloc(&mut more, 4) };
        assert_eq!(
            refused.map_err(|e| code(&e)),
            Err(CUresult::CUDA_ERROR_NOT_PERMITTED.0)
        );
        k.write(d, 0, 1_u32)
    });
    start(cu)?;
    let (_, f) = function_named(cu, c"ask")?;
    let d = alloc(cu, 16)?;
    kernel_args![&d].with_params(|params| {
        // SAFETY: the array lives through the launch.
        unsafe { launch(cu, f, params) }
    })?;
    let misuse = found(device, FindingKind::Misuse);
    // `used_memory` is answered; `read`, `findings`, `check` and the table's call say where
    // they were called from.
    assert_eq!(misuse.len(), 4, "{misuse:#?}");
    assert!(misuse[0].starts_with("misuse: Device::read was called from the closure of kernel ask"));
    assert!(misuse
        .iter()
        .any(|m| m.contains("cuMemAlloc was called from the closure of kernel ask")));
    Ok(())
}

#[test]
#[cfg_attr(
    miri,
    ignore = "ten thousand devices take Miri minutes; no memory is touched here"
)]
fn a_stale_pointer_of_the_first_device_is_caught_after_ten_thousand_more() -> Result {
    let first = Device::new();
    let cu = Cuda::with_config(first.config());
    start(&cu)?;
    let stale = alloc(&cu, 64)?;
    free(&cu, stale)?;
    let mut last = None;
    for _ in 0..10_000 {
        last = Some(Device::new());
    }
    let last = last.expect("devices made");
    let cu_last = Cuda::with_config(last.config());
    start(&cu_last)?;
    let error = free(&cu_last, stale).expect_err("no pointer of this device");
    assert_eq!(code(&error), CUresult::CUDA_ERROR_INVALID_VALUE.0);
    let mut host = [0_u8; 8];
    // SAFETY: `host` is valid for 8 bytes.
    let error = unsafe { cu_last.cuMemcpyDtoH(host.as_mut_ptr().cast(), stale, 8) }
        .expect_err("a pointer of another device");
    assert!(
        description(&error).contains("a device pointer of fake device"),
        "{error}"
    );
    // SAFETY: as above.
    let error = unsafe { cu.cuMemcpyDtoH(host.as_mut_ptr().cast(), stale, 8) }.expect_err("freed");
    assert!(description(&error).starts_with("use after free"), "{error}");
    stop(&cu)?;
    stop(&cu_last)?;
    let _ = last.finish();
    let _ = first.finish();
    Ok(())
}

#[test]
fn a_zero_byte_access_touches_nothing() -> Result {
    let device = Device::new();
    device.kernel("none", |k: &mut Launch, (d,): (CUdeviceptr,)| {
        // Zero elements right at the allocation's end: nothing is touched.
        let nothing: Vec<u32> = k.read_slice(d + 16, 0)?;
        assert!(nothing.is_empty());
        k.write_slice::<u32>(d + 16, &[])
    });
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let (module, f) = function_named(&cu, c"none")?;
    let d = alloc(&cu, 16)?;

    kernel_args![&d].with_params(|params| {
        // SAFETY: the array lives through the launch.
        unsafe { launch(&cu, f, params) }
    })?;
    assert_eq!(device.read(d + 16, 0), Some(Vec::new()));
    free(&cu, d)?;
    let host = [0_u8; 1];
    // SAFETY: 0 bytes are read from `host`.
    unsafe { cu.cuMemcpyHtoD(d, host.as_ptr().cast(), 0) }?;
    // SAFETY: the module was loaded above.
    unsafe { cu.cuModuleUnload(module) }?;
    stop(&cu)?;
    device.finish().map_err(|r| panic!("{r}"))
}

#[test]
fn a_device_replaced_in_a_fake_says_so() {
    let (a, b) = (Device::new(), Device::new());
    let _driver = Fake::new().device(&a).device(&b).build();
    let replaced = found(&a, FindingKind::Misuse);
    assert_eq!(replaced.len(), 1, "{replaced:?}");
    assert!(replaced[0].contains("then fake device"), "{}", replaced[0]);
    assert!(found(&b, FindingKind::Misuse).is_empty());
    let _ = a.finish();
    b.finish().expect("the device kept has nothing to report");
}

#[test]
fn a_finished_device_refuses_later_calls() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    stop(&cu)?;
    if let Err(report) = device.finish() {
        panic!("{report}");
    }
    let error = alloc(&cu, 64).expect_err("the device was finished");
    assert_eq!(code(&error), CUresult::CUDA_ERROR_DEINITIALIZED.0);
    assert!(
        description(&error).contains("after the test finished or dropped it"),
        "{error}"
    );
    Ok(())
}

#[test]
fn handles_that_end_with_their_context_are_leaks_named_by_their_call() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let (mut stream, mut event, mut module) = (null_mut(), null_mut(), null_mut());
    // SAFETY: valid places; the image is any bytes for the fake.
    unsafe {
        cu.cuStreamCreate(&mut stream, 0)?;
        cu.cuEventCreate(&mut event, 0)?;
        cu.cuModuleLoadData(&mut module, c"any image".as_ptr().cast())?;
    }
    // The routine releases its context before the test checks: the handles end with it.
    stop(&cu)?;
    let report = device.finish().expect_err("three handles leaked");
    let leaks: Vec<&str> = report
        .findings()
        .iter()
        .filter(|f| f.kind() == FindingKind::Leak)
        .map(|f| f.message())
        .collect();
    assert_eq!(leaks.len(), 3, "{report}");
    for (kind, made_by) in [
        ("stream", "cuStreamCreate (call 4)"),
        ("event", "cuEventCreate (call 5)"),
        ("module", "cuModuleLoadData (call 6)"),
    ] {
        assert!(
            leaks.iter().any(|l| l.starts_with(&format!("leak: {kind} "))
                && l.contains(&format!("that {made_by} created was still live when cuDevicePrimaryCtxRelease (call 7) destroyed its context"))),
            "{report}"
        );
    }
    assert!(
        report
            .to_string()
            .starts_with(&format!("the fake device made at {}:", file!())),
        "{report}"
    );
    Ok(())
}
