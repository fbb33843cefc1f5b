/* A stand-in libcudart.so.13 for checking the benchmark pipeline without a GPU (see
 * mock_libcuda.c): gcc -O2 -shared -fPIC -o mock/libcudart.so.13 mock_libcudart.c mock/libcuda.so.1 */
int cuGetProcAddress_v2(const char *, void **, int, unsigned long long, int *);

int cudaGetDriverEntryPointByVersion(const char *symbol, void **pfn, unsigned int version,
                                     unsigned long long flags, int *status) {
    return cuGetProcAddress_v2(symbol, pfn, (int)version, flags, status);
}
int cudaRuntimeGetVersion(int *v) { *v = 13000; return 0; }
int cudaDriverGetVersion(int *v) { *v = 13000; return 0; }
const char *cudaGetErrorName(int e) { (void)e; return "cudaErrorMock"; }
const char *cudaGetErrorString(int e) { (void)e; return "mock"; }
