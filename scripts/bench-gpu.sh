#!/usr/bin/env bash
# The GPU benchmarks (rows 1-3 of BENCHMARKS.md), ON THE GPU MACHINE, from anywhere in the repo,
# with .gpu/ staged on the build machine by `cargo gpu-stage benches` and carried along:
#
#   bash scripts/bench-gpu.sh              # writes the report and raw data to $OUT
#   bash scripts/bench-gpu.sh report DIR   # the report again, from the files of an earlier run
#
# The program is benches/src/bin/bench-gpu.rs (it says what it measures and writes); the GPU
# machine has no Rust toolchain, so it runs the staged build.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -x .gpu/bin/bench-gpu ]] || { echo "bench-gpu.sh: .gpu/bin/bench-gpu is not staged; run 'cargo gpu-stage benches' on the build machine and carry .gpu" >&2; exit 2; }
exec .gpu/bin/bench-gpu "$@"
