/* Cold start floor, runtime: dlopen(libcudart) + cudaGetDriverEntryPointByVersion(
 * "cuDriverGetVersion") + the call (cold.h). libcudart is $CUDA_DRIVER_TABLE_CUDART (the file the
 * Rust runtime backend loads), else libcudart.so.13.
 * Build: gcc -O2 -o cold_cudart_c cold_cudart.c -ldl */
#include <stdlib.h>

#include "cold.h"

typedef int (*entry_t)(const char *, void **, unsigned int, unsigned long long, int *);

/* cudaEnableLegacyStream (1). */
static int lookup(void *entry, const char *symbol, void **p, int version, int *status) {
    return ((entry_t)entry)(symbol, p, (unsigned int)version, 1, status);
}

int main(void) {
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0); /* main entered */
    const char *path = getenv("CUDA_DRIVER_TABLE_CUDART");
    if (!path || !*path) path = "libcudart.so.13";
    return cold_start("cold_cudart_c", t0, path, "cudaGetDriverEntryPointByVersion", lookup);
}
