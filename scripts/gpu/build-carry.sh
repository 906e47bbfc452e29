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
# With the NVPTX backend linked in, both outgrow the 64 MiB carry: ship them
# xz-compressed; scripts/gpu/env.sh unpacks them on the GPU machine.
for f in "$root/carry/bin/graph-run" "$root/carry/lib/libGraphCAPI.so"; do
  rm -f "$f.xz"
  if [ "$(stat -c %s "$f")" -gt $((20 << 20)) ]; then xz -T2 -6 "$f"; fi
done
"$root/scripts/gpu/build-runtime-tests.sh"
ls -la "$root/carry" "$root/carry/bin" "$root/carry/lib"
du -sh "$root/carry"
