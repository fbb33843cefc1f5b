/* Cold start floor, driver: dlopen("libcuda.so.1") + cuGetProcAddress_v2("cuDriverGetVersion")
 * + the call. Prints the version and CLOCK_MONOTONIC in ns when main was entered and right after
 * the call returned, like the Rust examples, for spawn_timer.c.
 * Build: gcc -O2 -o cold_c cold.c -ldl */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

typedef int (*get_proc_t)(const char *, void **, int, unsigned long long, int *);
typedef int (*driver_get_version_t)(int *);

int main(void) {
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0); /* main entered */
    /* RTLD_LAZY | RTLD_LOCAL: what libloading (and so the Rust table) uses. */
    void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!lib) { fprintf(stderr, "cold_c: %s\n", dlerror()); return 2; }
    get_proc_t get_proc = (get_proc_t)dlsym(lib, "cuGetProcAddress_v2");
    if (!get_proc) { fprintf(stderr, "cold_c: no cuGetProcAddress_v2: %s\n", dlerror()); return 2; }
    void *p = 0;
    int status = -1;
    /* ABI 2020 of cuDriverGetVersion, CU_GET_PROC_ADDRESS_LEGACY_STREAM (1). */
    int rc = get_proc("cuDriverGetVersion", &p, 2020, 1, &status);
    if (rc || status || !p) { fprintf(stderr, "cold_c: lookup rc %d status %d\n", rc, status); return 2; }
    int version = 0;
    rc = ((driver_get_version_t)p)(&version);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    if (rc) { fprintf(stderr, "cold_c: cuDriverGetVersion returned %d\n", rc); return 2; }
    printf("%d %lld %lld\n", version, (long long)t0.tv_sec * 1000000000LL + t0.tv_nsec,
           (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
    return 0;
}
