//! The samples on the fake device of `cuda-driver-table`, on a machine without a GPU: each
//! sample's own `run`, its kernels written as Rust closures that do what the CUDA C of
//! `kernels/` does, its own result check, and the device's leak check at the end (every
//! allocation and handle released). A function the device does not implement is faked in front
//! of it, doing what the driver would for this program. Failures planted in front of the device
//! show that a sample releases everything on its error paths too, and that its check catches a
//! wrong kernel.

use cuda_driver_table::fake::{
    function, write, Device, Fake, FakeDriver, Fault, FindingKind, Launch,
};
use cuda_driver_table::sys::{self, CUdeviceptr, CUresult};
use cuda_driver_table_samples::{
    cluster_launch, matrix_mul_drv, ptxjit, simple_p2p, simple_texture_drv,
    stream_ordered_allocation, tensor_map_tma, thread_migration, vector_add_drv, vector_add_mmap,
    Failure,
};
use std::collections::{HashMap, VecDeque};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// `vector_add(a, b, c, n)` of `kernels/vectorAdd.cu` and `kernels/streamOrderedAllocation.cu`:
/// every thread `i < n` of the grid writes `c[i] = a[i] + b[i]`. The threads of a
/// one-dimensional grid with an element are the first `min(n, threads)`, done here at once.
fn vector_add(
    k: &mut Launch<'_>,
    (a, b, c, n): (CUdeviceptr, CUdeviceptr, CUdeviceptr, i32),
) -> Result<(), Fault> {
    let threads = u64::from(k.grid().x) * u64::from(k.block().x);
    let len = u64::try_from(n).unwrap_or(0).min(threads) as usize;
    let a: Vec<f32> = k.read_slice(a, len)?;
    let b: Vec<f32> = k.read_slice(b, len)?;
    let sums: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    k.write_slice(c, &sums)
}

#[test]
fn vector_add_drv_passes_and_releases_everything() {
    let device = Device::new();
    device.kernel("VecAdd_kernel", vector_add);
    let cu = vector_add_drv::Cuda::with_config(device.config());
    vector_add_drv::run(&cu).expect("vectorAddDrv passes on the fake device");
    device.finish().expect("no leak, no error");
}

#[test]
fn vector_add_drv_fails_its_check_with_a_kernel_that_misses_the_last_block() {
    let device = Device::new();
    device.kernel(
        "VecAdd_kernel",
        |k: &mut Launch<'_>, (a, b, c, n): (CUdeviceptr, CUdeviceptr, CUdeviceptr, i32)| {
            // One block short.
            vector_add(k, (a, b, c, n - vector_add_drv::THREADS as i32))
        },
    );
    let cu = vector_add_drv::Cuda::with_config(device.config());
    let failure = vector_add_drv::run(&cu).expect_err("the last elements are never written");
    assert!(
        matches!(&failure, Failure::Check(what) if what.starts_with("element 49744:")),
        "{failure}"
    );
    // The device finds it too, and nothing else: the copy back reads what no kernel wrote, from
    // the first element of the missing block (49744, 198,976 bytes in) on.
    let report = device.finish().expect_err("an uninitialised read");
    assert_eq!(report.count(FindingKind::UninitializedRead), 1, "{report}");
    assert_eq!(report.findings().len(), 1, "{report}");
    assert!(
        report.findings()[0]
            .message()
            .contains("its byte 198976 was never written"),
        "{report}"
    );
}

#[test]
fn vector_add_drv_releases_everything_when_the_copy_back_fails() {
    let device = Device::new();
    device.kernel("VecAdd_kernel", vector_add);
    let driver = Fake::new()
        .device(&device)
        .inject(function!(vector_add_drv::Cuda::cuMemcpyDtoH), |_| {
            Some(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS)
        })
        .build();
    let cu = vector_add_drv::Cuda::with_config(driver.config());
    let failure = vector_add_drv::run(&cu).expect_err("the copy back fails");
    assert!(
        matches!(&failure, Failure::Cuda(e) if e.code() == Some(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS.0)),
        "{failure}"
    );
    // The three buffers, the module and the context were released on the error path.
    assert_eq!(
        driver
            .calls_to(function!(vector_add_drv::Cuda::cuMemFree))
            .len(),
        3
    );
    device.finish().expect("no leak after the failed copy");
}

/// `matrixMul_bsTILE_64bit(c, a, b, a_width, b_width)` of `kernels/matrixMul.cu`: the thread
/// `(tx, ty)` of block `(bx, by)` writes element `(row, col) = (by·TILE + ty, bx·TILE + tx)` of
/// `c = a·b`, summing `a[row][i]·b[i][col]` in order of `i`, as its tiles do. The rows of `a` and
/// the columns of `b` the grid covers are read once, as the tiles read them into shared memory.
fn matrix_mul(
    k: &mut Launch<'_>,
    (c, a, b, a_width, b_width): (CUdeviceptr, CUdeviceptr, CUdeviceptr, usize, usize),
) -> Result<(), Fault> {
    let tile = k.block().x as usize;
    let rows = k.grid().y as usize * tile;
    let a: Vec<f32> = k.read_slice(a, rows * a_width)?;
    let b: Vec<f32> = k.read_slice(b, a_width * b_width)?;
    let mut product = vec![0f32; rows * b_width];
    for t in k.threads() {
        let row = t.block.y as usize * tile + t.thread.y as usize;
        let col = t.block.x as usize * tile + t.thread.x as usize;
        product[row * b_width + col] = (0..a_width)
            .map(|i| a[row * a_width + i] * b[i * b_width + col])
            .sum();
    }
    k.write_slice(c, &product)
}

/// A driver answering with `device`, and the occupancy calculator, which is the driver's: it
/// allows blocks of 1024 threads (the device's largest), so matrixMulDrv picks the 32 × 32 tile.
fn occupancy(device: &Device) -> &'static FakeDriver {
    Fake::new()
        .device(device)
        .on(
            function!(matrix_mul_drv::Cuda::cuOccupancyMaxPotentialBlockSize),
            |(min_grid, block, ..)| {
                // SAFETY: the caller passes valid places (the function's contract).
                unsafe {
                    write(min_grid, 8);
                    write(block, 1024);
                }
                CUresult::CUDA_SUCCESS
            },
        )
        .build()
}

#[test]
fn matrix_mul_drv_passes_and_releases_everything() {
    let device = Device::new();
    for (_, name) in matrix_mul_drv::KERNELS {
        device.kernel(name.to_str().expect("an ASCII name"), matrix_mul);
    }
    let driver = occupancy(&device);
    let cu = matrix_mul_drv::Cuda::with_config(driver.config());
    matrix_mul_drv::run(&cu).expect("matrixMulDrv passes on the fake device");
    let launches = driver.calls_to(function!(matrix_mul_drv::Cuda::cuLaunchKernel));
    assert_eq!(
        (launches.len(), launches[0].4),
        (1, 32),
        "one launch of 32 × 32 blocks"
    );
    device.finish().expect("no leak, no error");
}

#[test]
fn matrix_mul_drv_fails_its_check_with_one_element_wrong() {
    let device = Device::new();
    for (_, name) in matrix_mul_drv::KERNELS {
        // The product, but with C[0][0] a quarter off: the check must catch one element.
        device.kernel(
            name.to_str().expect("an ASCII name"),
            |k: &mut Launch<'_>, params: (CUdeviceptr, CUdeviceptr, CUdeviceptr, usize, usize)| {
                matrix_mul(k, params)?;
                let first: f32 = k.read(params.0, 0)?;
                k.write(params.0, 0, first + 0.25)
            },
        );
    }
    let cu = matrix_mul_drv::Cuda::with_config(occupancy(&device).config());
    let failure = matrix_mul_drv::run(&cu).expect_err("one element is wrong");
    assert!(
        matches!(&failure, Failure::Check(what) if what.starts_with("1 of ")),
        "{failure}"
    );
    device.finish().expect("no leak, no error");
}

/// `count_down(out)` of `kernels/threadMigration.cu`: thread `x` of the block writes
/// `out[x] = 32 - x`.
fn count_down(k: &mut Launch<'_>, (out,): (CUdeviceptr,)) -> Result<(), Fault> {
    for t in k.threads() {
        let x = t.thread.x;
        k.write(out, u64::from(x), 32 - x as i32)?;
    }
    Ok(())
}

#[test]
fn thread_migration_passes_with_the_context_migrating_between_threads() {
    let device = Device::new();
    device.kernel("count_down", count_down);
    let driver = Fake::new().device(&device).build();
    let cu = thread_migration::Cuda::with_config(driver.config());
    thread_migration::run(&cu, 4).expect("threadMigration passes on the fake device");
    // Four threads pushed the one context and popped it, then the main thread did to unload.
    assert_eq!(
        driver
            .calls_to(function!(thread_migration::Cuda::cuCtxPushCurrent))
            .len(),
        5
    );
    assert_eq!(
        driver
            .calls_to(function!(thread_migration::Cuda::cuLaunchKernel))
            .len(),
        4
    );
    device.finish().expect("no leak, no error");
}

/// The bytes `cuLinkComplete` hands back as the linked cubin: the device loads any image, so
/// what matters is that the sample loads what the link made.
static CUBIN: [u8; 16] = *b"fake cubin\0\0\0\0\0\0";

/// `myKernel(data)` of `kernels/ptxjit.cu`: thread `i` of the grid writes `data[i] = i`.
fn my_kernel(k: &mut Launch<'_>, (data,): (CUdeviceptr,)) -> Result<(), Fault> {
    for t in k.threads() {
        let i = t.global_x();
        k.write(data, i, i as i32)?;
    }
    Ok(())
}

#[test]
fn ptxjit_passes_with_the_linker_faked_and_loads_what_it_linked() {
    let device = Device::new();
    device.kernel("myKernel", my_kernel);
    // The linker is the driver's (not the device's): link states are handles, the PTX is
    // accepted and the "cubin" is `CUBIN`.
    let driver = Fake::new()
        .device(&device)
        .on(
            function!(ptxjit::Cuda::cuLinkComplete),
            |(_, cubin, size)| {
                // SAFETY: the caller passes valid places (the function's contract).
                unsafe {
                    write(cubin, CUBIN.as_ptr().cast_mut().cast::<c_void>());
                    write(size, CUBIN.len());
                }
                CUresult::CUDA_SUCCESS
            },
        )
        .succeed_others()
        .build();
    let cu = ptxjit::Cuda::with_config(driver.config());
    ptxjit::run(&cu).expect("ptxjit passes on the fake device");
    let loaded = driver.calls_to(function!(ptxjit::Cuda::cuModuleLoadData));
    assert_eq!(loaded.len(), 1);
    assert_eq!(loaded[0].1, CUBIN.as_ptr().cast::<c_void>());
    // The link state was destroyed, once.
    assert_eq!(
        driver
            .calls_to(function!(ptxjit::Cuda::cuLinkDestroy))
            .len(),
        1
    );
    device.finish().expect("no leak, no error");
}

/// The memory pools of streamOrderedAllocation, which the device does not keep: a pool is a
/// handle, and its attributes are what a pool whose release threshold is the largest holds:
/// every byte allocated from it stays reserved (the most in use at once), and what is in use
/// is what was allocated from it and not freed. Every allocation of the sample is N floats, and
/// each round frees its allocations in the order it made them, so the frees after the pool was
/// created take them back first in, first out.
#[derive(Default)]
struct Pool {
    created: AtomicBool,
    state: Mutex<PoolState>,
}

#[derive(Default)]
struct PoolState {
    /// The sizes of the live allocations from the pool, oldest first.
    live: VecDeque<usize>,
    /// The most bytes in use at once.
    reserved: usize,
}

#[test]
fn stream_ordered_allocation_passes_and_releases_everything() {
    let device = Device::new();
    device.kernel("vector_add", vector_add);
    let pool: &'static Pool = Box::leak(Box::default());
    type Cuda = stream_ordered_allocation::Cuda;
    let driver = Fake::new()
        .device(&device)
        .on(function!(Cuda::cuMemPoolCreate), |(pool_out, _)| {
            pool.created.store(true, Ordering::Relaxed);
            // SAFETY: the caller passes a valid place (the function's contract).
            unsafe { write(pool_out, std::ptr::without_provenance_mut(0x9001)) };
            CUresult::CUDA_SUCCESS
        })
        .returns(
            function!(Cuda::cuMemPoolSetAttribute),
            CUresult::CUDA_SUCCESS,
        )
        .on(
            function!(Cuda::cuMemPoolGetAttribute),
            |(_, attribute, value)| {
                use sys::CUmemPool_attribute as A;
                let state = pool.state.lock().unwrap();
                let bytes = match attribute {
                    A::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT => state.reserved,
                    A::CU_MEMPOOL_ATTR_USED_MEM_CURRENT => state.live.iter().sum(),
                    _ => return CUresult::CUDA_ERROR_INVALID_VALUE,
                };
                // SAFETY: these attributes' values are `cuuint64_t`s (the function's contract).
                unsafe { write(value.cast::<u64>(), bytes as u64) };
                CUresult::CUDA_SUCCESS
            },
        )
        .returns(function!(Cuda::cuMemPoolDestroy), CUresult::CUDA_SUCCESS)
        // The device allocates and frees; these see the pool's share of it.
        .inject(
            function!(Cuda::cuMemAllocFromPoolAsync),
            |(_, bytes, _, _)| {
                let mut state = pool.state.lock().unwrap();
                state.live.push_back(bytes);
                state.reserved = state.reserved.max(state.live.iter().sum());
                None
            },
        )
        .inject(function!(Cuda::cuMemFreeAsync), |_| {
            if pool.created.load(Ordering::Relaxed) {
                pool.state.lock().unwrap().live.pop_front();
            }
            None
        })
        .build();
    let cu = Cuda::with_config(driver.config().per_thread());
    stream_ordered_allocation::run(&cu).expect("streamOrderedAllocation passes on the fake device");
    // The basic part's three allocations from the default pool, then three a round.
    assert_eq!(driver.calls_to(function!(Cuda::cuMemAllocAsync)).len(), 3);
    assert_eq!(
        driver
            .calls_to(function!(Cuda::cuMemAllocFromPoolAsync))
            .len(),
        3 * stream_ordered_allocation::ROUNDS
    );
    device.finish().expect("no leak, no error");
}

/// A `CUtensorMap` as a kernel parameter: its 128 bytes, passed by value.
#[derive(Clone, Copy)]
#[repr(transparent)]
struct TensorMap(sys::CUtensorMap);

impl cuda_driver_table::KernelParam for TensorMap {}

/// What the fake `cuTensorMapEncodeTiled` keeps in a map's opaque words (the driver's encoding
/// is its own): the global address, the width and height in elements, the row pitch in bytes.
const MAP_ADDRESS: usize = 0;
const MAP_WIDTH: usize = 1;
const MAP_HEIGHT: usize = 2;
const MAP_PITCH: usize = 3;

/// `tile_copy(map, out, width)` of `kernels/tensorMapTma.cu`: block `(bx, by)` copies the tile
/// of `TILE_W × TILE_H` floats at `(bx·TILE_W, by·TILE_H)` of the tensor `map` describes into
/// its shared memory (the TMA copy), and its thread `(tx, ty)` writes twice its element to
/// `out[(y + ty)·width + x + tx]`.
fn tile_copy(
    k: &mut Launch<'_>,
    (map, out, width): (TensorMap, CUdeviceptr, i32),
) -> Result<(), Fault> {
    let words = map.0.opaque;
    let (base, pitch) = (words[MAP_ADDRESS], words[MAP_PITCH]);
    let (w, h) = (words[MAP_WIDTH], words[MAP_HEIGHT]);
    let (tile_w, tile_h) = (k.block().x, k.block().y);
    for t in k.threads() {
        let x = u64::from(t.block.x * tile_w + t.thread.x);
        let y = u64::from(t.block.y * tile_h + t.thread.y);
        if x >= w || y >= h {
            return Err(Fault::new(format!(
                "({x}, {y}) is outside the {w} × {h} tensor"
            )));
        }
        let v: f32 = k.read(base + y * pitch, x)?;
        k.write(out, y * width as u64 + x, 2.0 * v)?;
    }
    Ok(())
}

#[test]
fn tensor_map_tma_passes_with_the_map_encoded_by_a_fake() {
    let device = Device::new();
    device.kernel("tile_copy", tile_copy);
    type Cuda = tensor_map_tma::Cuda;
    let driver = Fake::new()
        .device(&device)
        .on(
            function!(Cuda::cuTensorMapEncodeTiled),
            |(map, _, rank, address, dims, strides, tile, ..)| {
                if rank != 2 {
                    return CUresult::CUDA_ERROR_INVALID_VALUE;
                }
                let mut encoded = sys::CUtensorMap::default();
                // SAFETY: the caller passes `rank` sizes and box sides and `rank - 1` strides
                // (the function's contract), and a valid place for the map.
                unsafe {
                    let (dims, tile) = (
                        dims.cast::<[u64; 2]>().read(),
                        tile.cast::<[u32; 2]>().read(),
                    );
                    if tile != [tensor_map_tma::TILE_W, tensor_map_tma::TILE_H] {
                        return CUresult::CUDA_ERROR_INVALID_VALUE;
                    }
                    encoded.opaque[MAP_ADDRESS] = address.addr() as u64;
                    encoded.opaque[MAP_WIDTH] = dims[0];
                    encoded.opaque[MAP_HEIGHT] = dims[1];
                    encoded.opaque[MAP_PITCH] = strides.read();
                    write(map, encoded);
                }
                CUresult::CUDA_SUCCESS
            },
        )
        .build();
    let cu = Cuda::with_config(driver.config());
    tensor_map_tma::run(&cu).expect("tensorMapTma passes on the fake device");
    device.finish().expect("no leak, no error");
}

/// The CUDA arrays and texture objects of simpleTextureDrv, which the device does not keep: an
/// array of floats is its sizes and its elements on the host side of the test, a texture object
/// names its array, and the kernel's `tex3D` is done here as the texture unit does it
/// (normalised coordinates, wrap addressing, linear filtering).
#[derive(Default)]
struct Textures(Mutex<TextureState>);

#[derive(Default)]
struct TextureState {
    next: usize,
    /// Each live array, by handle: width, height, depth, and its floats (x fastest).
    arrays: HashMap<usize, ([usize; 3], Vec<f32>)>,
    /// Each live texture object: its array's handle.
    textures: HashMap<u64, usize>,
}

impl TextureState {
    fn handle(&mut self) -> usize {
        self.next += 1;
        0xa000 + self.next
    }
}

/// `tex3D<float>(tex, u, v, w)` of a float array with normalised coordinates, wrap addressing
/// and linear filtering: the eight texels around the point (texel centres at `i + 0.5`,
/// neighbours wrapping around), weighted by its distance to each.
fn tex3d(size: [usize; 3], texels: &[f32], coords: [f32; 3]) -> f32 {
    let axis = |n: f32, len: usize| {
        let p = (n - n.floor()) * len as f32 - 0.5;
        let i = p.floor();
        let i0 = (i as isize).rem_euclid(len as isize) as usize;
        (i0, (i0 + 1) % len, p - i)
    };
    let [(x0, x1, a), (y0, y1, b), (z0, z1, c)] = [0, 1, 2].map(|d| axis(coords[d], size[d]));
    let at = |x: usize, y: usize, z: usize| texels[(z * size[1] + y) * size[0] + x];
    let plane = |z| {
        (1.0 - a) * (1.0 - b) * at(x0, y0, z)
            + a * (1.0 - b) * at(x1, y0, z)
            + (1.0 - a) * b * at(x0, y1, z)
            + a * b * at(x1, y1, z)
    };
    (1.0 - c) * plane(z0) + c * plane(z1)
}

#[test]
fn simple_texture_drv_passes_with_arrays_and_textures_faked() {
    let device = Device::new();
    let textures: &'static Textures = Box::leak(Box::default());
    // `transformKernel(out, width, height, depth, theta, tex)` of `kernels/simpleTexture.cu`:
    // thread `(x, y)` of block row `z` samples `tex` at the point rotated by `theta` about the
    // slice's centre and writes it to `out[(z·height + y)·width + x]`.
    device.kernel(
        "transformKernel",
        |k: &mut Launch<'_>,
         (out, width, height, depth, theta, tex): (CUdeviceptr, i32, i32, i32, f32, u64)| {
            let state = textures.0.lock().unwrap();
            let Some((size, texels)) = state.textures.get(&tex).and_then(|a| state.arrays.get(a))
            else {
                return Err(Fault::new(format!("texture object {tex:#x} is not live")));
            };
            let (w, h, d) = (width as usize, height as usize, depth as usize);
            let mut result = vec![0f32; w * h * d];
            for t in k.threads() {
                let x = (t.block.x * t.block_dim.x + t.thread.x) as usize;
                let y = (t.block.y * t.block_dim.y + t.thread.y) as usize;
                let z = t.block.z as usize;
                if x >= w || y >= h || z >= d {
                    continue;
                }
                let u = x as f32 - w as f32 / 2.0;
                let v = y as f32 - h as f32 / 2.0;
                let (s, c) = (theta.cos(), theta.sin());
                let coords = [
                    (u * s - v * c) / w as f32 + 0.5,
                    (v * s + u * c) / h as f32 + 0.5,
                    (z as f32 + 0.5) / d as f32,
                ];
                result[(z * h + y) * w + x] = tex3d(*size, texels, coords);
            }
            k.write_slice(out, &result)
        },
    );
    type Cuda = simple_texture_drv::Cuda;
    let driver = Fake::new()
        .device(&device)
        .on(function!(Cuda::cuArray3DCreate), |(array, desc)| {
            // SAFETY: the caller passes a valid place and descriptor (the function's contract).
            let desc = unsafe { &*desc };
            if desc.Format != sys::CUarray_format::CU_AD_FORMAT_FLOAT || desc.NumChannels != 1 {
                return CUresult::CUDA_ERROR_NOT_SUPPORTED;
            }
            let mut state = textures.0.lock().unwrap();
            let handle = state.handle();
            let size = [desc.Width, desc.Height, desc.Depth];
            state
                .arrays
                .insert(handle, (size, vec![0.0; size.iter().product()]));
            // SAFETY: as above.
            unsafe { write(array, std::ptr::without_provenance_mut(handle)) };
            CUresult::CUDA_SUCCESS
        })
        .on(function!(Cuda::cuArrayDestroy), |(array,)| {
            match textures.0.lock().unwrap().arrays.remove(&array.addr()) {
                Some(_) => CUresult::CUDA_SUCCESS,
                None => CUresult::CUDA_ERROR_INVALID_HANDLE,
            }
        })
        .on(function!(Cuda::cuMemcpy3D), |(copy,)| {
            // SAFETY: the caller passes a valid description (the function's contract).
            let p = unsafe { &*copy };
            let mut state = textures.0.lock().unwrap();
            let Some((size, texels)) = state.arrays.get_mut(&p.dstArray.addr()) else {
                return CUresult::CUDA_ERROR_INVALID_VALUE;
            };
            let row = size[0] * size_of::<f32>();
            if p.srcMemoryType != sys::CUmemorytype::CU_MEMORYTYPE_HOST
                || p.dstMemoryType != sys::CUmemorytype::CU_MEMORYTYPE_ARRAY
                || [p.WidthInBytes, p.Height, p.Depth] != [row, size[1], size[2]]
            {
                return CUresult::CUDA_ERROR_INVALID_VALUE;
            }
            for z in 0..size[2] {
                for y in 0..size[1] {
                    let offset = (z * p.srcHeight + y) * p.srcPitch;
                    // SAFETY: the source holds `Depth` slices of `srcHeight` rows of
                    // `srcPitch` bytes (the function's contract); f32s need not be aligned.
                    let values = unsafe { p.srcHost.byte_add(offset).cast::<f32>() };
                    for x in 0..size[0] {
                        // SAFETY: as above.
                        texels[(z * size[1] + y) * size[0] + x] =
                            unsafe { values.add(x).read_unaligned() };
                    }
                }
            }
            CUresult::CUDA_SUCCESS
        })
        .on(
            function!(Cuda::cuTexObjectCreate),
            |(texture, resource, description, _)| {
                // SAFETY: the caller passes valid descriptions and a valid place (the function's
                // contract).
                let (resource, description) = unsafe { (&*resource, &*description) };
                let wrap = sys::CUaddress_mode::CU_TR_ADDRESS_MODE_WRAP;
                if resource.resType != sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY
                    || description.addressMode != [wrap; 3]
                    || description.filterMode != sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR
                    || description.flags & sys::CU_TRSF_NORMALIZED_COORDINATES == 0
                {
                    return CUresult::CUDA_ERROR_NOT_SUPPORTED;
                }
                // SAFETY: an array resource's union member is `array`.
                let array = unsafe { resource.res.array.hArray }.addr();
                let mut state = textures.0.lock().unwrap();
                if !state.arrays.contains_key(&array) {
                    return CUresult::CUDA_ERROR_INVALID_VALUE;
                }
                let handle = state.handle() as u64;
                state.textures.insert(handle, array);
                // SAFETY: as above.
                unsafe { write(texture, handle) };
                CUresult::CUDA_SUCCESS
            },
        )
        .on(
            function!(Cuda::cuTexObjectDestroy),
            |(texture,)| match textures.0.lock().unwrap().textures.remove(&texture) {
                Some(_) => CUresult::CUDA_SUCCESS,
                None => CUresult::CUDA_ERROR_INVALID_HANDLE,
            },
        )
        .build();
    let cu = Cuda::with_config(driver.config());
    simple_texture_drv::run(&cu).expect("simpleTextureDrv passes on the fake device");
    let state = textures.0.lock().unwrap();
    assert!(
        state.arrays.is_empty() && state.textures.is_empty(),
        "the array and the texture object were destroyed"
    );
    device.finish().expect("no leak, no error");
}

/// What the device is not (one GPU, without cluster launch or virtual memory management): the
/// samples that need it are waived, having created nothing they did not release.
#[test]
fn the_samples_the_device_cannot_run_are_waived_without_a_leak() {
    let waived = |outcome: Result<(), Failure>, sample: &str| match outcome {
        Err(Failure::Waived(why)) => why,
        other => panic!("{sample}: expected a waiver, got {other:?}"),
    };

    let device = Device::new();
    let why = waived(
        cluster_launch::run(&cluster_launch::Cuda::with_config(device.config())),
        "clusterLaunch",
    );
    assert!(why.contains("cluster launch 0"), "{why}");
    device.finish().expect("no leak, no error");

    let device = Device::new();
    let why = waived(
        simple_p2p::run(&simple_p2p::Cuda::with_config(device.config().per_thread())),
        "simpleP2P",
    );
    assert!(why.contains("this machine has 1"), "{why}");
    device.finish().expect("no leak, no error");

    let device = Device::new();
    let why = waived(
        vector_add_mmap::run(&vector_add_mmap::Cuda::with_config(device.config())),
        "vectorAddMMAP",
    );
    assert!(why.contains("virtual address management"), "{why}");
    device.finish().expect("no leak, no error");
}
