//===- CudnnGraph.h - cuDNN backend graphs, plans and execution -*- C++ -*-===//
//
// The runtime's view of one fused group: tensors by uid and the ops between
// them, described without MLIR so the compiler, the C API and tests can all
// build one. The runtime turns it into cuDNN backend descriptors, asks the
// heuristics for a ranked plan list, builds plans and executes them.
// CUDA and cuDNN are opened with dlopen on first use; every status is checked
// and reported with the step, the group and cuDNN's own message.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_RUNTIME_CUDNNGRAPH_H
#define GRAPHDIALECT_RUNTIME_CUDNNGRAPH_H

#include "GraphDialect/Reference/NdArray.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace graph::rt {

using ref::DType;
using ref::Shape;

/// One tensor of a group. Ports of ops refer to it by uid.
struct TensorSpec {
  int64_t uid = 0;
  DType dtype = DType::F32;
  Shape dims;
  Shape strides;          // elements; never empty once lowered
  bool isVirtual = false; // lives only inside the group
  bool isByValue = false; // a pass-by-value scalar; `byValue` holds it
  double byValue = 0.0;
};

/// One node. `kind` is the graph dialect mnemonic ("pointwise", "matmul",
/// "conv_fprop", "conv_dgrad", "conv_wgrad", "reduction", "layernorm",
/// "rmsnorm", "batchnorm", "batchnorm_inference", "instancenorm",
/// "adalayernorm", "*_backward", "genstats", "sdpa", "sdpa_backward", ...);
/// `mode` the pointwise/reduction mode or the norm phase; ports are the
/// dialect's operand and result names ("A", "B", "C", "input", "Y", ...).
struct OpSpec {
  std::string kind;
  std::string mode;
  std::string name; // user label, for messages
  std::map<std::string, int64_t> inputs;
  std::map<std::string, int64_t> outputs;
  std::map<std::string, std::vector<int64_t>> intAttrs;
  std::map<std::string, double> floatAttrs;
  DType computeType = DType::F32;
};

struct GraphSpec {
  std::string name; // group name for messages, e.g. "mlp/group0"
  std::vector<TensorSpec> tensors;
  std::vector<OpSpec> ops;
};

enum class HeurMode { A, B, Fallback };

/// One entry of a group's ranked plan list.
struct PlanInfo {
  std::string name; // e.g. "eng0_k2=1_k3=0" (engine id and knobs)
  int64_t engineId = -1;
  std::vector<std::pair<int64_t, int64_t>> knobs;
  int64_t workspaceBytes = 0;
  std::vector<std::string> behaviorNotes, numericNotes;
  bool built = false;
  std::string error; // why building it failed, when it did
};

/// The process's CUDA context, stream and cuDNN handle. `get` opens
/// libcuda.so.1 and libcudnn.so.9 on first use.
class Device {
public:
  /// nullptr with `error` naming the missing library or failing call.
  static Device *get(std::string &error);
  virtual ~Device() = default;

  virtual std::string version() const = 0; // "cuDNN 9.19.0, driver 13000, sm_90"
  virtual void *alloc(size_t bytes, std::string &error) = 0;
  virtual void free(void *pointer) = 0;
  virtual std::string copyToDevice(void *dst, const void *src, size_t bytes) = 0;
  virtual std::string copyToHost(void *dst, const void *src, size_t bytes) = 0;
  virtual std::string synchronize() = 0;
  /// Milliseconds `body` takes on the stream, measured with events.
  virtual std::string time(const std::function<std::string()> &body,
                           double &milliseconds) = 0;
};

/// One group lowered to a cuDNN operation graph, with its plan list.
class CudnnGroup {
public:
  /// Builds and finalizes the operation graph; nullptr and `error` naming
  /// the op and cuDNN's message when cuDNN rejects it.
  static std::unique_ptr<CudnnGroup> create(Device &device,
                                            const GraphSpec &spec,
                                            std::string &error);
  virtual ~CudnnGroup() = default;

  /// Queries the heuristics modes in order and appends their configs.
  virtual std::string createPlans(const std::vector<HeurMode> &modes) = 0;
  /// Appends a plan for an explicit engine id and knobs (plan replay).
  virtual std::string addPlan(int64_t engineId,
                              const std::vector<std::pair<int64_t, int64_t>> &knobs) = 0;
  virtual const std::vector<PlanInfo> &plans() const = 0;
  /// Finalizes plan `index`; records and returns the reason if it declines.
  virtual std::string buildPlan(size_t index) = 0;
  /// Runs built plan `index` with device pointers keyed by uid.
  virtual std::string execute(size_t index,
                              const std::map<int64_t, void *> &buffers,
                              void *workspace) = 0;
  /// cuDNN's JSON of built plan `index`, for an on-disk plan cache.
  virtual std::string planJson(size_t index, std::string &json) = 0;
};

} // namespace graph::rt

#endif // GRAPHDIALECT_RUNTIME_CUDNNGRAPH_H
