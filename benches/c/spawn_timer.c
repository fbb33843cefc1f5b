/* Times fresh processes: spawn_timer RUNS WARMUP NAME=PATH [NAME=PATH ...]
 *
 * Runs every PATH (no arguments, environment inherited) WARMUP + RUNS times, round-robin and
 * starting each round at the next program, so that all programs see the same machine conditions.
 * Each child prints "<version> <ns when main was entered> <ns when the first call returned>"
 * (CLOCK_MONOTONIC, the same clock in every process; the examples and cold*.c do). For each run
 * it records
 *   first:  from just before posix_spawn until the first call returned (the cold start)
 *   inproc: from main entered until the first call returned (the program's own work, without
 *           exec, dynamic linking and language start-up)
 *   whole:  from just before posix_spawn until waitpid returned (the whole process, exit included)
 * and prints one line per program with the median, p10 and p90 of first, the median of inproc
 * and of whole, in microseconds. With SPAWN_TIMER_RAW=FILE it also writes every sample
 * (name, round, first_ns, inproc_ns, whole_ns).
 * Exits 1 if any run failed. Build: gcc -O2 -o spawn_timer spawn_timer.c */
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array. */
static double pct(const long long *v, int n, double q) {
    int i = (int)(q * (n - 1) + 0.5);
    return v[i] / 1000.0;
}

/* One run: 0 on success, with *first, *inproc and *whole in ns. */
static int run_once(const char *path, long long *first, long long *inproc, long long *whole) {
    int fd[2];
    if (pipe(fd)) { perror("pipe"); return -1; }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
    char *argv[] = {(char *)path, NULL};
    pid_t pid;
    long long t0 = now_ns();
    int e = posix_spawn(&pid, path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    if (e) { fprintf(stderr, "spawn_timer: %s: %s\n", path, strerror(e)); close(fd[0]); return -1; }
    char buf[256];
    size_t len = 0;
    for (;;) {
        ssize_t r = read(fd[0], buf + len, sizeof buf - 1 - len);
        if (r > 0) { len += (size_t)r; if (len == sizeof buf - 1) break; continue; }
        if (r < 0 && errno == EINTR) continue;
        break;
    }
    close(fd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    long long t2 = now_ns();
    buf[len] = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "spawn_timer: %s exited with status %d\n", path, status);
        return -1;
    }
    long long version, tm, t1;
    if (sscanf(buf, "%lld %lld %lld", &version, &tm, &t1) != 3 || tm < t0 || t1 < tm || t1 > t2) {
        fprintf(stderr, "spawn_timer: %s printed no usable timestamps: '%s'\n", path, buf);
        return -1;
    }
    *first = t1 - t0;
    *inproc = t1 - tm;
    *whole = t2 - t0;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: spawn_timer RUNS WARMUP NAME=PATH [NAME=PATH ...]\n");
        return 2;
    }
    int runs = atoi(argv[1]), warmup = atoi(argv[2]), m = argc - 3;
    if (runs < 1 || warmup < 0) { fprintf(stderr, "spawn_timer: bad RUNS or WARMUP\n"); return 2; }
    char **name = calloc(m, sizeof *name), **path = calloc(m, sizeof *path);
    long long **first = calloc(m, sizeof *first), **whole = calloc(m, sizeof *whole);
    long long **inproc = calloc(m, sizeof *inproc);
    int *fails = calloc(m, sizeof *fails), *ok = calloc(m, sizeof *ok);
    for (int i = 0; i < m; i++) {
        char *eq = strchr(argv[i + 3], '=');
        if (!eq) { fprintf(stderr, "spawn_timer: expected NAME=PATH, got %s\n", argv[i + 3]); return 2; }
        *eq = 0;
        name[i] = argv[i + 3];
        path[i] = eq + 1;
        first[i] = calloc(runs, sizeof **first);
        whole[i] = calloc(runs, sizeof **whole);
        inproc[i] = calloc(runs, sizeof **inproc);
    }
    FILE *raw = NULL;
    const char *raw_path = getenv("SPAWN_TIMER_RAW");
    if (raw_path && *raw_path) {
        raw = fopen(raw_path, "w");
        if (!raw) { perror(raw_path); return 2; }
        setvbuf(raw, NULL, _IOLBF, 0); /* every sample reaches the file, even if killed */
        fprintf(raw, "name\tround\tfirst_ns\tinproc_ns\twhole_ns\n");
    }
    for (int round = -warmup; round < runs; round++) {
        for (int k = 0; k < m; k++) {
            int i = (k + round + warmup) % m;
            if (fails[i] > 3) continue; /* a broken program: stop spending time on it */
            long long f, p, w;
            if (run_once(path[i], &f, &p, &w)) { fails[i]++; continue; }
            if (round < 0) continue;
            first[i][ok[i]] = f;
            whole[i][ok[i]] = w;
            inproc[i][ok[i]] = p;
            ok[i]++;
            if (raw) fprintf(raw, "%s\t%d\t%lld\t%lld\t%lld\n", name[i], round, f, p, w);
        }
    }
    if (raw) fclose(raw);
    printf("%-14s %5s %5s | %9s %9s %9s %9s | %9s | %9s\n", "program", "runs", "fails", "first_med",
           "first_p10", "first_p90", "first_min", "inproc_med", "whole_med");
    int rc = 0;
    for (int i = 0; i < m; i++) {
        int n = ok[i];
        if (fails[i]) rc = 1;
        if (!n) { printf("%-14s %5d %5d | no successful run\n", name[i], 0, fails[i]); continue; }
        qsort(first[i], n, sizeof(long long), cmp_ll);
        qsort(inproc[i], n, sizeof(long long), cmp_ll);
        qsort(whole[i], n, sizeof(long long), cmp_ll);
        printf("%-14s %5d %5d | %9.1f %9.1f %9.1f %9.1f | %9.1f | %9.1f\n", name[i], n, fails[i],
               pct(first[i], n, 0.5), pct(first[i], n, 0.1), pct(first[i], n, 0.9),
               first[i][0] / 1000.0, pct(inproc[i], n, 0.5), pct(whole[i], n, 0.5));
    }
    printf("(microseconds; first: spawn until the first call returned; inproc: main entered until\n"
           " the first call returned; whole: spawn until exit)\n");
    return rc;
}
