#!/usr/bin/env bash
#===- scripts/update-docs.sh - Regenerate the ODS reference in docs/ -----===#
#
# Builds the `graph-docs` target (tablegen -gen-op-doc, -gen-dialect-doc,
# -gen-pass-doc) and copies GraphOps.md, GraphDialect.md and GraphPasses.md
# from <build>/docs into docs/. Needs a configured build/ (scripts/setup.sh).
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"

if [[ -n "${GRAPH_BUILD_LOCK:-}" ]]; then
  flock "$GRAPH_BUILD_LOCK" ninja -C "$BUILD_DIR" graph-docs
else
  ninja -C "$BUILD_DIR" graph-docs
fi

for f in Dialect/GraphOps Dialect/GraphDialect Passes/GraphPasses \
         Dialect/ExecOps Dialect/ExecDialect Dialect/ExecAttrs \
         Passes/GraphConversionPasses Passes/GraphCodegenPasses; do
  cp "$BUILD_DIR/docs/$f.md" "$ROOT/docs/$(basename "$f").md"
  echo "docs/$(basename "$f").md"
done
