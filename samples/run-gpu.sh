#!/usr/bin/env bash
# Runs every sample on the GPU machine (no Rust there), over binaries staged here with
#   cargo gpu-stage --fresh samples
# (they land in .gpu/bin/). From the repository root, with .gpu/ carried along:
#   bash samples/run-gpu.sh RESULTS.md PTX_DIR
# Each sample runs four times: the default backend, --driver, and each of those under
# compute-sanitizer's memcheck with leak checking. RESULTS.md (to commit as
# samples/results/gpu-results.md) gets the machine, and per run the exit code, the result, the
# wall time and the sanitizer's ERROR SUMMARY; each run's output goes to RESULTS-logs/. The PTX
# is regenerated with the machine's nvcc into PTX_DIR and compared with the committed PTX.
# Exits non-zero when a run failed (a waived sample is not a failure). SAMPLE_VARIANTS picks
# fewer runs, e.g. SAMPLE_VARIANTS="default driver" for a quick round without the sanitizer.
set -u
[[ $# -eq 2 ]] || { echo "usage: bash samples/run-gpu.sh RESULTS.md PTX_DIR" >&2; exit 2; }
cd "$(dirname "$0")/.."
results=$1
mkdir -p "$(dirname "$results")" "$2"
logs=${results%.md}-logs
ptx_dir=$(cd "$2" && pwd)
mkdir -p "$logs"
cuda=${CUDA_PATH:-/usr/local/cuda}
sanitizer=$cuda/bin/compute-sanitizer
nvcc=${NVCC:-$cuda/bin/nvcc}
# The default backend loads the staged libcudart 13.0 (the GPU tests' copy) when it is there;
# otherwise it searches, and may fall back to libcuda (each sample prints the library it used).
for lib in "$PWD"/.gpu/cudart/13.0/libcudart.so.13*; do
  [[ -f $lib ]] && export CUDA_DRIVER_TABLE_CUDART=$lib && break
done

failed=0
rows=()
for src in samples/src/bin/*.rs; do
  name=$(basename "$src" .rs)
  for variant in ${SAMPLE_VARIANTS:-default driver memcheck memcheck-driver}; do
    cmd=(".gpu/bin/$name")
    [[ $variant == *driver ]] && cmd+=(--driver)
    [[ $variant == memcheck* ]] && cmd=("$sanitizer" --tool memcheck --leak-check full --error-exitcode 99 "${cmd[@]}")
    log=$logs/$name-$variant.log
    start=${EPOCHREALTIME//[.,]/}
    timeout 300 "${cmd[@]}" >"$log" 2>&1
    rc=$?
    us=$((${EPOCHREALTIME//[.,]/} - start))
    wall=$(printf '%d.%02d' $((us / 1000000)) $((us % 1000000 / 10000)))
    case $rc in
      0) result=PASSED ;;
      3) result=WAIVED ;;
      *) result=FAILED; failed=1 ;;
    esac
    summary=$(grep -o 'ERROR SUMMARY: .*' "$log" | tail -1)
    [[ $variant == memcheck* && -z $summary ]] && { result=FAILED; failed=1; summary="(none)"; }
    backend=$(sed -n 's/^backend: //p' "$log" | head -1)
    rows+=("| $name | $variant | $rc | $result | $wall | ${summary:--} | ${backend:--} |")
    echo "$name $variant: $result (exit $rc)"
    [[ $result == FAILED ]] && tail -n 5 "$log"
  done
done

# The PTX, regenerated with this machine's nvcc and compared with the committed files.
ptx_rows=()
if NVCC=$nvcc bash samples/kernels/generate.sh "$ptx_dir" >"$logs/generate.log" 2>&1; then
  for new in "$ptx_dir"/*.ptx; do
    old=samples/kernels/generated/$(basename "$new")
    if cmp -s "$new" "$old"; then
      verdict="identical"
    elif diff -q -I '^//' "$new" "$old" >/dev/null; then
      verdict="differs in comments only"
    else
      verdict="differs: $(diff "$new" "$old" | grep -c '^[<>]') lines"
    fi
    ptx_rows+=("| $(basename "$new") | $verdict |")
  done
else
  ptx_rows+=("| (generate.sh failed: see $logs/generate.log) | |")
fi

{
  echo "# The samples on a GPU"
  echo
  echo "Written by \`samples/run-gpu.sh\` over binaries staged with \`cargo gpu-stage --fresh samples\`."
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- GPUs: $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | awk '{n=$1; $1=""; printf "%s%d ×%s", (NR>1 ? ", " : ""), n, $0}')"
  echo "- driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
  echo "- nvcc: $("$nvcc" --version | grep -o 'release .*')"
  echo "- compute-sanitizer: $("$sanitizer" --version | grep -o 'Version .*' | head -1)"
  echo "- default backend's library: ${CUDA_DRIVER_TABLE_CUDART:-the search}"
  echo
  echo "memcheck: \`compute-sanitizer --tool memcheck --leak-check full --error-exitcode 99\`. Exit codes: 0 passed, 1 a CUDA call failed, 2 the check failed, 3 waived, 99 the sanitizer found errors."
  echo
  echo "| sample | run | exit | result | wall (s) | sanitizer | backend |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "## The PTX regenerated with this machine's nvcc"
  echo
  echo "| file | against samples/kernels/generated |"
  echo "|---|---|"
  printf '%s\n' "${ptx_rows[@]}"
} >"$results"
echo "results: $results (logs: $logs)"
exit $failed
