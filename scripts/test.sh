#!/usr/bin/env bash
#===- scripts/test.sh - Build everything and run every test suite --------===#
#
# Suites, in order (each one runs even when an earlier one failed):
#   build      ninja: every target of build/ plus the ODS docs (graph-docs)
#   lit        ninja check-graph (lit -sv over test/)
#   unittests  ctest (GoogleTest)
#   pytest     /usr/bin/python3 -m pytest python/  (skipped when python/ has
#              no tests; pytest's exit 5, "no tests collected", is a pass)
#   fuzz       builds graph-fuzz in build-fuzz/ (clang-22, libFuzzer + ASan)
#              and fuzzes for $FUZZ_SECONDS s from a seed corpus of every
#              .mlir under test/ and examples/ split on `// -----`, with
#              the dictionary tools/graph-fuzz/graph.dict
#   sanitize   builds the unit tests, graph-opt and graph-run in build-asan/
#              (clang-22, -fsanitize=address,undefined,
#              -fno-sanitize-recover=undefined) and runs ctest and lit there
#   embed      installs the C API package and builds/runs examples/embed
#   pyinstall  installs the Python package (pip --target, cmake --install)
#              and imports it from outside the repository
# Exits non-zero when any suite fails; the last line is `N passed, M failed`
# (counts of suites).
#
# Environment:
#   BUILD_DIR, FUZZ_BUILD_DIR, ASAN_BUILD_DIR
#                              build directories (default build/, build-fuzz/,
#                              build-asan/)
#   JOBS                       parallel jobs (default: nproc)
#   FUZZ_SECONDS               fuzzing time (default 60; 0 skips the fuzz suite)
#   SANITIZE                   0 skips the sanitize suite (default 1)
#   GRAPH_BUILD_LOCK           if set, ninja and cmake run under `flock` on it
#
#===----------------------------------------------------------------------===#
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
FUZZ_BUILD_DIR="${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
ASAN_BUILD_DIR="${ASAN_BUILD_DIR:-$ROOT/build-asan}"
JOBS="${JOBS:-$(nproc)}"
FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
SANITIZE="${SANITIZE:-1}"
LLVM_PREFIX=/usr/lib/llvm-22
PYTHON=/usr/bin/python3

if [[ "${CI:-}" == true && -z "${CCACHE_DIR:-}" ]]; then
  export CCACHE_DIR="$BUILD_DIR/.ccache"
fi

locked() {
  if [[ -n "${GRAPH_BUILD_LOCK:-}" ]]; then
    flock "$GRAPH_BUILD_LOCK" "$@"
  else
    "$@"
  fi
}

passed=0
failed=0
report=()

# run_suite NAME COMMAND...: runs COMMAND, records NAME as passed or failed.
run_suite() {
  local name="$1"
  shift
  printf '\n===== %s =====\n' "$name"
  local start=$SECONDS
  if "$@"; then
    passed=$((passed + 1))
    report+=("PASS  $name ($((SECONDS - start)) s)")
  else
    failed=$((failed + 1))
    report+=("FAIL  $name ($((SECONDS - start)) s)")
  fi
}

skip_suite() {
  printf '\n===== %s =====\nskipped: %s\n' "$1" "$2"
  report+=("SKIP  $1 ($2)")
}

configure_main() {
  [[ -f "$BUILD_DIR/build.ninja" ]] && return 0
  locked cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit"
}

suite_build() {
  configure_main || return 1
  locked ninja -C "$BUILD_DIR" -j "$JOBS" all graph-docs || return 1
  # The committed docs/ should match what the ODS generates: warn only, so
  # an ODS change does not fail the run before scripts/update-docs.sh.
  local f
  for f in GraphOps GraphDialect GraphPasses; do
    local gen
    gen="$(find "$BUILD_DIR/docs" -name "$f.md" -print -quit)"
    if [[ -n "$gen" && -f "$ROOT/docs/$f.md" ]] &&
        ! cmp -s "$gen" "$ROOT/docs/$f.md"; then
      echo "warning: docs/$f.md is stale; run scripts/update-docs.sh"
    fi
  done
}

suite_lit() {
  locked ninja -C "$BUILD_DIR" -j "$JOBS" check-graph
}

suite_unittests() {
  ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"
}

suite_pytest() {
  # The package finds build/lib/libGraphCAPI.so itself; point it at
  # $BUILD_DIR's when that is elsewhere.
  if [[ -z "${GRAPH_CAPI_LIBRARY:-}" && -f "$BUILD_DIR/lib/libGraphCAPI.so" ]]; then
    export GRAPH_CAPI_LIBRARY="$BUILD_DIR/lib/libGraphCAPI.so"
  fi
  PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}" \
    "$PYTHON" -m pytest -q "$ROOT/python" "$ROOT/test/models"
  local rc=$?
  # 5: no tests were collected.
  [[ $rc == 0 || $rc == 5 ]]
}

# Splits every .mlir under test/ and examples/ on `// -----` into $1.
make_seed_corpus() {
  local out="$1" file base
  rm -rf "$out" && mkdir -p "$out" || return 1
  while IFS= read -r -d '' file; do
    base="${file#"$ROOT"/}"
    base="${base//\//_}"
    awk -v prefix="$out/$base" '
      BEGIN { n = 0; f = prefix "." n }
      /^\/\/ -----/ { close(f); n++; f = prefix "." n; next }
      { print > f }
    ' "$file" || return 1
  done < <(find "$ROOT/test" "$ROOT/examples" -name '*.mlir' -print0)
  echo "seed corpus: $(find "$out" -type f | wc -l) inputs in $out"
}

suite_fuzz() {
  if [[ ! -f "$FUZZ_BUILD_DIR/build.ninja" ]]; then
    locked cmake -G Ninja -S "$ROOT" -B "$FUZZ_BUILD_DIR" \
      -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
      -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
      -DGRAPH_ENABLE_FUZZER=ON || return 1
  fi
  locked ninja -C "$FUZZ_BUILD_DIR" -j "$JOBS" graph-fuzz || return 1
  make_seed_corpus "$FUZZ_BUILD_DIR/fuzz-seeds" || return 1
  mkdir -p "$FUZZ_BUILD_DIR/fuzz-corpus" "$FUZZ_BUILD_DIR/fuzz-artifacts"
  # The first corpus directory collects new inputs; the seeds are read only.
  # A crash, a sanitizer report, an input slower than 25 s or more than
  # 4 GiB of memory ends the run with a non-zero exit and a reproducer in
  # fuzz-artifacts/.
  # The per-input progress lines (NEW, REDUCE, pulse) are dropped from the
  # log; everything else, a crash report included, is kept.
  "$FUZZ_BUILD_DIR/bin/graph-fuzz" \
    -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=4096 -timeout=25 \
    -print_final_stats=1 -dict="$ROOT/tools/graph-fuzz/graph.dict" \
    -artifact_prefix="$FUZZ_BUILD_DIR/fuzz-artifacts/" \
    "$FUZZ_BUILD_DIR/fuzz-corpus" "$FUZZ_BUILD_DIR/fuzz-seeds" 2>&1 |
    awk '!/^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)/'
}

run_suite build suite_build
run_suite lit suite_lit
run_suite unittests suite_unittests
if find "$ROOT/python" \( -name 'test_*.py' -o -name '*_test.py' \) \
    -print -quit 2>/dev/null | grep -q .; then
  run_suite pytest suite_pytest
else
  skip_suite pytest "no tests under python/"
fi
if [[ "$FUZZ_SECONDS" != 0 ]]; then
  run_suite fuzz suite_fuzz
else
  skip_suite fuzz "FUZZ_SECONDS=0"
fi

#===- sanitize: unit tests and lit under ASan + UBSan ---------------------===#
# A third build directory, $ASAN_BUILD_DIR, with the fuzz build's compiler
# (clang-22) and LLVM's own sanitizer switch: LLVM_USE_SANITIZER adds
# -fsanitize=address, LLVM_UBSAN_FLAGS (-fsanitize=undefined
# -fno-sanitize-recover=undefined: any UB report is fatal),
# -fno-omit-frame-pointer and -gline-tables-only, and drops -z defs, which a
# sanitized shared library (libGraphCAPI.so) cannot link with. -O1 instead of
# -O3 keeps the compile time down. The packaged LLVM/MLIR libraries are not
# instrumented; our code is, with the LLVM/MLIR headers it inlines.
# `all` is built: graph-opt, graph-run and the unit tests need 66 of its 69
# objects, and a unit test left unbuilt would fail ctest as "Not Run".
# test/ is configured in every build directory, so `ninja -C build-asan
# check-graph` runs lit with build-asan/bin's tools.
#
# ASAN_OPTIONS:
#   abort_on_error=1        an ASan report kills the tool with SIGABRT, so a
#                           `not graph-run ...` lit line fails on it instead
#                           of taking the report's exit 1 for the expected
#                           error.
#   allow_user_poisoning=0  LLVM's BumpPtrAllocator poisons and unpoisons its
#                           slabs by hand when compiled with ASan: the inline
#                           copies in our objects do, the uninstrumented
#                           libraries' copies do not, so they disagree and
#                           report false use-after-poison inside MLIRContext
#                           (same reason as in graph-fuzz.cpp). Heap and stack
#                           errors are still caught.
# UBSAN_OPTIONS: print_stacktrace=1, abort_on_error=1 (as above).
# The gpu-labelled ctest (GraphRuntimeGpuTest) is left out: the CUDA driver
# does not run under ASan's shadow mapping, and the GPU suite is checked by
# compute-sanitizer instead.
suite_sanitize() (
  # Also set while building: gtest_discover_tests runs each test binary.
  export ASAN_OPTIONS="abort_on_error=1:allow_user_poisoning=0"
  export UBSAN_OPTIONS="print_stacktrace=1:abort_on_error=1"
  export ASAN_SYMBOLIZER_PATH="$LLVM_PREFIX/bin/llvm-symbolizer"
  if [[ ! -f "$ASAN_BUILD_DIR/build.ninja" ]]; then
    locked cmake -G Ninja -S "$ROOT" -B "$ASAN_BUILD_DIR" \
      -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" \
      -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
      -DLLVM_USE_SANITIZER="Address;Undefined" \
      -DLLVM_UBSAN_FLAGS="-fsanitize=undefined -fno-sanitize-recover=undefined" \
      -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
      -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" || exit 1
  fi
  locked ninja -C "$ASAN_BUILD_DIR" -j "$JOBS" all || exit 1
  rc=0
  ctest --test-dir "$ASAN_BUILD_DIR" --output-on-failure -j "$JOBS" \
    -LE gpu || rc=1
  locked ninja -C "$ASAN_BUILD_DIR" -j "$JOBS" check-graph || rc=1
  exit $rc
)
if [[ "$SANITIZE" != 0 ]]; then
  run_suite sanitize suite_sanitize
else
  skip_suite sanitize "SANITIZE=0"
fi
#===- end of sanitize ------------------------------------------------------===#

#===- embed: the installed C API from another project (lib/CAPI owners) ---===#
# Installs the GraphCAPI component (libGraphCAPI.so, its headers, the
# GraphDialect CMake package) into $BUILD_DIR/install, then configures
# examples/embed (a separate project: find_package(GraphDialect REQUIRED)) in
# $BUILD_DIR/embed against it, builds it and runs it (it prints PASS/FAIL).
suite_embed() {
  local prefix="$BUILD_DIR/install" embed="$BUILD_DIR/embed"
  locked ninja -C "$BUILD_DIR" -j "$JOBS" GraphCAPI || return 1
  rm -rf "$prefix" "$embed"
  cmake --install "$BUILD_DIR" --prefix "$prefix" --component GraphCAPI \
    || return 1
  cmake -G Ninja -S "$ROOT/examples/embed" -B "$embed" \
    -DCMAKE_BUILD_TYPE=Release \
    -DGraphDialect_DIR="$prefix/lib/cmake/GraphDialect" || return 1
  ninja -C "$embed" || return 1
  "$embed/embed"
}
run_suite embed suite_embed
#===- end of embed ---------------------------------------------------------===#

#===- pyinstall: the Python package installed, used from elsewhere --------===#
# Debian's pip (no PyPI: --no-index, --no-build-isolation) installs ./python
# into a temporary --target, packaging $BUILD_DIR/lib/libGraphCAPI.so inside
# graph_compiler/ (python/setup.py); cmake --install's GraphPython component
# lays out the same under a prefix. Each copy is imported from a folder
# outside the repository with GRAPH_CAPI_LIBRARY unset: backend_version()
# must print a number, the library loaded must be the installed copy, and a
# small graph must execute on the CPU reference.
pyinstall_check() { # SITE
  local out
  out="$(cd "$1" && env -u GRAPH_CAPI_LIBRARY PYTHONPATH="$1" "$PYTHON" -c '
import os, sys
import numpy as np
import cudnn, graph_compiler
print(cudnn.backend_version())
site = os.path.realpath(sys.argv[1])
assert os.path.realpath(cudnn.__file__).startswith(site + os.sep), cudnn.__file__
assert graph_compiler.is_available(), "the installed libGraphCAPI.so does not load"
loaded = graph_compiler.loaded_library_path()
want = os.path.join(site, "graph_compiler", "libGraphCAPI.so")
assert os.path.realpath(loaded) == want, f"loaded {loaded} ({os.path.realpath(loaded)}), not the installed copy {want}"
g = cudnn.pygraph(io_data_type=cudnn.data_type.FLOAT, compute_data_type=cudnn.data_type.FLOAT)
a = np.arange(-4, 4, dtype=np.float32).reshape(1, 8)
A = g.tensor_like(a)
C = g.relu(input=A)
C.set_output(True)
g.build([cudnn.heur_mode.A])
c = np.empty_like(a)
g.execute({A: a, C: c})
assert (c == np.maximum(a, 0)).all(), c
print("loaded", loaded)
' "$1")" || { printf '%s\n' "$out"; return 1; }
  printf '%s\n' "$out"
  [[ "${out%%$'\n'*}" =~ ^[0-9]+$ ]] ||
    { echo "pyinstall: backend_version() printed '${out%%$'\n'*}', not a number"; return 1; }
}
suite_pyinstall() (
  tmp="$(mktemp -d)" || exit 1
  trap 'rm -rf "$tmp"' EXIT
  locked ninja -C "$BUILD_DIR" -j "$JOBS" GraphCAPI || exit 1
  GRAPH_CAPI_LIBRARY="$BUILD_DIR/lib/libGraphCAPI.so" \
    GRAPH_PACKAGE_REQUIRE_LIBRARY=1 \
    "$PYTHON" -m pip install --quiet --no-index --no-build-isolation --no-deps \
    --disable-pip-version-check --root-user-action=ignore \
    --target "$tmp/pip" "$ROOT/python" || exit 1
  echo "pip --target:"
  pyinstall_check "$tmp/pip" || exit 1
  cmake --install "$BUILD_DIR" --prefix "$tmp/prefix" \
    --component GraphPython >/dev/null || exit 1
  echo "cmake --install --component GraphPython:"
  pyinstall_check "$tmp/prefix/python"
)
run_suite pyinstall suite_pyinstall
#===- end of pyinstall -----------------------------------------------------===#

printf '\n===== summary =====\n'
printf '%s\n' "${report[@]}"
echo "$passed passed, $failed failed"
((failed == 0))
