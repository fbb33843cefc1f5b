//! `simpleTextureDrv`, after NVIDIA's sample of that name (cuda-samples,
//! `Samples/0_Introduction/simpleTextureDrv`): transforming an image by sampling a texture. The
//! original rotates a 2D image held in a 2D array; this port keeps its idea over a 3D CUDA array,
//! made with `cuArray3DCreate` and filled with `cuMemcpy3D`: a volume of four 512 × 512 slices
//! (generated patterns, periodic so that wrap addressing has no seam, different in each slice),
//! read through a texture object (`cuTexObjectCreate` from a `CUDA_RESOURCE_DESC` and a
//! `CUDA_TEXTURE_DESC`: normalised coordinates, wrap addressing, linear filtering). The kernel of
//! `kernels/simpleTexture.cu` rotates every slice by 0.5 radians about its centre; it is launched
//! once to warm up and once timed. The result is checked against the same rotation with bilinear
//! filtering on the CPU, with the original's tolerance: fewer than 15% of the pixels may differ
//! by more than 5e-3.
//!
//! `cargo run -p cuda-driver-table-samples --bin simpleTextureDrv [-- --driver]`
//!
//! `driver = 13000`: the kernel is PTX of nvcc 13.0 (ISA 9.0), which only a CUDA 13.0 driver
//! compiles; `cuCtxCreate` and `cuCtxSynchronize` are then their CUDA 12.5 and 13.0 ABIs.

use crate::Failure;
use cuda_driver_table::{driver_table, kernel_args, sys};
use scopeguard::guard;
use std::f32::consts::TAU;
use std::ffi::{c_char, CStr};
use std::ptr;
use std::time::Instant;

/// The functions the sample calls.
#[driver_table(
    cuInit,
    cuDeviceGet,
    cuDeviceGetAttribute,
    cuDeviceGetName,
    cuCtxCreate,
    cuCtxDestroy,
    cuCtxSynchronize,
    cuModuleLoadData,
    cuModuleGetFunction,
    cuModuleUnload,
    cuMemAlloc,
    cuMemFree,
    cuMemcpyDtoH,
    cuArray3DCreate,
    cuArrayDestroy,
    cuMemcpy3D,
    cuTexObjectCreate,
    cuTexObjectDestroy,
    cuLaunchKernel,
    driver = 13000
)]
pub struct Cuda;

/// The volume's width.
pub const WIDTH: usize = 512;
/// The volume's height.
pub const HEIGHT: usize = 512;
/// A power of two: the centre of slice `z` in normalised coordinates, `(z + 0.5) / DEPTH`, is
/// then exact in `f32`, and the filter reads that slice alone.
pub const DEPTH: usize = 4;
/// The rotation, in radians, as in the original.
pub const ANGLE: f32 = 0.5;
/// The block is `BLOCK × BLOCK` threads of one slice, as in the original.
pub const BLOCK: usize = 8;
/// The original's tolerance: a pixel differs when it is more than this off...
const EPSILON: f32 = 5e-3;
/// ...and the check fails when this fraction of the pixels or more differ.
const THRESHOLD: f64 = 0.15;

/// Voxel `(x, y, z)` of the input volume: smooth, periodic in `x` and `y` (whole periods across
/// the slice), in `[0.05, 0.95]`, and different in every slice.
fn voxel(x: usize, y: usize, z: usize) -> f32 {
    let (u, v) = (x as f32 / WIDTH as f32, y as f32 / HEIGHT as f32);
    let (kx, ky) = ((z + 1) as f32, (2 * z + 1) as f32);
    0.5 + 0.3 * (TAU * kx * u).sin() * (TAU * ky * v).cos() + 0.15 * (TAU * (u + 2.0 * v)).sin()
}

/// What the kernel computes for `(x, y, z)`, on the CPU: the same rotated coordinates, wrapped
/// into `[0, 1)`, then bilinear filtering in slice `z` of `volume` as the texture unit does it
/// (texel centres at `i + 0.5`, neighbours wrapping around).
fn reference(volume: &[f32], x: usize, y: usize, z: usize) -> f32 {
    let (w, h) = (WIDTH as f32, HEIGHT as f32);
    let u = x as f32 - w / 2.0;
    let v = y as f32 - h / 2.0;
    let (s, t) = (ANGLE.cos(), ANGLE.sin());
    let tu = (u * s - v * t) / w + 0.5;
    let tv = (v * s + u * t) / h + 0.5;
    let texel = |n: f32, size: usize| {
        let p = (n - n.floor()) * size as f32 - 0.5;
        let i = p.floor();
        let i0 = (i as isize).rem_euclid(size as isize) as usize;
        (i0, (i0 + 1) % size, p - i)
    };
    let (x0, x1, a) = texel(tu, WIDTH);
    let (y0, y1, b) = texel(tv, HEIGHT);
    let at = |xi: usize, yi: usize| volume[(z * HEIGHT + yi) * WIDTH + xi];
    (1.0 - a) * (1.0 - b) * at(x0, y0)
        + a * (1.0 - b) * at(x1, y0)
        + (1.0 - a) * b * at(x0, y1)
        + a * b * at(x1, y1)
}

/// The sample, on device 0 through `cu`.
///
/// # Errors
///
/// [`Failure::Cuda`] when a driver call fails, [`Failure::Check`] when too many pixels differ
/// from the CPU's rotation. Everything created is released on every path.
pub fn run(cu: &Cuda) -> Result<(), Failure> {
    println!("simpleTextureDrv (Driver API)");
    let mut volume = Vec::with_capacity(WIDTH * HEIGHT * DEPTH);
    for z in 0..DEPTH {
        for y in 0..HEIGHT {
            volume.extend((0..WIDTH).map(|x| voxel(x, y, z)));
        }
    }
    let mut out = vec![0f32; volume.len()];
    let bytes = out.len() * size_of::<f32>();
    let row_bytes = WIDTH * size_of::<f32>();
    let (width, height, depth) = (WIDTH as i32, HEIGHT as i32, DEPTH as i32);
    let elapsed;
    // SAFETY: the out-pointers are live locals and the name buffer's length is passed with it;
    // the driver writes the name NUL-terminated.
    let dev = unsafe {
        cu.cuInit(0)?;
        let mut dev = 0;
        cu.cuDeviceGet(&mut dev, 0)?;
        let (mut major, mut minor) = (0, 0);
        let attribute = sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR;
        cu.cuDeviceGetAttribute(&mut major, attribute, dev)?;
        let attribute = sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR;
        cu.cuDeviceGetAttribute(&mut minor, attribute, dev)?;
        let mut name = [0 as c_char; 100];
        cu.cuDeviceGetName(name.as_mut_ptr(), name.len() as i32, dev)?;
        println!(
            "> GPU Device {} has SM {major}.{minor} compute capability",
            CStr::from_ptr(name.as_ptr()).to_string_lossy()
        );
        dev
    };
    let ctx = own_context!(cu, dev)?;
    let (_module, [kernel]) = module!(cu, ptx!("simpleTexture"), [c"transformKernel"])?;
    // SAFETY: every out-pointer is a live local; the 3D copy reads `DEPTH` slices of `HEIGHT` rows of `row_bytes` from `volume`, which holds
    // exactly that, into an array of those dimensions; the descriptors are zeroed (their reserved
    // fields and unused union members included) before the fields used are set; the device
    // buffer holds `bytes`; the kernel's parameters are what `transformKernel(float *, int, int,
    // int, float, unsigned long long)` takes, read by each launch before it returns; every handle
    // is used in the context current on this thread, between its creation and its guard's
    // release, which runs once, after its last use; the guards are dropped in reverse order, the
    // texture before its array, everything before the context.
    unsafe {
        let mut d_out = 0;
        cu.cuMemAlloc(&mut d_out, bytes)?;
        let d_out = guard(d_out, |d_out| {
            let _ = cu.cuMemFree(d_out);
        });

        let desc = sys::CUDA_ARRAY3D_DESCRIPTOR {
            Width: WIDTH,
            Height: HEIGHT,
            Depth: DEPTH,
            Format: sys::CUarray_format::CU_AD_FORMAT_FLOAT,
            NumChannels: 1,
            Flags: 0,
        };
        let mut array = ptr::null_mut();
        cu.cuArray3DCreate(&mut array, &desc)?;
        let array = guard(array, |array| {
            let _ = cu.cuArrayDestroy(array);
        });
        let copy = sys::CUDA_MEMCPY3D {
            srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_HOST,
            srcHost: volume.as_ptr().cast(),
            srcPitch: row_bytes,
            srcHeight: HEIGHT,
            dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_ARRAY,
            dstArray: *array,
            WidthInBytes: row_bytes,
            Height: HEIGHT,
            Depth: DEPTH,
            ..Default::default()
        };
        cu.cuMemcpy3D(&copy)?;

        let mut resource = sys::CUDA_RESOURCE_DESC {
            resType: sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY,
            ..Default::default()
        };
        resource.res.array.hArray = *array;
        let wrap = sys::CUaddress_mode::CU_TR_ADDRESS_MODE_WRAP;
        let texture_desc = sys::CUDA_TEXTURE_DESC {
            addressMode: [wrap; 3],
            filterMode: sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR,
            flags: sys::CU_TRSF_NORMALIZED_COORDINATES,
            ..Default::default()
        };
        let mut texture: sys::CUtexObject = 0;
        cu.cuTexObjectCreate(&mut texture, &resource, &texture_desc, ptr::null())?;
        let texture = guard(texture, |texture| {
            let _ = cu.cuTexObjectDestroy(texture);
        });

        // One array, launched twice (a warm-up, then the timed launch).
        let args = kernel_args![&*d_out, &width, &height, &depth, &ANGLE, &*texture];
        let launch = || {
            args.with_params(|params| {
                cu.cuLaunchKernel(
                    kernel,
                    (WIDTH / BLOCK) as u32,
                    (HEIGHT / BLOCK) as u32,
                    DEPTH as u32,
                    BLOCK as u32,
                    BLOCK as u32,
                    1,
                    0,
                    ptr::null_mut(),
                    params,
                    ptr::null_mut(),
                )
            })
        };
        launch()?;
        cu.cuCtxSynchronize(*ctx)?;
        let start = Instant::now();
        launch()?;
        cu.cuCtxSynchronize(*ctx)?;
        elapsed = start.elapsed().as_secs_f64();
        cu.cuMemcpyDtoH(out.as_mut_ptr().cast(), *d_out, bytes)?;
    }
    println!("Processing time: {:.3} (ms)", elapsed * 1e3);
    println!("{:.2} Mpixels/sec", out.len() as f64 / elapsed / 1e6);
    check(&volume, &out)
}

/// The original's comparison: each pixel against the CPU's, fewer than [`THRESHOLD`] of them off
/// by more than [`EPSILON`].
fn check(volume: &[f32], out: &[f32]) -> Result<(), Failure> {
    let mut off = 0usize;
    let mut worst = (0f32, 0, 0, 0);
    for z in 0..DEPTH {
        for y in 0..HEIGHT {
            for x in 0..WIDTH {
                let diff = (out[(z * HEIGHT + y) * WIDTH + x] - reference(volume, x, y, z)).abs();
                // A NaN is as far off as can be.
                let diff = if diff.is_nan() { f32::INFINITY } else { diff };
                if diff > EPSILON {
                    off += 1;
                }
                if diff > worst.0 {
                    worst = (diff, x, y, z);
                }
            }
        }
    }
    let (diff, x, y, z) = worst;
    println!(
        "{off} of {} pixels differ by more than {EPSILON} (the largest difference: {diff} at ({x}, {y}, {z}))",
        out.len()
    );
    if (off as f64) < THRESHOLD * out.len() as f64 {
        Ok(())
    } else {
        Err(Failure::Check(format!(
            "{off} of {} pixels differ from the CPU's rotation by more than {EPSILON}; the largest difference is {diff} at ({x}, {y}, slice {z})",
            out.len()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn volume() -> Vec<f32> {
        let mut v = Vec::new();
        for z in 0..DEPTH {
            for y in 0..HEIGHT {
                v.extend((0..WIDTH).map(|x| voxel(x, y, z)));
            }
        }
        v
    }

    #[test]
    fn the_reference_passes_itself_and_fails_an_unrotated_or_wrong_slice_result() {
        let volume = volume();
        let mut rotated = vec![0f32; volume.len()];
        for z in 0..DEPTH {
            for y in 0..HEIGHT {
                for x in 0..WIDTH {
                    rotated[(z * HEIGHT + y) * WIDTH + x] = reference(&volume, x, y, z);
                }
            }
        }
        assert!(check(&volume, &rotated).is_ok());
        // The input itself (no rotation) is far from the rotated volume.
        assert!(matches!(check(&volume, &volume), Err(Failure::Check(_))));
        // Every slice rotated, but read from the next slice.
        let shifted: Vec<f32> = (0..rotated.len())
            .map(|i| rotated[(i + WIDTH * HEIGHT) % rotated.len()])
            .collect();
        assert!(matches!(check(&volume, &shifted), Err(Failure::Check(_))));
    }

    #[test]
    fn the_centre_pixel_averages_its_four_nearest_texels_and_the_volume_wraps_without_a_seam() {
        let volume = volume();
        // The centre (256, 256) maps to tu = tv = 0.5: between texels 255 and 256, half of each.
        let (c, z) = (WIDTH / 2, 1);
        let at = |x: usize, y: usize| volume[(z * HEIGHT + y) * WIDTH + x];
        let want = (at(c - 1, c - 1) + at(c, c - 1) + at(c - 1, c) + at(c, c)) / 4.0;
        assert!((reference(&volume, c, c, z) - want).abs() < 1e-6);
        // Periodic: the last column's right neighbour (the first) is as close as any neighbour.
        for y in 0..HEIGHT {
            assert!((voxel(WIDTH - 1, y, 3) - voxel(0, y, 3)).abs() < 0.05);
        }
    }
}
