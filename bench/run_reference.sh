#!/usr/bin/env bash
# Times the CPU reference executor on the transformer block benchmark.
#   bench/run_reference.sh [BUILD_DIR]   (default: build)
# Prints graph-run's per-execute timing and the wall time of the whole
# command (parse + graph-prepare + random inputs + warm-up + 1 timed run).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build}"
run="$build/bin/graph-run"
[[ -x "$run" ]] || { echo "run_reference.sh: no graph-run at $run (build it first)" >&2; exit 1; }
start=$(date +%s.%N)
"$run" --device=cpu --random-inputs=1 --benchmark=1 --print-max-elements=8 \
  "$here/transformer_block.mlir"
end=$(date +%s.%N)
echo "wall: $(echo "$end - $start" | bc) s for the whole command"
