//===- CodegenEngine.cpp - The generated-kernel engine's accept rules -----===//
//
// Memory-bound groups run as kernels we generate (lib/Conversion/
// GraphToCodegen): pointwise ops, reductions over any axes, layer/rms/
// instance/adaptive layer norms forward and backward, batchnorm inference,
// genstats, rope, block-scale quantize/dequantize, paged cache gathers and
// the data movement ops, on f32, f16, bf16, fp8, fp4, i1 and i32 tensors of
// any strides (compute in f32). The per-op list below is the one the kernel
// generator asks too (codegenDeclinesOp); whether a whole group fits is decided
// when its kernels are generated (codegenV2Declines), and a group declined
// there is split at run time.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Engines/Codegen.h"
#include "GraphDialect/Engines/Engine.h"

#include "../TensorTypes.h"
#include "GraphDialect/GraphOps.h"

using namespace mlir;
using namespace mlir::graph;

namespace {

/// Whether an op named `kind` in a group description (its name without
/// the dialect) is an `opName` (a full op name).
bool is(StringRef kind, StringRef opName) {
  return opName.consume_front("graph.") && opName == kind;
}

/// A list of op classes, tested by class on ops and by name on group
/// descriptions (which name an op by its name without the dialect).
template <typename... Ops> struct OpList {
  static bool contains(StringRef kind) {
    return (is(kind, Ops::getOperationName()) || ...);
  }
};

/// The ops the generated kernels have a kernel for.
using GeneratedOps =
    OpList<PointwiseOp, ReductionOp, LayernormOp, RmsnormOp, InstancenormOp,
           AdaLayernormOp, LayernormBackwardOp, RmsnormBackwardOp,
           InstancenormBackwardOp, AdaLayernormBackwardOp, BatchnormInferenceOp,
           GenstatsOp, TransposeOp, SliceOp, ConcatenateOp, ReshapeOp, RopeOp,
           RopeBackwardOp, BlockScaleDequantizeOp, BlockScaleQuantizeOp,
           PagedCacheLoadOp, MoeGatherRowsOp, MoeScatterRowsOp>;

class CodegenEngine final : public Engine {
public:
  StringRef name() const override { return "codegen"; }

  /// Why the generated-kernel engine cannot take `op`, or "" when it can.
  std::string declines(Operation *op) const override {
    if (isa<RngOp>(op))
      return philoxStreamDeclined();
    bool badType = engines::anyTensorOf(op, [](Type t) {
      return !(t.isF32() || t.isF16() || t.isBF16() || t.isInteger(1) ||
               t.isInteger(32) ||
               isa<Float8E4M3FNType, Float8E5M2Type, Float8E8M0FNUType,
                   Float4E2M1FNType>(t));
    });
    if (badType)
      return "generated kernels take f32, f16, bf16, fp8, fp4, i1 and i32 "
             "tensors only";
    std::string kind = op->getName().stripDialect().str();
    CodegenOpInfo info;
    info.kind = kind;
    std::string mode;
    if (auto pointwise = dyn_cast<PointwiseOp>(op)) {
      mode = stringifyPointwiseMode(pointwise.getMode()).str();
      info.mode = mode;
    }
    if (auto reduction = dyn_cast<ReductionOp>(op)) {
      info.ragged = static_cast<bool>(reduction.getGroupOffset());
      info.inputRank =
          cast<RankedTensorType>(reduction.getInput().getType()).getRank();
      info.outputRank =
          cast<RankedTensorType>(reduction.getOutput().getType()).getRank();
    }
    if (auto quantize = dyn_cast<BlockScaleQuantizeOp>(op))
      info.ragged = static_cast<bool>(quantize.getGroupOffset());
    return codegenDeclinesOp(info);
  }

  /// Ranked by the H200 timings of bench/gpu/tune_rows.sh (bench/
  /// RESULTS.md): 128-thread row blocks are fastest or tied on 4096-wide
  /// rows and within 2% on 16384-wide ones (where the pipelined _p plans
  /// win on layernorm). codegen_v2_t<threads>_i<items>[_p] are the direct
  /// kernel generator's plans; codegen_v1 (the linalg path: pointwise
  /// chains and last-axis reductions only) is last.
  std::vector<std::string> planNames() const override {
    return {
        "codegen_v2_t128_i4",   "codegen_v2_t256_i2",   "codegen_v2_t256_i4",
        "codegen_v2_t512_i1",   "codegen_v2_t512_i2",   "codegen_v2_t1024_i1",
        "codegen_v2_t256_i2_p", "codegen_v2_t512_i2_p", "codegen_v1"};
  }
};

} // namespace

std::string mlir::graph::codegenDeclinesOp(const CodegenOpInfo &op) {
  if (is(op.kind, BatchnormOp::getOperationName()))
    return "generated kernels do not run batchnorm training (statistics "
           "across rows); cuDNN does";
  if (!GeneratedOps::contains(op.kind))
    return ("generated kernels have no " + op.kind + " yet").str();
  if (is(op.kind, PointwiseOp::getOperationName()) &&
      !symbolizePointwiseMode(op.mode))
    return ("generated kernels have no pointwise " + op.mode).str();
  if (is(op.kind, ReductionOp::getOperationName())) {
    if (op.ragged)
      return "generated kernels have no ragged (group_offset) reduction";
    if (op.inputRank >= 0 && op.outputRank >= 0 &&
        op.inputRank != op.outputRank)
      return "generated kernels reduce to a result of the input's rank";
  }
  if (is(op.kind, BlockScaleQuantizeOp::getOperationName()) && op.ragged)
    return "generated kernels have no ragged (group_offset) quantize";
  return "";
}

const Engine &mlir::graph::getCodegenEngine() {
  static const CodegenEngine engine;
  return engine;
}
