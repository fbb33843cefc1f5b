/* Cold start floor, runtime: dlopen(libcudart) + cudaGetDriverEntryPointByVersion(
 * "cuDriverGetVersion") + the call. libcudart is $CUDA_DRIVER_TABLE_CUDART (the file the Rust
 * runtime backend loads), else libcudart.so.13. Prints the version and CLOCK_MONOTONIC in ns when
 * main was entered and right after the call returned, for spawn_timer.c.
 * Build: gcc -O2 -o cold_cudart_c cold_cudart.c -ldl */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int (*entry_t)(const char *, void **, unsigned int, unsigned long long, int *);
typedef int (*driver_get_version_t)(int *);

int main(void) {
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0); /* main entered */
    const char *path = getenv("CUDA_DRIVER_TABLE_CUDART");
    if (!path || !*path) path = "libcudart.so.13";
    void *lib = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    if (!lib) { fprintf(stderr, "cold_cudart_c: %s\n", dlerror()); return 2; }
    entry_t entry = (entry_t)dlsym(lib, "cudaGetDriverEntryPointByVersion");
    if (!entry) { fprintf(stderr, "cold_cudart_c: no cudaGetDriverEntryPointByVersion: %s\n", dlerror()); return 2; }
    void *p = 0;
    int status = -1;
    /* ABI 2020, cudaEnableLegacyStream (1). */
    int rc = entry("cuDriverGetVersion", &p, 2020, 1, &status);
    if (rc || status || !p) { fprintf(stderr, "cold_cudart_c: lookup rc %d status %d\n", rc, status); return 2; }
    int version = 0;
    rc = ((driver_get_version_t)p)(&version);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    if (rc) { fprintf(stderr, "cold_cudart_c: cuDriverGetVersion returned %d\n", rc); return 2; }
    printf("%d %lld %lld\n", version, (long long)t0.tv_sec * 1000000000LL + t0.tv_nsec,
           (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
    return 0;
}
