#!/usr/bin/env bash
# Builds the GPU benchmarks HERE and stages them into .gpu/ for one run on the GPU machine
# (which has no Rust toolchain). Run from the project root:
#
#   bash scripts/bench-stage.sh
#
# Adds to .gpu/ without touching what else is staged there (test binaries stay):
#   .gpu/bin/cold_{driver,runtime,cudarc,noop}   the cold-start examples (release)
#   .gpu/bin/{call_overhead,resolve_all}-<hash>  the criterion benches (release, one of each)
#   .gpu/bin/{cold_c,cold_cudart_c,noop_c,spawn_timer}  the C floors and the process timer
#   .gpu/cudart/13.0/libcudart.so.13             (from ../shared/gpu/stage)
# Then, on the GPU machine, with .gpu carried: `bash scripts/bench-gpu.sh` (see BENCHMARKS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
stage=../shared/gpu/stage
[[ -x $stage ]] || { echo "bench-stage: $stage not found" >&2; exit 2; }

# One copy of each bench binary: drop those of earlier stagings (their names carry a hash).
rm -f .gpu/bin/call_overhead-* .gpu/bin/resolve_all-*

$stage build --release -p cuda-driver-table-benches --examples
$stage bench --no-run -p cuda-driver-table-benches

# The benches are not tests: keep them out of .gpu/run.sh's list.
if [[ -f .gpu/tests ]]; then
  grep -vE '^(call_overhead|resolve_all)-[0-9a-f]+$' .gpu/tests > .gpu/tests.new || true
  mv .gpu/tests.new .gpu/tests
fi

# The C programs need only libc and libdl; built here so nothing is compiled there.
for pair in cold:cold_c cold_cudart:cold_cudart_c noop:noop_c spawn_timer:spawn_timer; do
  gcc -O2 -Wall -Wextra -o ".gpu/bin/${pair#*:}" "benches/c/${pair%%:*}.c" -ldl
done

[[ -f .gpu/cudart/13.0/libcudart.so.13 ]] || { echo "bench-stage: .gpu/cudart/13.0/libcudart.so.13 is missing" >&2; exit 1; }
ls -l .gpu/bin/cold_* .gpu/bin/noop_c .gpu/bin/spawn_timer .gpu/bin/call_overhead-* .gpu/bin/resolve_all-*
du -sh .gpu | awk '{print "bench-stage: .gpu holds " $1 " (at most 64 MiB can be carried)"}'
