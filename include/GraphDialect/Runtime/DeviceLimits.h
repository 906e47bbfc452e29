//===- DeviceLimits.h - What launch geometry depends on ---------*- C++ -*-===//
//
// The generated kernels' launch geometry (how many blocks make one wave, how
// many blocks an SM holds at a register count) depends on the GPU they run
// on. The code generator takes these limits as a plain struct: those the
// CUDA device read when it opened (rt::Device::limits), the H200's values
// when kernels are generated without a GPU (graph-opt, lit tests). No MLIR,
// no CUDA here.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_RUNTIME_DEVICELIMITS_H
#define GRAPHDIALECT_RUNTIME_DEVICELIMITS_H

#include <cstdint>

namespace graph::rt {

/// Limits of one GPU, as cuDeviceGetAttribute reports them. The defaults are
/// the NVIDIA H200's (sm_90, 132 SMs), the GPU the generated kernels are
/// tuned on.
struct DeviceLimits {
  int64_t multiprocessors = 132;
  int64_t maxThreadsPerMultiprocessor = 2048;
  int64_t maxThreadsPerBlock = 1024;
  int64_t registersPerMultiprocessor = 65536;
  int64_t registersPerBlock = 65536;

  bool operator==(const DeviceLimits &o) const {
    return multiprocessors == o.multiprocessors &&
           maxThreadsPerMultiprocessor == o.maxThreadsPerMultiprocessor &&
           maxThreadsPerBlock == o.maxThreadsPerBlock &&
           registersPerMultiprocessor == o.registersPerMultiprocessor &&
           registersPerBlock == o.registersPerBlock;
  }
  bool operator!=(const DeviceLimits &o) const { return !(*this == o); }
};

} // namespace graph::rt

#endif // GRAPHDIALECT_RUNTIME_DEVICELIMITS_H
