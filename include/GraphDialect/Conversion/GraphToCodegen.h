//===- GraphToCodegen.h - Generated kernels for memory-bound groups -*- C++ -*-//
//
// The codegen engine (codegen_v1): a group's pointwise ops with numpy
// broadcasting and last-axis reductions become a func of linalg.generic on
// tensors by conversion patterns (one file per op family), which is fused,
// bufferized, lowered to parallel loops, mapped to the GPU (one thread per
// element of the collapsed iteration space, 256 per block), outlined,
// converted to NVVM and serialized to sm_90 PTX in process.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_CONVERSION_GRAPHTOCODEGEN_H
#define GRAPHDIALECT_CONVERSION_GRAPHTOCODEGEN_H

#include "GraphDialect/Runtime/CodegenKernel.h"
#include "GraphDialect/Runtime/CudnnGraph.h"
#include "GraphDialect/Runtime/DeviceLimits.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Value.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseMap.h"

#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class ModuleOp;
class OpPassManager;
class RewritePatternSet;
class TypeConverter;
namespace graph {
struct GroupDescription;

#define GEN_PASS_DECL
#include "GraphDialect/Conversion/CodegenPasses.h.inc"

/// The engine name in plan reports.
constexpr const char *kCodegenEngine = "codegen_v1";

/// Why codegen_v1 cannot run `spec`, or "" when it can.
std::string codegenDeclines(const ::graph::rt::GraphSpec &spec);

/// The conversion patterns of the codegen engine's linalg route, one set
/// per op family: graph.pointwise (modes ScalarOps lowers, numpy
/// broadcasting) and graph.reduction (last-axis add/max/min into f32) to
/// linalg.generic on tensors, computing in f32. `converter` gives the
/// group's tensor types (lowerGraphOpsToLinalg's).
void populatePointwiseToLinalgPatterns(const TypeConverter &converter,
                                       RewritePatternSet &patterns);
void populateReductionToLinalgPatterns(const TypeConverter &converter,
                                       RewritePatternSet &patterns);

/// Converts `func`, one group's graph ops in destination-passing form (its
/// arguments the group's inputs, then its outputs; it returns the values
/// for the outputs, in order; graph.scalar ops give by-value operands), to
/// linalg on tensors with the patterns above: tensors padded with leading
/// unit dims to the group's rank (3 or more), each result written into its
/// output argument (bufferization.writable). The argument types must be the
/// padded ones. Returns "" or the reason (the op that did not convert).
std::string lowerGraphOpsToLinalg(func::FuncOp func);

/// Appends `func.func @name` to `module`: `spec` as linalg.generic ops on
/// tensors (compute in f32), through lowerGraphOpsToLinalg: the spec's ops
/// become graph ops first. Arguments: the group's inputs, then its
/// outputs (destinations, returned); `argUids` gets their uids in order.
std::string lowerSpecToLinalg(const ::graph::rt::GraphSpec &spec,
                              ModuleOp module, StringRef name,
                              std::vector<int64_t> &argUids);

/// One group's graph ops as the codegen engine reads them: `func` holds
/// them (its arguments the buffers the group reads, then the ones it
/// writes; it returns the values written to those, in order; graph.scalar
/// ops give the by-value operands); `tensors` lists every tensor value of
/// the group in the group description's order and `uids` gives each its uid.
struct GroupOps {
  std::string name; // for messages, e.g. "mlp/group0"
  func::FuncOp func;
  SmallVector<Value> tensors;
  llvm::DenseMap<Value, int64_t> uids;
};

/// The adapter for callers that hold only a group description (the
/// runtime's GroupPlans: an artifact's groups, execute's split pieces; the
/// passes build from the group region, buildGroupOps): appends
/// `func.func @name` to `module` with `spec`'s ops as graph ops (any node op
/// kind: operands and results in ODS order, attributes as the op declares
/// them) on the spec's tensors, and describes it in `group`. `strides`:
/// tensor types carry the spec's strides (#graph.strides). Returns "" or
/// why not (the func is erased then).
std::string buildSpecGraphOps(const ::graph::rt::GraphSpec &spec,
                              ModuleOp module, StringRef name, bool strides,
                              GroupOps &group);

/// The adapter for a group of the graph: appends `func.func @name` to
/// `module` with the node ops of `group` (describeGroups') cloned onto its
/// tensors as the group descriptions type them (ranks padded as
/// RankPadding says, axis attributes with them; stored element types;
/// strides as #graph.strides unless `strides` is false), and describes it
/// in `out`: the graph ops buildSpecGraphOps would build from the group's
/// GraphSpec, without one. Returns "" or why not (the func is erased then).
std::string buildGroupOps(const GroupDescription &group, ModuleOp module,
                          StringRef name, GroupOps &out, bool strides = true);

/// linalg on tensors -> bufferized parallel loops -> outlined gpu kernels.
void buildCodegenToGpuPipeline(OpPassManager &pm);
/// The above, then the NVVM pipeline to sm_90 PTX (gpu.binary, format isa,
/// bare-pointer kernel arguments).
void buildCodegenToPtxPipeline(OpPassManager &pm);

/// The codegen engine's ranked plan list: codegen_v2_t<threads>_i<items>[_p]
/// (direct vectorized kernels: `threads` per block, `items` 16-byte runs
/// per thread in pointwise stages; row stages use `threads` or more so a
/// thread holds at most 48 floats per row-shaped input; `_p` pipelines row
/// loads one row ahead), then codegen_v1 (the linalg path: pointwise chains
/// and last-axis reductions only).
std::vector<std::string> codegenPlanNames();

/// Why the direct kernel generator (codegen_v2) cannot run `spec`, or "".
std::string codegenV2Declines(const ::graph::rt::GraphSpec &spec);
/// Why codegen_v2 cannot run `group`, or "".
std::string codegenV2Declines(const GroupOps &group);

/// Appends a gpu.module of kernels for `group`'s graph ops with the knobs
/// of `plan` (a codegen_v2 name) to `module`; `out` gets the launches (no
/// PTX yet) and the scratch buffers the runtime must provide. Launch
/// geometry follows `limits`: the GPU the kernels will run on
/// (rt::Device::limits), or the H200's defaults when generating without one.
std::string generateKernels(const GroupOps &group, const std::string &plan,
                            ModuleOp module, ::graph::rt::CodegenSpec &out,
                            const ::graph::rt::DeviceLimits &limits = {});
/// The above for a group description: its ops become graph ops first
/// (buildSpecGraphOps, in a module of their own).
std::string generateKernels(const ::graph::rt::GraphSpec &spec,
                            const std::string &plan, ModuleOp module,
                            ::graph::rt::CodegenSpec &out,
                            const ::graph::rt::DeviceLimits &limits = {});

/// Keeps one of each set of identical gpu.modules of `module` (identical
/// when printed with their symbol name set aside), re-points the symbol
/// references to the others at it, records on it the groups that share it
/// (`graph.groups`) and erases the others. Returns how many it erased.
size_t deduplicateKernelModules(ModuleOp module);

/// Compiles `spec` with codegen plan `plan` (either engine version) to PTX
/// kernels and their launch geometry for a GPU with `limits`. `cubin`:
/// assemble with ptxas.
std::string compilePlan(const ::graph::rt::GraphSpec &spec,
                        const std::string &plan, ::graph::rt::CodegenSpec &out,
                        bool cubin = false,
                        const ::graph::rt::DeviceLimits &limits = {});
/// The above for a codegen_v2 plan and a group's graph ops (buildGroupOps',
/// for callers that hold the graph); the kernels are generated in a context
/// of their own.
std::string compilePlan(const GroupOps &group, const std::string &plan,
                        ::graph::rt::CodegenSpec &out, bool cubin = false,
                        const ::graph::rt::DeviceLimits &limits = {});

/// gpu modules of generated kernels -> NVVM -> sm_90 PTX (gpu.binary);
/// `cubin`: assembled by ptxas into an sm_90 cubin instead.
void buildKernelsToPtxPipeline(OpPassManager &pm, bool cubin = false);

/// Compiles `spec` to PTX kernels and their launch geometry.
std::string compileToPtx(const ::graph::rt::GraphSpec &spec,
                         ::graph::rt::CodegenSpec &out);

/// Points MLIR's NVVM target at a CUDA toolkit (CUDA_ROOT) when the
/// environment names none, once per process. registerCodegenDialects does
/// it; a caller that compiles plans on several threads calls it first.
void prepareCodegenEnvironment();
/// Dialects and interfaces the codegen pipelines need.
void registerCodegenDialects(DialectRegistry &registry);
/// Passes and the `graph-codegen-to-ptx` pipeline.
void registerCodegenPasses();

} // namespace graph
} // namespace mlir

#endif // GRAPHDIALECT_CONVERSION_GRAPHTOCODEGEN_H
