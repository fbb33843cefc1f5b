#!/usr/bin/env bash
# The whole CPU test suite, on a fresh Debian/Ubuntu machine without a GPU:
#   bash scripts/test.sh
# Installs what it needs (libclang for bindgen, the CUDA header/runtime wheels from PyPI, cached in
# ~/.cache/cuda-driver-table), then runs build, tests, the generated-files drift check over all 17
# releases, clippy -D warnings, rustfmt --check and rustdoc -D warnings. GPU tests are compiled,
# not run (they need `--features gpu` on a machine with a driver; see tests/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n=== %s\n' "$*"; }

# What bindgen loads (clang-sys with its `runtime` feature): libclang.so, libclang.so.N,
# libclang-N.so or libclang-N.so.M, in $LIBCLANG_PATH or the system library folders. Never
# libclang-cpp.so.N, a different library that many images carry without libclang itself.
have_libclang() {
  local dirs=(/usr/local/llvm*/lib* /usr/local/lib* /usr/lib* /usr/lib*/* /usr/lib*/*/*)
  [[ -n ${LIBCLANG_PATH:-} ]] && dirs=("$LIBCLANG_PATH")
  local d f
  for d in "${dirs[@]}"; do
    [[ -d $d ]] || continue
    for f in "$d"/libclang.so "$d"/libclang.so.* "$d"/libclang-*.so "$d"/libclang-*.so.*; do
      [[ -e $f && $f != *-cpp.* ]] && return 0
    done
  done
  return 1
}

step "libclang (for bindgen)"
if ! have_libclang; then
  SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libclang-dev >/dev/null
  have_libclang || { echo "libclang-dev is installed but no libclang.so* or libclang-N.so* was found" >&2; exit 1; }
fi
command -v cc >/dev/null || { echo "a C compiler (cc) is needed for the codegen's doc pass: apt-get install gcc" >&2; exit 1; }

step "CUDA header wheels (17 releases, cached)"
cargo run -q -p cuda-driver-table-codegen --release -- fetch >/dev/null

step "libcudart 11.8 / 12.4 / 12.9 / 13.0 from the same wheels, for the real-library tests"
cache=${CUDA_DRIVER_TABLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cuda-driver-table}
cudart="$cache/cudart"
for pair in 11.8:11.8.89:libcudart.so.11.0 12.4:12.4.127:libcudart.so.12 12.9:12.9.79:libcudart.so.12 13.0:13.0.96:libcudart.so.13; do
  IFS=: read -r short wheel lib <<<"$pair"
  mkdir -p "$cudart/$short"
  ln -sf "$cache/releases/$wheel/lib/$lib" "$cudart/$short/$lib"
  [[ -e "$cudart/$short/$lib" ]] || { echo "missing $cache/releases/$wheel/lib/$lib" >&2; exit 1; }
done
export CUDA_DRIVER_TABLE_TEST_CUDART_DIR="$cudart"

step "build"
cargo build --workspace --all-targets

step "tests"
cargo test --workspace --all-targets
cargo test --workspace --doc

step "the main job without a GPU: vector_add must fail cleanly (exit 1, at most two lines, no panic)"
if [[ ! -e /dev/nvidiactl ]]; then
  set +e
  err=$(env -u CUDA_DRIVER_TABLE_CUDART -u CUDA_DRIVER_TABLE_LIBCUDA cargo run -q -p cuda-driver-table --example vector_add 2>&1 >/dev/null)
  rc=$?
  set -e
  printf '%s\n' "$err"
  lines=$(printf '%s\n' "$err" | wc -l)
  if [[ $rc -ne 1 || $lines -gt 2 ]] || grep -q panicked <<<"$err"; then
    echo "vector_add without a driver: expected exit 1 and at most two lines, got exit $rc and $lines lines" >&2
    exit 1
  fi
fi

step "GPU tests compile (run them on a GPU machine: tests/README.md)"
cargo build -p cuda-driver-table-tests --features gpu --tests

step "generated files match a fresh run over all 17 releases"
cargo run -q -p cuda-driver-table-codegen --release -- check

step "clippy, rustfmt, rustdoc"
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy -p cuda-driver-table-tests --features gpu --all-targets -- -D warnings
cargo fmt --all --check
RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --no-deps -q

step "all checks passed"
