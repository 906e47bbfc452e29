//===- ExpandGqaBackward.cpp - GQA attention backward as multi-head -------===//
//
// cuDNN's composite attention backward (the one that runs causal and
// masked attention) needs as many key/value heads as query heads. This pass
// repeats k and v per query head before the backward and sums the
// per-query-head dK and dV of each key/value head after it, in graph ops
// the other engines run (concatenate, reshape, reduction).
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/GraphOps.h"
#include "GraphDialect/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::graph {
#define GEN_PASS_DEF_GRAPHEXPANDGQABACKWARD
#include "GraphDialect/Passes.h.inc"
} // namespace mlir::graph

using namespace mlir;
using namespace mlir::graph;

namespace {

/// A packed tensor type of `shape` and `element`.
RankedTensorType packed(ArrayRef<int64_t> shape, Type element) {
  return RankedTensorType::get(
      shape, element,
      StridesAttr::get(element.getContext(), getRowMajorStrides(shape)));
}

class Expander {
public:
  Expander(SdpaBackwardOp op) : op(op), b(op) {
    StringRef label = getNodeLabel(op);
    prefix = (label.empty() ? "sdpa_backward" : label).str();
  }

  /// Rewrites `op` when its k/v have fewer heads than q; false when not.
  bool run() {
    auto q = cast<RankedTensorType>(op.getQ().getType());
    auto k = cast<RankedTensorType>(op.getK().getType());
    auto v = cast<RankedTensorType>(op.getV().getType());
    if (q.getRank() != 4 || k.getRank() != 4 || v.getRank() != 4 ||
        !q.hasStaticShape() || !k.hasStaticShape() || !v.hasStaticShape())
      return false;
    int64_t hq = q.getDimSize(1);
    if (k.getDimSize(1) == hq && v.getDimSize(1) == hq)
      return false;
    if (k.getDimSize(1) <= 0 || hq % k.getDimSize(1) != 0 ||
        v.getDimSize(1) <= 0 || hq % v.getDimSize(1) != 0)
      return false; // the verifier names it
    // Ragged K/V/dK/dV offsets address their packed buffers; the repeated
    // tensors are laid out anew, so the rewrite would misplace them.
    if (op.getRaggedOffsetK() || op.getRaggedOffsetV() ||
        op.getRaggedOffsetDK() || op.getRaggedOffsetDV())
      return false;
    op.getKMutable().assign(repeat(op.getK(), hq, "k"));
    op.getVMutable().assign(repeat(op.getV(), hq, "v"));
    b.setInsertionPointAfter(op);
    sum(op.getDK(), k, "dK");
    sum(op.getDV(), v, "dV");
    return true;
  }

private:
  StringAttr name(const Twine &what) {
    return b.getStringAttr(prefix + ".gqa_" + what);
  }

  /// `x` [b, hk, s, d] read as [b, hq, s, d], each head repeated g times.
  Value repeat(Value x, int64_t hq, StringRef what) {
    auto type = cast<RankedTensorType>(x.getType());
    ArrayRef<int64_t> s = type.getShape();
    int64_t hk = s[1], g = hq / hk;
    Type element = type.getElementType();
    Location loc = op.getLoc();
    Value x5 =
        ReshapeOp::create(b, loc, packed({s[0], hk, 1, s[2], s[3]}, element), x,
                          name(what + "5"), nullptr);
    SmallVector<Value> copies(g, x5);
    Value wide = ConcatenateOp::create(
        b, loc, packed({s[0], hk, g, s[2], s[3]}, element), copies,
        b.getI64IntegerAttr(2), nullptr, name(what + "_repeated"), nullptr);
    return ReshapeOp::create(b, loc, packed({s[0], hq, s[2], s[3]}, element),
                             wide, name(what + "_heads"), nullptr);
  }

  /// `grad`, now per query head, summed back onto `original`'s heads.
  void sum(Value grad, RankedTensorType original, StringRef what) {
    ArrayRef<int64_t> s = original.getShape();
    int64_t hk = s[1];
    Type element = original.getElementType();
    Location loc = op.getLoc();
    // The gradient op now writes every query head's share.
    SmallVector<int64_t> full(s.begin(), s.end());
    full[1] = cast<RankedTensorType>(op.getQ().getType()).getDimSize(1);
    int64_t g = full[1] / hk;
    grad.setType(packed(full, element));
    Value g5 =
        ReshapeOp::create(b, loc, packed({s[0], hk, g, s[2], s[3]}, element),
                          grad, name(what + "_groups"), nullptr);
    Value summed = ReductionOp::create(
        b, loc, packed({s[0], hk, 1, s[2], s[3]}, element), ReductionMode::add,
        g5, Value(), name(what + "_sum"), nullptr);
    Value back =
        ReshapeOp::create(b, loc, original, summed, name(what), nullptr);
    grad.replaceAllUsesExcept(back, g5.getDefiningOp());
  }

  SdpaBackwardOp op;
  OpBuilder b;
  std::string prefix;
};

struct GraphExpandGqaBackward
    : public mlir::graph::impl::GraphExpandGqaBackwardBase<
          GraphExpandGqaBackward> {
  void runOnOperation() override {
    SmallVector<SdpaBackwardOp> ops;
    getOperation().walk([&](SdpaBackwardOp op) { ops.push_back(op); });
    for (SdpaBackwardOp op : ops)
      Expander(op).run();
  }
};

} // namespace
