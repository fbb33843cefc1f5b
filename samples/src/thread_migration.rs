//! threadMigration: NVIDIA's `threadMigration` sample
//! (`Samples/2_Concepts_and_Techniques/threadMigration`), ported.
//!
//! One context per GPU, used by several host threads. The main thread creates a context on each
//! GPU (`cuCtxCreate`), loads the kernel into it and pops it off its own stack
//! (`cuCtxPopCurrent`); then it starts `--numthreads=N` threads per GPU (2 by default, 1 to 15),
//! each of which pushes that context onto its own stack (`cuCtxPushCurrent`), allocates, launches
//! the kernel, copies the result back, checks it, frees and pops the context again. The context
//! migrates between threads; a thread passes when its 32 integers are `32 - i` and it popped the
//! context it pushed. The sample passes when every thread of every GPU passed; then the main
//! thread unloads the modules and destroys the contexts.
//!
//! `cargo run -p cuda-driver-table-samples --bin threadMigration [-- --driver] [--numthreads=N]`

use crate::{Args, Failure};
use cuda_driver_table::{driver_table, kernel_args, sys};
use scopeguard::{guard, ScopeGuard};
use std::ffi::{c_char, CStr};
use std::ptr;

/// The functions the sample calls.
#[driver_table(
    cuInit,
    cuDeviceGetCount,
    cuDeviceGet,
    cuDeviceGetName,
    cuDeviceGetAttribute,
    // The classic ABI, `cuCtxCreate_v2(pctx, flags, dev)`: no creation parameters to fill.
    cuCtxCreate = 3020,
    cuCtxDestroy,
    cuCtxPushCurrent,
    cuCtxPopCurrent,
    cuModuleLoadData,
    cuModuleUnload,
    cuModuleGetFunction,
    cuMemAlloc,
    cuMemFree,
    cuMemcpyDtoH,
    cuLaunchKernel,
    driver = 12000
)]
pub struct Cuda;

/// The integers each thread's kernel writes (one block of as many threads).
pub const NUM_INTS: usize = 32;

/// What the main thread set up on one GPU, handed to that GPU's threads.
#[derive(Clone, Copy)]
struct Device {
    ordinal: i32,
    ctx: sys::CUcontext,
    module: sys::CUmodule,
    func: sys::CUfunction,
}

// SAFETY: driver handles are not tied to the thread that created them: any thread may push a
// context and use its module's functions (the point of this sample); the driver's API is
// thread-safe.
unsafe impl Send for Device {}
// SAFETY: as for `Send`: the handles are only passed to the driver, never dereferenced here.
unsafe impl Sync for Device {}

/// `--numthreads=N` (or `-numthreads=N`, as the original), 1 to 15; 2 when absent.
///
/// # Errors
///
/// [`Failure::Usage`] naming the value when it is not a number from 1 to 15.
pub fn threads_per_device(args: &Args) -> Result<usize, Failure> {
    let given = args.rest.iter().find_map(|a| {
        a.strip_prefix("--numthreads=")
            .or_else(|| a.strip_prefix("-numthreads="))
    });
    match given {
        None => Ok(2),
        Some(n) => match n.parse() {
            Ok(n @ 1..=15) => Ok(n),
            _ => Err(Failure::Usage(format!(
                "--numthreads={n}: give a number of threads from 1 to 15"
            ))),
        },
    }
}

/// Unloads `d`'s module, with its context pushed onto this thread's stack, and destroys its
/// context.
///
/// # Safety
///
/// `d.ctx` is a live context and `d.module` null or a module loaded into it; no thread uses
/// either after this.
unsafe fn release(cu: &Cuda, d: Device) {
    let mut popped: sys::CUcontext = ptr::null_mut();
    // SAFETY: the caller's contract; the context pushed is popped before it is destroyed.
    unsafe {
        if cu.cuCtxPushCurrent(d.ctx).is_ok() {
            if !d.module.is_null() {
                let _ = cu.cuModuleUnload(d.module);
            }
            let _ = cu.cuCtxPopCurrent(&mut popped);
        }
        let _ = cu.cuCtxDestroy(d.ctx);
    }
}

/// The sample through `cu`: `threads` threads on each GPU, migrating its context.
///
/// # Errors
///
/// [`Failure::Cuda`] when a driver call fails, [`Failure::Waived`] without a GPU,
/// [`Failure::Check`] when a thread's result or context is wrong. Everything created is released
/// on every path.
pub fn run(cu: &Cuda, threads: usize) -> Result<(), Failure> {
    let mut count = 0;
    // SAFETY: `count` is a valid place for the device count.
    unsafe {
        cu.cuInit(0)?;
        cu.cuDeviceGetCount(&mut count)?;
    }
    println!("> {count} CUDA device(s), {threads} thread(s) per device");
    if count == 0 {
        return Err(Failure::Waived("no CUDA device".into()));
    }

    // Each GPU's context and module, released by its guard once every thread has ended: the
    // guards are dropped in order, the first GPU's first, as the original releases them.
    let mut devices = Vec::with_capacity(count as usize);
    for ordinal in 0..count {
        let mut dev = 0;
        let mut name = [0 as c_char; 256];
        let (mut major, mut minor) = (0, 0);
        let mut ctx: sys::CUcontext = ptr::null_mut();
        let mut popped: sys::CUcontext = ptr::null_mut();
        // SAFETY: every out-parameter is a valid place and `name` holds the length given; the
        // PTX is NUL-terminated; the context is created current on this thread, the module loaded
        // into it, and popped off this thread's stack before other threads push it; the guard
        // releases both once (`release`), after the threads have ended or when a step fails.
        let device = unsafe {
            cu.cuDeviceGet(&mut dev, ordinal)?;
            cu.cuDeviceGetName(name.as_mut_ptr(), name.len() as i32, dev)?;
            cu.cuDeviceGetAttribute(
                &mut major,
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                dev,
            )?;
            cu.cuDeviceGetAttribute(
                &mut minor,
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                dev,
            )?;
            cu.cuCtxCreate(&mut ctx, 0, dev)?;
            let mut device = guard(
                Device {
                    ordinal,
                    ctx,
                    module: ptr::null_mut(),
                    func: ptr::null_mut(),
                },
                |d| release(cu, d),
            );
            cu.cuModuleLoadData(&mut device.module, ptx!("threadMigration").as_ptr().cast())?;
            cu.cuModuleGetFunction(&mut device.func, device.module, c"count_down".as_ptr())?;
            cu.cuCtxPopCurrent(&mut popped)?;
            device
        };
        // SAFETY: cuDeviceGetName wrote a NUL-terminated name into the buffer.
        let name = unsafe { CStr::from_ptr(name.as_ptr()) }.to_string_lossy();
        println!("Device {ordinal}: \"{name}\" (compute {major}.{minor}), context {ctx:p}");
        devices.push(device);
    }

    // Every thread of every GPU at once, each with the context of its GPU.
    let outcomes: Vec<(i32, usize, Result<Option<String>, Failure>)> = std::thread::scope(|s| {
        let handles: Vec<_> = devices
            .iter()
            .flat_map(|device| {
                let device = **device;
                (0..threads).map(move |t| {
                    (
                        device.ordinal,
                        t,
                        s.spawn(move || thread_proc(cu, device, t)),
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|(ordinal, t, h)| {
                let outcome = h.join().unwrap_or_else(|_| {
                    Err(Failure::Check(format!(
                        "device {ordinal} thread {t} panicked"
                    )))
                });
                (ordinal, t, outcome)
            })
            .collect()
    });

    // Every thread has ended and popped its context: the modules and contexts go.
    let gpus = devices.len();
    drop(devices);

    let mut passed = 0;
    let mut wrong = Vec::new();
    for (ordinal, t, outcome) in outcomes {
        match outcome? {
            None => passed += 1,
            Some(what) => wrong.push(format!("device {ordinal} thread {t}: {what}")),
        }
    }
    let expected = threads * gpus;
    println!("{passed} of {expected} thread(s) passed");
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(Failure::Check(wrong.join("; ")))
    }
}

/// One thread's work on its GPU's context: `Ok(None)` when its result is right, `Ok(Some(what))`
/// when not.
fn thread_proc(cu: &Cuda, device: Device, t: usize) -> Result<Option<String>, Failure> {
    println!(
        "<device {}, context {:p}, thread {t}> launched",
        device.ordinal, device.ctx
    );
    let mut out: sys::CUdeviceptr = 0;
    let mut host = [0i32; NUM_INTS];
    let mut popped: sys::CUcontext = ptr::null_mut();
    // SAFETY: the context is live until the main thread destroys it after this thread ends; the
    // kernel `count_down(int *)` writes NUM_INTS ints to `out`, which holds that many; `host`
    // holds as many; the memory is freed once, by its guard, in the context it was allocated in,
    // which is popped after it: by its guard when a step fails, else by the last call, whose
    // answer is checked.
    unsafe {
        cu.cuCtxPushCurrent(device.ctx)?;
        let pushed = guard((), |()| {
            let mut popped = ptr::null_mut();
            let _ = cu.cuCtxPopCurrent(&mut popped);
        });
        cu.cuMemAlloc(&mut out, NUM_INTS * size_of::<i32>())?;
        let out = guard(out, |out| {
            let _ = cu.cuMemFree(out);
        });
        kernel_args![&*out].with_params(|params| {
            cu.cuLaunchKernel(
                device.func,
                1,
                1,
                1,
                NUM_INTS as u32,
                1,
                1,
                0,
                ptr::null_mut(),
                params,
                ptr::null_mut(),
            )
        })?;
        // On the default stream: it waits for the kernel.
        cu.cuMemcpyDtoH(host.as_mut_ptr().cast(), *out, size_of_val(&host))?;
        drop(out);
        ScopeGuard::into_inner(pushed);
        cu.cuCtxPopCurrent(&mut popped)?;
    }
    println!(
        "<device {}, context {:p}, thread {t}> finished",
        device.ordinal, device.ctx
    );
    if popped != device.ctx {
        return Ok(Some(format!(
            "popped context {popped:p}, pushed {:p}",
            device.ctx
        )));
    }
    Ok(host
        .iter()
        .enumerate()
        .find(|&(i, &v)| v != (NUM_INTS - i) as i32)
        .map(|(i, v)| format!("element {i} is {v}, expected {}", NUM_INTS - i)))
}
