/* The body of the C floors (cold.c, cold_cudart.c): dlopen the library, dlsym its lookup
 * function, ask it for cuDriverGetVersion at ABI 2020 with the legacy stream flag, call that, and
 * print the version and CLOCK_MONOTONIC in ns when main was entered and right after the call
 * returned, like the Rust examples, for spawn_timer.c. A failure prints `program: why` and
 * returns 2. */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

typedef int (*driver_get_version_t)(int *);

/* One call of the lookup function `entry` (as dlsym returned it) for `symbol` at ABI `version`,
 * legacy stream: its result, the pointer in *p and the status in *status. */
typedef int (*lookup_t)(void *entry, const char *symbol, void **p, int version, int *status);

static long long cold_ns(struct timespec t) { return (long long)t.tv_sec * 1000000000LL + t.tv_nsec; }

/* `t0` is the clock when main was entered. */
static int cold_start(const char *program, struct timespec t0, const char *path,
                      const char *entry_name, lookup_t lookup) {
    /* RTLD_LAZY | RTLD_LOCAL: what libloading (and so the Rust table) uses. */
    void *lib = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    if (!lib) { fprintf(stderr, "%s: %s\n", program, dlerror()); return 2; }
    void *entry = dlsym(lib, entry_name);
    if (!entry) { fprintf(stderr, "%s: no %s: %s\n", program, entry_name, dlerror()); return 2; }
    void *p = 0;
    int status = -1;
    int rc = lookup(entry, "cuDriverGetVersion", &p, 2020, &status);
    if (rc || status || !p) { fprintf(stderr, "%s: lookup rc %d status %d\n", program, rc, status); return 2; }
    int version = 0;
    rc = ((driver_get_version_t)p)(&version);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    if (rc) { fprintf(stderr, "%s: cuDriverGetVersion returned %d\n", program, rc); return 2; }
    printf("%d %lld %lld\n", version, cold_ns(t0), cold_ns(ts));
    return 0;
}
