#!/usr/bin/env bash
# Runs the GPU test suite (test/gpu/*.mlir): each graph on the GPU through
# graph-run, checked against the CPU reference with dtype-aware tolerances
# (files marked GPU-EXPECT-NO-CHECK, such as exec.program artifacts, need
# only exit 0).
# Usage: scripts/gpu/run-tests.sh [path/to/graph-run]
# Exit 77 (skipped) when no GPU is usable, so ctest reports a skip in CI.
# GRAPH_GPU_WRAPPER, when set, prefixes every GPU run (scripts/gpu/
# sanitize.sh sets it to compute-sanitizer).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
run=${1:-$here/build/bin/graph-run}
source "$here/scripts/gpu/env.sh"
tests=$(ls "$here"/test/gpu/*.mlir)

probe=$("$run" --device=gpu --random-inputs=1 --print-max-elements=0 \
  "$here/test/gpu/reduction_pointwise_chain_f32.mlir" 2>&1)
if echo "$probe" | grep -q "GPU device is not available\|GPU runtime"; then
  echo "skipped: no usable GPU ($(echo "$probe" | head -1))"
  exit 77
fi

passed=0
failed=0
for t in $tests; do
  # %S in GPU-ARGS is the test's directory, as in lit (reference files).
  args=$(grep -o "GPU-ARGS: .*" "$t" | sed 's/GPU-ARGS: //' |
    sed "s|%S|$(dirname "$t")|g")
  start=$(date +%s%N)
  out=$(${GRAPH_GPU_WRAPPER:-} "$run" --device=gpu --print-max-elements=0 --verbose-plans $args "$t" 2>&1)
  rc=$?
  # (the GPU machine has no bc)
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  secs="$((ms / 1000)).$(printf %03d $((ms % 1000)))"
  # GPU-EXPECT-NO-CHECK: no reference to compare with (an exec.program
  # artifact): exit 0 and no [FAILED] pass.
  nocheck=0
  grep -q "GPU-EXPECT-NO-CHECK" "$t" && nocheck=1
  if [ $rc -eq 0 ] && ! echo "$out" | grep -q "\[FAILED\]" &&
     { [ $nocheck -eq 1 ] || echo "$out" | grep -q "\[SUCCESS\]"; }; then
    passed=$((passed + 1))
    echo "PASS $(basename "$t") (${secs}s)"
    echo "$out" | grep "^plan:" | sed 's/^/    /'
  else
    failed=$((failed + 1))
    echo "FAIL $(basename "$t") (exit $rc)"
    echo "$out" | grep -v "^result\[" | head -30 | sed 's/^/    /'
  fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
