/* A stand-in for the CUDA runtime's cudart64_*.dll, for the tests that run the Windows build
 * under Wine (scripts/windows.sh builds it with mingw, once per name, with CUDART_VERSION set to
 * the release the name stands for: 13000 for cudart64_13.dll, 12080 for cudart64_12.dll). It
 * exports what the runtime backend reads from libcudart 12.5 and newer and hands out the
 * functions of driver.h through cudaGetDriverEntryPointByVersion, without loading a driver. */

#include "driver.h"

#ifndef CUDART_VERSION
#error "build with -DCUDART_VERSION=<the release the DLL's name stands for, e.g. 13000>"
#endif

typedef int cudaError_t;

/* cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
 * unsigned int cudaVersion, unsigned long long flags,
 * cudaDriverEntryPointQueryResult *driverStatus). */
__declspec(dllexport) cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **fn,
                                                                   unsigned int version,
                                                                   unsigned long long flags,
                                                                   int *status) {
    int ignored;
    if (version > 0x7fffffffu) return CUDA_ERROR_INVALID_VALUE;
    return lookup(symbol, fn, (int)version, flags, status ? status : &ignored);
}

/* cudaError_t cudaRuntimeGetVersion(int *runtimeVersion). */
__declspec(dllexport) cudaError_t cudaRuntimeGetVersion(int *version) {
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    *version = CUDART_VERSION;
    return CUDA_SUCCESS;
}

/* cudaError_t cudaDriverGetVersion(int *driverVersion). */
__declspec(dllexport) cudaError_t cudaDriverGetVersion(int *version) {
    return cuDriverGetVersion(version);
}

/* const char *cudaGetErrorName(cudaError_t error): cudaError_t's names of the codes above. */
__declspec(dllexport) const char *cudaGetErrorName(cudaError_t code) {
    switch (code) {
    case 0: return "cudaSuccess";
    case 1: return "cudaErrorInvalidValue";
    default: return "cudaErrorUnknown";
    }
}

/* const char *cudaGetErrorString(cudaError_t error). */
__declspec(dllexport) const char *cudaGetErrorString(cudaError_t code) {
    switch (code) {
    case 0: return "no error";
    case 1: return "invalid argument";
    default: return "unknown error";
    }
}
