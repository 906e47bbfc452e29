#!/usr/bin/env bash
# One device call: the GPU suite through graph-run, the runtime tests, the
# frontend-style Python programs and the benchmarks against PyTorch. Expects
# carry/ from scripts/gpu/build-carry.sh. Usage on the GPU machine:
#   bash scripts/gpu/device-check.sh [suite|rank-cache|runtime|python|bench|codegen-bench|models-bench]...
# (codegen-bench, bench/gpu/bench_codegen.py, and models-bench,
# bench/gpu/bench_models.py --compile --iters 50, run only when named.)
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/gpu/env.sh"
export GRAPH_CAPI_LIBRARY="$root/carry/lib/libGraphCAPI.so"
py=python3
[ -x /opt/torch/.venv/bin/python3 ] && py=/opt/torch/.venv/bin/python3
what=${*:-suite rank-cache runtime python bench}
for step in $what; do
  echo "==== $step ===="
  case $step in
    suite) bash "$root/scripts/gpu/run-tests.sh" "$root/carry/bin/graph-run" ;;
    rank-cache) bash "$root/scripts/gpu/rank-cache-check.sh" "$root/carry/bin/graph-run" ;;
    runtime) bash "$root/scripts/gpu/runtime-tests.sh" 2>&1 | tail -25 ;;
    python) "$py" "$root/python/gpu_tests/frontend_programs.py"
            "$py" "$root/python/gpu_tests/plan_queries.py"
            "$py" "$root/python/gpu_tests/artifact.py"
            "$py" "$root/python/gpu_tests/frontend_compat.py"
            "$py" "$root/python/gpu_tests/cuda_graph_capture.py"
            "$py" "$root/python/gpu_tests/execute_replay.py" ;;
    bench) "$py" "$root/bench/gpu/bench_vs_torch.py" ;;
    codegen-bench) "$py" "$root/bench/gpu/bench_codegen.py" ;;
    models-bench) "$py" "$root/bench/gpu/bench_models.py" --compile --iters 50 ;;
  esac
done
