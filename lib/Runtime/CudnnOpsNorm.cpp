//===- CudnnOpsNorm.cpp - Normalizations and genstats ---------------------===//
//
// Lowers layer/RMS/instance/ada-layer/batch norm forward and backward to
// cuDNN's norm operations, batchnorm inference to pointwise ops, and
// genstats.
//
//===----------------------------------------------------------------------===//

#include "CudnnGroupInternal.h"

#include <string>

namespace graph::rt::cudnn {

std::string Lowering::setOptionalDesc(const DescPtr &o, const char *port,
                                      bool isInput,
                                      cudnnBackendAttributeName_t attr,
                                      const char *attrName) {
  const auto &m = isInput ? op->inputs : op->outputs;
  auto it = m.find(port);
  if (it == m.end())
    return "";
  DescPtr d;
  TRY(tensor(it->second, d));
  return b.set(o, attr, attrName, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d->raw);
}

std::string Lowering::lowerNormForward() {
  const std::string &k = op->kind;
  cudnnBackendNormMode_t mode = k == "layernorm"      ? CUDNN_LAYER_NORM
                                : k == "rmsnorm"      ? CUDNN_RMS_NORM
                                : k == "instancenorm" ? CUDNN_INSTANCE_NORM
                                : k == "adalayernorm" ? CUDNN_ADA_LAYER_NORM
                                                      : CUDNN_BATCH_NORM;
  bool training = k == "batchnorm" || op->mode != "inference";
  if (k != "batchnorm" && op->mode != "training" && op->mode != "inference")
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
  int64_t uid;
  DescPtr d;
  TRY(in("input", uid));
  TRY(tensor(uid, d));
  SET_DESC(o, CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, d);
  TRY(in("scale", uid));
  TRY(tensor(uid, d));
  SET_DESC(o, CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, d);
  TRY(in("epsilon", uid));
  TRY(tensor(uid, d));
  SET_DESC(o, CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, d);
  TRY(out("Y", uid));
  TRY(tensor(uid, d));
  SET_DESC(o, CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, d);
#define OPT(port, isIn, attr) TRY(setOptionalDesc(o, port, isIn, attr, #attr))
  OPT("bias", true, CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC);
  for (const char *stat : {"mean", "inv_var"})
    if (hasOut(stat))
      toScratch(op->outputs.at(stat));
  OPT("mean", false, CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC);
  OPT("inv_var", false, CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC);
  OPT("momentum", true, CUDNN_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC);
  OPT("in_running_mean", true,
      CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC);
  OPT("in_running_var", true,
      CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC);
  OPT("next_running_mean", false,
      CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC);
  OPT("next_running_var", false,
      CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC);
  TRY(b.finalize(o, "OPERATION_NORM_FORWARD"));
  ops.push_back(o);
  return "";
}

std::string Lowering::lowerBatchnormInference() {
  int64_t x, mean, inv, scale, bias, y;
  TRY(in("input", x));
  TRY(in("mean", mean));
  TRY(in("inv_variance", inv));
  TRY(in("scale", scale));
  TRY(in("bias", bias));
  TRY(out("Y", y));
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
  const std::string &k = op->kind;
  cudnnBackendNormMode_t mode =
      k == "layernorm_backward"      ? CUDNN_LAYER_NORM
      : k == "rmsnorm_backward"      ? CUDNN_RMS_NORM
      : k == "instancenorm_backward" ? CUDNN_INSTANCE_NORM
      : k == "adalayernorm_backward" ? CUDNN_ADA_LAYER_NORM
                                     : CUDNN_BATCH_NORM;
  DescPtr o, d;
  TRY(b.create(CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR, o,
               "OPERATION_NORM_BACKWARD"));
  SET(o, CUDNN_ATTR_OPERATION_NORM_BWD_MODE, CUDNN_TYPE_NORM_MODE, 1, &mode);
  int64_t uid;
  TRY(in("grad", uid));
  TRY(tensor(uid, d));
  SET_DESC(o, CUDNN_ATTR_OPERATION_NORM_BWD_DYDESC, d);
  TRY(in("input", uid));
  TRY(tensor(uid, d));
  SET_DESC(o, CUDNN_ATTR_OPERATION_NORM_BWD_XDESC, d);
  TRY(in("scale", uid));
  TRY(tensor(uid, d));
  SET_DESC(o, CUDNN_ATTR_OPERATION_NORM_BWD_SCALE_DESC, d);
  TRY(in("inv_variance", uid));
  TRY(tensor(uid, d));
  SET_DESC(o, CUDNN_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC, d);
  if (mode != CUDNN_RMS_NORM) {
    TRY(in("mean", uid));
    TRY(tensor(uid, d));
    SET_DESC(o, CUDNN_ATTR_OPERATION_NORM_BWD_MEAN_DESC, d);
  }
  TRY(out("DX", uid));
  TRY(tensor(uid, d));
  SET_DESC(o, CUDNN_ATTR_OPERATION_NORM_BWD_DXDESC, d);
  TRY(out("DScale", uid));
  toScratch(uid);
  TRY(tensor(uid, d));
  SET_DESC(o, CUDNN_ATTR_OPERATION_NORM_BWD_DSCALE_DESC, d);
  if (hasOut("DBias"))
    toScratch(op->outputs.at("DBias"));
  OPT("DBias", false, CUDNN_ATTR_OPERATION_NORM_BWD_DBIAS_DESC);
  OPT("epsilon", true, CUDNN_ATTR_OPERATION_NORM_BWD_EPSILON_DESC);
#undef OPT
  TRY(b.finalize(o, "OPERATION_NORM_BACKWARD"));
  ops.push_back(o);
  return "";
}

std::string Lowering::lowerGenstats() {
  DescPtr o, d;
  TRY(b.create(CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR, o,
               "OPERATION_GEN_STATS"));
  cudnnGenStatsMode_t mode = CUDNN_GENSTATS_SUM_SQSUM;
  cudnnDataType_t c = comp();
  SET(o, CUDNN_ATTR_OPERATION_GENSTATS_MODE, CUDNN_TYPE_GENSTATS_MODE, 1,
      &mode);
  SET(o, CUDNN_ATTR_OPERATION_GENSTATS_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &c);
  int64_t uid;
  TRY(in("input", uid));
  TRY(tensor(uid, d));
  SET_DESC(o, CUDNN_ATTR_OPERATION_GENSTATS_XDESC, d);
  TRY(out("SUM", uid));
  TRY(tensor(uid, d));
  SET_DESC(o, CUDNN_ATTR_OPERATION_GENSTATS_SUMDESC, d);
  TRY(out("SQ_SUM", uid));
  TRY(tensor(uid, d));
  SET_DESC(o, CUDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC, d);
  TRY(b.finalize(o, "OPERATION_GEN_STATS"));
  ops.push_back(o);
  return "";
}

} // namespace graph::rt::cudnn
