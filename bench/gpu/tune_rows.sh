#!/usr/bin/env bash
# Times every codegen_v2 plan of the row benchmarks (bench/gpu/rows/*.mlir,
# 256 MiB bf16) with cuDNN deselected: graph-run --autotune prints each
# plan's time per execute and keeps the fastest. Usage on the GPU machine:
#   bash bench/gpu/tune_rows.sh [file.mlir...]
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/gpu/env.sh"
run="$root/carry/bin/graph-run"
files=("$@")
[ ${#files[@]} -eq 0 ] && files=("$root"/bench/gpu/rows/*.mlir)
for f in "${files[@]}"; do
  echo "== $(basename "$f")"
  "$run" --device=gpu --random-inputs=1 --print-max-elements=0 \
    --deselect-engines=cudnn --autotune --verbose-plans "$f" 2>&1 |
    grep -E "timed|^plan:|error" | sed 's/^ */  /'
done
