//===- GraphOpsDataMovement.cpp - Reshape, slice, transpose, concatenate --===//
//
// The ops that move elements without converting them: their verifiers,
// result type inference and assembly, the folds of identity reshapes and
// transposes, and the canonicalization patterns that compose them.
//
//===----------------------------------------------------------------------===//

#include "GraphOpsInternal.h"

#include "GraphDialect/Support/CheckedMath.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::detail;

namespace {

LogicalResult expectSameElementType(Operation *op, StringRef port, Value value,
                                    StringRef refPort, Value ref) {
  if (elementOf(value) == elementOf(ref))
    return success();
  return emitNodeError(op) << port << " has element type " << elementOf(value)
                           << " but must keep " << refPort << "'s "
                           << elementOf(ref);
}

/// Reshape, slice and transpose move elements around but never convert them.
LogicalResult verifyCommonKeepingElementType(Operation *op, Value input,
                                             Value output) {
  if (failed(verifyCommon(op)) ||
      failed(expectSameElementType(op, "output", output, "input", input)))
    return failure();
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

// The new dims are the user's (the frontend's set_dim): not inferable.
LogicalResult ReshapeOp::inferResultDims(ResultDims &) { return success(); }

LogicalResult ReshapeOp::verify() {
  if (failed(verifyCommonKeepingElementType(*this, getInput(), getOutput())))
    return failure();
  int64_t in = staticElementCount(shapeOf(getInput()));
  int64_t out = staticElementCount(shapeOf(getOutput()));
  if (!ShapedType::isDynamic(in) && !ShapedType::isDynamic(out) && in != out)
    return emitNodeError(*this)
           << "input has " << in << " elements ("
           << formatDims(shapeOf(getInput())) << ") but output has " << out
           << " (" << formatDims(shapeOf(getOutput()))
           << "); a reshape keeps the element count";
  return success();
}

/// Elements of [start, limit) taken every `step` (>= 1, start <= limit):
/// ceil((limit - start) / step), the rule's extent, which the parser's type
/// inference uses too.
static int64_t sliceExtent(int64_t start, int64_t limit, int64_t step) {
  return (limit - start + step - 1) / step;
}

LogicalResult SliceOp::inferResultDims(ResultDims &dims) {
  ArrayRef<int64_t> in = shapeOf(getInput());
  size_t rank = in.size();
  SmallVector<int64_t> step = getStep() ? SmallVector<int64_t>(*getStep())
                                        : SmallVector<int64_t>(rank, 1);
  for (auto [name, size] :
       {std::pair<StringRef, size_t>{"start", getStart().size()},
        {"limit", getLimit().size()},
        {"step", step.size()}})
    if (size != rank)
      return emitNodeError(*this) << name << " has " << size
                                  << " entries but input has rank " << rank;
  SmallVector<int64_t> expected;
  for (size_t i = 0; i < rank; ++i) {
    int64_t start = getStart()[i], limit = getLimit()[i];
    if (step[i] < 1)
      return emitNodeError(*this)
             << "step[" << i << "] is " << step[i] << " but must be >= 1";
    if (start < 0 || start > limit ||
        (!ShapedType::isDynamic(in[i]) && limit > in[i]))
      return emitNodeError(*this) << "dim " << i << ": slice [" << start << ", "
                                  << limit << ") is out of bounds "
                                  << "for extent " << formatDims(in[i])
                                  << " (need 0 <= start <= limit <= extent)";
    expected.push_back(sliceExtent(start, limit, step[i]));
  }
  dims.set(getOutput(), "output", expected,
           "ceil((limit - start) / step) per dim");
  return success();
}

LogicalResult SliceOp::verify() {
  ResultDims dims;
  if (failed(verifyCommonKeepingElementType(*this, getInput(), getOutput())) ||
      failed(inferResultDims(dims)))
    return failure();
  return checkResultDims(*this, dims);
}

LogicalResult TransposeOp::inferResultDims(ResultDims &dims) {
  ArrayRef<int64_t> in = shapeOf(getInput());
  ArrayRef<int64_t> perm = getPermutation();
  if (perm.size() != in.size())
    return emitNodeError(*this) << "permutation has " << perm.size()
                                << " entries but input has rank " << in.size();
  SmallVector<bool> seen(in.size(), false);
  SmallVector<int64_t> expected;
  for (auto [i, p] : llvm::enumerate(perm)) {
    if (p < 0 || p >= static_cast<int64_t>(in.size()) || seen[p])
      return emitNodeError(*this) << "permutation entry " << i << " is " << p
                                  << " (a permutation holds each of 0.."
                                  << in.size() - 1 << " once)";
    seen[p] = true;
    expected.push_back(in[p]);
  }
  dims.set(getOutput(), "output", expected,
           "output dim i is input dim permutation[i]");
  return success();
}

LogicalResult TransposeOp::verify() {
  ResultDims dims;
  if (failed(verifyCommonKeepingElementType(*this, getInput(), getOutput())) ||
      failed(inferResultDims(dims)))
    return failure();
  return checkResultDims(*this, dims);
}

// The concatenate walk shared by the shape rule and the verifier: each input
// has the rank of `ref` and its dims but along the axis; the result is the
// sum of the inputs' extents along the axis (dynamic when one of them is).
// `refName` names `ref` in the messages ("inputs[0]" in the rule, "the
// output" in the verifier); given `sameElementTypeAs`, each input's element
// type must be its too (checked after the rank, before the dims). The caller
// has checked that there is an input and that the axis is in range.
static FailureOr<int64_t> concatAxisExtent(ConcatenateOp op,
                                           ArrayRef<int64_t> ref,
                                           StringRef refName,
                                           Value sameElementTypeAs) {
  int64_t axis = op.getAxis();
  int64_t total = 0;
  for (auto [i, input] : llvm::enumerate(op.getInputs())) {
    ArrayRef<int64_t> dims = shapeOf(input);
    std::string port = "inputs[" + std::to_string(i) + "]";
    if (dims.size() != ref.size())
      return emitNodeError(op) << port << " has rank " << dims.size() << " but "
                               << refName << " has rank " << ref.size();
    if (sameElementTypeAs && failed(expectSameElementType(
                                 op, port, input, "output", sameElementTypeAs)))
      return failure();
    for (size_t d = 0; d < dims.size(); ++d)
      if (static_cast<int64_t>(d) != axis && !dimsCompatible(dims[d], ref[d]))
        return emitNodeError(op) << port << " dim " << d << " is " << dims[d]
                                 << " but " << refName << "'s is " << ref[d]
                                 << " (only the axis dim may differ)";
    if (ShapedType::isDynamic(dims[axis]) || ShapedType::isDynamic(total)) {
      total = ShapedType::kDynamic;
      continue;
    }
    std::optional<int64_t> sum = ::graph::checkedAdd(total, dims[axis]);
    if (!sum)
      return emitNodeError(op)
             << "the inputs' extents along axis " << axis
             << " add up to more than 2^63 - 1 (up to " << port << ")";
    total = *sum;
  }
  return total;
}

// output = inputs[0]'s dims with the axis dim the sum of the inputs'; the
// inputs agree on every other dim.
LogicalResult ConcatenateOp::inferResultDims(ResultDims &dims) {
  if (getInputs().empty())
    return emitNodeError(*this) << "needs at least one input";
  ArrayRef<int64_t> first = shapeOf(getInputs().front());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= static_cast<int64_t>(first.size()))
    return emitNodeError(*this) << "axis " << axis << " is out of range for "
                                << "rank " << first.size();
  FailureOr<int64_t> total =
      concatAxisExtent(*this, first, "inputs[0]", /*sameElementTypeAs=*/{});
  if (failed(total))
    return failure();
  SmallVector<int64_t> out(first);
  out[axis] = *total;
  dims.set(getOutput(), "output", out,
           "inputs[0]'s dims with the axis dim the inputs' sum");
  return success();
}

// The output-side checks name the output (the rule's name inputs[0]); the
// rule's dims follow.
LogicalResult ConcatenateOp::verify() {
  if (failed(verifyCommon(*this)))
    return failure();
  if (getInputs().empty())
    return emitNodeError(*this) << "needs at least one input";
  ArrayRef<int64_t> out = shapeOf(getOutput());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= static_cast<int64_t>(out.size()))
    return emitNodeError(*this) << "axis " << axis << " is out of range for "
                                << "rank " << out.size();
  FailureOr<int64_t> total =
      concatAxisExtent(*this, out, "the output", getOutput());
  if (failed(total))
    return failure();
  if (!dimsCompatible(*total, out[axis]))
    return emitNodeError(*this) << "output dim " << axis << " is " << out[axis]
                                << " but the inputs' extents along the axis "
                                << "add up to " << *total;
  if (IntegerAttr indexAttr = getInPlaceIndexAttr()) {
    int64_t index = indexAttr.getInt();
    if (index < 0 || index >= static_cast<int64_t>(getInputs().size()))
      return emitNodeError(*this)
             << "in_place_index " << index << " is not an input index (0.."
             << getInputs().size() - 1 << ")";
  }
  ResultDims dims;
  if (failed(inferResultDims(dims)))
    return failure();
  return checkResultDims(*this, dims);
}

//===----------------------------------------------------------------------===//
// Folders and canonicalization patterns
//===----------------------------------------------------------------------===//

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getOutput().getType() &&
      keepsOutputs(getOutput(), getInput()))
    return getInput();
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  bool identity = llvm::all_of(llvm::enumerate(perm), [](auto pair) {
    return static_cast<int64_t>(pair.index()) == pair.value();
  });
  if (identity && getInput().getType() == getOutput().getType() &&
      keepsOutputs(getOutput(), getInput()))
    return getInput();
  return {};
}

namespace {

/// transpose(transpose(x, p1), p2) -> transpose(x, p1 o p2).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> composed;
    for (int64_t p : op.getPermutation())
      composed.push_back(inner.getPermutation()[p]);
    rewriter.modifyOpInPlace(op, [&] {
      op.getInputMutable().assign(inner.getInput());
      op.setPermutation(composed);
    });
    return success();
  }
};

/// reshape(reshape(x)) -> reshape(x).
struct ComposeReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    rewriter.modifyOpInPlace(
        op, [&] { op.getInputMutable().assign(inner.getInput()); });
    return success();
  }
};

} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ComposeReshapes>(context);
}

//===----------------------------------------------------------------------===//
// Result type inference and assembly
//===----------------------------------------------------------------------===//

GRAPH_INFERRED_RESULT_ASSEMBLY(TransposeOp)
GRAPH_INFERRED_RESULT_ASSEMBLY(SliceOp)
GRAPH_INFERRED_RESULT_ASSEMBLY(ConcatenateOp)

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  ArrayRef<int64_t> in = shapeOf(adaptor.getInput());
  ArrayRef<int64_t> perm = adaptor.getPermutationAttr()
                               ? adaptor.getPermutation()
                               : ArrayRef<int64_t>();
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(p >= 0 && p < static_cast<int64_t>(in.size())
                        ? in[p]
                        : ShapedType::kDynamic);
  if (perm.size() != in.size())
    shape.assign(in.begin(), in.end());
  results.push_back(inferredTensor(shape, adaptor.getInput()));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  ArrayRef<int64_t> in = shapeOf(adaptor.getInput());
  SmallVector<int64_t> shape(in);
  if (adaptor.getStartAttr() && adaptor.getLimitAttr() &&
      adaptor.getStart().size() == in.size() &&
      adaptor.getLimit().size() == in.size()) {
    std::optional<ArrayRef<int64_t>> steps = adaptor.getStep();
    for (size_t d = 0; d < in.size(); ++d) {
      int64_t step = steps && steps->size() == in.size() ? (*steps)[d] : 1;
      int64_t span = adaptor.getLimit()[d] - adaptor.getStart()[d];
      shape[d] =
          step >= 1 && span >= 0
              ? sliceExtent(adaptor.getStart()[d], adaptor.getLimit()[d], step)
              : in[d];
    }
  }
  results.push_back(inferredTensor(shape, adaptor.getInput()));
  return success();
}

LogicalResult ConcatenateOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location>,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &results) {
  if (adaptor.getInputs().empty())
    return failure(); // nothing to infer from: the text must give the type
  Value first = adaptor.getInputs().front();
  SmallVector<int64_t> shape(shapeOf(first));
  int64_t axis = adaptor.getAxisAttr() ? adaptor.getAxis() : -1;
  if (axis >= 0 && axis < static_cast<int64_t>(shape.size())) {
    int64_t total = 0;
    for (Value input : adaptor.getInputs()) {
      ArrayRef<int64_t> dims = shapeOf(input);
      int64_t extent = axis < static_cast<int64_t>(dims.size())
                           ? dims[axis]
                           : ShapedType::kDynamic;
      std::optional<int64_t> sum = ::graph::checkedAdd(total, extent);
      // An overflowing sum is left to the verifier to diagnose.
      total =
          ShapedType::isDynamic(extent) || ShapedType::isDynamic(total) || !sum
              ? ShapedType::kDynamic
              : *sum;
    }
    shape[axis] = total;
  }
  results.push_back(inferredTensor(shape, first));
  return success();
}
