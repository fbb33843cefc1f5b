/* A stand-in libcuda.so.1 for checking the benchmark pipeline on a machine without a GPU:
 *   gcc -O2 -shared -fPIC -o mock/libcuda.so.1 mock_libcuda.c
 *   LD_LIBRARY_PATH=$PWD/mock bash scripts/bench-gpu.sh     (after `cargo gpu-stage benches`)
 * Every lookup succeeds with a function that writes zeros and returns CUDA_SUCCESS.
 * Its numbers mean nothing: it only proves the programs, the runner and the summary run. */
#include <string.h>

static int stub(void) { return 0; }
int cuInit(unsigned int flags) { (void)flags; return 0; }
int cuDriverGetVersion(int *v) { *v = 13000; return 0; }
int cuCtxGetCurrent(void **ctx) { *ctx = 0; return 0; }

int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, unsigned long long flags,
                        int *status) {
    (void)version; (void)flags;
    if (!strcmp(symbol, "cuInit")) *pfn = (void *)cuInit;
    else if (!strcmp(symbol, "cuDriverGetVersion")) *pfn = (void *)cuDriverGetVersion;
    else if (!strcmp(symbol, "cuCtxGetCurrent")) *pfn = (void *)cuCtxGetCurrent;
    else *pfn = (void *)stub;
    if (status) *status = 0;
    return 0;
}
