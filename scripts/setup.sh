#!/usr/bin/env bash
#===- scripts/setup.sh - Install dependencies, configure and build -------===#
#
# On a fresh Debian 12 machine, as root: installs every dependency with apt
# (packages already installed are skipped; apt is not touched at all when
# nothing is missing), configures build/ with CMake + Ninja against the
# packaged LLVM/MLIR 22, and builds it.
#
# Environment:
#   BUILD_DIR         build directory (default: <repo>/build)
#   JOBS              parallel jobs for ninja (default: nproc)
#   GRAPH_BUILD_LOCK  if set, every ninja call runs under `flock $GRAPH_BUILD_LOCK`
#   CI                when "true", ccache keeps its cache in $BUILD_DIR/.ccache
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
JOBS="${JOBS:-$(nproc)}"
LLVM_PREFIX=/usr/lib/llvm-22

log() { printf '==> %s\n' "$*"; }

# --- 1. Packages ------------------------------------------------------------
PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  clang-22 libclang-rt-22-dev
  ccache ninja-build cmake g++
  googletest
  python3-numpy python3-pytest
  python3-setuptools python3-wheel python3-pip python3-venv
  zlib1g-dev libzstd-dev
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
      grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]})); then
  log "installing: ${missing[*]}"
  SUDO=()
  if [[ "$(id -u)" != 0 ]]; then
    if command -v sudo >/dev/null; then
      SUDO=(sudo)
    else
      echo "error: missing packages (${missing[*]}) and not root" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -q
  "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
else
  log "all packages already installed"
fi

# --- 2. Configure -----------------------------------------------------------
if [[ "${CI:-}" == true && -z "${CCACHE_DIR:-}" ]]; then
  export CCACHE_DIR="$BUILD_DIR/.ccache"
fi

ninja_cmd() {
  if [[ -n "${GRAPH_BUILD_LOCK:-}" ]]; then
    flock "$GRAPH_BUILD_LOCK" ninja "$@"
  else
    ninja "$@"
  fi
}

if [[ ! -f "$BUILD_DIR/build.ninja" ]]; then
  log "configuring $BUILD_DIR"
  cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit"
else
  log "$BUILD_DIR already configured (ninja re-runs cmake when needed)"
fi

# --- 3. Build ---------------------------------------------------------------
log "building $BUILD_DIR with $JOBS jobs"
ninja_cmd -C "$BUILD_DIR" -j "$JOBS"
log "setup done: $BUILD_DIR/bin/graph-opt"
