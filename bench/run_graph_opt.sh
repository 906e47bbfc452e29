#!/usr/bin/env bash
#===- bench/run_graph_opt.sh - Time graph-opt --graph-prepare on a big graph ===#
#
# Generates a 10,000-op graph with bench/gen_graph.py, then times
# `graph-opt --graph-prepare` on it (parse + verify + assign-uids +
# infer-layout + canonicalize + print to /dev/null): RUNS runs, reporting each
# one, the best and the median, followed by one `--mlir-timing` report.
#
# Environment: BUILD_DIR (default build/), OPS (default 10000), RUNS (default 5).
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
OPS="${OPS:-10000}"
RUNS="${RUNS:-5}"
GRAPH_OPT="$BUILD_DIR/bin/graph-opt"
INPUT="$BUILD_DIR/bench/graph-$OPS.mlir"

mkdir -p "$(dirname "$INPUT")"
/usr/bin/python3 "$ROOT/bench/gen_graph.py" --ops "$OPS" -o "$INPUT"
echo "input: $INPUT ($(grep -c ' = graph\.' "$INPUT") ops, $(wc -c <"$INPUT") bytes)"
echo "command: $GRAPH_OPT $INPUT --graph-prepare -o /dev/null"

times=()
for ((i = 1; i <= RUNS; i++)); do
  start=$(date +%s%N)
  "$GRAPH_OPT" "$INPUT" --graph-prepare -o /dev/null
  end=$(date +%s%N)
  t=$(awk -v ns=$((end - start)) 'BEGIN { printf "%.3f", ns / 1e9 }')
  times+=("$t")
  echo "run $i: $t s"
done
printf '%s\n' "${times[@]}" | sort -n | awk '
  { v[NR] = $1 }
  END { printf "best: %.3f s, median: %.3f s over %d runs\n", v[1], v[int((NR + 1) / 2)], NR }'

echo
echo "--mlir-timing:"
"$GRAPH_OPT" "$INPUT" --graph-prepare --mlir-timing -o /dev/null
