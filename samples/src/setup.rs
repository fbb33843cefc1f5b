//! The set-up the samples share: a context (the device's primary context, or one of the
//! sample's own) and a module with its kernels, each owned by a guard that releases it when
//! dropped. Macros, not functions: each sample's table is a type of its own, and the expansion
//! calls the methods of the table it is given, which must list the functions named below.
//!
//! Each evaluates to a `Result` with the driver's [`Error`](cuda_driver_table::Error); on an
//! error, what it had made is released before it returns. Guards drop in the reverse order of
//! their creation, so a sample makes the context's first and the module's after it. They are
//! safe to call, outside the sample's `unsafe` blocks.

/// Retains device `$dev`'s primary context through the table `$cu` and makes it current on this
/// thread (`cuDevicePrimaryCtxRetain`, `cuCtxSetCurrent`). Its guard dereferences to the context
/// and, when dropped, makes no context current and releases the primary context
/// (`cuCtxSetCurrent` of null, `cuDevicePrimaryCtxRelease`).
#[macro_export]
macro_rules! primary_context {
    ($cu:expr, $dev:expr) => {
        'setup: {
            let cu = $cu;
            let dev: $crate::__private::CUdevice = $dev;
            let mut ctx = ::std::ptr::null_mut();
            // SAFETY: a valid place for the context.
            if let Err(e) = unsafe { cu.cuDevicePrimaryCtxRetain(&mut ctx, dev) } {
                break 'setup Err(e);
            }
            let primary = $crate::__private::guard(ctx, move |_| {
                // SAFETY: the context was retained once, here; the guards of what lives in it
                // were made after this one and are dropped before it.
                unsafe {
                    let _ = cu.cuCtxSetCurrent(::std::ptr::null_mut());
                    let _ = cu.cuDevicePrimaryCtxRelease(dev);
                }
            });
            // SAFETY: the context was retained above and lives while the guard does.
            match unsafe { cu.cuCtxSetCurrent(ctx) } {
                Ok(()) => Ok(primary),
                Err(e) => Err(e),
            }
        }
    };
}

/// Creates a context of the sample's own on device `$dev` through the table `$cu`
/// (`cuCtxCreate` at its 12.5 ABI, with default parameters and no flags), which makes it current
/// on this thread. Its guard dereferences to the context and, when dropped, destroys it
/// (`cuCtxDestroy`).
#[macro_export]
macro_rules! own_context {
    ($cu:expr, $dev:expr) => {
        'setup: {
            let cu = $cu;
            let dev: $crate::__private::CUdevice = $dev;
            let mut params = $crate::__private::CUctxCreateParams::default();
            let mut ctx = ::std::ptr::null_mut();
            // SAFETY: valid places for the parameters and the context.
            if let Err(e) = unsafe { cu.cuCtxCreate(&mut ctx, &mut params, 0, dev) } {
                break 'setup Err(e);
            }
            Ok($crate::__private::guard(ctx, move |ctx| {
                // SAFETY: the context was created once, here; the guards of what lives in it
                // were made after this one and are dropped before it.
                let _ = unsafe { cu.cuCtxDestroy(ctx) };
            }))
        }
    };
}

/// Loads `$image` (PTX text, NUL-terminated: [`ptx!`](crate::ptx!)) as a module of the current
/// context through the table `$cu` (`cuModuleLoadData`). Its guard, when dropped, unloads it
/// (`cuModuleUnload`). With a list of kernel names (`c"..."`), looks each up in it
/// (`cuModuleGetFunction`) and gives the guard and the kernels, in the list's order.
#[macro_export]
macro_rules! module {
    ($cu:expr, $image:expr) => {
        'setup: {
            let cu = $cu;
            let mut module = ::std::ptr::null_mut();
            let image: &str = $image;
            assert!(image.ends_with('\0'), "a module's PTX is NUL-terminated");
            // SAFETY: a valid place for the module; the image is NUL-terminated text.
            if let Err(e) = unsafe { cu.cuModuleLoadData(&mut module, image.as_ptr().cast()) } {
                break 'setup Err(e);
            }
            Ok($crate::__private::guard(module, move |module| {
                // SAFETY: the module was loaded once, here; its kernels are not used after the
                // guard is dropped.
                let _ = unsafe { cu.cuModuleUnload(module) };
            }))
        }
    };
    ($cu:expr, $image:expr, [$($kernel:expr),+ $(,)?]) => {
        'setup: {
            let cu = $cu;
            let module = match $crate::module!(cu, $image) {
                Ok(module) => module,
                Err(e) => break 'setup Err(e),
            };
            let kernels = [$({
                let name: &::std::ffi::CStr = $kernel;
                let mut kernel = ::std::ptr::null_mut();
                // SAFETY: a valid place for the kernel; the name is NUL-terminated; the module
                // is loaded.
                if let Err(e) = unsafe { cu.cuModuleGetFunction(&mut kernel, *module, name.as_ptr()) } {
                    break 'setup Err(e);
                }
                kernel
            }),+];
            Ok((module, kernels))
        }
    };
}
