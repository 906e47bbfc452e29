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

LogicalResult verifyStats(Operation *op, NormKind kind, StringRef port,
                          Value value, Value input) {
  if (kind == NormKind::AdaLayer)
    if (Value scale = layerScaleOf(op))
      return expectDims(op, port, value,
                        adaLayerStatsDims(shapeOf(input), shapeOf(scale)),
                        "input dims with the dims scale varies along "
                        "(beyond the batch) set to 1");
  if (kind == NormKind::Layer || kind == NormKind::Rms)
    if (Value scale = layerScaleOf(op))
      return expectDims(op, port, value,
                        layerStatsDims(shapeOf(input), shapeOf(scale)),
                        "input dims with the normalized dims, where scale "
                        "is not 1, set to 1");
  return expectDims(op, port, value, statsDims(kind, shapeOf(input)),
                    statsRule(kind));
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

template <typename NormOp>
LogicalResult verifyNormForward(NormOp op, NormKind kind) {
  Operation *raw = op.getOperation();
  if (failed(verifyCommon(raw)) || failed(verifyNormInput(raw, op.getInput())))
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
  return expectDims(raw, "Y", op.getY(), shapeOf(op.getInput()), "like input");
}

/// The phase rule for all of `stats` first, then the dims of those present.
LogicalResult verifyPhaseStats(Operation *op, NormKind kind, NormPhase phase,
                               Value input,
                               ArrayRef<std::pair<StringRef, Value>> stats) {
  if (failed(verifyPhaseOutputs(op, phase, stats)))
    return failure();
  for (auto [port, value] : stats)
    if (value && failed(verifyStats(op, kind, port, value, input)))
      return failure();
  return success();
}

/// Layer, adaptive layer and instance norm: the forward rules, then the
/// training statistics mean and inv_var.
template <typename NormOp>
LogicalResult verifyNormWithMeanInvVar(NormOp op, NormKind kind) {
  if (failed(verifyNormForward(op, kind)))
    return failure();
  return verifyPhaseStats(
      op, kind, op.getPhase(), op.getInput(),
      {{"mean", op.getMean()}, {"inv_var", op.getInvVar()}});
}

template <typename NormBwdOp>
LogicalResult verifyNormBackward(NormBwdOp op, NormKind kind) {
  Operation *raw = op.getOperation();
  if (failed(verifyCommon(raw)) || failed(verifyNormInput(raw, op.getInput())))
    return failure();
  ArrayRef<int64_t> input = shapeOf(op.getInput());
  if (failed(expectDims(raw, "grad", op.getGrad(), input, "like input")) ||
      failed(verifyAffine(raw, kind, "scale", op.getScale(), op.getInput(),
                          op.getScale())) ||
      failed(expectDims(raw, "DX", op.getDX(), input, "like input")) ||
      failed(expectDims(raw, "DScale", op.getDScale(), shapeOf(op.getScale()),
                        "like scale")))
    return failure();
  if (Value dbias = op.getDBias())
    if (failed(expectDims(raw, "DBias", dbias, shapeOf(op.getScale()),
                          "like scale")))
      return failure();
  return verifyStats(raw, kind, "inv_variance", op.getInvVariance(),
                     op.getInput());
}

/// Every backward norm but rms also takes the saved mean, checked last.
template <typename NormBwdOp>
LogicalResult verifyNormBackwardWithMean(NormBwdOp op, NormKind kind) {
  if (failed(verifyNormBackward(op, kind)))
    return failure();
  return verifyStats(op, kind, "mean", op.getMean(), op.getInput());
}

} // namespace

LogicalResult LayernormOp::verify() {
  return verifyNormWithMeanInvVar(*this, NormKind::Layer);
}

LogicalResult AdaLayernormOp::verify() {
  return verifyNormWithMeanInvVar(*this, NormKind::AdaLayer);
}

LogicalResult InstancenormOp::verify() {
  return verifyNormWithMeanInvVar(*this, NormKind::Instance);
}

LogicalResult RmsnormOp::verify() {
  if (failed(verifyNormForward(*this, NormKind::Rms)))
    return failure();
  return verifyPhaseStats(*this, NormKind::Rms, getPhase(), getInput(),
                          {{"inv_var", getInvVar()}});
}

LogicalResult BatchnormOp::verify() {
  if (failed(verifyNormForward(*this, NormKind::Batch)))
    return failure();
  for (auto [port, value] : {std::pair<StringRef, Value>{"mean", getMean()},
                             {"inv_var", getInvVar()},
                             {"in_running_mean", getInRunningMean()},
                             {"in_running_var", getInRunningVar()},
                             {"next_running_mean", getNextRunningMean()},
                             {"next_running_var", getNextRunningVar()}})
    if (value &&
        failed(verifyStats(*this, NormKind::Batch, port, value, getInput())))
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
  if (Value momentum = getMomentum())
    if (failed(expectOneElement(*this, "momentum", momentum)))
      return failure();
  return success();
}

LogicalResult BatchnormInferenceOp::verify() {
  if (failed(verifyCommon(*this)) || failed(verifyNormInput(*this, getInput())))
    return failure();
  for (auto [port, value] : {std::pair<StringRef, Value>{"mean", getMean()},
                             {"inv_variance", getInvVariance()},
                             {"scale", getScale()},
                             {"bias", getBias()}})
    if (failed(verifyStats(*this, NormKind::Batch, port, value, getInput())))
      return failure();
  return expectDims(*this, "Y", getY(), shapeOf(getInput()), "like input");
}

LogicalResult LayernormBackwardOp::verify() {
  return verifyNormBackwardWithMean(*this, NormKind::Layer);
}

LogicalResult AdaLayernormBackwardOp::verify() {
  return verifyNormBackwardWithMean(*this, NormKind::AdaLayer);
}

LogicalResult InstancenormBackwardOp::verify() {
  return verifyNormBackwardWithMean(*this, NormKind::Instance);
}

LogicalResult RmsnormBackwardOp::verify() {
  if (failed(verifyNormBackward(*this, NormKind::Rms)))
    return failure();
  return expectResultExactlyWhen(
      *this, getHasDbias(), getDBias(),
      "has_dbias is true but there is no DBias result",
      "has_dbias is false but there is a DBias result");
}

LogicalResult BatchnormBackwardOp::verify() {
  return verifyNormBackwardWithMean(*this, NormKind::Batch);
}

LogicalResult GenstatsOp::verify() {
  if (failed(verifyCommon(*this)) || failed(verifyNormInput(*this, getInput())))
    return failure();
  if (failed(verifyStats(*this, NormKind::Batch, "SUM", getSUM(), getInput())))
    return failure();
  return verifyStats(*this, NormKind::Batch, "SQ_SUM", getSQ_SUM(), getInput());
}
