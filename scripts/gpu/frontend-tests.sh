#!/usr/bin/env bash
# The cuDNN frontend's own Python tests against this package's `import
# cudnn`, on the GPU machine. The tests are not part of this repository:
# fetch them (NVIDIA/cudnn-frontend, test/python/ and its layout) into the
# git-ignored probe/fe/ and carry probe/ with carry/. Usage:
#   bash scripts/gpu/frontend-tests.sh core/graph/test_kernel_cache.py [pytest args]...
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/gpu/env.sh"
export GRAPH_CAPI_LIBRARY="$root/carry/lib/libGraphCAPI.so"
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
py=python3
[ -x /opt/torch/.venv/bin/python3 ] && py=/opt/torch/.venv/bin/python3
# The GPU machine's venv lacks `looseversion`, which the tests import for
# version gates: a stand-in (scripts/gpu/shims) when it is missing.
"$py" -c "import looseversion" 2>/dev/null ||
  export PYTHONPATH="$PYTHONPATH:$root/scripts/gpu/shims"
cd "$root/probe/fe" || { echo "probe/fe/ is missing: fetch the frontend's tests first"; exit 2; }
# A file that cannot be collected (a newer frontend's private modules) does
# not stop the others.
exec "$py" -m pytest -p no:cacheprovider -q -rfE --continue-on-collection-errors "$@"
