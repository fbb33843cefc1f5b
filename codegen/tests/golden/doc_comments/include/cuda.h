/*
 * Golden test input: where doc comments must and must not attach, trimmed from CUDA 12.9's cuda.h.
 *
 * - A group's `\defgroup ... @{` comment precedes the first function's own comment, separated by
 *   one blank line (`cuMemGetInfo`, renamed by `#define cuMemGetInfo cuMemGetInfo_v2`).
 * - `/ ** @} * /` closes a group and, after a blank line, precedes a function declared without a
 *   comment (`cuGetExportTable`).
 * - A comment precedes the `#if defined(__CUDA_API_VERSION_INTERNAL)` block, whose declarations
 *   have no comments (`cuMemHostRegister` v4000, `cuMemGetInfo` v2000). The real block starts
 *   with over a hundred `#undef` lines; this one has three.
 * - A deprecated function: `__CUDA_DEPRECATED` stands between the comment and the declaration.
 */
#ifndef __cuda_cuda_h__
#define __cuda_cuda_h__

#include <stdlib.h>
#ifdef _MSC_VER
typedef unsigned __int32 cuuint32_t;
typedef unsigned __int64 cuuint64_t;
#else
#include <stdint.h>
typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;
#endif

#if defined(__CUDA_API_VERSION_INTERNAL) || defined(__DOXYGEN_ONLY__) || defined(CUDA_ENABLE_DEPRECATED)
#define __CUDA_DEPRECATED
#elif defined(_MSC_VER)
#define __CUDA_DEPRECATED __declspec(deprecated)
#elif defined(__GNUC__)
#define __CUDA_DEPRECATED __attribute__((deprecated))
#else
#define __CUDA_DEPRECATED
#endif

#define cuMemGetInfo                        cuMemGetInfo_v2
#define cuMemHostRegister                   cuMemHostRegister_v2

/**
 * CUDA API version number
 */
#define CUDA_VERSION 12090

#ifdef __cplusplus
extern "C" {
#endif

typedef int CUdevice_v1;                                     /**< CUDA device */
typedef CUdevice_v1 CUdevice;                                /**< CUDA device */

typedef struct CUuuid_st {                                /**< CUDA definition of UUID */
    char bytes[16];
} CUuuid;

/**
 * Error codes
 */
typedef enum cudaError_enum {
    CUDA_SUCCESS                              = 0,
    CUDA_ERROR_INVALID_VALUE                  = 1,
    CUDA_ERROR_UNKNOWN                        = 999
} CUresult;

#ifdef _WIN32
#define CUDAAPI __stdcall
#else
#define CUDAAPI
#endif

/**
 * \defgroup CUDA_DEVICE_DEPRECATED Device Management [DEPRECATED]
 *
 * ___MANBRIEF___ deprecated device management functions of the low-level CUDA
 * driver API (___CURRENT_FILE___) ___ENDMANBRIEF___
 *
 * @{
 */

/**
 * \brief Returns the compute capability of the device
 *
 * \deprecated
 *
 * This function was deprecated as of CUDA 5.0 and its functionality superseded
 * by ::cuDeviceGetAttribute().
 *
 * \param major - Major revision number
 * \param minor - Minor revision number
 * \param dev   - Device handle
 */
__CUDA_DEPRECATED CUresult CUDAAPI cuDeviceComputeCapability(int *major, int *minor, CUdevice dev);

/** @} */ /* END CUDA_DEVICE_DEPRECATED */

/**
 * \defgroup CUDA_MEM Memory Management
 *
 * ___MANBRIEF___ memory management functions of the low-level CUDA driver API
 * (___CURRENT_FILE___) ___ENDMANBRIEF___
 *
 * This section describes the memory management functions of the low-level CUDA
 * driver application programming interface.
 *
 * @{
 */

/**
 * \brief Gets free and total memory
 *
 * Returns in \p *total the total amount of memory available to the the current context.
 * Returns in \p *free the amount of memory on the device that is free according to the OS.
 *
 * \param free  - Returned free memory in bytes
 * \param total - Returned total memory in bytes
 */
CUresult CUDAAPI cuMemGetInfo(size_t *free, size_t *total);

/**
 * \brief Registers an existing host memory range for use by CUDA
 *
 * Page-locks the memory range specified by \p p and \p bytesize and maps it
 * for the device(s) as specified by \p Flags.
 *
 * \param p        - Host pointer to memory to page-lock
 * \param bytesize - Size in bytes of the address range to page-lock
 * \param Flags    - Flags for allocation request
 */
CUresult CUDAAPI cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags);

/** @} */ /* END CUDA_MEM */

CUresult CUDAAPI cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId);

/**
 * CUDA API versioning support
 */
#if defined(__CUDA_API_VERSION_INTERNAL)
    #undef cuMemHostRegister
    #undef cuMemGetInfo
    #undef cuDeviceTotalMem

    CUresult CUDAAPI cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags);
    CUresult CUDAAPI cuMemGetInfo(unsigned int *free, unsigned int *total);
#endif

#ifdef __cplusplus
}
#endif

#undef __CUDA_DEPRECATED

#endif /* __cuda_cuda_h__ */
