#!/usr/bin/env bash
# The real-model corpus (test/models/) on the GPU at full size, through the
# Python package (torch CUDA tensors) and through graph-run, each checked as
# scripts/gpu/run_models.py describes. Expects carry/ from
# scripts/gpu/build-carry.sh. Usage on the GPU machine:
#   bash scripts/gpu/run-models.sh [--models llama_block,gpt2_block] [--routes python] ...
# Prints one PASS/FAIL line per model/phase/route and "N passed, M failed";
# exits 1 when any failed. All models in one call take minutes (the numpy
# references at full size dominate): split them over calls with --models when
# a call has a time limit.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/gpu/env.sh"
export GRAPH_CAPI_LIBRARY="${GRAPH_CAPI_LIBRARY:-$root/carry/lib/libGraphCAPI.so}"
export PYTHONUNBUFFERED=1
py=python3
[ -x /opt/torch/.venv/bin/python3 ] && py=/opt/torch/.venv/bin/python3
exec "$py" "$root/scripts/gpu/run_models.py" --graph-run "$root/carry/bin/graph-run" "$@"
