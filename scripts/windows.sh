#!/usr/bin/env bash
# The Windows build, run and not only compiled: built for x86_64-pc-windows-gnu and run under Wine,
#   - the runtime's unit tests, the library search among them (core/src/library/tests/windows.rs:
#     LoadLibraryExW over stand-in DLLs in every folder the search covers, and in the current
#     directory and on PATH, where it must not look);
#   - the CPU integration tests that do not run the compiler (tables through custom resolvers,
#     tracing, the expansion's features) and tests/tests/windows.rs, a table program calling the
#     stand-ins through both backends;
#   - the examples: vector_add without CUDA fails cleanly, device_query with the stand-ins in its
#     folder finds them through the default search and prints what they report;
#   - the cuda-driver-table tool's `inspect` on a Windows build of its test program, and that
#     program's `tables()` under Wine (cli/tests/inspect.rs).
# The stand-ins nvcuda.dll, cudart64_13.dll and cudart64_12.dll are built by mingw from
# tests/windows/*.c into the target folder (never committed).
#
#   bash scripts/windows.sh      (scripts/test.sh runs it as one of its steps)
#
# Installs what it needs: the Rust target (rustup), Wine and mingw (apt-get: wine64 or wine,
# gcc-mingw-w64-x86-64). Its Wine prefix is kept in the cache (~/.cache/cuda-driver-table/wine);
# Rust's standard library imports ProcessPrng from bcryptprimitives.dll, which Wine 8 lacks, so a
# mingw-built one (tests/windows/bcryptprimitives.c) goes into the prefix's system folder when it
# has none. Where Wine or mingw cannot be installed, it says so and skips the run.
set -euo pipefail
cd "$(dirname "$0")/.."

triple=x86_64-pc-windows-gnu
skip() {
  echo "$* on this machine: the Windows run under Wine is skipped"
  exit 0
}

command -v rustup >/dev/null && rustup target add "$triple" >/dev/null 2>&1 ||
  skip "rustup cannot add the $triple target"

wine_binary() { command -v wine64 || command -v wine; }
if ! wine_binary >/dev/null || ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
  SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  if command -v apt-get >/dev/null && { [[ -z $SUDO ]] || sudo -n true 2>/dev/null; }; then
    $SUDO apt-get update -qq || true
    for wine_package in wine64 wine; do
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$wine_package" \
        gcc-mingw-w64-x86-64 >/dev/null 2>&1 && break
    done
  fi
  wine_binary >/dev/null && command -v x86_64-w64-mingw32-gcc >/dev/null ||
    skip "Wine (apt-get install wine64, or wine) and mingw (gcc-mingw-w64-x86-64) cannot be" \
      "installed"
fi
wine=$(wine_binary)
wineserver=$(command -v wineserver || echo /usr/lib/wine/wineserver)

cache=${CUDA_DRIVER_TABLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cuda-driver-table}
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
export WINEPREFIX="$cache/wine" WINEDEBUG=-all
# One run at a time per prefix: a run puts a stand-in driver in its system folder for one test.
mkdir -p "$cache"
exec 9>"$cache/wine.lock"
command -v flock >/dev/null && flock 9
# No Mono or Gecko: nothing here uses .NET or HTML, and their installers would ask.
export WINEDLLOVERRIDES="mscoree,mshtml="
if [[ ! -f $WINEPREFIX/system.reg ]]; then
  echo "creating the Wine prefix $WINEPREFIX (once)"
  mkdir -p "$WINEPREFIX"
  "$wine" wineboot --init >/dev/null 2>&1
  "$wineserver" -w
fi

# mingw builds the DLLs; cargo links with the same compiler (the target's default linker, named
# here so that a cargo configuration elsewhere does not pick another).
: "${CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER:=x86_64-w64-mingw32-gcc}"
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER="$wine"
mingw() { x86_64-w64-mingw32-gcc -shared -O2 -Wall -Wextra -Werror "$@"; }

system32="$WINEPREFIX/drive_c/windows/system32"
# The stand-in driver goes into the system folder for one test only (below): never left there.
app=""
cleanup() { rm -f "$system32/nvcuda.dll"; [[ -z $app ]] || rm -rf "$app"; }
trap cleanup EXIT
cleanup
if [[ ! -e $system32/bcryptprimitives.dll ]]; then
  mingw -o "$system32/bcryptprimitives.dll" tests/windows/bcryptprimitives.c -lbcrypt
fi

dlls="$target/windows-stand-ins"
mkdir -p "$dlls"
mingw -o "$dlls/nvcuda.dll" tests/windows/nvcuda.c
mingw -DCUDART_VERSION=13000 -o "$dlls/cudart64_13.dll" tests/windows/cudart.c
mingw -DCUDART_VERSION=12080 -o "$dlls/cudart64_12.dll" tests/windows/cudart.c
CUDA_DRIVER_TABLE_TEST_WINDOWS_DLLS=$("$wine" winepath -w "$dlls")
export CUDA_DRIVER_TABLE_TEST_WINDOWS_DLLS

echo "the runtime's unit tests, the library search among them"
cargo test -q --target "$triple" -p cuda-driver-table-core --lib
echo "the library search with a driver in the system folder"
cp "$dlls/nvcuda.dll" "$system32/nvcuda.dll"
cargo test -q --target "$triple" -p cuda-driver-table-core --lib -- --ignored --exact \
  library::tests::windows::the_system_folder_is_searched
rm "$system32/nvcuda.dll"
echo "the integration tests that do not run the compiler, and the table program"
cargo test -q --target "$triple" -p cuda-driver-table-tests --test windows --test custom_resolver \
  --test macro_rules_inputs --test expand_features --test hygiene --test smoke --test crate_option \
  --test edition2015 --test all_functions --test lint_attributes
# One test at a time: tracing keeps each callsite's interest for every thread, and under Wine a
# scoped subscriber once missed an event while another test thread set up its own subscriber
# (about one run in fifty; not seen in 200 runs on Linux).
cargo test -q --target "$triple" -p cuda-driver-table-tests --features tracing --test tracing \
  --test tracing_reentrant -- --test-threads=1

echo "the examples: vector_add without CUDA, device_query with the stand-ins in its folder"
cargo build -q --target "$triple" -p cuda-driver-table --example vector_add --example device_query
app=$(mktemp -d)
cp "$target/$triple/debug/examples/"{vector_add,device_query}.exe "$app/"
fail() { echo "$*" >&2; exit 1; }
run() { (cd "$app" && env -u CUDA_DRIVER_TABLE_CUDART -u CUDA_DRIVER_TABLE_LIBCUDA -u CUDA_PATH \
  -u CUDA_HOME -u VIRTUAL_ENV -u CONDA_PREFIX "$wine" "$@" 2>&1); }

set +e
err=$(run vector_add.exe)
rc=$?
set -e
printf '%s\n' "$err"
lines=$(printf '%s\n' "$err" | wc -l)
if [[ $rc -ne 1 || $lines -gt 2 ]] || grep -q panicked <<<"$err" \
  || ! grep -q '"cudart64_13.dll"' <<<"$err" || grep -q libcudart <<<"$err"; then
  fail "vector_add without CUDA under Wine: expected exit 1 and at most two lines naming" \
    "cudart64_13.dll (and not libcudart), got exit $rc and $lines lines"
fi

cp "$dlls/nvcuda.dll" "$dlls/cudart64_12.dll" "$app/"
for backend in runtime driver; do
  args=(); [[ $backend == driver ]] && args=(--driver)
  out=$(run device_query.exe "${args[@]}") || fail "device_query ($backend) under Wine failed: $out"
  printf '%s\n' "$out"
  case $backend in
    runtime) expected_backend="backend: libcudart 12.8 (cudart64_12.dll)" ;;
    driver) expected_backend="backend: the CUDA driver (nvcuda.dll, cuGetProcAddress_v2)" ;;
  esac
  for line in "driver:  CUDA 12.8 (12080)" "$expected_backend" "devices: 1" \
    "  0: Stand-in GPU, compute capability 9.0, 80.0 GiB"; do
    grep -qxF "$line" <<<"$out" || fail "device_query ($backend) under Wine: no line \"$line\""
  done
done
echo "the cuda-driver-table tool: inspect reads a PE file's tables, and tables() lists them under Wine"
# The tool's own program, built for Windows by the GNU linker: its records must survive
# --gc-sections (core/src/registry.rs); cli/tests/inspect.rs compares it with the Linux build.
cargo build -q --target "$triple" -p cuda-driver-table-cli --example recorded
CUDA_DRIVER_TABLE_TEST_WINDOWS_RECORDED="$target/$triple/debug/examples/recorded.exe" \
  CUDA_DRIVER_TABLE_TEST_WINE="$wine" \
  cargo test -q -p cuda-driver-table-cli --test inspect -- --exact the_windows_build_records_the_same_tables

echo "x86_64-pc-windows-gnu under Wine: ok"
