#!/usr/bin/env bash
# Rankings kept across processes (GRAPH_PLAN_CACHE_DIR): the SwiGLU gradient
# group of test/gpu/pointwise_ranked_codegen_bf16.mlir is ranked by time in
# a first graph-run, which writes one .rank file; a second process must list
# the group in the same order without timing it, and both runs must match
# the CPU reference. Usage: scripts/gpu/rank-cache-check.sh [graph-run]
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
run=${1:-$here/build/bin/graph-run}
source "$here/scripts/gpu/env.sh"
test=$here/test/gpu/pointwise_ranked_codegen_bf16.mlir
export GRAPH_PLAN_CACHE_DIR=$(mktemp -d)
trap 'rm -rf "$GRAPH_PLAN_CACHE_DIR"' EXIT
fail() { echo "FAIL rank cache: $*"; exit 1; }
declare -a plans
for pass in 1 2; do
  start=$(date +%s%N)
  out=$("$run" --device=gpu --print-max-elements=0 --verbose-plans \
    --random-inputs=4 --check-against=cpu "$test" 2>&1) || fail "run $pass exited $?: $(echo "$out" | tail -3)"
  # (the GPU machine has no bc)
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  secs="$((ms / 1000)).$(printf %03d $((ms % 1000)))"
  echo "$out" | grep -q "\[SUCCESS\]" && ! echo "$out" | grep -q "\[FAILED\]" ||
    fail "run $pass does not match the CPU reference"
  plans[$pass]=$(echo "$out" | grep "^plan:" | head -1)
  ranking=$(echo "$out" | grep -o "ranked by time [^:]*" | head -1)
  echo "run $pass (${secs}s): ${plans[$pass]} / $ranking"
  files=$(ls "$GRAPH_PLAN_CACHE_DIR"/*.rank 2>/dev/null | wc -l)
  if [ $pass -eq 1 ]; then
    [[ $ranking == "ranked by time in "[0-9]* ]] || fail "run 1 was not timed"
    [ "$files" -eq 1 ] || fail "run 1 wrote $files .rank files, not 1"
  else
    [[ $ranking == "ranked by time (in an earlier process)"* ]] ||
      fail "run 2 did not take the stored ranking"
    [ "$files" -eq 1 ] || fail "run 2 left $files .rank files, not 1"
  fi
done
[ "${plans[1]}" == "${plans[2]}" ] || fail "the runs chose different plans"
echo "PASS rank cache"
