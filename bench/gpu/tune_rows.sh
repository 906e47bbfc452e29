#!/usr/bin/env bash
# Times codegen_v2 plans of the row benchmarks (bench/gpu/rows/*.mlir,
# 256 MiB bf16) with cuDNN deselected: for each file and each plan index in
# $PLANS (default "0 1 2 3 4 5 6 7", the codegen_v2 entries in ranked
# order), `graph-run --plan-index=I --benchmark=20` prints the plan and its
# median time per execute. No CPU-reference check (that is the GPU suite's
# and `--autotune`'s job; on 256 MiB the reference takes minutes per plan).
# About 10-15 s per file and plan on the H200. Usage on the GPU machine:
#   PLANS="0 6" bash bench/gpu/tune_rows.sh [file.mlir...]
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/gpu/env.sh"
run="$root/carry/bin/graph-run"
plans=${PLANS:-0 1 2 3 4 5 6 7}
files=("$@")
[ ${#files[@]} -eq 0 ] && files=("$root"/bench/gpu/rows/*.mlir)
for f in "${files[@]}"; do
  echo "== $(basename "$f")"
  for i in $plans; do
    "$run" --device=gpu --random-inputs=1 --print-max-elements=0 \
      --deselect-engines=cudnn --plan-index="$i" --verbose-plans \
      --benchmark=20 "$f" 2>&1 |
      grep -E "^plan:|median|error" | sed 's/^ */  /' | paste -sd ' '
  done
done
