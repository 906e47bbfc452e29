//===- DeviceLimits.h - What launch geometry depends on ---------*- C++ -*-===//
//
// The generated kernels' launch geometry (how many blocks make one wave, how
// many blocks an SM holds at a register count) depends on the GPU they run
// on. The code generator takes these limits as a plain struct: filled from
// the CUDA device when there is one, the H200's values when kernels are
// generated without a GPU (graph-opt, lit tests). No MLIR, no CUDA here.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_RUNTIME_DEVICELIMITS_H
#define GRAPHDIALECT_RUNTIME_DEVICELIMITS_H

#include <cstdint>
#include <string>

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

/// Reads the limits of CUDA device `ordinal` into `out` (the CUDA driver is
/// opened on first use). Returns "" or why not (no driver, no such device);
/// `out` keeps its values then.
std::string queryDeviceLimits(int ordinal, DeviceLimits &out);

} // namespace graph::rt

#endif // GRAPHDIALECT_RUNTIME_DEVICELIMITS_H
