//===- CudnnEngine.cpp - The cuDNN engine's accept rules ------------------===//
//
// Groups lowered to cuDNN backend operation graphs (lib/Conversion/
// GraphToCudnn) and built by the runtime (lib/Runtime/CudnnGroup.cpp). Its
// one proposal is "heuristics": cuDNN's heuristics rank the concrete
// engine configs ("eng<id>_k<knob>=<value>...") when the group is built on
// the device, where they may still offer none.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Engines/Engine.h"

#include "../TensorTypes.h"
#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Groups.h"
#include "GraphDialect/NodeOps.h"

using namespace mlir;
using namespace mlir::graph;

namespace {

/// Whether `v` is an operand of `op` that cuDNN reads by value on the host:
/// a by-value port (Groups.h readsThroughByValuePort), or a graph input
/// marked graph.by_value that a pointwise op reads (the cuDNN lowering keeps
/// one read by any other op in device memory).
bool isByValueOperand(Operation *op, Value v) {
  return (isa<PointwiseOp>(op) && isByValueInput(v) && isTakenByValue(v, {})) ||
         readsThroughByValuePort(op, v);
}

class CudnnEngine final : public Engine {
public:
  StringRef name() const override { return "cudnn"; }

  /// Why cuDNN's engines cannot take `op` (as our lowering emits it), or ""
  /// when they can.
  std::string declines(Operation *op) const override {
    // An operand read on the host and handed to cuDNN by value (a norm's
    // epsilon and momentum) may be f64 (a torch float64 CPU tensor).
    auto byValue = [&](Value v) { return isByValueOperand(op, v); };
    auto isF64 = [](Value v) {
      return cast<RankedTensorType>(v.getType()).getElementType().isF64();
    };
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return isF64(v) && !byValue(v); }) ||
        llvm::any_of(op->getResults(), isF64))
      return "cuDNN's fused engines have no f64 path";
    // A norm's statistics (mean, inv_variance, the running stats) are FLOAT
    // in cuDNN. With a HALF inv_variance (the frontend's test_rmsnorm sets
    // the torch dtype of its reference) cuDNN 9.19 built the forward plan
    // and left the output unwritten (NaN on the H200); the backward fed it
    // got dX wrong (relative error 1.05).
    auto notF32 = [](Value v) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      return t && !t.getElementType().isF32();
    };
    if (isa<LayernormOp, RmsnormOp, BatchnormOp, InstancenormOp,
            AdaLayernormOp>(op))
      for (OpResult r : llvm::drop_begin(op->getResults()))
        if (notF32(r))
          return "cuDNN's norm forward writes its statistics (result " +
                 std::to_string(r.getResultNumber()) + ") as f32 only";
    bool backwardStatsNotF32 = false;
    if (auto rms = dyn_cast<RmsnormBackwardOp>(op))
      backwardStatsNotF32 = notF32(rms.getInvVariance());
    withOneOf<LayernormBackwardOp, AdaLayernormBackwardOp,
              InstancenormBackwardOp, BatchnormBackwardOp>(op, [&](auto bwd) {
      backwardStatsNotF32 =
          notF32(bwd.getMean()) || notF32(bwd.getInvVariance());
    });
    if (backwardStatsNotF32)
      return "cuDNN's norm backward reads the statistics (mean, "
             "inv_variance) as f32 only";
    // Measured on the H200 (cuDNN 9.19, test_mhas_v2's
    // test_sdpa_random_bwd_ragged_L0, 28 of its sink cases): the composite
    // backward with a sink_token on packed (ragged) tensors returned an
    // all-NaN dSink_token, and some plans (eng6) faulted with an illegal
    // address, which poisons the CUDA context. Declined rather than run.
    if (auto bwd = dyn_cast<SdpaBackwardOp>(op))
      if (bwd.getSinkToken() &&
          llvm::any_of(getRaggedPorts(bwd), [](const RaggedPort &port) {
            return bool(port.offsets);
          }))
        return "cuDNN 9.19's sdpa backward with a sink_token on ragged "
               "(packed) tensors gave an all-NaN dSink_token and faulted "
               "with an illegal address on the H200";
    // Measured on the H200 (cuDNN 9.19): the REDUCTION descriptor with
    // CUDNN_REDUCE_TENSOR_AVG fails cudnnBackendFinalize with NOT_SUPPORTED
    // (EfficientNet's squeeze-excitation pool), whatever the graph.
    if (auto reduction = dyn_cast<ReductionOp>(op))
      if (reduction.getMode() == ReductionMode::avg)
        return "cuDNN's REDUCTION descriptor rejects avg (finalize "
               "NOT_SUPPORTED on the H200, cuDNN 9.19)";
    // Measured on an H100 (cuDNN 9.19, sm90): every gather-mode plan faulted
    // with an illegal address, at every size and with legal routing, which
    // poisons the CUDA context. graph-split-moe-gather runs the op as a row
    // gather and a none-mode matmul where the generated kernels copy the
    // tokens; whatever it leaves in gather mode is declined, not run. The
    // engine does not know the target GPU, so this holds on every GPU.
    if (auto moe = dyn_cast<MoeGroupedMatmulOp>(op))
      if (moe.getMode() == MoeMode::gather)
        return "cuDNN 9.19's gather-mode grouped matmul faulted with an "
               "illegal address on an H100 (sm90), so it is not run; "
               "graph-split-moe-gather runs gather mode as a row gather for "
               "f32, f16, bf16 and fp8 tokens with i32 routing and a static K";
    if (isa<PointwiseOp, MatmulOp, ConvFpropOp, ConvDgradOp, ConvWgradOp,
            ReductionOp, LayernormOp, RmsnormOp, BatchnormOp,
            BatchnormInferenceOp, InstancenormOp, AdaLayernormOp,
            LayernormBackwardOp, RmsnormBackwardOp, BatchnormBackwardOp,
            InstancenormBackwardOp, AdaLayernormBackwardOp, GenstatsOp, SdpaOp,
            SdpaBackwardOp, MoeGroupedMatmulOp, RngOp>(op))
      return "";
    // fp8 attention forward: the frontend's SDPA FP8 composite graph, with
    // the masks and scales of graph.sdpa but no bias, ALiBi or dropout.
    if (auto fp8 = dyn_cast<SdpaFp8Op>(op)) {
      std::optional<APFloat> p = fp8.getDropoutProbability();
      bool dropout = p && p->convertToDouble() > 0;
      if (fp8.getBias() || fp8.getDropoutMask() || fp8.getUseAlibiMask() ||
          dropout)
        return "cuDNN's fp8 attention is lowered without a bias, ALiBi or "
               "dropout";
      // Measured: cuDNN 9.19's heuristics offer no engine config for the
      // fp8 graph with an f16 O on the H200 (the frontend's f16-out fp8
      // tests run on sm100 only).
      if (!isa<Float8E4M3FNType, Float8E5M2Type>(
              cast<RankedTensorType>(fp8.getO().getType()).getElementType()))
        return "cuDNN's fp8 attention writes an fp8 O only (no engine "
               "config for an f16/bf16 O on sm90, cuDNN 9.19)";
      return "";
    }
    // cuDNN's PAGED_CACHE_LOAD exists only as the K/V operand of its
    // attention graphs (graph.sdpa's page_table_k/v lower to it); a gather
    // whose result other ops read is the generated kernels'.
    if (isa<PagedCacheLoadOp>(op))
      return "cuDNN runs PAGED_CACHE_LOAD only inside its attention graphs "
             "(sdpa's page_table_k/v), not as a gather of its own";
    return ("no cuDNN lowering for " + op->getName().stripDialect() + " yet")
        .str();
  }

  /// A layer/rms/instance-norm backward runs alone: with a pointwise or
  /// reduction epilogue (GPT-2's layernorm_backward + residual-grad add +
  /// bias-grad reduction) cuDNN 9.19's heuristics offer an engine (eng5)
  /// that faults with "misaligned address" at execution on the H200, which
  /// poisons the CUDA context, so no later plan can recover.
  std::string declinesGroup(ArrayRef<Operation *> ops) const override {
    if (std::string why = Engine::declinesGroup(ops); !why.empty())
      return why;
    // cuDNN generates Philox masks inside its fused attention graphs only.
    for (Operation *op : ops)
      if (auto rng = dyn_cast<RngOp>(op))
        if (!llvm::any_of(rng.getY().getUsers(), [&](Operation *user) {
              return isa<SdpaOp, SdpaBackwardOp>(user) &&
                     llvm::is_contained(ops, user);
            }))
          return describeNode(op) +
                 ": cuDNN runs an rng only fused with the sdpa or "
                 "sdpa_backward that reads it as its dropout_mask";
    // cuDNN's BOOLEAN tensors in memory hold one bit per element (the
    // frontend's relu-bitmask programs bind a uint8 buffer of C/8 channels
    // to one); the compiler's boolean buffers hold a byte per element. A
    // boolean the group reads from or writes to memory would be misread
    // silently, so such groups go to the other engines; booleans inside
    // the group (virtual) are fine.
    auto isBool = [](Value v) {
      return cast<RankedTensorType>(v.getType()).getElementType().isInteger(1);
    };
    for (Operation *op : ops) {
      for (Value v : op->getOperands())
        if (isBool(v) && !llvm::is_contained(ops, v.getDefiningOp()))
          return describeNode(op) +
                 ": reads a boolean from memory, which cuDNN packs one bit "
                 "per element (the compiler's boolean buffers hold a byte "
                 "per element)";
      for (Value v : op->getResults())
        if (isBool(v) && llvm::any_of(v.getUsers(), [&](Operation *user) {
              return !llvm::is_contained(ops, user);
            }))
          return describeNode(op) +
                 ": writes a boolean to memory, which cuDNN packs one bit "
                 "per element (the compiler's boolean buffers hold a byte "
                 "per element)";
    }
    if (llvm::count_if(ops, [](Operation *op) {
          return !isa<ReshapeOp, TransposeOp, SliceOp>(op);
        }) < 2)
      return "";
    // A matmul fused with gen_index (a mask over the product's rows and
    // columns): measured on the H200 with cuDNN 9.19, eng7 ran such a graph
    // ([8,128,128] scores, causal mask from two gen_index) with the mask on
    // the wrong side of the diagonal, a silent wrong answer. The matmul and
    // the mask go to separate groups.
    if (llvm::any_of(ops, [](Operation *op) { return isa<MatmulOp>(op); }))
      for (Operation *op : ops)
        if (auto pointwise = dyn_cast<PointwiseOp>(op))
          if (pointwise.getMode() == PointwiseMode::gen_index)
            return describeNode(op) +
                   ": cuDNN's matmul engines misplace gen_index masks "
                   "(measured on the H200, cuDNN 9.19), so gen_index is not "
                   "fused with a matmul";
    for (Operation *op : ops)
      if (isa<LayernormBackwardOp, RmsnormBackwardOp, InstancenormBackwardOp,
              AdaLayernormBackwardOp>(op))
        return describeNode(op) +
               ": cuDNN runs a norm backward only alone (its engines for "
               "a norm backward with fused ops fault at execution)";
    if (std::string why = declinesNormPrologue(ops); !why.empty())
      return why;
    return "";
  }

  std::vector<std::string> planNames() const override { return {"heuristics"}; }

  /// A layernorm's or rmsnorm's scale or bias computed in the group by a
  /// pointwise op (the zero-centered gamma + 1), as cuDNN 9.19 on the H200
  /// runs it: with the 1 a CUDA tensor (the op reads two tensors from
  /// memory) every engine segfaulted in cudnnBackendExecute; with a
  /// by-value scalar other than 1.0 it fails at execute with BAD_PARAM
  /// ("add_scalar" must be 1), so only add(x, constant 1.0) stays: a
  /// graph.by_value input's value is known only at execute. Such a group
  /// goes to another engine (or is split).
  static std::string declinesNormPrologue(ArrayRef<Operation *> ops) {
    // cuDNN compares the scalar's bits, read as an f32, with 1.0f.
    auto isOne = [](ScalarOp scalar) {
      auto f = scalar ? dyn_cast<FloatAttr>(scalar.getValue()) : FloatAttr();
      return f && f.getType().isF32() && f.getValueAsDouble() == 1.0;
    };
    // A graph.scalar outside the group reaches it as a block argument:
    // isTakenByValue resolves it.
    auto fromMemory = [&](Value v) {
      return !llvm::is_contained(ops, v.getDefiningOp()) &&
             !isTakenByValue(v, ops);
    };
    for (Operation *op : ops) {
      if (!isa<LayernormOp, AdaLayernormOp, RmsnormOp>(op))
        continue;
      for (const PortValue &param : getPortValues(op)) {
        if (param.isResult || !param.value ||
            (param.port != ::graph::Port::scale &&
             param.port != ::graph::Port::bias))
          continue;
        auto prologue = param.value.getDefiningOp<PointwiseOp>();
        if (!prologue || !llvm::is_contained(ops, prologue.getOperation()))
          continue;
        std::string computed =
            describeNode(op) + ": its " + portName(param.port) +
            " is computed in the group by " + describeNode(prologue);
        if (llvm::count_if(prologue->getOperands(), fromMemory) >= 2)
          return computed +
                 " reading two tensors from memory, which cuDNN's norm "
                 "engines crash on (pass a one-element operand by value)";
        for (OpOperand &use : prologue->getOpOperands()) {
          Value operand = use.get(), source = resolveGroupValue(operand);
          auto scalar = source.getDefiningOp<ScalarOp>();
          if (!scalar &&
              !(isByValueInput(source) && isTakenByValue(operand, ops)))
            continue;
          if (prologue.getMode() != PointwiseMode::add ||
              use.getOperandNumber() != 1 || !isOne(scalar))
            return computed +
                   " from a by-value scalar, which cuDNN's norm engines "
                   "take only as x + an f32 constant 1.0 (another value, or "
                   "one known only at execute, fails there)";
        }
      }
    }
    return "";
  }

  /// cuDNN generates the Philox mask of an sdpa's (or sdpa_backward's)
  /// dropout inside the fused attention graph, so the rng runs in the
  /// attention's group (its mask may also be a graph output: rng_dump).
  /// The frontend's mixed-precision matmul casts a graph input in an
  /// identity whose only use is an operand of the matmul (int8 B to bf16):
  /// cuDNN's mixed-input engines take the casts and the matmul as one
  /// graph, and a cast of int8 alone has no engine. Only while M, N and K
  /// are multiples of 8 (or dynamic, decided again once the shapes are
  /// bound): at other sizes cuDNN 9.19's runtime-fusion engine (engine 7,
  /// every knob) reads a cast operand out of bounds or wrongly (the
  /// frontend's unaligned matmul fuzzer on the H200: illegal addresses,
  /// wrong and run-to-run different results), while the cast run alone and
  /// the matmul of its materialized result are right.
  static bool castFusesAtThisSize(MatmulOp matmul) {
    auto a = cast<RankedTensorType>(matmul->getOperand(0).getType());
    auto b = cast<RankedTensorType>(matmul->getOperand(1).getType());
    if (a.getRank() < 2 || b.getRank() < 2)
      return true; // the verifier refuses such a matmul
    ArrayRef<int64_t> as = a.getShape(), bs = b.getShape();
    // K from both sides: one may be dynamic where the other is known.
    int64_t m = as[as.size() - 2], k = as.back(), kOfB = bs[bs.size() - 2],
            n = bs.back();
    return llvm::all_of(ArrayRef<int64_t>{m, n, k, kOfB}, [](int64_t extent) {
      return ShapedType::isDynamic(extent) || extent % 8 == 0;
    });
  }

  bool runsFusedInto(Operation *producer, Operation *consumer) const override {
    if (auto rng = dyn_cast<RngOp>(producer))
      return isa<SdpaOp, SdpaBackwardOp>(consumer) &&
             llvm::all_of(rng->getUsers(), [&](Operation *user) {
               return user == consumer || isa<OutputOp>(user);
             });
    if (auto identity = dyn_cast<PointwiseOp>(producer)) {
      auto matmul = dyn_cast<MatmulOp>(consumer);
      return matmul && castFusesAtThisSize(matmul) &&
             identity.getMode() == PointwiseMode::identity &&
             identity->getResult(0).hasOneUse() &&
             isa<BlockArgument>(identity.getInputs().front());
    }
    return false;
  }
};

} // namespace

const Engine &mlir::graph::getCudnnEngine() {
  static const CudnnEngine engine;
  return engine;
}
