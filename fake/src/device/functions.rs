//! Every function the device implements, by a table's name for it, with its handler: the one
//! list [`Device`](super::Device)'s docs and the fake driver's lookups follow.

use super::*;

/// What a handler of the device is: the call's arguments, downcast to one of the ABIs it
/// implements (`None` for another).
type Handler = unsafe fn(&mut Cx<'_>, &dyn Any) -> Option<Answer>;

/// Matches `$args` against each ABI's argument tuple and answers with the first that fits.
macro_rules! abis {
    ($args:expr, $($ty:ty => |$pat:pat_param| $body:expr),+ $(,)?) => {{
        $(
            if let Some(&$pat) = $args.downcast_ref::<$ty>() {
                return Some($body);
            }
        )+
        None
    }};
}

/// Every function the device implements, by a table's name for it, with its handler: the one
/// list [`Device`]'s docs and the fake driver's lookups follow.
pub(super) static FUNCTIONS: &[(&str, Handler)] = &[
    (
        "cuInit",
        |cx, a| abis!(a, (c_uint,) => |(flags,)| cx.init(flags)),
    ),
    ("cuDriverGetVersion", |cx, a| {
        // SAFETY (all handlers): the arguments uphold the function's C contract (the caller of
        // `Shared::call`): each out-value is null or valid for writes of its type, each host
        // pointer valid for its byte count.
        abis!(a, (*mut c_int,) => |(v,)| cx.driver_version(v))
    }),
    (
        "cuDeviceGet",
        |cx, a| abis!(a, (*mut c_int, c_int) => |(d, ordinal)| cx.device_get(d, ordinal)),
    ),
    (
        "cuDeviceGetCount",
        |cx, a| abis!(a, (*mut c_int,) => |(n,)| cx.device_count(n)),
    ),
    (
        "cuDeviceGetName",
        |cx, a| abis!(a, (*mut c_char, c_int, c_int) => |(name, len, dev)| cx.device_name(name, len, dev)),
    ),
    (
        "cuDeviceGetAttribute",
        |cx, a| abis!(a, (*mut c_int, sys::CUdevice_attribute, c_int) => |(pi, attr, dev)| cx.attribute(pi, attr, dev)),
    ),
    (
        "cuDeviceTotalMem",
        |cx, a| abis!(a, (*mut usize, c_int) => |(bytes, dev)| cx.total_mem(bytes, dev)),
    ),
    (
        "cuDevicePrimaryCtxRetain",
        |cx, a| abis!(a, (*mut CUcontext, c_int) => |(pctx, dev)| cx.primary_retain(pctx, dev)),
    ),
    (
        "cuDevicePrimaryCtxRelease",
        |cx, a| abis!(a, (c_int,) => |(dev,)| cx.primary_release(dev, false)),
    ),
    (
        "cuDevicePrimaryCtxReset",
        |cx, a| abis!(a, (c_int,) => |(dev,)| cx.primary_release(dev, true)),
    ),
    ("cuCtxCreate", |cx, a| {
        abis!(a,
            (*mut CUcontext, c_uint, c_int) => |(pctx, _, dev)| cx.ctx_create(pctx, dev),
            (*mut CUcontext, *mut sys::CUctxCreateParams, c_uint, c_int) => |(pctx, _, _, dev)| cx.ctx_create(pctx, dev),
            (*mut CUcontext, *mut sys::CUexecAffinityParam, c_int, c_uint, c_int) => |(pctx, _, _, _, dev)| cx.ctx_create(pctx, dev),
        )
    }),
    (
        "cuCtxDestroy",
        |cx, a| abis!(a, (CUcontext,) => |(ctx,)| cx.ctx_destroy(ctx)),
    ),
    (
        "cuCtxSetCurrent",
        |cx, a| abis!(a, (CUcontext,) => |(ctx,)| cx.ctx_set_current(ctx)),
    ),
    (
        "cuCtxGetCurrent",
        |cx, a| abis!(a, (*mut CUcontext,) => |(pctx,)| cx.ctx_get_current(pctx)),
    ),
    (
        "cuCtxPushCurrent",
        |cx, a| abis!(a, (CUcontext,) => |(ctx,)| cx.ctx_push(ctx)),
    ),
    (
        "cuCtxPopCurrent",
        |cx, a| abis!(a, (*mut CUcontext,) => |(pctx,)| cx.ctx_pop(pctx)),
    ),
    ("cuCtxGetDevice", |cx, a| {
        abis!(a,
            (*mut c_int,) => |(d,)| cx.ctx_get_device(d, None),
            (*mut c_int, CUcontext) => |(d, ctx)| cx.ctx_get_device(d, Some(ctx)),
        )
    }),
    ("cuCtxSynchronize", |cx, a| {
        abis!(a,
            () => |()| cx.current().and_then(|ctx| cx.ctx_synchronize(ctx)),
            (CUcontext,) => |(ctx,)| cx.ctx_or_current(ctx).and_then(|ctx| cx.ctx_synchronize(ctx)),
        )
    }),
    (
        "cuMemGetInfo",
        |cx, a| abis!(a, (*mut usize, *mut usize) => |(free, total)| cx.mem_get_info(free, total)),
    ),
    (
        "cuMemAlloc",
        |cx, a| abis!(a, (*mut CUdeviceptr, usize) => |(dptr, size)| cx.mem_alloc(dptr, size, None)),
    ),
    (
        "cuMemAllocAsync",
        |cx, a| abis!(a, (*mut CUdeviceptr, usize, CUstream) => |(dptr, size, s)| cx.mem_alloc(dptr, size, Some(s))),
    ),
    (
        "cuMemAllocFromPoolAsync",
        |cx, a| abis!(a, (*mut CUdeviceptr, usize, sys::CUmemoryPool, CUstream) => |(dptr, size, _, s)| cx.mem_alloc(dptr, size, Some(s))),
    ),
    (
        "cuMemFree",
        |cx, a| abis!(a, (CUdeviceptr,) => |(dptr,)| cx.mem_free(dptr, None)),
    ),
    (
        "cuMemFreeAsync",
        |cx, a| abis!(a, (CUdeviceptr, CUstream) => |(dptr, s)| cx.mem_free(dptr, Some(s))),
    ),
    (
        "cuMemGetAddressRange",
        |cx, a| abis!(a, (*mut CUdeviceptr, *mut usize, CUdeviceptr) => |(base, size, dptr)| cx.address_range(base, size, dptr)),
    ),
    (
        "cuMemAllocHost",
        |cx, a| abis!(a, (*mut Ptr, usize) => |(pp, size)| cx.host_alloc(pp, size)),
    ),
    (
        "cuMemHostAlloc",
        |cx, a| abis!(a, (*mut Ptr, usize, c_uint) => |(pp, size, _)| cx.host_alloc(pp, size)),
    ),
    (
        "cuMemHostRegister",
        |cx, a| abis!(a, (Ptr, usize, c_uint) => |(p, size, _)| cx.host_register(p, size)),
    ),
    (
        "cuMemHostUnregister",
        |cx, a| abis!(a, (Ptr,) => |(p,)| cx.host_unregister(p)),
    ),
    (
        "cuDeviceGetMemPool",
        |cx, a| abis!(a, (*mut sys::CUmemoryPool, c_int) => |(pool, dev)| cx.mem_pool(pool, dev)),
    ),
    (
        "cuDeviceGetDefaultMemPool",
        |cx, a| abis!(a, (*mut sys::CUmemoryPool, c_int) => |(pool, dev)| cx.mem_pool(pool, dev)),
    ),
    (
        "cuMemFreeHost",
        |cx, a| abis!(a, (Ptr,) => |(p,)| cx.host_free(p)),
    ),
    (
        "cuMemcpyHtoD",
        |cx, a| abis!(a, (CUdeviceptr, CPtr, usize) => |(d, h, n)| cx.copy(Place::Device(d), Place::Host(h.cast_mut()), n, None)),
    ),
    (
        "cuMemcpyHtoDAsync",
        |cx, a| abis!(a, (CUdeviceptr, CPtr, usize, CUstream) => |(d, h, n, s)| cx.copy(Place::Device(d), Place::Host(h.cast_mut()), n, Some(s))),
    ),
    (
        "cuMemcpyDtoH",
        |cx, a| abis!(a, (Ptr, CUdeviceptr, usize) => |(h, d, n)| cx.copy(Place::Host(h), Place::Device(d), n, None)),
    ),
    (
        "cuMemcpyDtoHAsync",
        |cx, a| abis!(a, (Ptr, CUdeviceptr, usize, CUstream) => |(h, d, n, s)| cx.copy(Place::Host(h), Place::Device(d), n, Some(s))),
    ),
    (
        "cuMemcpyDtoD",
        |cx, a| abis!(a, (CUdeviceptr, CUdeviceptr, usize) => |(d, s, n)| cx.copy(Place::Device(d), Place::Device(s), n, None)),
    ),
    (
        "cuMemcpyDtoDAsync",
        |cx, a| abis!(a, (CUdeviceptr, CUdeviceptr, usize, CUstream) => |(d, s, n, st)| cx.copy(Place::Device(d), Place::Device(s), n, Some(st))),
    ),
    ("cuMemcpy", |cx, a| {
        abis!(a, (CUdeviceptr, CUdeviceptr, usize) => |(d, s, n)| {
            let (d, s) = (cx.unified(d), cx.unified(s));
            cx.copy(d, s, n, None)
        })
    }),
    ("cuMemcpyAsync", |cx, a| {
        abis!(a, (CUdeviceptr, CUdeviceptr, usize, CUstream) => |(d, s, n, st)| {
            let (d, s) = (cx.unified(d), cx.unified(s));
            cx.copy(d, s, n, Some(st))
        })
    }),
    (
        "cuMemsetD8",
        |cx, a| abis!(a, (CUdeviceptr, u8, usize) => |(d, v, n)| cx.set(d, &[v], n, None)),
    ),
    (
        "cuMemsetD8Async",
        |cx, a| abis!(a, (CUdeviceptr, u8, usize, CUstream) => |(d, v, n, s)| cx.set(d, &[v], n, Some(s))),
    ),
    (
        "cuMemsetD16",
        |cx, a| abis!(a, (CUdeviceptr, u16, usize) => |(d, v, n)| cx.set(d, &v.to_ne_bytes(), n, None)),
    ),
    (
        "cuMemsetD16Async",
        |cx, a| abis!(a, (CUdeviceptr, u16, usize, CUstream) => |(d, v, n, s)| cx.set(d, &v.to_ne_bytes(), n, Some(s))),
    ),
    (
        "cuMemsetD32",
        |cx, a| abis!(a, (CUdeviceptr, u32, usize) => |(d, v, n)| cx.set(d, &v.to_ne_bytes(), n, None)),
    ),
    (
        "cuMemsetD32Async",
        |cx, a| abis!(a, (CUdeviceptr, u32, usize, CUstream) => |(d, v, n, s)| cx.set(d, &v.to_ne_bytes(), n, Some(s))),
    ),
    ("cuMemAllocPitch", |cx, a| {
        abis!(a, (*mut CUdeviceptr, *mut usize, usize, usize, c_uint)
            => |(dptr, pitch, width, height, element)| cx.mem_alloc_pitch(dptr, pitch, width, height, element))
    }),
    (
        "cuMemcpy2D",
        |cx, a| abis!(a, (*const sys::CUDA_MEMCPY2D,) => |(p,)| cx.copy_2d(p, None)),
    ),
    (
        "cuMemcpy2DUnaligned",
        |cx, a| abis!(a, (*const sys::CUDA_MEMCPY2D,) => |(p,)| cx.copy_2d(p, None)),
    ),
    (
        "cuMemcpy2DAsync",
        |cx, a| abis!(a, (*const sys::CUDA_MEMCPY2D, CUstream) => |(p, s)| cx.copy_2d(p, Some(s))),
    ),
    ("cuMemsetD2D8", |cx, a| {
        abis!(a, (CUdeviceptr, usize, u8, usize, usize)
            => |(d, pitch, v, w, h)| cx.set_2d(d, pitch, &[v], (w, h), None))
    }),
    ("cuMemsetD2D8Async", |cx, a| {
        abis!(a, (CUdeviceptr, usize, u8, usize, usize, CUstream)
            => |(d, pitch, v, w, h, s)| cx.set_2d(d, pitch, &[v], (w, h), Some(s)))
    }),
    ("cuMemsetD2D16", |cx, a| {
        abis!(a, (CUdeviceptr, usize, u16, usize, usize)
            => |(d, pitch, v, w, h)| cx.set_2d(d, pitch, &v.to_ne_bytes(), (w, h), None))
    }),
    ("cuMemsetD2D16Async", |cx, a| {
        abis!(a, (CUdeviceptr, usize, u16, usize, usize, CUstream)
            => |(d, pitch, v, w, h, s)| cx.set_2d(d, pitch, &v.to_ne_bytes(), (w, h), Some(s)))
    }),
    ("cuMemsetD2D32", |cx, a| {
        abis!(a, (CUdeviceptr, usize, u32, usize, usize)
            => |(d, pitch, v, w, h)| cx.set_2d(d, pitch, &v.to_ne_bytes(), (w, h), None))
    }),
    ("cuMemsetD2D32Async", |cx, a| {
        abis!(a, (CUdeviceptr, usize, u32, usize, usize, CUstream)
            => |(d, pitch, v, w, h, s)| cx.set_2d(d, pitch, &v.to_ne_bytes(), (w, h), Some(s)))
    }),
    (
        "cuStreamCreate",
        |cx, a| abis!(a, (*mut CUstream, c_uint) => |(ph, flags)| cx.stream_create(ph, flags)),
    ),
    (
        "cuStreamCreateWithPriority",
        |cx, a| abis!(a, (*mut CUstream, c_uint, c_int) => |(ph, flags, _)| cx.stream_create(ph, flags)),
    ),
    (
        "cuStreamDestroy",
        |cx, a| abis!(a, (CUstream,) => |(s,)| cx.stream_destroy(s)),
    ),
    (
        "cuStreamSynchronize",
        |cx, a| abis!(a, (CUstream,) => |(s,)| cx.stream_synchronize(s)),
    ),
    (
        "cuStreamQuery",
        |cx, a| abis!(a, (CUstream,) => |(s,)| cx.stream_synchronize(s)),
    ),
    (
        "cuStreamWaitEvent",
        |cx, a| abis!(a, (CUstream, CUevent, c_uint) => |(s, e, _)| cx.stream_wait_event(s, e)),
    ),
    (
        "cuEventCreate",
        |cx, a| abis!(a, (*mut CUevent, c_uint) => |(ph, flags)| cx.event_create(ph, flags)),
    ),
    (
        "cuEventDestroy",
        |cx, a| abis!(a, (CUevent,) => |(e,)| cx.event_destroy(e)),
    ),
    (
        "cuEventRecord",
        |cx, a| abis!(a, (CUevent, CUstream) => |(e, s)| cx.event_record(e, s)),
    ),
    (
        "cuEventRecordWithFlags",
        |cx, a| abis!(a, (CUevent, CUstream, c_uint) => |(e, s, _)| cx.event_record(e, s)),
    ),
    (
        "cuEventSynchronize",
        |cx, a| abis!(a, (CUevent,) => |(e,)| cx.event_synchronize(e)),
    ),
    (
        "cuEventQuery",
        |cx, a| abis!(a, (CUevent,) => |(e,)| cx.event_synchronize(e)),
    ),
    (
        "cuEventElapsedTime",
        |cx, a| abis!(a, (*mut f32, CUevent, CUevent) => |(ms, start, end)| cx.elapsed(ms, start, end)),
    ),
    (
        "cuModuleLoadData",
        |cx, a| abis!(a, (*mut CUmodule, CPtr) => |(m, image)| cx.module_load(m, image)),
    ),
    (
        "cuModuleLoadDataEx",
        |cx, a| abis!(a, (*mut CUmodule, CPtr, c_uint, *mut sys::CUjit_option, *mut Ptr) => |(m, image, _, _, _)| cx.module_load(m, image)),
    ),
    (
        "cuModuleUnload",
        |cx, a| abis!(a, (CUmodule,) => |(m,)| cx.module_unload(m)),
    ),
    (
        "cuModuleGetFunction",
        |cx, a| abis!(a, (*mut CUfunction, CUmodule, *const c_char) => |(f, m, name)| cx.get_function(f, m, name)),
    ),
    ("cuLaunchKernel", |cx, a| {
        abis!(a, (CUfunction, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, CUstream, *mut Ptr, *mut Ptr)
        => |(f, gx, gy, gz, bx, by, bz, shared, s, params, extra)| cx.launch(
            f,
            Dim3 { x: gx, y: gy, z: gz },
            Dim3 { x: bx, y: by, z: bz },
            shared,
            s,
            params,
            extra,
        ))
    }),
    ("cuLaunchKernelEx", |cx, a| {
        abis!(a, (*const sys::CUlaunchConfig, CUfunction, *mut Ptr, *mut Ptr)
            => |(config, f, params, extra)| cx.launch_ex(config, f, params, extra))
    }),
    ("cuLaunchHostFunc", |cx, a| {
        abis!(a,
            (CUstream, sys::CUhostFn, Ptr) => |(s, f, data)| cx.host_func(s, f, data),
            (CUstream, sys::CUhostFn, Ptr, c_uint) => |(s, f, data, _)| cx.host_func(s, f, data),
        )
    }),
    ("cuStreamBeginCapture", |cx, a| {
        abis!(a,
            (CUstream,) => |(s,)| cx.begin_capture(s),
            (CUstream, sys::CUstreamCaptureMode) => |(s, _)| cx.begin_capture(s),
        )
    }),
    (
        "cuStreamEndCapture",
        |cx, a| abis!(a, (CUstream, *mut sys::CUgraph) => |(s, g)| cx.end_capture(s, g)),
    ),
    (
        "cuStreamIsCapturing",
        |cx, a| abis!(a, (CUstream, *mut sys::CUstreamCaptureStatus) => |(s, st)| cx.is_capturing(s, st)),
    ),
    (
        "cuGraphCreate",
        |cx, a| abis!(a, (*mut sys::CUgraph, c_uint) => |(g, _)| cx.graph_create(g)),
    ),
    ("cuGraphAddKernelNode", |cx, a| {
        type Deps = *const sys::CUgraphNode;
        abis!(a,
            (*mut sys::CUgraphNode, sys::CUgraph, Deps, usize, *const sys::CUDA_KERNEL_NODE_PARAMS_v1)
                => |(out, g, deps, n, p)| {
                    let node = cx.kernel_node_v1(p);
                    // SAFETY: the C contract: `deps` holds `n` nodes, `out` is writable.
                    node.and_then(|node| unsafe { cx.add_node(out, g, deps, n, node) })
                },
            (*mut sys::CUgraphNode, sys::CUgraph, Deps, usize, *const sys::CUDA_KERNEL_NODE_PARAMS_v2)
                => |(out, g, deps, n, p)| {
                    let node = cx.kernel_node_v2(p);
                    // SAFETY: as above.
                    node.and_then(|node| unsafe { cx.add_node(out, g, deps, n, node) })
                },
        )
    }),
    ("cuGraphAddMemsetNode", |cx, a| {
        abis!(a, (*mut sys::CUgraphNode, sys::CUgraph, *const sys::CUgraphNode, usize, *const sys::CUDA_MEMSET_NODE_PARAMS, CUcontext)
        => |(out, g, deps, n, p, _)| {
            let node = cx.memset_params(p);
            // SAFETY: the C contract: `deps` holds `n` nodes, `out` is writable.
            node.and_then(|node| unsafe { cx.add_node(out, g, deps, n, node) })
        })
    }),
    ("cuGraphInstantiate", |cx, a| {
        abis!(a,
            (*mut sys::CUgraphExec, sys::CUgraph, *mut sys::CUgraphNode, *mut c_char, usize) => |(e, g, _, _, _)| cx.instantiate(e, g),
            (*mut sys::CUgraphExec, sys::CUgraph, u64) => |(e, g, _)| cx.instantiate(e, g),
        )
    }),
    (
        "cuGraphInstantiateWithFlags",
        |cx, a| abis!(a, (*mut sys::CUgraphExec, sys::CUgraph, u64) => |(e, g, _)| cx.instantiate(e, g)),
    ),
    (
        "cuGraphLaunch",
        |cx, a| abis!(a, (sys::CUgraphExec, CUstream) => |(e, s)| cx.graph_launch(e, s)),
    ),
    (
        "cuGraphExecDestroy",
        |cx, a| abis!(a, (sys::CUgraphExec,) => |(e,)| cx.exec_destroy(e)),
    ),
    (
        "cuGraphDestroy",
        |cx, a| abis!(a, (sys::CUgraph,) => |(g,)| cx.graph_destroy(g)),
    ),
    (
        "cuOccupancyMaxActiveBlocksPerMultiprocessor",
        |cx, a| abis!(a, (*mut c_int, CUfunction, c_int, usize) => |(n, f, block, _)| cx.occupancy_blocks(n, f, block)),
    ),
    ("cuOccupancyMaxPotentialBlockSize", |cx, a| {
        abis!(a, (*mut c_int, *mut c_int, CUfunction, sys::CUoccupancyB2DSize, usize, c_int)
            => |(grid, block, f, _, _, limit)| cx.occupancy_size(grid, block, f, limit))
    }),
    ("cuMemcpyPeer", |cx, a| {
        abis!(a, (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, usize) => |(d, dc, s, sc, n)| {
            cx.peer(dc, sc).and_then(|()| cx.copy(Place::Device(d), Place::Device(s), n, None))
        })
    }),
    ("cuMemcpyPeerAsync", |cx, a| {
        abis!(a, (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, usize, CUstream) => |(d, dc, s, sc, n, st)| {
            cx.peer(dc, sc)
                .and_then(|()| cx.copy(Place::Device(d), Place::Device(s), n, Some(st)))
        })
    }),
];
