#!/usr/bin/env bash
# The whole CPU test suite, on a fresh Debian/Ubuntu machine without a GPU:
#   bash scripts/test.sh
# Installs what it needs (libclang for bindgen, the CUDA header/runtime wheels from PyPI, cached in
# ~/.cache/cuda-driver-table), then runs build, tests, the generated-files drift check over all 17
# releases, the layout check of the bindings against the C compiler (every release), NVIDIA's
# samples ported to the crate (built, run without a driver, their PTX against their kernels), the
# tracing and fake-driver tests, the Windows build compiled and run under Wine (scripts/windows.sh,
# which installs Wine and mingw), Miri over the runtime's unit tests and the
# in-process integration tests, the packaging of the published crates (verify, publish dry
# run, size, rust-version), clippy -D warnings, rustfmt --check and rustdoc -D warnings. The checks
# that read what cargo says about the workspace are Rust, in xtask/ (`cargo xtask --help`). GPU tests
# are compiled, not run (they need `--features gpu` on a machine with a driver; see
# tests/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n=== %s\n' "$*"; }

# A one-off run needs no incremental caches, and line tables are all the debug information a failing
# test's backtrace uses: together they keep the target folder to a third of its size (it held 11 GB
# with both on, more than some CI machines have free). A caller's own setting is kept.
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
export CARGO_PROFILE_DEV_DEBUG=${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}

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

step "libcudart of the releases the library tests load (from the same wheels)"
cache=${CUDA_DRIVER_TABLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cuda-driver-table}
cargo run -q -p cuda-driver-table-codegen --release -- cudart "$cache/cudart" >/dev/null
export CUDA_DRIVER_TABLE_TEST_CUDART_DIR="$cache/cudart"

# The four crates users download.
published=(-p cuda-driver-table-sys -p cuda-driver-table-core -p cuda-driver-table-macros -p cuda-driver-table)

# Cargo's target folder (`target/`, or CARGO_TARGET_DIR, or build.target-dir), for the files this
# script reads from it and the separate builds it puts in it.
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')

step "build"
cargo build --workspace --all-targets

step "tests"
cargo test --workspace --all-targets
cargo test --workspace --doc

step "a plain \`cargo test\` at the root: the workspace's default members, which need no libclang"
# The root Cargo.toml's default-members: what someone in a fresh clone runs first. Every other step
# names --workspace or its packages.
cargo xtask default-members

step "the README's quick check, as the README writes it"
cargo xtask quick-check

step "the documents describe the repository: every path docs/ARCHITECTURE.md and tests/README.md name exists, every member and test file is described"
# `cargo test --workspace` ran it already; by name here, so that this step says what it checks.
cargo test -q -p cuda-driver-table-tests --test docs

step "the cuda-driver-table tool: inspect the samples and examples built above"
CUDA_DRIVER_TABLE_TEST_PROGRAMS="$target/debug" cargo test -p cuda-driver-table-cli --test inspect

step "the cuda-driver-table tool installs with cargo install (the lock file as committed) and runs"
# A debug build: what is checked is the install (the package, its binary's name, the lock file),
# not the optimiser; its own target folder is kept under ours for the next run.
root=$(mktemp -d)
cargo install -q --locked --debug --path cli --root "$root" --target-dir "$target/install"
cargo xtask cli-help --bin "$root/bin/cuda-driver-table"
rm -rf "$root"
echo "cargo install --path cli: ok"

step "the main job without a GPU: vector_add must fail cleanly (exit 1, at most two lines, no panic)"
# Without a driver (where this machine has none), and --help, which loads nothing; with --driver
# only libcuda is needed: the advice is the driver's, with no CUDA runtime in it.
cargo xtask vector-add

step "the samples without a driver: each exits with 1 and one line naming what it looked for; their PTX matches their kernels"
# The workspace build above built the samples (samples/src/bin/) and `cargo test --workspace` ran
# these two tests already; run by name here so that this step says what they check. The first sets
# CUDA_DRIVER_TABLE_CUDART and CUDA_DRIVER_TABLE_LIBCUDA to a missing file, so it holds on a machine
# with a driver too (samples/tests/without_a_driver.rs, samples/tests/kernels.rs). The samples run
# on a GPU through samples/run-gpu.sh (samples/README.md).
cargo test -q -p cuda-driver-table-samples --test without_a_driver --test kernels

step "GPU tests compile (run them on a GPU machine: tests/README.md)"
cargo build -p cuda-driver-table-tests --features gpu --tests

step "call tracing (the runtime's tracing feature): its events, fields and levels"
cargo test -p cuda-driver-table-tests --features tracing --test tracing --test tracing_reentrant
cargo test -p cuda-driver-table-tests --features tracing --test tracing_out_values
# A traced call binds more locals than a plain one: the hygiene test with tracing, and with the fake.
cargo test -p cuda-driver-table-tests --features tracing --test hygiene
cargo test -p cuda-driver-table-tests --features fake,tracing --test hygiene

step "the fake driver (the runtime's fake feature): typed fakes, refusals, recording, parallel drivers, with tracing too; none of it in a normal build"
# Core's door for it (`stand_in`, the `stand-in` feature: calls handed to a stand-in, the lending
# of `kernel_args!` arrays, the layers that keep core from naming a fake), then the fake's crate.
cargo test -p cuda-driver-table-core --features stand-in --lib -- stand_in kernel_args
cargo test -p cuda-driver-table-core --test layers
cargo test -p cuda-driver-table-fake --lib --tests
cargo test -p cuda-driver-table-tests --features fake --test fake --test ui_fake
cargo test -p cuda-driver-table-tests --features fake,tracing --test fake
# The fake device: its checks (each planted as the bug it catches), kernels as closures, streams
# and events; its platform profiles (each named one's missing functions, the code's fallbacks);
# its docs, the module's and the guide page's, as doctests.
cargo test -p cuda-driver-table-tests --features fake --test fake_device --test fake_soundness --test fake_order --test fake_profiles --test fake_graphs
cargo test -p cuda-driver-table-fake --doc
cargo test -p cuda-driver-table --features fake --doc guide
# The vector_add example on the fake device: its kernel as a closure, its own check, no leak (also
# on a failed launch). fastsum's and the samples' tests on the device run in `cargo test --workspace`.
cargo test -p cuda-driver-table --features fake --example vector_add
# The example library gets the feature from its dev-dependencies only: its own build has none of it.
cargo xtask fake-dev-only

step "a library set up as the README says (tests/library): tested, documented as docs.rs documents it, and without a release one error line that says how"
cargo test -q --manifest-path tests/library/Cargo.toml --target-dir "$target/library"
# docs.rs builds with the features of [package.metadata.docs.rs]: read them from there.
docs_rs_features=$(cargo metadata -q --format-version 1 --no-deps --manifest-path tests/library/Cargo.toml \
  | python3 -c 'import json, sys; print(",".join(json.load(sys.stdin)["packages"][0]["metadata"]["docs"]["rs"]["features"]))')
# With its dependencies' pages (as docs.rs links them): the table's docs link into them.
RUSTDOCFLAGS=-Dwarnings cargo doc -q --manifest-path tests/library/Cargo.toml --target-dir "$target/library" \
  --features "$docs_rs_features"
python3 scripts/doc_links.py "$target/library/doc/cuda_driver_table_library_test"
cargo xtask library-without-release --target "$target"
cargo fmt --manifest-path tests/library/Cargo.toml --check

step "cuda-local: a crate built with the bindings of a local toolkit (the 13.0 wheel's headers; codegen/tests/local.rs compares them with the committed files)"
include13=$(cargo run -q -p cuda-driver-table-codegen --release -- fetch --release 13.0 | sed -n 's/^CUDA 13.0: //p')
# The codegen (and bindgen) is built only under cuda-local, by cuda-driver-table-local: a default
# build stays light, and compiles no build script of ours; and syn with the features the macro
# needs and no more (xtask/src/main.rs).
cargo xtask default-build
CUDA_DRIVER_TABLE_INCLUDE="$include13" \
  cargo clippy -q -p cuda-driver-table --no-default-features --features cuda-local --all-targets -- -D warnings
# The runtime's code itself, linted under cuda-local (its library alone: its doc examples' dev-dependency,
# the crate users depend on, brings the default release).
CUDA_DRIVER_TABLE_INCLUDE="$include13" \
  cargo clippy -q -p cuda-driver-table-core --no-default-features --features cuda-local -- -D warnings
CUDA_DRIVER_TABLE_INCLUDE="$include13" \
  cargo clippy -q -p cuda-driver-table-local --features cuda-local --all-targets -- -D warnings
CUDA_DRIVER_TABLE_INCLUDE="$include13" CUDA_DRIVER_TABLE_EXPECT=13000 \
  cargo test -q --manifest-path tests/local/Cargo.toml --target-dir "$target/local"
# cuda-local with a release feature as well: cuda-driver-table-local (which gets the release features
# from sys and macros) says so before it looks for headers, even where there are none.
cargo xtask local-with-release --target "$target"
# Its GPU test compiles (it runs on a GPU machine: tests/README.md); its own workspace is formatted.
CUDA_DRIVER_TABLE_INCLUDE="$include13" \
  cargo build -q --manifest-path tests/local/Cargo.toml --target-dir "$target/local" --tests --features gpu
cargo fmt --manifest-path tests/local/Cargo.toml --check

step "Windows: the published crates compile for x86_64-pc-windows-gnu"
if command -v rustup >/dev/null && rustup target add x86_64-pc-windows-gnu >/dev/null 2>&1; then
  cargo check -q --target x86_64-pc-windows-gnu "${published[@]}" --all-targets
  cargo clippy -q --target x86_64-pc-windows-gnu -p cuda-driver-table-core -p cuda-driver-table --all-targets -- -D warnings
  echo "x86_64-pc-windows-gnu: ok"
else
  echo "rustup cannot add the x86_64-pc-windows-gnu target on this machine: the Windows check is skipped"
fi

step "Windows, run under Wine: the runtime's unit tests (the library search against stand-in DLLs), the CPU integration tests, a table program, the examples, the tool's inspect of a Windows build"
bash scripts/windows.sh

step "Miri: the runtime's unit tests, and the integration tests that drive generated tables through in-process resolvers and fake drivers"
# -Zmiri-ignore-leaks: loaded libraries and resolvers are leaked on purpose (pointers into them live
# for the whole process), and so are the tests' 'static resolvers. The library tests, which dlopen,
# are left out under Miri (core/src/library.rs). The integration tests call every function a
# resolver hands out through the generated tables' types, so Miri checks each call's ABI (a
# `CUresult` parameter called with an `int` is an error) across threads and failing results.
if command -v rustup >/dev/null && rustup toolchain install nightly --profile minimal --component miri,rust-src >/dev/null 2>&1; then
  export MIRIFLAGS="-Zmiri-disable-isolation -Zmiri-ignore-leaks"
  cargo +nightly miri test -q -p cuda-driver-table-core --lib
  cargo +nightly miri test -q -p cuda-driver-table-tests --test custom_resolver --test macro_rules_inputs --test driver_option --test kernel_args --test unsupported_ptx
  cargo +nightly miri test -q -p cuda-driver-table-tests --features tracing --test tracing --test tracing_reentrant
  cargo +nightly miri test -q -p cuda-driver-table-tests --features tracing --test tracing_out_values
  cargo +nightly miri test -q -p cuda-driver-table-core --features stand-in --lib -- stand_in kernel_args
  cargo +nightly miri test -q -p cuda-driver-table-fake --lib
  cargo +nightly miri test -q -p cuda-driver-table-tests --features fake --test fake
  # The fake device manages memory through raw pointers (host copies, pinned memory); with
  # tracing, an out-value a fake did not write is never read. With the fake, `kernel_args!` lends
  # an array of its pointers and the sizes beside it (the `kernel_args` test, once more).
  cargo +nightly miri test -q -p cuda-driver-table-tests --features fake --test fake_device --test kernel_args
  # Two devices in one process, pinned host memory, kernel_args! lent to another thread; the
  # order and initialisation checks (a host function reading pinned memory); graphs (a kernel's
  # parameters copied when captured, host memory and functions reached when launched).
  cargo +nightly miri test -q -p cuda-driver-table-tests --features fake --test fake_soundness --test fake_order --test fake_graphs
  # Platform profiles: pinned memory on 64 KiB pages, host memory registered by the program.
  cargo +nightly miri test -q -p cuda-driver-table-tests --features fake --test fake_profiles
  cargo +nightly miri test -q -p cuda-driver-table-tests --features fake,tracing --test fake
  cargo +nightly miri test -q -p fastsum
  unset MIRIFLAGS
else
  echo "rustup cannot install a nightly toolchain with Miri on this machine: the Miri run is skipped"
fi

step "generated files match a fresh run over all 17 releases"
cargo run -q -p cuda-driver-table-codegen --release -- check

step "layouts: the committed bindings, as each release's feature selects them, against the C compiler over that release's cuda.h"
cargo run -q -p cuda-driver-table-codegen --release -- layout

step "the published crates package, verify and pass a publish dry run, the four users download together less than cudarc 0.19.10's one crate (595,357 bytes)"
# Packaged together, so each verify build finds the others at their exact versions; --allow-dirty
# only lets a developer run this before committing (a clean clone has nothing to allow). The local
# crate and the codegen are published too: the dependency of three of them under their cuda-local
# feature, and its build-dependency. (Verified with default features: the local crate empty.) So
# is the fake driver's crate, which the runtime's `fake` feature (a dev-dependency's) brings.
local_crates=(-p cuda-driver-table-local -p cuda-driver-table-codegen -p cuda-driver-table-fake)
# cargo verifies each package from a temporary registry under the target folder and unpacks it
# into $CARGO_HOME/registry/src/-<hash of that registry's path>/ only once: a later run from the
# same folder would build the sources an earlier run unpacked, not these. Remove ours first.
for unpacked in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/cuda-driver-table-*; do
  [[ -d $unpacked ]] && rm -rf "$unpacked"
done
cargo package -q "${published[@]}" "${local_crates[@]}" --allow-dirty
cargo publish -q --dry-run "${published[@]}" "${local_crates[@]}" --allow-dirty
ls -l "$target"/package/cuda-driver-table-codegen-*.crate "$target"/package/cuda-driver-table-local-*.crate \
  "$target"/package/cuda-driver-table-fake-*.crate
cargo xtask package-size --target "$target"

msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
step "the published crates (and the local crate and the codegen, for cuda-local) build with their rust-version, Rust $msrv"
if command -v rustup >/dev/null && rustup toolchain install "$msrv" --profile minimal >/dev/null 2>&1; then
  cargo +"$msrv" check -q "${published[@]}" "${local_crates[@]}" --target-dir "$target/msrv"
  cargo +"$msrv" check -q -p cuda-driver-table-cli --target-dir "$target/msrv"
  echo "Rust $msrv: ok"
else
  echo "rustup cannot install Rust $msrv on this machine: the rust-version check is skipped"
fi

step "clippy, rustfmt, rustdoc"
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy -p cuda-driver-table-tests --features gpu --all-targets -- -D warnings
cargo clippy -p cuda-driver-table-tests --features tracing --all-targets -- -D warnings
cargo clippy -p cuda-driver-table-tests --features fake,tracing --all-targets -- -D warnings
cargo clippy -p cuda-driver-table-core --features stand-in --all-targets -- -D warnings
cargo clippy -p cuda-driver-table -p cuda-driver-table-fake --features cuda-driver-table/fake --all-targets -- -D warnings
cargo clippy -p cuda-driver-table-benches --features tracing --all-targets -- -D warnings
cargo fmt --all --check
RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --no-deps -q
# The fake driver's docs (cargo doc leaves dev-dependencies', and so the feature, out).
RUSTDOCFLAGS=-Dwarnings cargo doc -p cuda-driver-table --features fake --no-deps -q
# rustdoc does not warn about a link to a re-export of a #[doc(hidden)] item or a reference without
# its definition: doc_links.py reads the rendered pages for them (and for links to missing pages;
# so the pages of the crates they link into are built too, as a user's `cargo doc` builds them).
cargo doc -q -p cuda-driver-table --features fake
python3 scripts/doc_links.py "$target/doc/cuda_driver_table"
# rustdoc shows a type re-exported with `pub use` by its definition's name in another crate's
# pages: the generator names each newtype enum by its typedef (`pub struct CUresult`, with
# `pub use self::CUresult as cudaError_enum;`), so the signatures read what their code writes.
cargo xtask fake-page --target "$target"
# The check finds each kind when one is planted in those pages.
cargo xtask doc-links-planted --target "$target"
# As docs.rs builds them (nightly, --cfg docsrs, its package.metadata.docs.rs): every feature-gated
# item carries its feature's badge.
if cargo +nightly --version >/dev/null 2>&1; then
  RUSTDOCFLAGS="--cfg docsrs -Dwarnings" cargo +nightly doc -q -p cuda-driver-table --features fake --no-deps \
    --target-dir "$target/docsrs"
  cargo xtask feature-badge --target "$target"
else
  echo "no nightly toolchain: the docs.rs build (feature badges, --cfg docsrs) is skipped"
fi
# A program's docs, as `cargo doc` makes them for a binary (private items included, the crates it
# uses documented as usual): its table shows no private field, and no link leads to a missing page.
cargo doc -q -p cuda-driver-table
cargo rustdoc -q -p cuda-driver-table --example device_query -- --document-private-items
python3 scripts/doc_links.py "$target/doc/device_query"

du -sh "$target" | sed 's/\t/ in /; s/^/target folder: /'
step "all checks passed"
