/* Cold start floor, driver: dlopen("libcuda.so.1") + cuGetProcAddress_v2("cuDriverGetVersion")
 * + the call (cold.h). Build: gcc -O2 -o cold_c cold.c -ldl */
#include "cold.h"

typedef int (*get_proc_t)(const char *, void **, int, unsigned long long, int *);

/* CU_GET_PROC_ADDRESS_LEGACY_STREAM (1). */
static int lookup(void *entry, const char *symbol, void **p, int version, int *status) {
    return ((get_proc_t)entry)(symbol, p, version, 1, status);
}

int main(void) {
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0); /* main entered */
    return cold_start("cold_c", t0, "libcuda.so.1", "cuGetProcAddress_v2", lookup);
}
