#!/usr/bin/env bash
# The GPU checks of issues 4 and 5 beyond the suite: autotune with the CPU
# reference check, dynamic dims at two shapes, the unified plan list
# (--plan-index over cuDNN and codegen plans), the codegen column pass.
# Usage on the GPU machine (carry/ from scripts/gpu/build-carry.sh):
#   bash scripts/gpu/issue-checks.sh
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/gpu/env.sh"
run="$root/carry/bin/graph-run"
t="$root/test/gpu"
common=(--device=gpu --random-inputs=1 --print-max-elements=0 --check-against=cpu)
echo "== autotune (checked against the CPU reference, fastest correct kept)"
for f in matmul_bias_gelu_bf16 conv_bias_relu_f16_s1 sdpa_causal_bf16 codegen_softmax; do
  echo "-- $f"
  "$run" "${common[@]}" --autotune --verbose-plans "$t/$f.mlir" 2>&1 |
    grep -E "^plan:|wrong result|not checked|SUCCESS|FAILED|error" | head -8
done
echo "== dynamic dims: two shapes"
for shape in 48x64 200x64; do
  "$run" "${common[@]}" --input=x=${shape}xf16=random "$t/dynamic_dims_f16.mlir" 2>&1 |
    grep -E "result\[0\]|SUCCESS|FAILED|error" | head -3
done
echo "== unified plan list on a pointwise chain"
chain="$root/bench/gpu/pointwise_chain_small.mlir"
n=$("$run" "${common[@]}" --plan-index=999 "$chain" 2>&1 | sed -n 's/.*out of range for \([0-9]*\) plan.*/\1/p' | head -1)
echo "plans: ${n:-?}"
if [ -n "$n" ]; then
  for i in 0 $((n - 9)) $((n - 1)); do
    "$run" "${common[@]}" --verbose-plans --plan-index=$i "$chain" 2>&1 |
      grep -E "^plan:|SUCCESS|FAILED|error" | head -2
  done
fi
