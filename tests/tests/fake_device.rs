//! The fake device (`--features fake`): memory that moves real bytes, kernels as closures over
//! typed parameters, streams and events on a fake clock, contexts current per thread; and each
//! check, planted as the bug it catches (a leak, a double free, an out-of-bounds copy, use after
//! free, a destroyed stream used, ...), asserting that the error and the report name it. Also
//! fault injection in front of the device, `succeed_others`, and the refusal of a fake's
//! resolver used on its own.
#![cfg(feature = "fake")]

use std::ffi::{c_void, CStr};
use std::ptr::{null, null_mut};

use cuda_driver_table::fake::{function, Device, Fake, Fault, FindingKind, Launch};
use cuda_driver_table::sys::{
    CUcontext, CUdeviceptr, CUmemorytype, CUresult, CUstream, CUDA_MEMCPY2D,
};
use cuda_driver_table::{driver_table, Config, Error, ErrorKind};

#[driver_table(
    cuInit,
    cuDevicePrimaryCtxRetain,
    cuDevicePrimaryCtxRelease,
    cuCtxCreate,
    cuCtxDestroy,
    cuCtxSetCurrent,
    cuCtxGetCurrent,
    cuMemAlloc,
    cuMemFree,
    cuMemAllocHost,
    cuMemFreeHost,
    cuMemcpyHtoD,
    cuMemcpyDtoH,
    cuMemcpyDtoD,
    cuMemcpyHtoDAsync,
    cuMemcpyDtoHAsync,
    cuMemsetD8,
    cuMemsetD32,
    cuMemsetD32Async,
    cuMemAllocPitch,
    cuMemcpy2D,
    cuMemcpy2DAsync,
    cuMemsetD2D16,
    cuMemGetInfo,
    cuStreamCreate,
    cuStreamDestroy,
    cuStreamSynchronize,
    cuStreamWaitEvent,
    cuEventCreate,
    cuEventDestroy,
    cuEventRecord,
    cuEventElapsedTime,
    cuModuleLoadData,
    cuModuleUnload,
    cuModuleGetFunction,
    cuLaunchKernel,
    cuCtxGetApiVersion,
    cuArrayCreate,
    cuArrayDestroy,
    cuLaunchKernelEx,
    cuLaunchHostFunc,
    cuOccupancyMaxPotentialBlockSize,
    cuGetErrorName,
    cuGetErrorString,
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

fn upload<T>(cu: &Cuda, d: CUdeviceptr, values: &[T]) -> Result {
    // SAFETY: `values` is valid for reads of its size.
    unsafe { cu.cuMemcpyHtoD(d, values.as_ptr().cast(), size_of_val(values)) }
}

fn download<T>(cu: &Cuda, values: &mut [T], d: CUdeviceptr) -> Result {
    // SAFETY: `values` is valid for writes of its size.
    unsafe { cu.cuMemcpyDtoH(values.as_mut_ptr().cast(), d, size_of_val(values)) }
}

/// The description of a failing call's error (the device's finding for it).
fn description(error: &Error) -> &str {
    match error.kind() {
        ErrorKind::Cuda {
            description: Some(d),
            ..
        } => d,
        other => panic!("expected a CUDA error with a description, got {other:?}"),
    }
}

/// The message of the only finding of `kind` in what `device` reports.
fn only(device: Device, kind: FindingKind) -> String {
    let report = device
        .finish()
        .expect_err("the device found the planted bug");
    let found: Vec<_> = report
        .findings()
        .iter()
        .filter(|f| f.kind() == kind)
        .collect();
    assert_eq!(found.len(), 1, "{report}");
    found[0].message().to_owned()
}

#[test]
fn copies_and_sets_move_real_bytes_and_a_clean_program_reports_nothing(
) -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let (a, b) = (alloc(&cu, 16)?, alloc(&cu, 16)?);
    assert_ne!(a, b);
    assert!(
        a >= 0xd000_0000_0000_0000,
        "a device pointer is no host address: {a:#x}"
    );
    upload(&cu, a, &[1_u32, 2, 3, 4])?;
    // SAFETY: `b + 4` is inside the 16 bytes at `b`.
    unsafe {
        cu.cuMemcpyDtoD(b, a, 16)?;
        cu.cuMemsetD32(b + 4, 0xabcd, 2)?;
        cu.cuMemsetD8(a, 0xff, 1)?;
    }
    let mut back = [0_u32; 4];
    download(&cu, &mut back, b)?;
    assert_eq!(back, [1, 0xabcd, 0xabcd, 4]);
    download(&cu, &mut back, a)?;
    assert_eq!(back, [0xff, 2, 3, 4]);
    assert_eq!(
        device.read(b + 4, 4),
        Some(0xabcd_u32.to_ne_bytes().to_vec())
    );
    let (mut free, mut total) = (0, 0);
    // SAFETY: two valid places.
    unsafe { cu.cuMemGetInfo(&mut free, &mut total) }?;
    assert_eq!(total - free, 32);
    // SAFETY: allocated above, freed once each.
    unsafe {
        cu.cuMemFree(a)?;
        cu.cuMemFree(b)?;
    }
    stop(&cu)?;
    device.finish()?;
    Ok(())
}

/// `c = a + b` over `n` floats, one thread each.
fn vadd(
    k: &mut Launch,
    (a, b, c, n): (CUdeviceptr, CUdeviceptr, CUdeviceptr, u32),
) -> Result<(), Fault> {
    for t in k.threads() {
        let i = t.global_x();
        if i < u64::from(n) {
            let sum = k.read::<f32>(a, i)? + k.read::<f32>(b, i)?;
            k.write(c, i, sum)?;
        }
    }
    Ok(())
}

/// Loads a module and finds `name` in it.
fn function_named(
    cu: &Cuda,
    name: &std::ffi::CStr,
) -> Result<(
    cuda_driver_table::sys::CUmodule,
    cuda_driver_table::sys::CUfunction,
)> {
    let (mut module, mut f) = (null_mut(), null_mut());
    // SAFETY: valid places; the image is any bytes for the fake.
    unsafe {
        cu.cuModuleLoadData(&mut module, c"any image".as_ptr().cast())?;
        cu.cuModuleGetFunction(&mut f, module, name.as_ptr())?;
    }
    Ok((module, f))
}

#[test]
fn a_kernel_closure_gets_its_typed_parameters_and_the_geometry(
) -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::new();
    device.kernel("vadd", vadd);
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let n = 1000_u32;
    let bytes = n as usize * 4;
    let (a, b, c) = (alloc(&cu, bytes)?, alloc(&cu, bytes)?, alloc(&cu, bytes)?);
    let xs: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let ys: Vec<f32> = (0..n).map(|i| 0.5 * i as f32).collect();
    upload(&cu, a, &xs)?;
    upload(&cu, b, &ys)?;
    let (module, f) = function_named(&cu, c"vadd")?;
    let mut stream = null_mut();
    // SAFETY: `vadd` takes three device pointers to `n` floats and `n`.
    unsafe {
        cu.cuStreamCreate(&mut stream, 0)?;
        cuda_driver_table::kernel_args![&a, &b, &c, &n].with_params(|params| {
            cu.cuLaunchKernel(
                f,
                n.div_ceil(256),
                1,
                1,
                256,
                1,
                1,
                0,
                stream,
                params,
                null_mut(),
            )
        })?;
        cu.cuStreamSynchronize(stream)?;
    }
    let mut sums = vec![0.0_f32; n as usize];
    download(&cu, &mut sums, c)?;
    assert!(sums.iter().enumerate().all(|(i, s)| *s == 1.5 * i as f32));
    let work = device.work(stream);
    assert_eq!(work.len(), 1);
    assert_eq!(
        (work[0].call, work[0].what.as_str()),
        ("cuLaunchKernel", "runs vadd")
    );
    // SAFETY: each freed once.
    unsafe {
        cu.cuStreamDestroy(stream)?;
        cu.cuModuleUnload(module)?;
        for d in [a, b, c] {
            cu.cuMemFree(d)?;
        }
    }
    stop(&cu)?;
    device.finish()?;
    Ok(())
}

#[test]
fn errors_are_named_and_described_as_a_real_driver_does() -> Result {
    let device = Device::new();
    let driver = Fake::new()
        .device(&device)
        .inject(function!(Cuda::cuMemAlloc), |_| {
            Some(CUresult::CUDA_ERROR_OUT_OF_MEMORY)
        })
        .build();
    let cu = Cuda::with_config(driver.config());
    start(&cu)?;
    // A failing call the device says nothing about (here an injected one) reads as on a driver:
    // name, code and the bindings' description.
    let error = alloc(&cu, 8).expect_err("injected");
    assert_eq!(
        error.to_string(),
        "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2): The API call failed because it was \
         unable to allocate enough memory or other resources to perform the requested operation"
    );
    // The table's own `cuGetErrorName` and `cuGetErrorString` answer from the same table, as
    // static C strings; an unknown code is `CUDA_ERROR_INVALID_VALUE` with a null string.
    let (mut name, mut text) = (null(), null());
    // SAFETY: valid places for a string pointer each.
    unsafe {
        cu.cuGetErrorName(CUresult::CUDA_ERROR_OUT_OF_MEMORY, &mut name)?;
        cu.cuGetErrorString(CUresult::CUDA_ERROR_OUT_OF_MEMORY, &mut text)?;
    }
    // SAFETY: the driver answered with static, NUL-terminated strings.
    let (name, text) = unsafe { (CStr::from_ptr(name), CStr::from_ptr(text)) };
    assert_eq!(name, c"CUDA_ERROR_OUT_OF_MEMORY");
    assert!(
        text.to_str().is_ok_and(|t| t.starts_with(
            "The API call failed because it was unable \
             to allocate enough memory"
        )),
        "{text:?}"
    );
    let mut unknown = c"not written".as_ptr();
    // SAFETY: as above.
    let error =
        unsafe { cu.cuGetErrorName(CUresult(99_999), &mut unknown) }.expect_err("no such code");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_INVALID_VALUE.0));
    assert!(unknown.is_null());
    // SAFETY: a null place is refused, as by the driver.
    let error =
        unsafe { cu.cuGetErrorString(CUresult::CUDA_SUCCESS, null_mut()) }.expect_err("null");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_INVALID_VALUE.0));
    stop(&cu)?;
    device.finish().expect("asking for names is no bug");
    Ok(())
}

#[test]
fn an_unknown_kernel_name_is_not_found_as_the_driver_says() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let (mut module, mut f) = (null_mut(), null_mut());
    // SAFETY: valid places; any image.
    unsafe { cu.cuModuleLoadData(&mut module, c"any".as_ptr().cast()) }?;
    // SAFETY: as above.
    let error = unsafe { cu.cuModuleGetFunction(&mut f, module, c"missing".as_ptr()) }
        .expect_err("no such kernel");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_NOT_FOUND.0));
    assert!(
        description(&error).contains("`missing`, which is not registered"),
        "{error}"
    );
    // SAFETY: loaded above.
    unsafe { cu.cuModuleUnload(module) }?;
    stop(&cu)?;
    device
        .finish()
        .expect("a name not found is no bug of the program's");
    Ok(())
}

#[test]
fn a_leak_is_reported_with_its_size_pointer_and_the_call_that_made_it() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let d = alloc(&cu, 256)?;
    let report = device.check().expect_err("a leak");
    let leak =
        format!("leak: 256 bytes at {d:#x} that cuMemAlloc (call 4) allocated were never freed");
    assert_eq!(report.findings()[0].message(), leak, "{report}");
    assert!(
        report.to_string().contains(&format!("\n  {leak}\n")),
        "{report}"
    );
    // A single byte is "1 byte ... was".
    let e = alloc(&cu, 1)?;
    // SAFETY: allocated above.
    unsafe { cu.cuMemFree(d) }?;
    let report = device.check().expect_err("a one-byte leak");
    assert_eq!(
        report.findings()[0].message(),
        format!("leak: 1 byte at {e:#x} that cuMemAlloc (call 5) allocated was never freed"),
        "{report}"
    );
    // SAFETY: allocated above.
    unsafe { cu.cuMemFree(e) }?;
    stop(&cu)?;
    device.finish().expect("nothing left");
    Ok(())
}

#[test]
fn memory_left_when_its_context_is_destroyed_is_a_leak_then() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    let mut ctx = null_mut();
    // SAFETY: a valid place; device 0.
    unsafe {
        cu.cuInit(0)?;
        cu.cuCtxCreate(&mut ctx, null_mut(), 0, 0, 0)?;
    }
    let d = alloc(&cu, 64)?;
    // SAFETY: `ctx` is live.
    unsafe { cu.cuCtxDestroy(ctx) }?;
    let leak = only(device, FindingKind::Leak);
    assert_eq!(
        leak,
        format!(
            "leak: 64 bytes at {d:#x} that cuMemAlloc (call 3) allocated were still allocated \
             when cuCtxDestroy (call 4) destroyed their context"
        )
    );
    Ok(())
}

#[test]
fn a_double_free_fails_and_names_both_frees() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let d = alloc(&cu, 128)?;
    // SAFETY: `d` was allocated; the second free is the bug planted.
    unsafe { cu.cuMemFree(d) }?;
    // SAFETY: as above.
    let error = unsafe { cu.cuMemFree(d) }.expect_err("freed twice");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_INVALID_VALUE.0));
    let expected = format!(
        "double free: cuMemFree (call 6) frees {d:#x}, the 128-byte allocation that cuMemAlloc \
         (call 4) made and cuMemFree (call 5) freed already"
    );
    assert_eq!(description(&error), expected);
    stop(&cu)?;
    assert_eq!(only(device, FindingKind::DoubleFree), expected);
    Ok(())
}

#[test]
fn freeing_what_was_never_allocated_fails() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let d = alloc(&cu, 128)?;
    // SAFETY: the bug planted: not an allocation's start.
    let error = unsafe { cu.cuMemFree(d + 8) }.expect_err("not a start");
    assert!(
        description(&error).starts_with("invalid free: cuMemFree (call 5) frees"),
        "{error}"
    );
    assert!(
        description(&error).contains("8 bytes into the 128-byte allocation"),
        "{error}"
    );
    // SAFETY: as above: never allocated at all.
    let error = unsafe { cu.cuMemFree(0xd000_0000_0000_0010) }.expect_err("never allocated");
    assert!(
        description(&error).ends_with("which this device never allocated"),
        "{error}"
    );
    // SAFETY: allocated above.
    unsafe { cu.cuMemFree(d) }?;
    stop(&cu)?;
    let report = device.finish().expect_err("two invalid frees");
    assert_eq!(report.count(FindingKind::InvalidFree), 2, "{report}");
    Ok(())
}

#[test]
fn an_out_of_bounds_copy_moves_nothing_and_names_the_allocation() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let d = alloc(&cu, 256)?;
    let host = [7_u8; 300];
    let error = upload(&cu, d, &host).expect_err("300 bytes into 256");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_INVALID_VALUE.0));
    let expected = format!(
        "out of bounds: cuMemcpyHtoD (call 5) writes 300 bytes at {d:#x}, 44 bytes past the end \
         of the 256-byte allocation at {d:#x} that cuMemAlloc (call 4) made"
    );
    assert_eq!(description(&error), expected);
    assert_eq!(device.read(d, 4), Some(vec![0; 4]), "nothing was copied");
    // SAFETY: the bug planted: a set past the end too.
    let error = unsafe { cu.cuMemsetD32(d + 252, 1, 2) }.expect_err("8 bytes at 252");
    assert!(
        description(&error).contains("4 bytes past the end of the 256-byte"),
        "{error}"
    );
    // The off-by-one: the last byte is in bounds, one more is not, and the message says "byte".
    upload(&cu, d + 255, &[1_u8])?;
    let error = upload(&cu, d + 255, &[1_u8, 2]).expect_err("2 bytes at 255");
    assert!(
        description(&error).contains(&format!(
            "writes 2 bytes at {:#x}, 1 byte past the end of the 256-byte",
            d + 255
        )),
        "{error}"
    );
    // SAFETY: allocated above.
    unsafe { cu.cuMemFree(d) }?;
    stop(&cu)?;
    let report = device.finish().expect_err("three out-of-bounds accesses");
    assert_eq!(report.count(FindingKind::OutOfBounds), 3, "{report}");
    assert_eq!(report.findings()[0].message(), expected);
    Ok(())
}

/// A 2D copy of `width` bytes by `height` rows from the host image at `host` (`host_pitch`
/// bytes a row) to the device rows at `d` (`d_pitch`).
fn upload_2d(
    host: *const c_void,
    host_pitch: usize,
    d: CUdeviceptr,
    d_pitch: usize,
    (width, height): (usize, usize),
) -> CUDA_MEMCPY2D {
    CUDA_MEMCPY2D {
        srcMemoryType: CUmemorytype::CU_MEMORYTYPE_HOST,
        srcHost: host,
        srcPitch: host_pitch,
        dstMemoryType: CUmemorytype::CU_MEMORYTYPE_DEVICE,
        dstDevice: d,
        dstPitch: d_pitch,
        WidthInBytes: width,
        Height: height,
        ..CUDA_MEMCPY2D::default()
    }
}

#[test]
fn pitched_rows_move_row_by_row_and_the_padding_stays_untouched() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    // 4 rows of 25 u32s: 100 bytes a row on the host, padded to the pitch on the device.
    let (width, height) = (100, 4);
    let image: Vec<u8> = (0..width * height).map(|i| (i % 251) as u8).collect();
    let (mut d, mut pitch) = (0, 0);
    // SAFETY: valid places for the pointer and the pitch.
    unsafe { cu.cuMemAllocPitch(&mut d, &mut pitch, width, height, 4) }?;
    assert_eq!(pitch, 512, "rows are padded as a GPU pads them");
    let copy = upload_2d(image.as_ptr().cast(), width, d, pitch, (width, height));
    // SAFETY: the image holds the 4 rows of 100 bytes; the device rows are the allocation's.
    unsafe { cu.cuMemcpy2D(&copy) }?;
    for row in 0..height {
        let at = d + (row * pitch) as u64;
        assert_eq!(
            device.read(at, width).as_deref(),
            Some(&image[row * width..][..width]),
            "row {row}"
        );
        assert_eq!(
            device.read(at + width as u64, pitch - width),
            Some(vec![0; pitch - width]),
            "the padding after row {row}"
        );
    }
    // A 2-by-2 block of u16s set inside the rows (row 1, bytes 4..8), then the middle two rows
    // back to the host on a stream, at an offset into both sides.
    // SAFETY: the block is inside the rows: `d + pitch + 4`, 2 rows, 4 bytes each.
    unsafe { cu.cuMemsetD2D16(d + pitch as u64 + 4, pitch, 0xbeef, 2, 2) }?;
    let mut back = vec![0_u8; width * 2];
    let mut stream = null_mut();
    let download = CUDA_MEMCPY2D {
        srcMemoryType: CUmemorytype::CU_MEMORYTYPE_DEVICE,
        srcDevice: d,
        srcY: 1,
        srcPitch: pitch,
        dstMemoryType: CUmemorytype::CU_MEMORYTYPE_HOST,
        dstHost: back.as_mut_ptr().cast(),
        dstPitch: width,
        WidthInBytes: width,
        Height: 2,
        ..CUDA_MEMCPY2D::default()
    };
    // SAFETY: `back` holds 2 rows of 100 bytes; rows 1 and 2 are the allocation's; the stream
    // is synchronized before `back` is read.
    unsafe {
        cu.cuStreamCreate(&mut stream, 0)?;
        cu.cuMemcpy2DAsync(&download, stream)?;
        cu.cuStreamSynchronize(stream)?;
    }
    let work = device.work(stream);
    assert_eq!(work.len(), 1, "{work:?}");
    assert_eq!(
        (work[0].call, work[0].what.as_str()),
        (
            "cuMemcpy2DAsync",
            "copies 2 rows of 100 bytes, 512 bytes apart"
        )
    );
    // SAFETY: created above.
    unsafe { cu.cuStreamDestroy(stream) }?;
    let mut expected = image[width..width * 3].to_vec();
    for row in 0..2 {
        expected[row * width + 4..][..4].copy_from_slice(&[0xef, 0xbe, 0xef, 0xbe]);
    }
    assert_eq!(back, expected);
    // SAFETY: allocated above.
    unsafe { cu.cuMemFree(d) }?;
    stop(&cu)?;
    device.finish().expect("a clean program");
    Ok(())
}

#[test]
fn a_2d_copy_whose_last_row_ends_past_the_allocation_moves_nothing() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    // The bug planted: 4 rows of 100 bytes allocated tight (400 bytes) but copied at the pitch
    // of a pitched allocation, 512.
    let d = alloc(&cu, 400)?;
    let image = [7_u8; 400];
    let copy = upload_2d(image.as_ptr().cast(), 100, d, 512, (100, 4));
    // SAFETY: the bug planted (the device side is checked before anything is written).
    let error = unsafe { cu.cuMemcpy2D(&copy) }.expect_err("the last row ends at 1636");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_INVALID_VALUE.0));
    let expected = format!(
        "out of bounds: cuMemcpy2D (call 5) writes 1636 bytes at {d:#x}, 1236 bytes past the end \
         of the 400-byte allocation at {d:#x} that cuMemAlloc (call 4) made (4 rows of 100 \
         bytes, 512 bytes apart, from the first row's start to the last row's end)"
    );
    assert_eq!(description(&error), expected);
    assert_eq!(
        device.read(d, 400),
        Some(vec![0; 400]),
        "not even the first row moved"
    );
    // One row is one copy of its width: the last byte in bounds, one more not.
    let row = upload_2d(image.as_ptr().cast(), 100, d + 300, 512, (100, 1));
    // SAFETY: 100 bytes at `d + 300` end at the allocation's end.
    unsafe { cu.cuMemcpy2D(&row) }?;
    let row = upload_2d(image.as_ptr().cast(), 100, d + 301, 512, (100, 1));
    // SAFETY: the bug planted: one byte over.
    let error = unsafe { cu.cuMemcpy2D(&row) }.expect_err("1 byte past the end");
    assert!(
        description(&error).contains("1 byte past the end of the 400-byte allocation")
            && description(&error).ends_with(
                "(1 row of 100 bytes, from the first row's start to the last row's end)"
            ),
        "{error}"
    );
    // A set of 2 rows of 8 u16s at a pitch of 256 bytes, from 128 bytes before the end.
    // SAFETY: the bug planted: the second row starts past the end.
    let error = unsafe { cu.cuMemsetD2D16(d + 272, 256, 1, 8, 2) }.expect_err("row 2 is out");
    assert!(
        description(&error).contains(&format!(
            "cuMemsetD2D16 (call 8) writes 272 bytes at {:#x}, 144 bytes past the end",
            d + 272
        )),
        "{error}"
    );
    // SAFETY: allocated above.
    unsafe { cu.cuMemFree(d) }?;
    stop(&cu)?;
    let report = device
        .finish()
        .expect_err("three out-of-bounds 2D accesses");
    assert_eq!(report.count(FindingKind::OutOfBounds), 3, "{report}");
    assert_eq!(report.findings()[0].message(), expected);
    Ok(())
}

#[test]
fn a_pitch_narrower_than_its_rows_an_array_and_a_bad_element_size_are_refused() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let (mut d, mut pitch) = (0, 0);
    // SAFETY: valid places for the pointer and the pitch.
    let error =
        unsafe { cu.cuMemAllocPitch(&mut d, &mut pitch, 64, 4, 3) }.expect_err("3-byte elements");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_INVALID_VALUE.0));
    assert!(
        description(&error).contains("an element size of 3 bytes; it takes 4, 8 or 16"),
        "{error}"
    );
    // SAFETY: as above.
    unsafe { cu.cuMemAllocPitch(&mut d, &mut pitch, 64, 4, 4) }?;
    let image = [0_u8; 4 * 64];
    // The rows of 64 bytes read 32 bytes apart: each would overlap the next.
    let copy = upload_2d(image.as_ptr().cast(), 32, d, pitch, (64, 4));
    // SAFETY: refused before anything is read.
    let error = unsafe { cu.cuMemcpy2D(&copy) }.expect_err("a pitch under the width");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_INVALID_VALUE.0));
    assert!(
        description(&error).contains("reads rows of 64 bytes with a pitch of 32 bytes"),
        "{error}"
    );
    let from_array = CUDA_MEMCPY2D {
        srcMemoryType: CUmemorytype::CU_MEMORYTYPE_ARRAY,
        ..upload_2d(image.as_ptr().cast(), 64, d, pitch, (64, 4))
    };
    // SAFETY: refused before anything is read.
    let error = unsafe { cu.cuMemcpy2D(&from_array) }.expect_err("no arrays");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_NOT_SUPPORTED.0));
    assert!(
        description(&error).contains("source is a CUDA array"),
        "{error}"
    );
    // SAFETY: allocated above.
    unsafe { cu.cuMemFree(d) }?;
    stop(&cu)?;
    device
        .finish()
        .expect("refusals of calls the driver refuses are no findings");
    Ok(())
}

#[test]
fn use_after_free_is_caught_because_no_address_is_handed_out_twice() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let d = alloc(&cu, 64)?;
    // SAFETY: allocated above.
    unsafe { cu.cuMemFree(d) }?;
    let again = alloc(&cu, 64)?;
    assert_ne!(again, d);
    let mut back = [0_u8; 16];
    let error = download(&cu, &mut back, d).expect_err("freed");
    assert_eq!(
        description(&error),
        format!(
            "use after free: cuMemcpyDtoH (call 7) reads 16 bytes at {d:#x}, in the 64-byte \
             allocation at {d:#x} that cuMemAlloc (call 4) made and cuMemFree (call 5) freed"
        )
    );
    // SAFETY: allocated above.
    unsafe { cu.cuMemFree(again) }?;
    stop(&cu)?;
    only(device, FindingKind::UseAfterFree);
    Ok(())
}

#[test]
fn a_destroyed_stream_used_is_an_invalid_handle() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let d = alloc(&cu, 16)?;
    let mut stream: CUstream = null_mut();
    // SAFETY: a valid place; the stream is destroyed once.
    unsafe {
        cu.cuStreamCreate(&mut stream, 0)?;
        cu.cuStreamDestroy(stream)?;
    }
    let host = [0_u8; 16];
    // SAFETY: the bug planted: `stream` was destroyed.
    let error = unsafe { cu.cuMemcpyHtoDAsync(d, host.as_ptr().cast(), 16, stream) }
        .expect_err("destroyed");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_INVALID_HANDLE.0));
    let expected = format!(
        "invalid handle: cuMemcpyHtoDAsync (call 7) uses stream {:#x} that cuStreamCreate (call \
         5) created and cuStreamDestroy (call 6) destroyed",
        stream as usize
    );
    assert_eq!(description(&error), expected);
    // SAFETY: allocated above.
    unsafe { cu.cuMemFree(d) }?;
    stop(&cu)?;
    assert_eq!(only(device, FindingKind::InvalidHandle), expected);
    Ok(())
}

#[test]
fn live_handles_are_leaks_and_a_destroyed_context_is_an_invalid_context() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    let ctx = start(&cu)?;
    let (mut stream, mut event) = (null_mut(), null_mut());
    // SAFETY: valid places.
    unsafe {
        cu.cuStreamCreate(&mut stream, 0)?;
        cu.cuEventCreate(&mut event, 0)?;
    }
    let report = device.check().expect_err("two live handles");
    assert_eq!(report.count(FindingKind::Leak), 3, "{report}");
    let text = report.to_string();
    assert!(
        text.contains(&format!(
            "stream {:#x} that cuStreamCreate (call 4) created was never destroyed",
            stream as usize
        )),
        "{text}"
    );
    assert!(text.contains("event"), "{text}");
    assert!(text.contains("primary context"), "{text}");
    // SAFETY: destroyed once each.
    unsafe {
        cu.cuEventDestroy(event)?;
        cu.cuStreamDestroy(stream)?;
    }
    stop(&cu)?;
    // The primary context is released: using it is an invalid context.
    // SAFETY: the bug planted.
    let error = unsafe { cu.cuCtxSetCurrent(ctx) }.expect_err("released");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_INVALID_CONTEXT.0));
    assert!(
        description(&error).contains("cuDevicePrimaryCtxRelease (call 8) destroyed"),
        "{error}"
    );
    only(device, FindingKind::InvalidHandle);
    Ok(())
}

#[test]
fn a_kernel_reading_past_an_allocation_fails_the_launch_and_is_reported() -> Result {
    let device = Device::new();
    device.kernel("vadd", vadd);
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let (a, c) = (alloc(&cu, 64)?, alloc(&cu, 64)?);
    let (module, f) = function_named(&cu, c"vadd")?;
    // 17 floats from 64-byte allocations: the 17th is out of bounds.
    let n = 17_u32;
    // SAFETY: the bug planted: `n` is one more than the allocations hold.
    let error = unsafe {
        cuda_driver_table::kernel_args![&a, &a, &c, &n].with_params(|params| {
            cu.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, null_mut(), params, null_mut())
        })
    }
    .expect_err("out of bounds");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS.0));
    assert_eq!(
        description(&error),
        format!(
            "out of bounds: kernel vadd launched by cuLaunchKernel (call 8) reads 4 bytes at \
             {:#x}, right after the end of the 64-byte allocation at {a:#x} that cuMemAlloc \
             (call 4) made",
            a + 64
        ),
    );
    // SAFETY: each freed once.
    unsafe {
        cu.cuModuleUnload(module)?;
        cu.cuMemFree(a)?;
        cu.cuMemFree(c)?;
    }
    stop(&cu)?;
    only(device, FindingKind::OutOfBounds);
    Ok(())
}

#[test]
fn kernel_args_that_are_not_the_kernels_parameters_fail_the_launch_before_it_runs() -> Result {
    // It reads the output before any kernel wrote it ("neither launch ran the kernel"): it
    // relies on zeroed memory, and says so.
    let device = Device::new().with_zeroed_memory();
    device.kernel("vadd", vadd);
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let (a, c) = (alloc(&cu, 64)?, alloc(&cu, 64)?);
    upload(&cu, a, &[1.0_f32; 16])?;
    let (module, f) = function_named(&cu, c"vadd")?;
    let launch = |params| {
        // SAFETY: the bugs planted below are caught by the device before the kernel reads.
        unsafe { cu.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, null_mut(), params, null_mut()) }
    };
    let takes = |call: u32| {
        format!("cuLaunchKernel (call {call}) launches vadd, which takes (u64, u64, u64, u32)")
    };

    // One value short: the kernel would read a fourth pointer past the array.
    let error = cuda_driver_table::kernel_args![&a, &a, &c]
        .with_params(launch)
        .expect_err("3 values for 4 parameters");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_INVALID_VALUE.0));
    assert_eq!(
        description(&error),
        format!(
            "parameter mismatch: {}, with a `kernel_args!` of 3 values: pass one per parameter, \
             in order",
            takes(9)
        )
    );
    // A `usize` count for the kernel's `u32`: the kernel would read half of it.
    let n = 16_usize;
    let error = cuda_driver_table::kernel_args![&a, &a, &c, &n]
        .with_params(launch)
        .expect_err("8 bytes for a u32");
    assert_eq!(
        description(&error),
        format!(
            "parameter mismatch: {}, with a `usize` of 8 bytes as parameter 4 (a `u32` of 4 \
             bytes): `kernel_args!` passes each value as it is typed, so give it a `u32`",
            takes(10)
        )
    );
    let mut sums = [0.0_f32; 16];
    download(&cu, &mut sums, c)?;
    assert_eq!(sums, [0.0; 16], "neither launch ran the kernel");

    // The kernel's own parameters run it.
    let n = 16_u32;
    cuda_driver_table::kernel_args![&a, &a, &c, &n].with_params(launch)?;
    download(&cu, &mut sums, c)?;
    assert_eq!(sums, [2.0; 16]);
    // SAFETY: each freed once.
    unsafe {
        cu.cuModuleUnload(module)?;
        cu.cuMemFree(a)?;
        cu.cuMemFree(c)?;
    }
    stop(&cu)?;
    let report = device.finish().expect_err("two mismatched launches");
    assert_eq!(report.count(FindingKind::ParameterMismatch), 2, "{report}");
    assert_eq!(report.findings().len(), 2, "{report}");
    Ok(())
}

#[test]
fn null_kernel_params_for_a_parameter_and_a_value_for_no_parameter_are_refused() -> Result {
    let device = Device::new();
    device.kernel("touch", |_: &mut Launch, (_,): (CUdeviceptr,)| Ok(()));
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let (module, f) = function_named(&cu, c"touch")?;
    // SAFETY: the bug planted: no parameters for a kernel of one, which the device refuses.
    let error =
        unsafe { cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, null_mut(), null_mut(), null_mut()) }
            .expect_err("null kernelParams");
    assert_eq!(
        description(&error),
        "cuLaunchKernel (call 6) launches touch, which takes 1 parameter, with null kernelParams"
    );
    // And a value for a kernel that takes none.
    device.kernel("nothing", |_: &mut Launch, (): ()| Ok(()));
    let (second, nothing) = function_named(&cu, c"nothing")?;
    let n = 1_u32;
    let error = cuda_driver_table::kernel_args![&n]
        .with_params(|params| {
            // SAFETY: the bug planted: one value for a kernel of none, which the device refuses.
            unsafe {
                cu.cuLaunchKernel(nothing, 1, 1, 1, 1, 1, 1, 0, null_mut(), params, null_mut())
            }
        })
        .expect_err("a value for no parameter");
    assert!(
        description(&error).starts_with(
            "parameter mismatch: cuLaunchKernel (call 9) launches nothing, which takes no \
             parameters, with a `kernel_args!` of 1 value"
        ),
        "{error}"
    );
    // SAFETY: loaded above.
    unsafe {
        cu.cuModuleUnload(module)?;
        cu.cuModuleUnload(second)?;
    }
    stop(&cu)?;
    // The null array is refused as the driver refuses it; the mismatch is a finding.
    let report = device.finish().expect_err("the mismatch");
    assert_eq!(report.count(FindingKind::ParameterMismatch), 1, "{report}");
    assert_eq!(report.findings().len(), 1, "{report}");
    Ok(())
}

#[test]
fn a_host_pointer_that_is_a_device_pointer_is_caught() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let (a, b) = (alloc(&cu, 16)?, alloc(&cu, 16)?);
    // SAFETY: the bug planted: `b` is device memory given as host memory (the fake never
    // reads it).
    let error = unsafe { cu.cuMemcpyHtoD(a, std::ptr::without_provenance(b as usize), 16) }
        .expect_err("a device pointer");
    assert!(
        description(&error).contains("which is a device pointer of this device"),
        "{error}"
    );
    // SAFETY: each freed once.
    unsafe {
        cu.cuMemFree(a)?;
        cu.cuMemFree(b)?;
    }
    stop(&cu)?;
    only(device, FindingKind::InvalidPointer);
    Ok(())
}

#[test]
fn pinned_host_memory_is_real_and_checked_for_leaks_and_double_frees() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let mut p: *mut c_void = null_mut();
    // SAFETY: a valid place.
    unsafe { cu.cuMemAllocHost(&mut p, 64) }?;
    // SAFETY: 64 bytes of host memory the device allocated.
    let bytes = unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), 64) };
    bytes.fill(9);
    let d = alloc(&cu, 128)?;
    // SAFETY: 64 bytes each way.
    unsafe {
        cu.cuMemcpyHtoD(d, p, 64)?;
        cu.cuMemcpyDtoH(p, d, 64)?;
    }
    assert_eq!(device.read(d, 64), Some(vec![9; 64]));
    // SAFETY: the bug planted: past the end of the pinned allocation.
    let error = unsafe { cu.cuMemcpyDtoH(p, d, 65) }.expect_err("65 bytes into 64");
    assert!(
        description(&error).contains("past the end of the 64-byte host allocation"),
        "{error}"
    );
    // SAFETY: allocated above; the second free is a bug planted.
    unsafe { cu.cuMemFreeHost(p) }?;
    // SAFETY: as above.
    let error = unsafe { cu.cuMemFreeHost(p) }.expect_err("freed twice");
    assert!(
        description(&error).starts_with("double free: cuMemFreeHost"),
        "{error}"
    );
    // SAFETY: allocated above.
    unsafe { cu.cuMemFree(d) }?;
    stop(&cu)?;
    let report = device.finish().expect_err("two bugs");
    assert_eq!(
        (
            report.count(FindingKind::OutOfBounds),
            report.count(FindingKind::DoubleFree)
        ),
        (1, 1),
        "{report}"
    );
    Ok(())
}

#[test]
fn streams_and_events_run_in_order_on_a_fake_clock() -> Result {
    // 1 MiB, or under Miri, which runs each byte, 64 KiB.
    const BYTES: usize = if cfg!(miri) { 1 << 16 } else { 1 << 20 };
    let run = || -> Result<(f32, f32)> {
        let device = Device::new();
        let cu = Cuda::with_config(device.config());
        start(&cu)?;
        let d = alloc(&cu, BYTES)?;
        let (mut s, mut t, mut e0, mut e1, mut e2) =
            (null_mut(), null_mut(), null_mut(), null_mut(), null_mut());
        let host = vec![0_u8; BYTES];
        let (mut whole, mut waited) = (0.0, 0.0);
        // SAFETY: valid places; 1 MiB copies.
        unsafe {
            cu.cuStreamCreate(&mut s, 0)?;
            cu.cuStreamCreate(&mut t, 1)?;
            for e in [&mut e0, &mut e1, &mut e2] {
                cu.cuEventCreate(e, 0)?;
            }
            cu.cuEventRecord(e0, s)?;
            cu.cuMemcpyHtoDAsync(d, host.as_ptr().cast(), BYTES, s)?;
            cu.cuMemsetD32Async(d, 0, BYTES / 4, s)?;
            cu.cuEventRecord(e1, s)?;
            // `t` waits for `s`'s work, then does its own.
            cu.cuStreamWaitEvent(t, e1, 0)?;
            cu.cuMemsetD32Async(d, 1, 16, t)?;
            cu.cuEventRecord(e2, t)?;
            cu.cuStreamSynchronize(t)?;
            cu.cuEventElapsedTime(&mut whole, e0, e1)?;
            cu.cuEventElapsedTime(&mut waited, e1, e2)?;
            for e in [e0, e1, e2] {
                cu.cuEventDestroy(e)?;
            }
        }
        let work: Vec<_> = device
            .work(s)
            .into_iter()
            .map(|w| (w.call, w.start_ns, w.end_ns))
            .collect();
        assert_eq!(work.len(), 4, "{work:?}");
        assert!(
            work.windows(2).all(|w| w[0].2 <= w[1].1),
            "in order: {work:?}"
        );
        assert_eq!(device.work(t)[0].call, "cuStreamWaitEvent");
        // SAFETY: destroyed and freed once each.
        unsafe {
            cu.cuStreamDestroy(s)?;
            cu.cuStreamDestroy(t)?;
            cu.cuMemFree(d)?;
        }
        stop(&cu)?;
        device.finish().expect("clean");
        Ok((whole, waited))
    };
    let (whole, waited) = run()?;
    // Two operations of `BYTES` at 1 µs + 1 ns per 10 bytes each, then one of 64 bytes.
    assert_eq!(whole, 2.0 * (1_000.0 + (BYTES / 10) as f32) / 1e6);
    assert_eq!(waited, (1_000.0 + 6.0) / 1e6);
    assert_eq!(run()?, (whole, waited), "the same on every run");
    Ok(())
}

#[test]
fn the_current_context_is_per_thread() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    std::thread::scope(|s| {
        s.spawn(|| {
            let error = alloc(&cu, 16).expect_err("no current context on this thread");
            assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_INVALID_CONTEXT.0));
            let mut ctx = null_mut::<c_void>().cast();
            // SAFETY: a valid place.
            unsafe { cu.cuCtxGetCurrent(&mut ctx) }.expect("answers null");
            assert!(ctx.is_null());
        });
    });
    stop(&cu)?;
    device
        .finish()
        .expect("no bug: a missing context is an error, not a finding");
    Ok(())
}

#[test]
fn calls_before_cuinit_fail_as_the_driver_fails_them() {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    let error = alloc(&cu, 16).expect_err("not initialized");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_NOT_INITIALIZED.0));
}

#[test]
fn injected_faults_stand_in_front_of_the_device() -> Result {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let device = Device::new();
    let allocations = AtomicUsize::new(0);
    let driver = Fake::new()
        .device(&device)
        // The third allocation runs out of memory; the others reach the device.
        .inject(function!(Cuda::cuMemAlloc), move |_| {
            (allocations.fetch_add(1, Ordering::Relaxed) == 2)
                .then_some(CUresult::CUDA_ERROR_OUT_OF_MEMORY)
        })
        .build();
    let cu = Cuda::with_config(driver.config());
    start(&cu)?;
    let (a, b) = (alloc(&cu, 8)?, alloc(&cu, 8)?);
    let error = alloc(&cu, 8).expect_err("injected");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_OUT_OF_MEMORY.0));
    let c = alloc(&cu, 8)?;
    assert_eq!(device.used_memory(), 24);
    // SAFETY: each freed once.
    unsafe {
        for d in [a, b, c] {
            cu.cuMemFree(d)?;
        }
    }
    stop(&cu)?;
    assert_eq!(
        driver
            .calls()
            .iter()
            .filter(|c| **c == "cuMemAlloc")
            .count(),
        4
    );
    device.finish().expect("clean");
    Ok(())
}

#[test]
fn succeed_others_answers_the_rest_and_shows_what_it_wrote() -> Result {
    let device = Device::new();
    let driver = Fake::new().device(&device).succeed_others().build();
    let cu = Cuda::with_config(driver.config());
    let ctx = start(&cu)?;
    let (mut a, mut b) = (null_mut(), null_mut());
    // SAFETY: valid places; the descriptor is not read by the fake.
    unsafe {
        let desc = std::mem::zeroed();
        cu.cuArrayCreate(&mut a, &desc)?;
        cu.cuArrayCreate(&mut b, &desc)?;
        cu.cuArrayDestroy(a)?;
    }
    assert!(
        !a.is_null() && !b.is_null() && a != b,
        "distinct non-null handles"
    );
    let written = driver.written_by(function!(Cuda::cuArrayCreate));
    assert_eq!(written.len(), 2);
    assert_eq!(written[0][0].parameter(), "pHandle");
    assert_eq!(written[1][0].as_u64(), Some(b as u64));
    // An out-value the bindings do not mark (`cuCtxGetApiVersion`'s `version`) is not written.
    let mut version = 7;
    // SAFETY: a valid place.
    unsafe { cu.cuCtxGetApiVersion(ctx, &mut version) }?;
    assert_eq!(version, 7);
    // What the device wrote shows too.
    let retained = driver.written_by(function!(Cuda::cuDevicePrimaryCtxRetain));
    assert_eq!(retained[0][0].get::<CUcontext>(), Some(ctx));
    stop(&cu)?;
    device.finish().expect("clean");
    Ok(())
}

#[test]
fn a_function_the_device_lacks_fails_to_resolve_naming_it() {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    let mut v = 0;
    // SAFETY: a valid place (never reached).
    let error = unsafe { cu.cuCtxGetApiVersion(null_mut(), &mut v) }.expect_err("not implemented");
    assert!(error.to_string().contains("cuCtxGetApiVersion"), "{error}");
}

#[test]
fn a_fake_resolver_used_on_its_own_is_refused_saying_what_to_do() {
    let device = Device::new();
    let error = device.config().resolver().map(|_| ()).expect_err("refused");
    let text = error.to_string();
    assert!(text.contains("driver.config()"), "{text}");
    let _ = Config::runtime();
}

#[test]
#[should_panic(expected = "leak: 8 bytes at")]
fn a_device_dropped_with_a_leak_fails_the_test() {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu).expect("started");
    alloc(&cu, 8).expect("allocated");
}

#[test]
fn a_device_dropped_while_panicking_reports_without_a_second_panic() {
    let outcome = std::panic::catch_unwind(|| {
        let device = Device::new();
        let cu = Cuda::with_config(device.config());
        start(&cu).expect("started");
        alloc(&cu, 8).expect("allocated");
        panic!("the test's own failure");
    });
    let payload = outcome.expect_err("panicked");
    assert_eq!(
        payload.downcast_ref::<&str>(),
        Some(&"the test's own failure")
    );
}

#[test]
fn null_out_values_and_streams_of_no_device_are_refused() -> Result {
    let device = Device::new();
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    // SAFETY: null is refused before anything is written.
    let error = unsafe { cu.cuMemAlloc(null_mut(), 8) }.expect_err("null");
    assert_eq!(error.code(), Some(CUresult::CUDA_ERROR_INVALID_VALUE.0));
    let bogus: CUstream = std::ptr::without_provenance_mut(0x1234_5670);
    // SAFETY: the stream is bogus (the bug planted); nothing is read through `null()`.
    let error = unsafe { cu.cuStreamSynchronize(bogus) }.expect_err("no such stream");
    assert!(
        description(&error).contains("which is no stream of this device"),
        "{error}"
    );
    let _ = null::<u8>();
    stop(&cu)?;
    only(device, FindingKind::InvalidHandle);
    Ok(())
}

#[test]
fn launch_ex_host_functions_and_occupancy_are_answered() -> Result<(), Box<dyn std::error::Error>> {
    use std::sync::atomic::{AtomicU32, Ordering};
    unsafe extern "C" fn bump(data: *mut c_void) {
        // SAFETY: `data` is the counter below, alive until the stream is synchronised.
        unsafe { &*data.cast::<AtomicU32>() }.fetch_add(1, Ordering::Relaxed);
    }
    let device = Device::new();
    device.kernel("fill", |k: &mut Launch, (x, v): (CUdeviceptr, u32)| {
        let g = k.grid();
        assert_eq!((g.x, g.y, k.block().x, k.shared_mem_bytes()), (2, 1, 4, 16));
        for t in k.threads() {
            k.write(x, t.global_x(), v)?;
        }
        Ok(())
    });
    let cu = Cuda::with_config(device.config());
    start(&cu)?;
    let d = alloc(&cu, 32)?;
    let (module, f) = function_named(&cu, c"fill")?;
    let counter = AtomicU32::new(0);
    let (mut grid, mut block) = (0, 0);
    // SAFETY: `fill` takes a device pointer to 8 `u32`s and a `u32`; `counter` outlives the
    // synchronisation.
    unsafe {
        let mut config: cuda_driver_table::sys::CUlaunchConfig = std::mem::zeroed();
        (config.gridDimX, config.gridDimY, config.gridDimZ) = (2, 1, 1);
        (config.blockDimX, config.blockDimY, config.blockDimZ) = (4, 1, 1);
        config.sharedMemBytes = 16;
        let v = 7_u32;
        cuda_driver_table::kernel_args![&d, &v]
            .with_params(|params| cu.cuLaunchKernelEx(&config, f, params, null_mut()))?;
        cu.cuLaunchHostFunc(
            null_mut(),
            Some(bump),
            std::ptr::from_ref(&counter).cast_mut().cast(),
        )?;
        cu.cuOccupancyMaxPotentialBlockSize(&mut grid, &mut block, f, None, 0, 256)?;
    }
    assert_eq!(counter.load(Ordering::Relaxed), 1);
    assert_eq!(block, 256);
    assert!(grid > 0);
    let mut back = [0_u32; 8];
    download(&cu, &mut back, d)?;
    assert_eq!(back, [7; 8]);
    // SAFETY: each freed once.
    unsafe {
        cu.cuModuleUnload(module)?;
        cu.cuMemFree(d)?;
    }
    stop(&cu)?;
    device.finish()?;
    Ok(())
}
