//===- GraphOpsNorm.cpp - Verifiers of the normalization ops -------------===//
//
// Layer, RMS, instance, adaptive layer and batch norm (forward, inference
// and backward) and genstats: the shapes of scale, bias and the statistics
// each kind of norm keeps, and the phase rule for the training statistics.
//
//===----------------------------------------------------------------------===//

#include "GraphOpsInternal.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::graph;
using namespace mlir::graph::detail;

//===----------------------------------------------------------------------===//
// Norms
//===----------------------------------------------------------------------===//

namespace {

/// `[1, C, 1, ...]`-shaped per-channel tensor of an `input`-ranked tensor.
SmallVector<int64_t> perChannelDims(ArrayRef<int64_t> input) {
  SmallVector<int64_t> dims(input.size(), 1);
  if (input.size() > 1)
    dims[1] = input[1];
  return dims;
}

/// Input dims with every dim but those in `keep` set to 1.
SmallVector<int64_t> keepDims(ArrayRef<int64_t> input,
                              std::initializer_list<unsigned> keep) {
  SmallVector<int64_t> dims(input.size(), 1);
  for (unsigned k : keep)
    if (k < input.size())
      dims[k] = input[k];
  return dims;
}

/// Which dims a norm's statistics keep.
enum class NormKind { Layer, AdaLayer, Instance, Batch, Rms };

SmallVector<int64_t> statsDims(NormKind kind, ArrayRef<int64_t> input) {
  switch (kind) {
  case NormKind::Layer:
  case NormKind::AdaLayer:
  case NormKind::Rms:
    return keepDims(input, {0});
  case NormKind::Instance:
    return keepDims(input, {0, 1});
  case NormKind::Batch:
    return perChannelDims(input);
  }
  return {};
}

/// Dims of scale and bias for each kind of norm.
SmallVector<int64_t> affineDims(NormKind kind, ArrayRef<int64_t> input) {
  SmallVector<int64_t> dims(input);
  switch (kind) {
  case NormKind::Layer:
  case NormKind::Rms:
    dims[0] = 1;
    return dims;
  case NormKind::AdaLayer:
    return dims;
  case NormKind::Instance:
  case NormKind::Batch:
    return perChannelDims(input);
  }
  return dims;
}

StringRef affineRule(NormKind kind) {
  switch (kind) {
  case NormKind::Layer:
  case NormKind::Rms: // verifyLayerScale checks these
    return "[1, input dims 1...] by default";
  case NormKind::AdaLayer:
    return "input dims: one value per sample and element";
  case NormKind::Instance:
  case NormKind::Batch:
    return "[1, C, 1, ...]: one value per channel";
  }
  return "";
}

StringRef statsRule(NormKind kind) {
  switch (kind) {
  case NormKind::Layer:
  case NormKind::AdaLayer:
  case NormKind::Rms:
    return "[N, 1, ...]: one value per sample";
  case NormKind::Instance:
    return "[N, C, 1, ...]: one value per sample and channel";
  case NormKind::Batch:
    return "[1, C, 1, ...]: one value per channel";
  }
  return "";
}

LogicalResult verifyNormInput(Operation *op, Value input) {
  if (rankOf(input) < 2)
    return emitNodeError(op) << "input must have rank >= 2 ([N, C, ...]) but "
                             << "has dims " << formatDims(shapeOf(input));
  return success();
}

/// Layer and RMS norm take the cuDNN frontend's rule: scale has the
/// input's rank, each of its dims is 1 or the input's extent, and the dims
/// where it is not 1 are the normalized ones (the others, dim 0 by default,
/// each index a statistic). x [16, 128, 768] with scale [1, 1, 768]
/// normalizes over the last dim; with scale [1, 128, 768] over the last two.
LogicalResult verifyLayerScale(Operation *op, Value scale, Value input) {
  ArrayRef<int64_t> x = shapeOf(input), s = shapeOf(scale);
  StringRef rule = "each dim 1 or the input's; the dims where scale is not 1 "
                   "are the normalized ones";
  if (s.size() != x.size())
    return emitNodeError(op)
           << "scale dims are " << formatDims(s) << " but must have the "
           << "input's rank " << x.size() << " (input dims " << formatDims(x)
           << "; " << rule << ")";
  for (size_t d = 0; d < x.size(); ++d)
    if (s[d] != 1 && !dimsCompatible(s[d], x[d]))
      return emitNodeError(op)
             << "scale dims are " << formatDims(s) << " but dim " << d << " is "
             << s[d] << ", neither 1 nor the input's " << x[d]
             << " (input dims " << formatDims(x) << "; " << rule << ")";
  bool normalizes = llvm::any_of(s, [](int64_t d) { return d != 1; });
  bool inputHasSpan =
      llvm::any_of(x.drop_front(), [](int64_t d) { return d != 1; });
  if (!normalizes && inputHasSpan)
    return emitNodeError(op)
           << "scale dims are " << formatDims(s) << " but at least one dim "
           << "must be the input's (input dims " << formatDims(x) << "; "
           << "the dims where scale is not 1 are the normalized ones, and "
           << "this scale normalizes none)";
  return success();
}

/// Statistics of a layer or RMS norm: the input's dims with each
/// normalized dim (scale's extent not 1) set to 1.
SmallVector<int64_t> layerStatsDims(ArrayRef<int64_t> input,
                                    ArrayRef<int64_t> scale) {
  SmallVector<int64_t> dims(input);
  for (size_t d = 0; d < dims.size() && d < scale.size(); ++d) {
    if (ShapedType::isDynamic(scale[d]))
      dims[d] = ShapedType::kDynamic; // either way
    else if (scale[d] != 1)
      dims[d] = 1;
  }
  return dims;
}

/// scale/bias shaped per `kind`. AdaLayer also accepts a batch of 1. A
/// layer or RMS norm's bias has its scale's dims.
LogicalResult verifyAffine(Operation *op, NormKind kind, StringRef port,
                           Value value, Value input, Value scale) {
  if (kind == NormKind::Layer || kind == NormKind::Rms) {
    if (value == scale)
      return verifyLayerScale(op, scale, input);
    return expectDims(op, port, value, shapeOf(scale),
                      "like scale: one value per normalized element");
  }
  SmallVector<int64_t> expected = affineDims(kind, shapeOf(input));
  if (kind == NormKind::AdaLayer && rankOf(value) == rankOf(input) &&
      broadcastsTo(shapeOf(value), expected))
    return success();
  return expectDims(op, port, value, expected, affineRule(kind));
}

/// Adaptive layer norm normalizes over the non-batch dims its scale varies
/// along: x [B, S, D] with scale [B, 1, D] has statistics [B, S, 1].
SmallVector<int64_t> adaLayerStatsDims(ArrayRef<int64_t> input,
                                       ArrayRef<int64_t> scale) {
  SmallVector<int64_t> dims(input);
  for (size_t d = 1; d < dims.size(); ++d)
    if (d < scale.size() && scale[d] != 1)
      dims[d] = 1;
  return dims;
}

/// The scale operand of a layer, RMS or adaptive layer norm (forward or
/// backward), null for other ops.
Value layerScaleOf(Operation *op) {
  return TypeSwitch<Operation *, Value>(op)
      .Case<LayernormOp, RmsnormOp, AdaLayernormOp, LayernormBackwardOp,
            RmsnormBackwardOp, AdaLayernormBackwardOp>(
          [](auto norm) { return norm.getScale(); })
      .Default([](Operation *) { return Value(); });
}

/// The dims of a statistic of `input` (a result such as mean, or an
/// operand such as the saved inv_variance) and their rule.
std::pair<SmallVector<int64_t>, StringRef>
statsFor(Operation *op, NormKind kind, Value input) {
  if (kind == NormKind::AdaLayer)
    if (Value scale = layerScaleOf(op))
      return {adaLayerStatsDims(shapeOf(input), shapeOf(scale)),
              "input dims with the dims scale varies along "
              "(beyond the batch) set to 1"};
  if (kind == NormKind::Layer || kind == NormKind::Rms)
    if (Value scale = layerScaleOf(op))
      return {layerStatsDims(shapeOf(input), shapeOf(scale)),
              "input dims with the normalized dims, where scale "
              "is not 1, set to 1"};
  return {statsDims(kind, shapeOf(input)), statsRule(kind)};
}

/// An operand statistic must have the statistics' dims.
LogicalResult verifyStats(Operation *op, NormKind kind, StringRef port,
                          Value value, Value input) {
  auto [dims, rule] = statsFor(op, kind, input);
  return expectDims(op, port, value, dims, rule);
}

/// A result statistic (null when absent) has the statistics' dims.
void setStats(Operation *op, NormKind kind, StringRef port, Value value,
              Value input, ResultDims &dims) {
  auto [stats, rule] = statsFor(op, kind, input);
  dims.set(value, port, stats, rule);
}

/// Forward phase rule: statistics exist in training and only there.
LogicalResult verifyPhaseOutputs(Operation *op, NormPhase phase,
                                 ArrayRef<std::pair<StringRef, Value>> stats) {
  for (auto [port, value] : stats) {
    if (phase == NormPhase::training && !value)
      return emitNodeError(op) << "the training phase produces " << port
                               << " but the op has no such result";
    if (phase == NormPhase::inference && value)
      return emitNodeError(op) << "the inference phase produces no " << port
                               << " (statistics exist only in training)";
  }
  return success();
}

/// The operands of a forward norm; Y is like input.
template <typename NormOp>
LogicalResult inferNormForward(NormOp op, NormKind kind, ResultDims &dims) {
  Operation *raw = op.getOperation();
  if (failed(verifyNormInput(raw, op.getInput())))
    return failure();
  if (failed(verifyAffine(raw, kind, "scale", op.getScale(), op.getInput(),
                          op.getScale())))
    return failure();
  if (Value bias = op.getBias())
    if (failed(verifyAffine(raw, kind, "bias", bias, op.getInput(),
                            op.getScale())))
      return failure();
  if (failed(expectOneElement(raw, "epsilon", op.getEpsilon())))
    return failure();
  dims.set(op.getY(), "Y", shapeOf(op.getInput()), "like input");
  return success();
}

/// Layer, adaptive layer and instance norm: the forward rules and the
/// training statistics mean and inv_var.
template <typename NormOp>
LogicalResult inferNormWithMeanInvVar(NormOp op, NormKind kind,
                                      ResultDims &dims) {
  if (failed(inferNormForward(op, kind, dims)))
    return failure();
  setStats(op, kind, "mean", op.getMean(), op.getInput(), dims);
  setStats(op, kind, "inv_var", op.getInvVar(), op.getInput(), dims);
  return success();
}

/// The common rules, the operands, the phase rule for the statistics
/// results, then the dims of the results.
template <typename NormOp>
LogicalResult verifyNormWithPhase(NormOp op,
                                  ArrayRef<std::pair<StringRef, Value>> stats) {
  ResultDims dims;
  if (failed(verifyCommon(op)) || failed(op.inferResultDims(dims)) ||
      failed(verifyPhaseOutputs(op, op.getPhase(), stats)))
    return failure();
  return checkResultDims(op, dims);
}

/// The operands of a backward norm (grad like input, scale, the saved
/// statistics); DX is like input, DScale and DBias like scale.
template <typename NormBwdOp>
LogicalResult inferNormBackward(NormBwdOp op, NormKind kind, ResultDims &dims) {
  Operation *raw = op.getOperation();
  if (failed(verifyNormInput(raw, op.getInput())))
    return failure();
  ArrayRef<int64_t> input = shapeOf(op.getInput());
  if (failed(expectDims(raw, "grad", op.getGrad(), input, "like input")) ||
      failed(verifyAffine(raw, kind, "scale", op.getScale(), op.getInput(),
                          op.getScale())) ||
      failed(verifyStats(raw, kind, "inv_variance", op.getInvVariance(),
                         op.getInput())))
    return failure();
  if constexpr (!std::is_same_v<NormBwdOp, RmsnormBackwardOp>)
    if (failed(verifyStats(raw, kind, "mean", op.getMean(), op.getInput())))
      return failure();
  dims.set(op.getDX(), "DX", input, "like input");
  dims.set(op.getDScale(), "DScale", shapeOf(op.getScale()), "like scale");
  dims.set(op.getDBias(), "DBias", shapeOf(op.getScale()), "like scale");
  return success();
}

} // namespace

LogicalResult LayernormOp::inferResultDims(ResultDims &dims) {
  return inferNormWithMeanInvVar(*this, NormKind::Layer, dims);
}
LogicalResult LayernormOp::verify() {
  return verifyNormWithPhase(*this,
                             {{"mean", getMean()}, {"inv_var", getInvVar()}});
}

LogicalResult AdaLayernormOp::inferResultDims(ResultDims &dims) {
  return inferNormWithMeanInvVar(*this, NormKind::AdaLayer, dims);
}
LogicalResult AdaLayernormOp::verify() {
  return verifyNormWithPhase(*this,
                             {{"mean", getMean()}, {"inv_var", getInvVar()}});
}

LogicalResult InstancenormOp::inferResultDims(ResultDims &dims) {
  return inferNormWithMeanInvVar(*this, NormKind::Instance, dims);
}
LogicalResult InstancenormOp::verify() {
  return verifyNormWithPhase(*this,
                             {{"mean", getMean()}, {"inv_var", getInvVar()}});
}

LogicalResult RmsnormOp::inferResultDims(ResultDims &dims) {
  if (failed(inferNormForward(*this, NormKind::Rms, dims)))
    return failure();
  setStats(*this, NormKind::Rms, "inv_var", getInvVar(), getInput(), dims);
  return success();
}
LogicalResult RmsnormOp::verify() {
  return verifyNormWithPhase(*this, {{"inv_var", getInvVar()}});
}

LogicalResult BatchnormOp::inferResultDims(ResultDims &dims) {
  if (failed(inferNormForward(*this, NormKind::Batch, dims)))
    return failure();
  for (auto [port, value] :
       {std::pair<StringRef, Value>{"in_running_mean", getInRunningMean()},
        {"in_running_var", getInRunningVar()}})
    if (value &&
        failed(verifyStats(*this, NormKind::Batch, port, value, getInput())))
      return failure();
  if (Value momentum = getMomentum())
    if (failed(expectOneElement(*this, "momentum", momentum)))
      return failure();
  for (auto [port, value] : {std::pair<StringRef, Value>{"mean", getMean()},
                             {"inv_var", getInvVar()},
                             {"next_running_mean", getNextRunningMean()},
                             {"next_running_var", getNextRunningVar()}})
    setStats(*this, NormKind::Batch, port, value, getInput(), dims);
  return success();
}

LogicalResult BatchnormOp::verify() {
  ResultDims dims;
  if (failed(verifyCommon(*this)) || failed(inferResultDims(dims)) ||
      failed(checkResultDims(*this, dims)))
    return failure();
  if (bool(getInRunningMean()) != bool(getInRunningVar()))
    return emitNodeError(*this) << "in_running_mean and in_running_var come "
                                << "together (running statistics are updated "
                                << "as a pair)";
  bool running = bool(getInRunningMean());
  if (running != bool(getNextRunningMean()) ||
      running != bool(getNextRunningVar()))
    return emitNodeError(*this)
           << "next_running_mean/next_running_var are produced exactly when "
           << "in_running_mean/in_running_var are given";
  if (running && !getMomentum())
    return emitNodeError(*this) << "updating running statistics requires "
                                << "momentum";
  if (!running && getMomentum())
    return emitNodeError(*this) << "momentum is given without in_running_mean/"
                                << "in_running_var (it only weighs the "
                                << "running statistics update)";
  return success();
}

LogicalResult BatchnormInferenceOp::inferResultDims(ResultDims &dims) {
  if (failed(verifyNormInput(*this, getInput())))
    return failure();
  for (auto [port, value] : {std::pair<StringRef, Value>{"mean", getMean()},
                             {"inv_variance", getInvVariance()},
                             {"scale", getScale()},
                             {"bias", getBias()}})
    if (failed(verifyStats(*this, NormKind::Batch, port, value, getInput())))
      return failure();
  dims.set(getY(), "Y", shapeOf(getInput()), "like input");
  return success();
}
LogicalResult BatchnormInferenceOp::verify() { return verifyByRule(*this); }

LogicalResult LayernormBackwardOp::inferResultDims(ResultDims &dims) {
  return inferNormBackward(*this, NormKind::Layer, dims);
}
LogicalResult LayernormBackwardOp::verify() { return verifyByRule(*this); }

LogicalResult AdaLayernormBackwardOp::inferResultDims(ResultDims &dims) {
  return inferNormBackward(*this, NormKind::AdaLayer, dims);
}
LogicalResult AdaLayernormBackwardOp::verify() { return verifyByRule(*this); }

LogicalResult InstancenormBackwardOp::inferResultDims(ResultDims &dims) {
  return inferNormBackward(*this, NormKind::Instance, dims);
}
LogicalResult InstancenormBackwardOp::verify() { return verifyByRule(*this); }

LogicalResult BatchnormBackwardOp::inferResultDims(ResultDims &dims) {
  return inferNormBackward(*this, NormKind::Batch, dims);
}
LogicalResult BatchnormBackwardOp::verify() { return verifyByRule(*this); }

LogicalResult RmsnormBackwardOp::inferResultDims(ResultDims &dims) {
  return inferNormBackward(*this, NormKind::Rms, dims);
}
LogicalResult RmsnormBackwardOp::verify() {
  if (failed(verifyByRule(*this)))
    return failure();
  return expectResultExactlyWhen(
      *this, getHasDbias(), getDBias(),
      "has_dbias is true but there is no DBias result",
      "has_dbias is false but there is a DBias result");
}

LogicalResult GenstatsOp::inferResultDims(ResultDims &dims) {
  if (failed(verifyNormInput(*this, getInput())))
    return failure();
  setStats(*this, NormKind::Batch, "SUM", getSUM(), getInput(), dims);
  setStats(*this, NormKind::Batch, "SQ_SUM", getSQ_SUM(), getInput(), dims);
  return success();
}
LogicalResult GenstatsOp::verify() { return verifyByRule(*this); }
