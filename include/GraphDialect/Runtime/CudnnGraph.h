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

#include "GraphDialect/Runtime/Device.h"
#include "GraphDialect/Support/DType.h"
#include "GraphDialect/Support/OpKind.h"
#include "GraphDialect/Support/Port.h"
#include "GraphDialect/Support/Shape.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace graph::rt {

/// One tensor of a group. Ports of ops refer to it by uid.
struct TensorSpec {
  int64_t uid = 0;
  DType dtype = DType::F32;
  Shape dims;
  Shape strides;          // elements; never empty once lowered
  bool isVirtual = false; // lives only inside the group
  bool isByValue = false; // a pass-by-value scalar; `byValue` holds it
  double byValue = 0.0;
  // A one-element graph input cuDNN takes by value (graph.by_value): its
  // buffer is read on the host at each execute.
  bool readByValue = false;
};

/// One node. Port names (inputs -> outputs; [optional]):
///   pointwise      in0 [in1] [in2] -> output. Backward modes are
///                  (in0 = loss, in1 = input); binary_select is
///                  (in0 = input0, in1 = input1, in2 = mask). floatAttrs:
///                  negative_slope, lower_clip, upper_clip, swish_beta,
///                  elu_alpha, softplus_beta; intAttrs: axis (gen_index).
///   matmul         A B -> C; floatAttrs: padding.
///   conv_fprop     image weight -> Y;  conv_dgrad loss filter -> DX;
///   conv_wgrad     image loss -> DW. intAttrs: pre_padding, post_padding,
///                  stride, dilation (per spatial dim; default 0/0/1/1);
///                  mode: "cross_correlation" (default) or "convolution".
///   reduction      input -> output; mode: add, mul, min, max, amax, avg,
///                  norm1, norm2, mul_no_zeros.
///   layernorm, instancenorm, adalayernorm: input scale bias epsilon ->
///                  Y [mean] [inv_var]; mode: "training" | "inference".
///   rmsnorm        input scale [bias] epsilon -> Y [inv_var]; mode as above.
///   batchnorm      input scale bias epsilon [in_running_mean
///                  in_running_var momentum] -> Y mean inv_var
///                  [next_running_mean next_running_var].
///   batchnorm_inference input mean inv_variance scale bias -> Y.
///   layernorm_backward, instancenorm_backward, adalayernorm_backward,
///   batchnorm_backward: grad input scale mean inv_variance -> DX DScale
///                  DBias; rmsnorm_backward: grad input scale inv_variance
///                  -> DX DScale [DBias].
///   genstats       input -> SUM SQ_SUM.     reshape  input -> output.
///   sdpa           q k v [attn_scale] [bias] [seq_len_q] [seq_len_kv]
///                  [dropout_mask] -> O [Stats] [score_max] [score_sum_exp].
///   sdpa_backward  q k v o dO stats [same optional inputs] -> dQ dK dV.
///                  sdpa floatAttrs: attn_scale_value, dropout_probability;
///                  intAttrs (flags are {1}): use_causal_mask,
///                  use_causal_mask_bottom_right, use_padding_mask,
///                  use_alibi_mask, diagonal_alignment (0 top_left,
///                  1 bottom_right), diagonal_band_left_bound,
///                  diagonal_band_right_bound, sliding_window_length.
/// Scalars (epsilon, momentum, attn_scale) may be by-value tensors.
///
/// `kind` is the graph op (OpKind::Pointwise, OpKind::Matmul, ...), which
/// reads and prints as its mnemonic ("pointwise", "matmul", "conv_fprop",
/// "*_backward", "sdpa", ...): assigning a mnemonic parses it;
/// `mode` the pointwise/reduction mode or the norm phase; ports are the
/// dialect's operand and result names (Port::A, Port::B, Port::C,
/// Port::input, Port::Y, ...), which read and print as their names (a
/// variadic operand's elements as "inputs_0", "inputs_1", ...).
struct OpSpec {
  SpecOpKind kind;
  std::string mode;
  std::string name; // user label, for messages
  std::map<SpecPort, int64_t> inputs;
  std::map<SpecPort, int64_t> outputs;
  std::map<std::string, std::vector<int64_t>> intAttrs;
  std::map<std::string, double> floatAttrs;
  DType computeType = DType::F32;
};

struct GraphSpec {
  std::string name; // group name for messages, e.g. "mlp/group0"
  std::vector<TensorSpec> tensors;
  std::vector<OpSpec> ops;
  /// The engines graph-select-engines chose for the group, in rank order
  /// ("cudnn", "codegen"); empty: any engine may try (a split piece).
  std::vector<std::string> engines;
  bool allows(const std::string &engine) const {
    return engines.empty() ||
           std::find(engines.begin(), engines.end(), engine) != engines.end();
  }
};

enum class HeurMode { A, B, Fallback };

/// A knob type of the plans of an alternate description of a group (its
/// value: which; 0 = a 1x1 convolution as a matmul), beside cuDNN's: a
/// plan replayed with it (CudnnGroup::addPlan) runs on that description.
constexpr int64_t kAlternateKnob = 2000;

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

/// One group lowered to a cuDNN operation graph, with its plan list.
class CudnnGroup {
public:
  /// Builds and finalizes the operation graph; nullptr and `error` naming
  /// the op and cuDNN's message when cuDNN rejects it.
  static std::unique_ptr<CudnnGroup> create(Device &device,
                                            const GraphSpec &spec,
                                            std::string &error);
  virtual ~CudnnGroup() = default;

  /// Queries the heuristics modes in order and appends their configs. When
  /// they offer none for a layout-free graph (pointwise-only on one packed
  /// shape, or a one-op reduction of whole axis runs), rebuilds the graph
  /// relabeled into layouts cuDNN's runtime-fusion engines take (same uids
  /// and bytes; the plan name gets " [as ...]") and asks again.
  virtual std::string createPlans(const std::vector<HeurMode> &modes) = 0;
  /// Appends the heuristics' plans for other descriptions of the group
  /// that may run faster (a 1x1 convolution as a matmul; plan names end in
  /// " [as ...]"), after the plans so far; returns how many. Once per group.
  virtual size_t addAlternatePlans(const std::vector<HeurMode> &modes) = 0;
  /// Appends a plan for an explicit engine id and knobs (plan replay; a
  /// kAlternateKnob knob builds it on that alternate description).
  virtual std::string addPlan(int64_t engineId,
                              const std::vector<std::pair<int64_t, int64_t>> &knobs) = 0;
  virtual const std::vector<PlanInfo> &plans() const = 0;
  /// Finalizes plan `index`; records and returns the reason if it declines.
  virtual std::string buildPlan(size_t index) = 0;
  /// Finalizes plans `indices` (distinct), up to `threads` at once, each
  /// thread on its own cuDNN handle (Device::buildHandles; a runtime-fusion
  /// plan compiles its kernels when it is finalized); returns each one's
  /// buildPlan answer, in the order of `indices`.
  virtual std::vector<std::string>
  buildPlans(const std::vector<size_t> &indices, unsigned threads) = 0;
  /// Runs built plan `index` with device pointers keyed by uid.
  virtual std::string execute(size_t index,
                              const std::map<int64_t, void *> &buffers,
                              void *workspace) = 0;
  /// cuDNN's JSON of built plan `index`, for an on-disk plan cache.
  virtual std::string planJson(size_t index, std::string &json) = 0;
  /// Appends a plan rebuilt from `planJson` output and builds it.
  virtual std::string addPlanFromJson(const std::string &json) = 0;
  /// Bytes of workspace `execute` needs for built plan `index` (the plan's
  /// own plus the group's internal scratch tensors).
  virtual int64_t workspaceBytes(size_t index) const = 0;
  /// Whether the workspace holds constants uploaded once (ALiBi slopes):
  /// such a group needs a workspace no one else writes between executes.
  virtual bool workspaceHoldsConstants() const = 0;
  /// Whether execute reads a by-value scalar from its buffer on the host
  /// (a one-element graph input cuDNN takes by value): a recording of the
  /// execute would keep the value read then.
  virtual bool readsValuesOnHost() const = 0;
};

/// Canonical text of a spec: ops, ports, attributes, dims, strides and
/// dtypes (names and the group name are left out). Equal keys mean the same
/// cuDNN operation graph.
std::string canonicalKey(const GraphSpec &spec);

/// The process's plan cache: a group with a built plan for `spec` on
/// `device`, keyed by canonicalKey + device.version(). On a miss it loads
/// the plan JSON from $GRAPH_PLAN_CACHE_DIR when present, else asks the
/// heuristics (modes A then fallback), builds the first plan that finalizes
/// and writes its JSON there.
std::string getCachedPlan(Device &device, const GraphSpec &spec,
                          CudnnGroup *&group, size_t &planIndex);

} // namespace graph::rt

#endif // GRAPHDIALECT_RUNTIME_CUDNNGRAPH_H
