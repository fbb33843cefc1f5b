#!/usr/bin/env bash
# Compiles every kernels/NAME.cu to kernels/generated/NAME.ptx with nvcc, on a machine with the
# CUDA toolkit (the GPU machine: /usr/local/cuda). Run from the workspace root:
#   bash samples/kernels/generate.sh [OUT_DIR]     (default: samples/kernels/generated)
# A kernel picks its target with a line `// arch: sm_NN` (default sm_75, the oldest CUDA 13
# compiles for; its PTX is JIT-compiled for any newer GPU). Each PTX file starts with a header
# naming its source, the source's SHA-256 (which the samples' tests check against the source, so
# a stale file fails), the nvcc release and the command.
set -euo pipefail
cd "$(dirname "$0")"
out=${1:-generated}
mkdir -p "$out"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
release=$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
for cu in *.cu; do
  name=${cu%.cu}
  arch=$(sed -n 's|^// arch: \(sm_[0-9a-z]*\)$|\1|p' "$cu" | head -1)
  arch=${arch:-sm_75}
  cmd="nvcc -ptx -arch=$arch -lineinfo -o $name.ptx $cu"
  "$nvcc" -ptx -arch="$arch" -lineinfo -o "$out/$name.ptx.tmp" "$cu"
  {
    echo "// Generated from samples/kernels/$cu by samples/kernels/generate.sh; do not edit."
    echo "// source sha256: $(sha256sum "$cu" | cut -d' ' -f1)"
    echo "// nvcc $release: $cmd"
    # -lineinfo records absolute paths: the source's, kept relative to the repository, and the
    # toolkit's headers', written <toolkit>/include, so the file does not depend on where the
    # repository or the toolkit is.
    sed -e "s|\"$PWD/|\"samples/kernels/|" -e 's|"/[^"]*/include/|"<toolkit>/include/|' \
      "$out/$name.ptx.tmp"
  } >"$out/$name.ptx"
  rm "$out/$name.ptx.tmp"
  echo "$out/$name.ptx"
done
