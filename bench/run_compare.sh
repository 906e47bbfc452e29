#!/usr/bin/env bash
# Times graph::compare() (bench/compare_bench.cpp) with lib/Support as of
# the working tree, or as of REV for a same-machine baseline:
#   bench/run_compare.sh [REV]
# GRAPH_REF_THREADS=N limits the threads it may use.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="$root/lib/Support"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
inc="$root/include"
if [[ $# -gt 0 ]]; then
  mkdir -p "$tmp/src"
  git -C "$root" archive "$1" lib/Support include/GraphDialect/Support | tar -x -C "$tmp/src"
  src="$tmp/src/lib/Support" inc="$tmp/src/include"
fi
sources=("$src/Compare.cpp" "$src/DType.cpp")
[[ -f "$src/ThreadPool.cpp" ]] && sources+=("$src/ThreadPool.cpp")
g++ -O2 -std=c++17 -I"$inc" "$root/bench/compare_bench.cpp" "${sources[@]}" \
  -lpthread -o "$tmp/compare_bench"
"$tmp/compare_bench"
