/* A stand-in for the NVIDIA driver's nvcuda.dll, for the tests that run the Windows build under
 * Wine (scripts/windows.sh builds it with mingw): it exports the driver's two lookup functions
 * and hands out the functions of driver.h through them. */

#include "driver.h"

/* CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
 * cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus), ABI 12000. */
__declspec(dllexport) CUresult cuGetProcAddress_v2(const char *symbol, void **fn, int version,
                                                   cuuint64_t flags, int *status) {
    int ignored;
    return lookup(symbol, fn, version, flags, status ? status : &ignored);
}

/* CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags),
 * ABI 11030: without a status, a function it cannot hand out is CUDA_ERROR_NOT_FOUND. */
__declspec(dllexport) CUresult cuGetProcAddress(const char *symbol, void **fn, int version,
                                                cuuint64_t flags) {
    int status = LOOKUP_SUCCESS;
    CUresult rc = lookup(symbol, fn, version, flags, &status);
    return rc == CUDA_SUCCESS && status != LOOKUP_SUCCESS ? CUDA_ERROR_NOT_FOUND : rc;
}
