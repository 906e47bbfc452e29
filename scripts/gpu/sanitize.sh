#!/usr/bin/env bash
# The GPU suite under compute-sanitizer (issue 13): every test/gpu graph
# through graph-run with `compute-sanitizer --tool memcheck`, which must
# report 0 errors (an error makes graph-run exit 99, so the test FAILs and
# its sanitizer report is printed). Usage on the GPU machine:
#   bash scripts/gpu/sanitize.sh [path/to/graph-run] [tool]
# tool: memcheck (default), racecheck, initcheck or synccheck.
# Exit 77 without a GPU or without compute-sanitizer.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
run=${1:-$here/carry/bin/graph-run}
tool=${2:-memcheck}
sanitizer=$(command -v compute-sanitizer || true)
for candidate in /usr/local/cuda/bin/compute-sanitizer \
  /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  [ -z "$sanitizer" ] && [ -x "$candidate" ] && sanitizer=$candidate
done
if [ -z "$sanitizer" ]; then
  echo "skipped: compute-sanitizer not found (PATH, /usr/local/cuda/bin)"
  exit 77
fi
export GRAPH_GPU_WRAPPER="$sanitizer --tool $tool --error-exitcode 99 --print-limit 20"
exec bash "$here/scripts/gpu/run-tests.sh" "$run"
