#!/usr/bin/env bash
# Builds what the GPU machine runs into carry/ (git-ignored; name it in the
# device tool's carry list): the fully static graph-run and the MLIR-free
# runtime test binary.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cmake -S "$root" -B "$root/build" -DGRAPH_BUILD_STATIC_TOOLS=ON > /dev/null
ninja -C "$root/build" graph-run-static GraphCAPIDevice
mkdir -p "$root/carry/bin"
strip -o "$root/carry/bin/graph-run" "$root/build/static/bin/graph-run-static"
mkdir -p "$root/carry/lib"
strip -o "$root/carry/lib/libGraphCAPI.so" "$root/build/static/lib/libGraphCAPI.so"
"$root/scripts/gpu/build-runtime-tests.sh"
ls -la "$root/carry" "$root/carry/bin"
