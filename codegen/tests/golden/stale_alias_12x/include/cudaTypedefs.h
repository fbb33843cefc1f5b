/*
 * Golden test input: a 12.x cudaTypedefs.h with a stale alias, trimmed from CUDA 12.9.
 *
 * - `PFN_cuCtxCreate` still names v11040 although v12050 exists (as in 12.5 ... 12.9): the
 *   manifest must ignore the alias and make v12050 the default.
 * - `PFN_cuModuleGetFunctionCount` is typedef'd without a version, as in 12.4 ... 12.9; the
 *   alias defined above it renames the typedef to `PFN_cuModuleGetFunctionCount_v12040` before
 *   the compiler sees it, so the versioned name still reaches the manifest.
 */
#ifndef CUDATYPEDEFS_H
#define CUDATYPEDEFS_H

#include <cuda.h>

#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
    #define __API_TYPEDEF_PTDS(api, default_version, ptds_version) api ## _v ## ptds_version ## _ptds
    #define __API_TYPEDEF_PTSZ(api, default_version, ptds_version) api ## _v ## ptds_version ## _ptsz
#else
    #define __API_TYPEDEF_PTDS(api, default_version, ptds_version) api ## _v ## default_version
    #define __API_TYPEDEF_PTSZ(api, default_version, ptds_version) api ## _v ## default_version
#endif

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/*
 * Macros for the latest version for each driver function in cuda.h
 */
#define PFN_cuCtxCreate  PFN_cuCtxCreate_v11040
#define PFN_cuModuleGetFunctionCount PFN_cuModuleGetFunctionCount_v12040

/*
 * Type definitions for functions defined in cuda.h
 */
typedef CUresult (CUDAAPI *PFN_cuCtxCreate_v3020)(CUcontext *pctx, unsigned int flags, CUdevice_v1 dev);
typedef CUresult (CUDAAPI *PFN_cuCtxCreate_v11040)(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams, unsigned int flags, CUdevice_v1 dev);
typedef CUresult (CUDAAPI *PFN_cuModuleGetFunctionCount)(unsigned int *count, CUmodule hmod);
typedef CUresult (CUDAAPI *PFN_cuCtxCreate_v12050)(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags, CUdevice dev);

#ifdef __cplusplus
}
#endif // __cplusplus

#endif // file guard
