#!/usr/bin/env bash
# Runs on the GPU machine: the prebuilt carry/graph-runtime-gpu-test (see
# scripts/gpu/build-runtime-tests.sh) against cuDNN 9.19 from the PyTorch
# venv. Extra arguments go to the test (e.g. --gtest_filter=*Sdpa*).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$root/carry/graph-runtime-gpu-test"
cudnn_lib="${GRAPH_CUDNN_LIB:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib}"
if [[ ! -x "$bin" ]]; then
  echo "missing $bin: run scripts/gpu/build-runtime-tests.sh first" >&2
  exit 2
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
source "$root/scripts/gpu/env.sh"
export GRAPH_PLAN_CACHE_DIR="${GRAPH_PLAN_CACHE_DIR:-$(mktemp -d)}"
"$bin" --gtest_color=no "$@" 2>&1 | tee /tmp/graph-runtime-gpu-test.log
status=${PIPESTATUS[0]}
echo "---- summary ----"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\]|tests? (ran|passed)" /tmp/graph-runtime-gpu-test.log
echo "plan cache files: $(ls "$GRAPH_PLAN_CACHE_DIR" | wc -l) in $GRAPH_PLAN_CACHE_DIR"
exit $status
