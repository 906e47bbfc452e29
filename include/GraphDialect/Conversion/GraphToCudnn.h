//===- GraphToCudnn.h - Lower fused groups to cuDNN and run them -*- C++ -*-===//
//
// Turns a graph whose groups were formed by graph-fuse and ranked by
// graph-select-engines into the runtime's group descriptions (CudnnProgram):
// one device tensor per graph input, output and tensor that crosses groups,
// one group description per fused group. Pure lowering: nothing here runs
// or links the runtime; the engine layer (GraphDialect/Engine/GpuExecutor.h)
// builds the plans and executes.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_CONVERSION_GRAPHTOCUDNN_H
#define GRAPHDIALECT_CONVERSION_GRAPHTOCUDNN_H

#include "GraphDialect/Reference/Executor.h"
#include "GraphDialect/Runtime/CudnnGraph.h"
#include "GraphDialect/Runtime/Program.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class OpPassManager;
class Operation;
namespace graph {
class GraphOp;

// The program's structs live in the runtime's vocabulary (shared with the
// exec.program loader, Executable/ExecToRuntime.h); these names are theirs.
using DeviceTensor = ::graph::rt::DeviceTensor;
using GroupEngine = ::graph::rt::GroupEngine;
using CudnnProgram = ::graph::rt::Program;

/// The graph ops one lowered group comes from, so its plans can be checked
/// against the CPU reference (ref::executeOps): the ops in schedule order and
/// the value behind each of the group's device tensors.
struct GroupSource {
  std::vector<Operation *> ops;
  std::map<int64_t, Value> values; // uid -> value (every tensor not by value)
  bool tf32 = false;               // the graph computes in tf32
  /// Every tensor of the group as described before its ranks were padded
  /// (by-value ones included), with its value, in the order of the spec.
  std::vector<std::pair<Value, ::graph::rt::TensorSpec>> tensors;
};

/// The ranks cuDNN wants a group's tensors in: matmul, pointwise and
/// reduction tensors of rank 3 or more, all of one rank in a group, padded
/// with leading unit dims (a batch of 1); norm tensors of rank 4, padded
/// with trailing ones (their dim 0 is the batch); convolutions and
/// attention keep their ranks (4 or 5 already). The group descriptions
/// (buildGroupSpec) and the codegen engine's graph ops (buildGroupOps) pad
/// by this one rule.
struct RankPadding {
  size_t rank = 0;       // every tensor's rank after padding; 0: kept
  bool trailing = false; // unit dims go after the given ones

  /// The padding of a group of ops of `kinds` whose largest tensor has
  /// rank `maxRank`.
  static RankPadding of(ArrayRef<::graph::OpKind> kinds, size_t maxRank);
  /// The leading unit dims a tensor of rank `tensorRank` gets.
  int64_t leading(size_t tensorRank) const;
  /// Pads `tensor`'s dims and strides (a leading unit dim's stride spans
  /// the tensor, a trailing one's is 1).
  void pad(::graph::rt::TensorSpec &tensor) const;
};

/// Integer attribute `name` (`values`: the integer or the array) of an op
/// of `kind` after padding, where its first input (port `input` or
/// `inputs_0`) got `inputPad` leading unit dims and its `output`
/// `outputPad`: concatenate, block-scale quantize and gen_index axes shift,
/// transpose permutations and slices grow identity entries in front.
void padAxisAttribute(::graph::OpKind kind, StringRef name,
                      std::vector<int64_t> &values, int64_t inputPad,
                      int64_t outputPad);

/// Gives the uid of tensor `value` (an operand or result of one of a
/// group's ops), adding the tensor to the group's spec the first time it is
/// asked for; sets `error` when the tensor cannot be described.
using GroupTensorFn =
    llvm::function_ref<int64_t(Value value, std::string &error)>;

/// Describes one group for the runtime: an OpSpec per op of `ops` (the
/// group's node ops in schedule order; graph.scalar is no node: its value
/// is a by-value tensor) with the op's kind, label, mode, attributes and
/// ports as GraphOps.td names them, `compute` (null: the default) as its
/// compute type unless the op gives one; the tensors through `tensorOf`,
/// which fills spec.tensors; then every tensor and axis attribute padded to
/// the ranks cuDNN wants. lowerToCudnn builds each live group with it and
/// the artifact loader (exec::loadProgram) each exec.cudnn_group. Returns
/// "" or the error naming the op.
std::string buildGroupSpec(ArrayRef<Operation *> ops, Type compute,
                           GroupTensorFn tensorOf,
                           ::graph::rt::GraphSpec &spec);

/// The 16-bit type the f32 tensor `value` is stored in when it crosses a
/// group boundary only into tensor-core operands whose partner operand is
/// 16-bit (a norm's f32 intermediate feeding a bf16 matmul, say): every
/// reader is a matmul or convolution outside its group (`inItsGroup` says
/// which readers are in it) whose other operand is f16, or every one bf16.
/// The producer then writes what the matmul or convolution would round its
/// operand to anyway, and cuDNN gets the same-typed operands its engines
/// take (its heuristics offer no engine config for an f32 x bf16 matmul).
/// Null otherwise: kept in its own type (also when a reader in its group,
/// or the graph's output, reads it: those see the exact value). Likewise a
/// batchnorm's f32 Y of a 16-bit X, read only outside its group, is stored
/// in X's type (cuDNN plans no f16-in f32-out batchnorm training). The
/// group descriptions (lowerToCudnn) and graph-lower-to-linalg store alike.
Type tensorCoreStoredType(Value value,
                          llvm::function_ref<bool(Operation *)> inItsGroup);

/// The dtype, static dims and strides (the #graph.strides encoding, or
/// row-major) of tensor `value` as a group's tensor. Returns "" or why the
/// GPU cannot hold it.
std::string describeTensor(Value value, ::graph::rt::TensorSpec &tensor);

/// One group of a graph as the GPU lowerings see it, before either writes
/// it down: lowerToCudnn makes its GraphSpec (buildGroupSpec) of it,
/// graph-generate-kernels its graph ops (buildGroupOps).
struct GroupDescription {
  std::string name;                 // "<graph>/group<id>"
  std::vector<std::string> engines; // the group's ranked engines
  /// The node ops to run (not views folded into aliases) and the tensors
  /// their ports bind, in port order: uid, stored dtype, dims, strides and
  /// whether a buffer, virtual or by value; ranks not padded yet.
  GroupSource source;
};

/// lowerToCudnn's graph-wide step: the uids (the graph's, then fresh ones
/// above them), which tensors live in buffers (inputs, outputs, tensors
/// another group reads) in which type (tensorCoreStoredType) and layout
/// (`foldViews`, as lowerToCudnn says), and one description per group
/// with ops to run, in id order. `program` gets the device tensors and the
/// outputs' uids, no groups. Returns "" or lowerToCudnn's error.
std::string describeGroups(GraphOp graph, CudnnProgram &program,
                           std::vector<GroupDescription> &groups,
                           bool foldViews = false);

/// Whether the GPU path takes `graph` (which must have gone through
/// graph-prepare, graph-fuse and graph-select-engines): every input and
/// output has a uid, no output is a pass-by-value scalar, every op but a
/// scalar is in a graph.group, every input and every tensor a group's op
/// reads or writes has a GPU description (describeTensor), and every node
/// op a cuDNN lowering. Builds nothing. Returns "" or the error naming the
/// input, output or op and the rule: lowerToCudnn's first error.
std::string verifyGpuLowerable(GraphOp graph);

/// Builds the program of `graph`, which must have gone through
/// graph-prepare, graph-fuse and graph-select-engines. Returns "" or the
/// error naming the op and the rule (verifyGpuLowerable's checks first).
/// `sources`, when given, gets one entry per group (parallel to
/// program.groups), valid while `graph` lives. `foldViews`:
/// reshape/transpose/slice results whose readers all take strided operands
/// become aliases of their source (DeviceTensor::aliasOf) instead of copy
/// groups, and a transposed intermediate is written in the layout that makes
/// its view packed. Only the executor binds aliases.
std::string lowerToCudnn(GraphOp graph, CudnnProgram &program,
                         std::vector<GroupSource> *sources = nullptr,
                         bool foldViews = false);

/// The pipeline graph-run and the C API use before lowering: graph-prepare,
/// graph-widen-norm-gradients, graph-fuse,
/// graph-select-engines.
void buildGpuPipeline(OpPassManager &pm);

/// Whether an input of `graph` has a dynamic ('?') dim: the GPU runs it
/// through specializeForGpu with the shapes of each execute's inputs.
bool hasDynamicInputs(GraphOp graph);

/// A copy of `graph`, in a new module put in `holder`, with every dynamic dim
/// bound from `inputShapes` (one per input, in argument order; see
/// graph-specialize-shapes) and run through buildGpuPipeline: ready for
/// GpuExecutable::create. nullptr and `error` naming the input or op and the
/// rule when a shape contradicts the graph or no GPU engine runs the result.
GraphOp specializeForGpu(GraphOp graph,
                         const std::vector<::graph::ref::Shape> &inputShapes,
                         OwningOpRef<ModuleOp> &holder, std::string &error);

} // namespace graph
} // namespace mlir

#endif // GRAPHDIALECT_CONVERSION_GRAPHTOCUDNN_H
