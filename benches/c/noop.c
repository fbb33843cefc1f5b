/* Cold start baseline: a C process that does no CUDA work. Prints 0 and CLOCK_MONOTONIC in ns
 * twice (main entered; "after the call", the same moment here). Build: gcc -O2 -o noop_c noop.c */
#include <stdio.h>
#include <time.h>

int main(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long long t = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    printf("0 %lld %lld\n", t, t);
    return 0;
}
