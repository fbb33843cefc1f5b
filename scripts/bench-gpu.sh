#!/usr/bin/env bash
# GPU benchmarks of cuda-driver-table (issue 6, items 1-3), run ON THE GPU MACHINE from the repo
# root, with .gpu/ staged here by `bash scripts/bench-stage.sh` and carried along:
#
#   bash scripts/bench-gpu.sh
#
# 1. Call overhead: the criterion bench `call_overhead`, run twice (the spread between the two
#    runs shows the noise), all variants of a function in one group.
# 2. Cold start: BENCH_N (200) fresh processes of each of 9 programs (the table through each
#    backend, cudarc, the same steps in C and in Rust without a table, empty C and Rust programs),
#    round-robin, after 10 warm-ups, timed by .gpu/bin/spawn_timer (spawn until the first
#    cuDriverGetVersion returned; and until the process exited).
# 3. Resolving everything: the criterion bench `resolve_all`.
#
# Writes to $OUT (./target/bench-gpu-out when unset), at most 8 files:
#   bench-gpu.txt   the summary, ending with the rows of BENCHMARKS.md's table (paste them)
#   bench-gpu.log   everything the programs printed
#   cold-raw.tsv    every cold-start sample (ns): spawn -> first call, main -> first call, whole
#   criterion.json  every criterion estimate (ns)
# Takes about 3 minutes; BENCH_N and BENCH_MEASURE (criterion seconds per benchmark) shorten it.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/target/bench-gpu-out}
mkdir -p "$OUT"
N=${BENCH_N:-200}
MEASURE=${BENCH_MEASURE:-2}
BIN=.gpu/bin
LOG=$OUT/bench-gpu.log
: > "$LOG"
log() { echo "== $*" | tee -a "$LOG"; }
# BENCH_CUDART: another libcudart (the pipeline check with the mock libraries uses it).
export CUDA_DRIVER_TABLE_CUDART=${BENCH_CUDART:-$PWD/.gpu/cudart/13.0/libcudart.so.13}
unset CUDA_DRIVER_TABLE_LIBCUDA
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

newest() { ls -t "$BIN"/"$1"-* 2>/dev/null | head -1; }
CALL=$(newest call_overhead)
RESOLVE=$(newest resolve_all)
missing=""
for f in spawn_timer noop_c cold_c cold_cudart_c cold_noop cold_raw cold_raw_cudart cold_driver cold_runtime cold_cudarc; do
  [[ -x $BIN/$f ]] || missing+=" $f"
done
[[ -n $CALL ]] || missing+=" call_overhead-*"
[[ -n $RESOLVE ]] || missing+=" resolve_all-*"
[[ -f $CUDA_DRIVER_TABLE_CUDART ]] || missing+=" $CUDA_DRIVER_TABLE_CUDART"
if [[ -n $missing ]]; then
  echo "bench-gpu: not staged:$missing; run 'bash scripts/bench-stage.sh' on the build machine and carry .gpu" | tee -a "$LOG" >&2
  exit 2
fi

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>&1 | head -1)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores; kernel $(uname -r)"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "libcuda on the loader path: $(ldconfig -p 2>/dev/null | grep -o 'libcuda\.so[.0-9]*' | sort -u | tr '\n' ' ')"
  echo "libcudart: $CUDA_DRIVER_TABLE_CUDART"
  echo "binaries: $CALL $RESOLVE"
} > "$WORK/machine.txt"
cat "$WORK/machine.txt" | tee -a "$LOG"

t_start=$(date +%s)
log "cold start: $N runs of each program, 10 warm-ups, round-robin"
SPAWN_TIMER_RAW=$OUT/cold-raw.tsv timeout 150 "$BIN/spawn_timer" "$N" 10 \
  noop_c="$BIN/noop_c" noop_rust="$BIN/cold_noop" \
  c_driver="$BIN/cold_c" c_cudart="$BIN/cold_cudart_c" \
  rust_driver="$BIN/cold_raw" rust_cudart="$BIN/cold_raw_cudart" \
  table_driver="$BIN/cold_driver" table_runtime="$BIN/cold_runtime" cudarc="$BIN/cold_cudarc" \
  2>&1 | tee -a "$LOG"
log "cold start done in $(( $(date +%s) - t_start )) s"

crit() { # crit NAME BINARY SECONDS (each run takes 30-40 s; the limit keeps the whole under 8 min)
  log "criterion $1"
  CRITERION_HOME=$WORK/$1 timeout 90 "$2" --bench --noplot \
    --warm-up-time 1 --measurement-time "$3" 2>&1 | tee -a "$LOG"
}
crit call1 "$CALL" "$MEASURE"
crit call2 "$CALL" "$MEASURE"
crit resolve "$RESOLVE" $(( MEASURE + 1 ))
log "all done in $(( $(date +%s) - t_start )) s"

python3 - "$WORK" "$OUT" <<'PY' 2>&1 | tee "$OUT/bench-gpu.txt"
import json, os, random, statistics, sys

work, out = sys.argv[1], sys.argv[2]
print("# GPU benchmarks of cuda-driver-table")
print(open(os.path.join(work, "machine.txt")).read().rstrip())
print()

def criterion(run):
    """full_id -> {median, mean, lo, hi, slope, elements} in ns."""
    res = {}
    for d, _, files in os.walk(os.path.join(work, run)):
        if os.path.basename(d) != "new" or "benchmark.json" not in files:
            continue
        b = json.load(open(os.path.join(d, "benchmark.json")))
        e = json.load(open(os.path.join(d, "estimates.json")))
        t = b.get("throughput") or {}
        res[b["full_id"]] = {
            "median": e["median"]["point_estimate"],
            "mean": e["mean"]["point_estimate"],
            "mean_lo": e["mean"]["confidence_interval"]["lower_bound"],
            "mean_hi": e["mean"]["confidence_interval"]["upper_bound"],
            "slope": (e.get("slope") or {}).get("point_estimate"),
            "elements": t.get("Elements"),
        }
    return res

runs = {r: criterion(r) for r in ("call1", "call2", "resolve")}
json.dump(runs, open(os.path.join(out, "criterion.json"), "w"), indent=1)
rows = []

def verdict(ok, miss):
    return "yes" if ok else "no: " + miss

# 1. call overhead
# The paired measurement's lines (`paired<TAB>function<TAB>variant<TAB>ns<TAB>diff<TAB>p10<TAB>p90`)
# in the log, by run.
paired = {}
run = None
for line in open(os.path.join(out, "bench-gpu.log"), errors="replace"):
    if line.startswith("== criterion "):
        run = line.split()[2]
    elif line.startswith("paired\t") and run:
        _, func, var, ns, d, lo, hi = line.rstrip("\n").split("\t")
        paired.setdefault(run, {})[(func, var)] = (float(ns), float(d), float(lo), float(hi))

print("## 1. Call overhead (ns per call; run 1 / run 2)")
print("criterion: median per call; paired: median over 300 rounds of (variant - raw pointer), p10..p90")
labels = {
    "method_driver": "generated method, driver backend",
    "method_runtime": "generated method, runtime backend",
    "accessor": "raw accessor `pfn_*()` + call",
    "cudarc": "cudarc `driver::sys`",
}
R = ("call1", "call2")
for fi, func in enumerate(("cuDriverGetVersion", "cuCtxGetCurrent")):
    def get(run, v):
        x = runs[run].get(f"call_overhead/{func}/{v}")
        return x["median"] if x else None
    raw = [get(r, "raw_pointer") for r in R]
    print(f"{func}: raw pointer " + " / ".join("-" if x is None else f"{x:.3f}" for x in raw) + " ns")
    for vi, (v, label) in enumerate(labels.items()):
        rid = "1" + ("abcd" if fi == 0 else "efgh")[vi]
        ours = [get(r, v) for r in R]
        pd = [paired.get(r, {}).get((func, v)) for r in R]
        if None in ours or None in raw:
            print(f"  {v}: not measured")
            rows.append(f"| {rid} | call `{func}`: {label} | not measured | | | | |")
            continue
        d = [o - r for o, r in zip(ours, raw)]
        q = [o / r for o, r in zip(ours, raw)]
        line = (f"  {v:15s} criterion {ours[0]:7.3f} / {ours[1]:7.3f} ns, diff {d[0]:+.3f} / {d[1]:+.3f} ns, "
                f"ratio {q[0]:.3f} / {q[1]:.3f}")
        if None not in pd:
            line += "; paired diff " + " / ".join(f"{p[1]:+.3f} ({p[2]:+.2f}..{p[3]:+.2f})" for p in pd) + " ns"
        print(line)
        # The verdict uses the paired differences (drift cancels) where there are any.
        est = [p[1] for p in pd] if None not in pd else d
        mean = sum(est) / len(est)
        goal, met = "—", "—"
        if v != "cudarc":
            goal = "≤ +0.2 ns"
            met = verdict(mean <= 0.2, f"{mean - 0.2:.2f} ns over")
            if abs(est[0] - est[1]) > 0.2:
                met += f" (the runs differ by {abs(est[0] - est[1]):.2f} ns)"
        pcell = (" / ".join(f"{p[1]:+.2f}" for p in pd) + " ns paired; ") if None not in pd else ""
        rows.append(
            f"| {rid} | call `{func}`: {label} | {ours[0]:.2f} / {ours[1]:.2f} ns | raw pointer: "
            f"{raw[0]:.2f} / {raw[1]:.2f} ns | **{pcell}{d[0]:+.2f} / {d[1]:+.2f} ns criterion** "
            f"({q[0]:.2f}× / {q[1]:.2f}×) | {goal} | {met} |")
print()

# 2. cold start
print("## 2. Cold start (µs; first = spawn until the first cuDriverGetVersion returned)")
samples = {}
path = os.path.join(out, "cold-raw.tsv")
if os.path.exists(path):
    for line in open(path).read().splitlines()[1:]:
        fields = line.split("\t")
        if len(fields) != 5:
            continue  # a line cut short by the time limit
        name, rnd, first, inproc, whole = fields
        samples.setdefault(name, {})[int(rnd)] = (int(first) / 1e3, int(inproc) / 1e3, int(whole) / 1e3)

def q(xs, p):
    xs = sorted(xs)
    return xs[int(p * (len(xs) - 1) + 0.5)]

def ratio_ci(a, b, k=0):
    """Median(a)/median(b) and a 95% bootstrap interval over rounds both ran in."""
    common = sorted(set(samples[a]) & set(samples[b]))
    if not common:
        return None
    pick = lambda n, rs: [samples[n][r][k] for r in rs]
    point = statistics.median(pick(a, common)) / statistics.median(pick(b, common))
    rng = random.Random(6)
    boots = []
    for _ in range(1000):
        rs = [rng.choice(common) for _ in common]
        boots.append(statistics.median(pick(a, rs)) / statistics.median(pick(b, rs)))
    boots.sort()
    return point, boots[25], boots[974]

print(f"{'program':14s} {'runs':>5s} {'first med':>10s} {'p10':>9s} {'p90':>9s} {'in-process':>10s} {'whole med':>10s}")
for n in ("noop_c", "noop_rust", "c_driver", "rust_driver", "table_driver", "c_cudart", "rust_cudart",
          "table_runtime", "cudarc"):
    if n not in samples:
        print(f"{n:14s} not measured")
        continue
    f = [v[0] for v in samples[n].values()]
    p = [v[1] for v in samples[n].values()]
    w = [v[2] for v in samples[n].values()]
    print(f"{n:14s} {len(f):5d} {statistics.median(f):10.1f} {q(f, .1):9.1f} {q(f, .9):9.1f} "
          f"{statistics.median(p):10.1f} {statistics.median(w):10.1f}")
print("(first: spawn until the first call returned; in-process: main entered until then; whole: spawn until exit)")

def cold_row(rid, label, a, b, bname, goal):
    if a not in samples or b not in samples:
        rows.append(f"| {rid} | cold start: {label} | not measured | | | | |")
        return
    ma = statistics.median(v[0] for v in samples[a].values())
    mb = statistics.median(v[0] for v in samples[b].values())
    r, lo, hi = ratio_ci(a, b)
    rp = ratio_ci(a, b, 1) if a != "noop_rust" else None
    rw, _, _ = ratio_ci(a, b, 2)
    pa = statistics.median(v[1] for v in samples[a].values())
    pb = statistics.median(v[1] for v in samples[b].values())
    inproc = f"; in-process {pa:.0f} vs {pb:.0f} µs = {rp[0]:.3f}×" if rp else ""
    print(f"  {a} / {b}: {r:.3f} (95% CI {lo:.3f}..{hi:.3f}); whole process {rw:.3f}{inproc}")
    met = "—"
    if goal:
        met = verdict(r <= goal, f"{(r / goal - 1) * 100:.1f}% over the goal")
    rows.append(
        f"| {rid} | cold start: {label} | {ma / 1e3:.2f} ms | {bname}: {mb / 1e3:.2f} ms | **{r:.3f}×** "
        f"(95% CI {lo:.3f}–{hi:.3f}; whole process {rw:.3f}×{inproc}) | {'≤ %.2f×' % goal if goal else '—'} | {met} |")

print("ratios of medians (paired by round):")
cold_row("2a", "driver backend, 2-function table", "table_driver", "c_driver", "C floor (`cold.c`)", 1.05)
cold_row("2b", "runtime backend, 2-function table", "table_runtime", "c_cudart", "C floor (`cold_cudart.c`)", 1.05)
cold_row("2c", "driver backend against the same steps in Rust", "table_driver", "rust_driver", "Rust floor (`cold_raw.rs`)", None)
cold_row("2d", "runtime backend against the same steps in Rust", "table_runtime", "rust_cudart", "Rust floor (`cold_raw_cudart.rs`)", None)
cold_row("2e", "cudarc", "cudarc", "c_driver", "C floor (`cold.c`)", None)
cold_row("2f", "cudarc against the driver backend", "cudarc", "table_driver", "driver backend", None)
cold_row("2g", "empty Rust program (no CUDA)", "noop_rust", "noop_c", "empty C program", None)
print()

# 3. resolve everything
print("## 3. Resolving every function of the CUDA 13.0 manifest (criterion median per pass)")
res = runs["resolve"]
def rv(v):
    x = res.get(f"resolve_all/all/{v}")
    return (x["median"], x["elements"]) if x else (None, None)
for v in ("table_driver", "table_runtime", "raw_cuGetProcAddress_v2",
          "raw_cudaGetDriverEntryPointByVersion", "dlsym_exports"):
    t, n = rv(v)
    print(f"  {v:38s} " + ("not measured" if t is None else f"{t / 1e3:9.1f} µs for {n} functions = {t / n:6.1f} ns each"))

def res_row(rid, label, a, b, bname):
    ta, na = rv(a)
    tb, nb = rv(b)
    if ta is None or tb is None:
        rows.append(f"| {rid} | resolve all: {label} | not measured | | | | |")
        return
    rows.append(
        f"| {rid} | resolve all: {label} | {ta / 1e3:.1f} µs ({na} fns, {ta / na:.0f} ns each) | "
        f"{bname}: {tb / 1e3:.1f} µs ({tb / nb:.0f} ns each) | **{(ta / na) / (tb / nb):.2f}×** per function | — | — |")

res_row("3a", "driver backend, fresh `#[driver_table(all)]`", "table_driver", "raw_cuGetProcAddress_v2", "`cuGetProcAddress_v2` loop")
res_row("3b", "runtime backend, fresh `#[driver_table(all)]`", "table_runtime", "raw_cudaGetDriverEntryPointByVersion", "`cudaGetDriverEntryPointByVersion` loop")
res_row("3c", "`dlsym` of every exported name (how cudarc finds a function)", "dlsym_exports", "raw_cuGetProcAddress_v2", "`cuGetProcAddress_v2` loop")
print()
print("## Rows for BENCHMARKS.md (replace the 'pending GPU run' rows)")
print("\n".join(rows))
PY
log "summary written to $OUT/bench-gpu.txt"
