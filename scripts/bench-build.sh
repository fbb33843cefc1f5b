#!/usr/bin/env bash
# CPU benchmarks of cuda-driver-table (issue 6, items 4 and 5). Run from anywhere:
#
#   bash scripts/bench-build.sh            # measures the committed tree (git archive HEAD)
#   BENCH_SRC=worktree bash scripts/bench-build.sh   # measures the working tree instead
#
# 4. Build cost: a clean debug `cargo build` of a small program with a 4-function table
#    (cuInit, cuDeviceGet, cuMemAlloc, cuMemFree; default features) against the same program on
#    cudarc =0.19.10 (driver only: features std, driver, dynamic-loading, cuda-13000). Each in its
#    own temporary project; `cargo fetch` first so downloads are not timed; every build gets a
#    fresh CARGO_TARGET_DIR and CARGO_INCREMENTAL=0 (a dependency from crates.io is never built
#    incrementally; a path dependency would be, which costs time and size); RUNS builds of each
#    (default 3), interleaved A B A B A B so both see the same machine load; the median wall time
#    and the median CPU time (user + sys) are reported. Size: the sum of
#    target/debug/deps/*.rlib of one build, and the part of it linked into the program (without
#    the rlibs only proc macros use); proc-macro .so files are listed apart. Last, one more build
#    with --timings says which crates the time goes to.
# 5. Codegen: `cuda-driver-table-codegen generate --root <tmp>` over all 17 releases from the
#    cached wheels (~/.cache/cuda-driver-table), RUNS times, median; the generator is built first,
#    untimed, in target/bench-build/. The output is compared with the committed generated files.
#
# Prints a summary and the markdown rows of BENCHMARKS.md; writes them to $BENCH_OUT (default
# target/bench-build/summary.txt) too.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-3}
CUDARC='cudarc = { version = "=0.19.10", default-features = false, features = ["std", "driver", "dynamic-loading", "cuda-13000"] }'
WORK=$(mktemp -d /tmp/bench-build.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
PERSIST=$ROOT/target/bench-build
mkdir -p "$PERSIST"
OUTFILE=${BENCH_OUT:-$PERSIST/summary.txt}
unset RUSTC_WRAPPER CARGO_BUILD_RUSTC_WRAPPER CARGO_TARGET_DIR || true
export CARGO_INCREMENTAL=0

# The source measured: the committed tree by default (others may be editing the working tree).
SRC=$WORK/src
if [[ "${BENCH_SRC:-head}" == worktree ]]; then
  SRC=$ROOT
  DESC="working tree of $(git -C "$ROOT" rev-parse --short HEAD) (with uncommitted changes)"
else
  mkdir -p "$SRC"
  git -C "$ROOT" archive HEAD | tar -x -C "$SRC"
  DESC="commit $(git -C "$ROOT" rev-parse --short HEAD)"
fi

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# --- 4. build cost ---------------------------------------------------------------------------
mk() { # mk NAME DEPENDENCY-LINE MAIN-SOURCE
  mkdir -p "$WORK/$1/src"
  printf '[package]\nname = "%s"\nversion = "0.1.0"\nedition = "2021"\npublish = false\n\n[dependencies]\n%s\n\n[workspace]\n' "$1" "$2" > "$WORK/$1/Cargo.toml"
  printf '%s\n' "$3" > "$WORK/$1/src/main.rs"
  (cd "$WORK/$1" && cargo generate-lockfile -q && cargo fetch -q)
}
mk table-app "cuda-driver-table = { path = \"$SRC/runtime\" }" '
use cuda_driver_table::{driver_table, sys};

#[driver_table(cuInit, cuDeviceGet, cuMemAlloc, cuMemFree)]
pub struct Cuda;

static CU: Cuda = Cuda::new();

fn main() {
    let mut dev: sys::CUdevice = 0;
    let mut p: sys::CUdeviceptr = 0;
    // SAFETY: valid out-parameters; the pointer is freed once.
    let r = unsafe {
        CU.cuInit(0)
            .and_then(|()| CU.cuDeviceGet(&mut dev, 0))
            .and_then(|()| CU.cuMemAlloc(&mut p, 1 << 20))
            .and_then(|()| CU.cuMemFree(p))
    };
    match r {
        Ok(()) => println!("ok"),
        Err(e) => eprintln!("{e}"),
    }
}'
mk cudarc-app "$CUDARC" '
use cudarc::driver::sys;

fn main() {
    let mut dev: sys::CUdevice = 0;
    let mut p: sys::CUdeviceptr = 0;
    // SAFETY: valid out-parameters; the pointer is freed once.
    let r = unsafe {
        let mut r = sys::cuInit(0);
        if r == sys::CUresult::CUDA_SUCCESS { r = sys::cuDeviceGet(&mut dev, 0); }
        if r == sys::CUresult::CUDA_SUCCESS { r = sys::cuMemAlloc_v2(&mut p, 1 << 20); }
        if r == sys::CUresult::CUDA_SUCCESS { r = sys::cuMemFree_v2(p); }
        r
    };
    if r == sys::CUresult::CUDA_SUCCESS { println!("ok") } else { eprintln!("{r:?}") }
}'

declare -A WALL CPU
build() { # build NAME RUN: prints "wall cpu" in seconds
  (cd "$WORK/$1" && CARGO_TARGET_DIR="$WORK/target-$1-$2" /usr/bin/time -f '%e %U %S' -o "$WORK/time" cargo build -q --offline)
  awk '{printf "%.2f %.2f\n", $1, $2 + $3}' "$WORK/time"
}
echo "bench-build: measuring $DESC on $(nproc) cores; $RUNS builds each, interleaved" >&2
for i in $(seq 1 "$RUNS"); do
  for app in table-app cudarc-app; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    read -r w c < <(build "$app" "$i")
    WALL[$app]+="$w "
    CPU[$app]+="$c "
    echo "bench-build: $app build $i: $w s wall, $c s CPU (load average before: $load)" >&2
    if [[ $i -lt $RUNS ]]; then rm -rf "$WORK/target-$app-$i"; fi
  done
done
TA=$WORK/target-table-app-$RUNS
TC=$WORK/target-cudarc-app-$RUNS
# Sizes in bytes: every rlib; the rlibs linked into the program (libraries reachable without
# going through a proc macro); proc-macro .so files.
rlibs() { find "$1/debug/deps" -maxdepth 1 -name '*.rlib' -printf '%s\n' | awk '{s+=$1} END {print s+0}'; }
linked() { # linked APP TARGET
  local libs
  libs=$(cd "$WORK/$1" && cargo tree -q --offline -e no-proc-macro --prefix none --format '{lib}' | grep . | sort -u)
  for l in $libs; do find "$2/debug/deps" -maxdepth 1 -name "lib$l-*.rlib" -printf '%s\n'; done | awk '{s+=$1} END {print s+0}'
}
sos() { find "$1/debug/deps" -maxdepth 1 -name '*.so' -printf '%s\n' | awk '{s+=$1} END {print s+0}'; }
list() { find "$1/debug/deps" -maxdepth 1 \( -name '*.rlib' -o -name '*.so' \) -printf '%s %f\n' | sort -rn | awk '{n=$2; sub(/^lib/, "", n); sub(/-[0-9a-f]+\./, ".", n); printf "%s %.2f MiB; ", n, $1 / 1048576}'; }
med() { tr ' ' '\n' <<<"$1" | grep . | median; }
med_t=$(med "${WALL[table-app]}"); med_c=$(med "${WALL[cudarc-app]}")
cpu_t=$(med "${CPU[table-app]}"); cpu_c=$(med "${CPU[cudarc-app]}")
rl_t=$(rlibs "$TA"); rl_c=$(rlibs "$TC")
ln_t=$(linked table-app "$TA"); ln_c=$(linked cudarc-app "$TC")
so_t=$(sos "$TA"); so_c=$(sos "$TC")
bin_t=$(stat -c %s "$TA/debug/table-app"); bin_c=$(stat -c %s "$TC/debug/cudarc-app")

# Where the time goes: one more clean build of table-app with --timings (not counted above).
(cd "$WORK/table-app" && CARGO_TARGET_DIR="$WORK/target-timings" cargo build -q --offline --timings >/dev/null 2>&1) || true
TIMINGS=$(python3 - "$WORK/target-timings/cargo-timings" <<'PY' 2>/dev/null || echo "(no --timings report)"
import glob, json, re, sys
html = open(sorted(glob.glob(sys.argv[1] + "/cargo-timing*.html"))[-1]).read()
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S).group(1))
units.sort(key=lambda u: -u["duration"])
print("; ".join(f"{u['name']} {u['version']}{' (build script)' if u.get('mode') == 'run-custom-build' else ''} {u['duration']:.1f} s" for u in units[:8]))
PY
)

# --- 5. codegen --------------------------------------------------------------------------------
echo "bench-build: building the generator (release, untimed)" >&2
CG_TARGET=$PERSIST/codegen-target
(cd "$SRC" && CARGO_TARGET_DIR="$CG_TARGET" cargo build -q --release -p cuda-driver-table-codegen)
CG=$CG_TARGET/release/cuda-driver-table-codegen
CG_TIMES=""; CG_CPU=""
for i in $(seq 1 "$RUNS"); do
  out=$WORK/codegen-$i
  mkdir -p "$out"
  load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f '%e %U %S' -o "$WORK/time" "$CG" generate --root "$out" 2>"$WORK/codegen-$i.log"
  read -r t c < <(awk '{printf "%.2f %.2f\n", $1, $2 + $3}' "$WORK/time")
  CG_TIMES+="$t "; CG_CPU+="$c "
  echo "bench-build: codegen run $i: $t s wall, $c s CPU (load average before: $load; it says: $(tail -1 "$WORK/codegen-$i.log"))" >&2
done
med_cg=$(med "$CG_TIMES"); cpu_cg=$(med "$CG_CPU")
nfiles=$(find "$WORK/codegen-1" -type f | wc -l)
ndiff=0; extra=""
while read -r f; do
  cmp -s "$WORK/codegen-1/$f" "$SRC/$f" || ndiff=$((ndiff + 1))
done < <(cd "$WORK/codegen-1" && find . -type f | sed 's|^\./||')
for d in sys/src/generated runtime/src/generated macros/src/generated; do
  while read -r f; do [[ -e "$WORK/codegen-1/$f" ]] || extra+=" $f"; done < <(cd "$SRC" && find "$d" -type f)
done
same="$ndiff of them differ from the committed files"
if [[ -n $extra ]]; then same+="; committed but not generated by this generator:$extra"; fi

# --- summary -----------------------------------------------------------------------------------
mib() { awk -v b="$1" 'BEGIN {printf "%.2f MiB", b / 1048576}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
verdict() { awk -v r="$1" -v g="$2" 'BEGIN {
  if (r <= g) print "yes"; else printf "no: %.1f× the goal\n", r / g }'; }
r_time=$(ratio "$med_t" "$med_c"); r_cpu=$(ratio "$cpu_t" "$cpu_c")
r_rlib=$(ratio "$rl_t" "$rl_c"); r_link=$(ratio "$ln_t" "$ln_c")
{
  echo "# CPU benchmarks ($(date -u +%Y-%m-%dT%H:%MZ), $DESC)"
  echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $(rustc --version); $(cargo --version)"
  echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (other work shares these cores)"
  echo
  echo "## 4. Build cost (clean debug build, CARGO_INCREMENTAL=0, $RUNS runs each, interleaved, median)"
  echo "table-app  (cuda-driver-table, 4-function table): wall ${WALL[table-app]}-> $med_t s; CPU ${CPU[table-app]}-> $cpu_t s"
  echo "cudarc-app (cudarc =0.19.10, driver only):         wall ${WALL[cudarc-app]}-> $med_c s; CPU ${CPU[cudarc-app]}-> $cpu_c s"
  echo "all dependency rlibs:  table-app $(mib "$rl_t"), cudarc-app $(mib "$rl_c")"
  echo "rlibs linked into the program: table-app $(mib "$ln_t"), cudarc-app $(mib "$ln_c")"
  echo "proc-macro .so (host only, not linked): table-app $(mib "$so_t"), cudarc-app $(mib "$so_c")"
  echo "debug executables: table-app $(mib "$bin_t"), cudarc-app $(mib "$bin_c")"
  echo "table-app artifacts:  $(list "$TA")"
  echo "cudarc-app artifacts: $(list "$TC")"
  echo "table-app, slowest units (--timings, one more build): $TIMINGS"
  echo
  echo "## 5. Codegen (generate, all 17 releases, $RUNS runs, median)"
  echo "wall: ${CG_TIMES}-> median $med_cg s; CPU: ${CG_CPU}-> median $cpu_cg s"
  echo "$nfiles files written; $same"
  echo
  echo "## Rows for BENCHMARKS.md"
  echo "| 4a | build time: clean debug build, 4-function table (wall) | $med_t s | cudarc: $med_c s | **$r_time×** | ≤ 0.5× | $(verdict "$r_time" 0.5) |"
  echo "| 4b | build time: the same builds, CPU time (user + sys) | $cpu_t s | cudarc: $cpu_c s | **$r_cpu×** | (≤ 0.5×) | $(verdict "$r_cpu" 0.5) |"
  echo "| 4c | size of all dependency rlibs | $(mib "$rl_t") | cudarc: $(mib "$rl_c") | **$r_rlib×** | ≤ 0.1× | $(verdict "$r_rlib" 0.1) |"
  echo "| 4d | size of the rlibs linked into the program | $(mib "$ln_t") | cudarc: $(mib "$ln_c") | **$r_link×** | (≤ 0.1×) | $(verdict "$r_link" 0.1) |"
  echo "| 5 | codegen: \`generate\` of all 17 releases from cached wheels | $med_cg s wall ($cpu_cg s CPU) | — | — | — | — |"
} | tee "$OUTFILE"
