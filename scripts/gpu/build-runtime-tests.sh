#!/usr/bin/env bash
# Builds carry/graph-runtime-gpu-test: the MLIR-free runtime GPU test, linked
# with static libstdc++/libgcc so it runs on the GPU machine (Ubuntu 24.04)
# with nothing but libc, libdl and the driver/cuDNN it dlopens.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cuda_inc="${GRAPH_CUDA_INCLUDE_DIR:-/usr/local/cuda/include}"
out="$root/carry"
obj="$root/build/carry-obj"
mkdir -p "$out" "$obj"
cxx="${CXX:-g++}"
flags=(-std=c++17 -O2 -g0 -I"$root/include" -isystem "$cuda_inc" -pthread)

srcs=(
  lib/Runtime/Device.cpp lib/Runtime/DeviceLimits.cpp lib/Runtime/CudnnGroup.cpp
  lib/Runtime/CudnnPlanCache.cpp lib/Runtime/CudnnDescriptors.cpp
  lib/Runtime/CudnnOpsPointwise.cpp lib/Runtime/CudnnOpsMatmul.cpp
  lib/Runtime/CudnnOpsConv.cpp lib/Runtime/CudnnOpsNorm.cpp
  lib/Runtime/CudnnOpsAttention.cpp lib/Runtime/CudnnRelabel.cpp
  lib/Support/DType.cpp lib/Support/Shape.cpp lib/Support/HostTensor.cpp
  lib/Support/Memory.cpp lib/Support/ThreadPool.cpp lib/Support/OpKind.cpp
  lib/Support/Port.cpp
  lib/Reference/NdArray.cpp lib/Reference/Kernels.cpp
  lib/Reference/KernelsConv.cpp lib/Reference/KernelsNorm.cpp
  lib/Reference/KernelsPointwise.cpp lib/Reference/AttentionKernels.cpp
  unittests/Runtime/RuntimeGpuTest.cpp
)
objs=()
pids=()
for src in "${srcs[@]}"; do
  o="$obj/$(echo "$src" | tr / _).o"
  objs+=("$o")
  "$cxx" "${flags[@]}" -I"$root/lib/Reference" -c "$root/$src" -o "$o" &
  pids+=($!)
  # two at a time: the build machine has 2 shared cores
  if (( ${#pids[@]} >= 2 )); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done

# GoogleTest from the distribution's static archives.
gtest_libs=()
for lib in gtest_main gtest; do
  a=$(find /usr/lib /usr/local/lib -name "lib$lib.a" 2>/dev/null | head -1)
  if [[ -z "$a" ]]; then echo "lib$lib.a not found (install googletest)" >&2; exit 1; fi
  gtest_libs+=("$a")
done
"$cxx" -o "$out/graph-runtime-gpu-test" "${objs[@]}" "${gtest_libs[@]}" \
  -static-libstdc++ -static-libgcc -pthread -ldl
echo "built $out/graph-runtime-gpu-test ($(du -h "$out/graph-runtime-gpu-test" | cut -f1))"
ldd "$out/graph-runtime-gpu-test" | sed 's/^/  /'
