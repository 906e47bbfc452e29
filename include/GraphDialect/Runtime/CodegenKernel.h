//===- CodegenKernel.h - Run kernels the codegen engine generated -*- C++ -*-//
//
// A group the codegen engine compiled: one or more PTX kernels launched in
// order on the device's stream. Kernels take bare device pointers (the
// lowering uses the bare-pointer memref calling convention: static shapes,
// identity layouts), one per `argUids` entry, in that order. No MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_RUNTIME_CODEGENKERNEL_H
#define GRAPHDIALECT_RUNTIME_CODEGENKERNEL_H

#include "GraphDialect/Runtime/CudnnGraph.h"

#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace graph::rt {

/// One kernel launch of a generated group.
struct KernelLaunch {
  std::string ptx;   // the PTX module holding `entry`
  std::string entry; // the .entry name
  std::array<unsigned, 3> grid = {1, 1, 1};
  std::array<unsigned, 3> block = {1, 1, 1};
  std::vector<int64_t> argUids; // one device pointer per entry, in order
  /// Per argument: the byte alignment its vector accesses need (0: none).
  std::vector<int64_t> argAlign;
  bool cubin = false; // `ptx` holds a cubin image instead of PTX text
};

/// A group as generated kernels: what the codegen engine hands the runtime.
struct CodegenSpec {
  std::string name;   // the group's name, for messages
  std::string engine; // e.g. "codegen_v1"
  std::vector<KernelLaunch> launches;
  /// Scratch buffers (negative uids) and their bytes: values that cross
  /// kernels inside the group, partial sums. Allocated once per load.
  std::vector<std::pair<int64_t, int64_t>> scratch;
};

/// Why `spec` cannot be loaded as it is, or "": every launch has an image,
/// an entry and positive grid and block sizes, at most one alignment per
/// argument, and its negative (scratch) uids are in `scratch`, whose uids
/// are negative, distinct and sized. Needs no GPU; CodegenKernel::create
/// checks it first.
std::string checkCodegenSpec(const CodegenSpec &spec);

/// Loaded kernels of one group (cuModuleLoadData + cuModuleGetFunction).
class CodegenKernel {
public:
  /// nullptr and `error` naming the kernel and the driver's status when the
  /// spec is malformed (checkCodegenSpec), the driver rejects the PTX or
  /// cubin, or the module lacks the entry.
  static std::unique_ptr<CodegenKernel>
  create(Device &device, const CodegenSpec &spec, std::string &error);
  virtual ~CodegenKernel() = default;
  /// Queues every launch on the device's stream with pointers by uid.
  virtual std::string execute(const std::map<int64_t, void *> &buffers) = 0;
  virtual const CodegenSpec &spec() const = 0;
};

} // namespace graph::rt

#endif // GRAPHDIALECT_RUNTIME_CODEGENKERNEL_H
