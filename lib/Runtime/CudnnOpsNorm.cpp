//===- CudnnOpsNorm.cpp - Normalizations and genstats ---------------------===//
//
// Lowers layer/RMS/instance/ada-layer/batch norm forward and backward to
// cuDNN's norm operations, batchnorm inference to pointwise ops, and
// genstats.
//
//===----------------------------------------------------------------------===//

#include "CudnnGroupInternal.h"

#include <string>
#include <utility>

namespace graph::rt::cudnn {

namespace {

/// The norm mode of a norm kind or of its "_backward".
cudnnBackendNormMode_t normMode(const SpecOpKind &kind) {
  if (kind.isOneOf({OpKind::Layernorm, OpKind::LayernormBackward}))
    return CUDNN_LAYER_NORM;
  if (kind.isOneOf({OpKind::Rmsnorm, OpKind::RmsnormBackward}))
    return CUDNN_RMS_NORM;
  if (kind.isOneOf({OpKind::Instancenorm, OpKind::InstancenormBackward}))
    return CUDNN_INSTANCE_NORM;
  if (kind.isOneOf({OpKind::AdaLayernorm, OpKind::AdaLayernormBackward}))
    return CUDNN_ADA_LAYER_NORM;
  return CUDNN_BATCH_NORM;
}

} // namespace

std::string Lowering::lowerNormForward() {
  static const OpPort kPorts[] = {
      PORT(input, kInput | kRequired, CUDNN_ATTR_OPERATION_NORM_FWD_XDESC),
      PORT(scale, kInput | kRequired, CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC),
      PORT(epsilon, kInput | kRequired,
           CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC),
      PORT(Y, kOutput | kRequired, CUDNN_ATTR_OPERATION_NORM_FWD_YDESC),
      PORT(bias, kInput, CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC),
      PORT(mean, kOutput | kScratch, CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC),
      PORT(inv_var, kOutput | kScratch,
           CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC),
      PORT(momentum, kInput, CUDNN_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC),
      PORT(in_running_mean, kInput,
           CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC),
      PORT(in_running_var, kInput,
           CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC),
      PORT(next_running_mean, kOutput,
           CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC),
      PORT(next_running_var, kOutput,
           CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC),
  };
  bool batchnorm = op->kind == OpKind::Batchnorm;
  cudnnBackendNormMode_t mode = normMode(op->kind);
  bool training = batchnorm || op->mode != "inference";
  if (!batchnorm && op->mode != "training" && op->mode != "inference")
    return err("norm phase must be 'training' or 'inference', not '" +
               op->mode + "'");
  cudnnBackendNormFwdPhase_t phase =
      training ? CUDNN_NORM_FWD_TRAINING : CUDNN_NORM_FWD_INFERENCE;
  DescPtr o;
  TRY(b.create(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR, o,
               "OPERATION_NORM_FORWARD"));
  SET(o, CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, 1, &mode);
  SET(o, CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, 1,
      &phase);
  TRY(setPorts(*this, o, kPorts));
  TRY(b.finalize(o, "OPERATION_NORM_FORWARD"));
  ops.push_back(o);
  return "";
}

std::string Lowering::lowerBatchnormInference() {
  int64_t x, mean, inv, scale, bias, y;
  TRY(in(Port::input, x));
  TRY(in(Port::mean, mean));
  TRY(in(Port::inv_variance, inv));
  TRY(in(Port::scale, scale));
  TRY(in(Port::bias, bias));
  TRY(out(Port::Y, y));
  const Tensor *xt = find(x);
  if (!xt)
    return err("input is not a tensor of the group");
  cudnnDataType_t c = comp();
  int64_t t1 = newVirtual(xt->dims, CUDNN_DATA_FLOAT);
  int64_t t2 = newVirtual(xt->dims, CUDNN_DATA_FLOAT);
  int64_t t3 = newVirtual(xt->dims, CUDNN_DATA_FLOAT);
  TRY(pointwise(CUDNN_POINTWISE_SUB, x, mean, 0, t1, c));
  TRY(pointwise(CUDNN_POINTWISE_MUL, t1, inv, 0, t2, c));
  TRY(pointwise(CUDNN_POINTWISE_MUL, t2, scale, 0, t3, c));
  return pointwise(CUDNN_POINTWISE_ADD, t3, bias, 0, y, c);
}

std::string Lowering::lowerNormBackward() {
  static const OpPort kPorts[] = {
      PORT(grad, kInput | kRequired, CUDNN_ATTR_OPERATION_NORM_BWD_DYDESC),
      PORT(input, kInput | kRequired, CUDNN_ATTR_OPERATION_NORM_BWD_XDESC),
      PORT(scale, kInput | kRequired, CUDNN_ATTR_OPERATION_NORM_BWD_SCALE_DESC),
      PORT(inv_variance, kInput | kRequired,
           CUDNN_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC),
      PORT(mean, kInput | kRequired | kNotRms,
           CUDNN_ATTR_OPERATION_NORM_BWD_MEAN_DESC),
      PORT(DX, kOutput | kRequired, CUDNN_ATTR_OPERATION_NORM_BWD_DXDESC),
      PORT(DScale, kOutput | kRequired | kScratch,
           CUDNN_ATTR_OPERATION_NORM_BWD_DSCALE_DESC),
      PORT(DBias, kOutput | kScratch, CUDNN_ATTR_OPERATION_NORM_BWD_DBIAS_DESC),
  };
  cudnnBackendNormMode_t mode = normMode(op->kind);
  DescPtr o;
  TRY(b.create(CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR, o,
               "OPERATION_NORM_BACKWARD"));
  SET(o, CUDNN_ATTR_OPERATION_NORM_BWD_MODE, CUDNN_TYPE_NORM_MODE, 1, &mode);
  TRY(setPorts(*this, o, kPorts, mode == CUDNN_RMS_NORM));
  TRY(b.finalize(o, "OPERATION_NORM_BACKWARD"));
  ops.push_back(o);
  return "";
}

std::string Lowering::lowerGenstats() {
  static const OpPort kPorts[] = {
      PORT(input, kInput | kRequired, CUDNN_ATTR_OPERATION_GENSTATS_XDESC),
      PORT(SUM, kOutput | kRequired, CUDNN_ATTR_OPERATION_GENSTATS_SUMDESC),
      PORT(SQ_SUM, kOutput | kRequired,
           CUDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC),
  };
  DescPtr o;
  TRY(b.create(CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR, o,
               "OPERATION_GEN_STATS"));
  cudnnGenStatsMode_t mode = CUDNN_GENSTATS_SUM_SQSUM;
  cudnnDataType_t c = comp();
  SET(o, CUDNN_ATTR_OPERATION_GENSTATS_MODE, CUDNN_TYPE_GENSTATS_MODE, 1,
      &mode);
  SET(o, CUDNN_ATTR_OPERATION_GENSTATS_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &c);
  TRY(setPorts(*this, o, kPorts));
  TRY(b.finalize(o, "OPERATION_GEN_STATS"));
  ops.push_back(o);
  return "";
}

} // namespace graph::rt::cudnn
