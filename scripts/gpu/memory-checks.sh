#!/usr/bin/env bash
# GPU memory checks (issue 13): with the free memory capped by
# GRAPH_TEST_GPU_FREE_BYTES, graph-run must fail with one line naming what
# needed the memory (an input/output/intermediate uid or a group's
# workspace), the bytes needed and the bytes free, never a raw CUDA
# out-of-memory error or a crash; without the cap the same graph runs; an
# ordinal that does not exist is named (--gpu-device when graph-run has it).
# Usage: scripts/gpu/memory-checks.sh [path/to/graph-run]
# Exit 77 (skipped) when no GPU is usable.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
run=${1:-$here/build/bin/graph-run}
source "$here/scripts/gpu/env.sh"
graph="$here/test/gpu/reduction_pointwise_chain_f32.mlir"

probe=$("$run" --device=gpu --random-inputs=1 --print-max-elements=0 "$graph" 2>&1)
if echo "$probe" | grep -q "GPU device is not available\|GPU runtime"; then
  echo "skipped: no usable GPU ($(echo "$probe" | head -1))"
  exit 77
fi

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; echo "$2" | head -20 | sed 's/^/    /'; }

# 1. Runs without a cap.
out=$("$run" --device=gpu --random-inputs=1 --print-max-elements=0 \
  --check-against=cpu "$graph" 2>&1)
rc=$?
if [ $rc -eq 0 ] && echo "$out" | grep -q "\[SUCCESS\]"; then
  pass "uncapped run"
else
  fail "uncapped run (exit $rc)" "$out"
fi

# 2. 1 KiB free: refused before allocating, with the numbers.
out=$(GRAPH_TEST_GPU_FREE_BYTES=1024 "$run" --device=gpu --random-inputs=1 \
  --print-max-elements=0 "$graph" 2>&1)
rc=$?
if [ $rc -ne 0 ] && [ $rc -lt 128 ] &&
   echo "$out" | grep -Eq "GPU 0: .*(uid [0-9]+|workspace of group|intermediate tensors).* needs? [0-9]+ bytes.*more than the device has free \(1024 bytes \(1.0 KiB\) free of" &&
   ! echo "$out" | grep -q "CUDA_ERROR_OUT_OF_MEMORY\|Stack dump"; then
  pass "1 KiB free: named shortage"
else
  fail "1 KiB free (exit $rc; want a shortage naming a uid, bytes needed and 1024 free)" "$out"
fi

# 3. 0 bytes free.
out=$(GRAPH_TEST_GPU_FREE_BYTES=0 "$run" --device=gpu --random-inputs=1 \
  --print-max-elements=0 "$graph" 2>&1)
rc=$?
if [ $rc -ne 0 ] && [ $rc -lt 128 ] && echo "$out" | grep -Eq "GPU 0: .* needs? [0-9]+ bytes.*\(0 bytes free of"; then
  pass "0 bytes free: named shortage"
else
  fail "0 bytes free (exit $rc)" "$out"
fi

# 4. A GPU ordinal that does not exist (only when graph-run has --gpu-device).
if "$run" --help 2>&1 | grep -q -- "--gpu-device"; then
  out=$("$run" --device=gpu --gpu-device=99 --random-inputs=1 \
    --print-max-elements=0 "$graph" 2>&1)
  rc=$?
  if [ $rc -ne 0 ] && echo "$out" | grep -q "GPU device 99 does not exist: this machine has [0-9]* CUDA device"; then
    pass "--gpu-device=99 named"
  else
    fail "--gpu-device=99 (exit $rc)" "$out"
  fi
else
  echo "NOTE graph-run has no --gpu-device option yet: case 4 not run"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
