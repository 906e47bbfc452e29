//===- CudnnOpsPointwise.cpp - Pointwise and reduction ops ----------------===//
//
// Lowers the pointwise modes (forward, backward, comparisons, logic,
// gen_index, binary_select), reductions and reshapes to cuDNN descriptors.
//
//===----------------------------------------------------------------------===//

#include "CudnnGroupInternal.h"

#include <algorithm>
#include <string>

namespace graph::rt::cudnn {

std::string Lowering::lowerPointwise() {
  struct Mode {
    const char *name;
    cudnnPointwiseMode_t mode;
    int arity;
    bool backward;
  };
  static const Mode modes[] = {
      {"add", CUDNN_POINTWISE_ADD, 2, false},
      {"bias", CUDNN_POINTWISE_ADD, 2, false},
      {"add_square", CUDNN_POINTWISE_ADD_SQUARE, 2, false},
      {"div", CUDNN_POINTWISE_DIV, 2, false},
      {"max", CUDNN_POINTWISE_MAX, 2, false},
      {"min", CUDNN_POINTWISE_MIN, 2, false},
      {"mod", CUDNN_POINTWISE_MOD, 2, false},
      {"mul", CUDNN_POINTWISE_MUL, 2, false},
      {"scale", CUDNN_POINTWISE_MUL, 2, false},
      {"pow", CUDNN_POINTWISE_POW, 2, false},
      {"sub", CUDNN_POINTWISE_SUB, 2, false},
      {"abs", CUDNN_POINTWISE_ABS, 1, false},
      {"ceil", CUDNN_POINTWISE_CEIL, 1, false},
      {"cos", CUDNN_POINTWISE_COS, 1, false},
      {"exp", CUDNN_POINTWISE_EXP, 1, false},
      {"floor", CUDNN_POINTWISE_FLOOR, 1, false},
      {"log", CUDNN_POINTWISE_LOG, 1, false},
      {"neg", CUDNN_POINTWISE_NEG, 1, false},
      {"rsqrt", CUDNN_POINTWISE_RSQRT, 1, false},
      {"sin", CUDNN_POINTWISE_SIN, 1, false},
      {"sqrt", CUDNN_POINTWISE_SQRT, 1, false},
      {"tan", CUDNN_POINTWISE_TAN, 1, false},
      {"erf", CUDNN_POINTWISE_ERF, 1, false},
      {"identity", CUDNN_POINTWISE_IDENTITY, 1, false},
      {"reciprocal", CUDNN_POINTWISE_RECIPROCAL, 1, false},
      {"relu", CUDNN_POINTWISE_RELU_FWD, 1, false},
      {"leaky_relu", CUDNN_POINTWISE_RELU_FWD, 1, false},
      {"tanh", CUDNN_POINTWISE_TANH_FWD, 1, false},
      {"sigmoid", CUDNN_POINTWISE_SIGMOID_FWD, 1, false},
      {"elu", CUDNN_POINTWISE_ELU_FWD, 1, false},
      {"gelu", CUDNN_POINTWISE_GELU_FWD, 1, false},
      {"softplus", CUDNN_POINTWISE_SOFTPLUS_FWD, 1, false},
      {"swish", CUDNN_POINTWISE_SWISH_FWD, 1, false},
      {"gelu_approx_tanh", CUDNN_POINTWISE_GELU_APPROX_TANH_FWD, 1, false},
      {"relu_backward", CUDNN_POINTWISE_RELU_BWD, 2, true},
      {"leaky_relu_backward", CUDNN_POINTWISE_RELU_BWD, 2, true},
      {"tanh_backward", CUDNN_POINTWISE_TANH_BWD, 2, true},
      {"sigmoid_backward", CUDNN_POINTWISE_SIGMOID_BWD, 2, true},
      {"elu_backward", CUDNN_POINTWISE_ELU_BWD, 2, true},
      {"gelu_backward", CUDNN_POINTWISE_GELU_BWD, 2, true},
      {"softplus_backward", CUDNN_POINTWISE_SOFTPLUS_BWD, 2, true},
      {"swish_backward", CUDNN_POINTWISE_SWISH_BWD, 2, true},
      {"gelu_approx_tanh_backward", CUDNN_POINTWISE_GELU_APPROX_TANH_BWD, 2,
       true},
      {"cmp_eq", CUDNN_POINTWISE_CMP_EQ, 2, false},
      {"cmp_neq", CUDNN_POINTWISE_CMP_NEQ, 2, false},
      {"cmp_gt", CUDNN_POINTWISE_CMP_GT, 2, false},
      {"cmp_ge", CUDNN_POINTWISE_CMP_GE, 2, false},
      {"cmp_lt", CUDNN_POINTWISE_CMP_LT, 2, false},
      {"cmp_le", CUDNN_POINTWISE_CMP_LE, 2, false},
      {"logical_and", CUDNN_POINTWISE_LOGICAL_AND, 2, false},
      {"logical_or", CUDNN_POINTWISE_LOGICAL_OR, 2, false},
      {"logical_not", CUDNN_POINTWISE_LOGICAL_NOT, 1, false},
      {"gen_index", CUDNN_POINTWISE_GEN_INDEX, 1, false},
      {"binary_select", CUDNN_POINTWISE_BINARY_SELECT, 3, false},
  };
  const Mode *m = nullptr;
  for (const Mode &candidate : modes)
    if (op->mode == candidate.name)
      m = &candidate;
  if (!m)
    return err("unknown pointwise mode '" + op->mode + "'");
  int64_t uids[3] = {0, 0, 0}, y = 0;
  static const Port ports[3] = {Port::in0, Port::in1, Port::in2};
  for (int i = 0; i < m->arity; ++i)
    TRY(in(ports[i], uids[i]));
  TRY(out(Port::output, y));
  // cuDNN's fusion engines broadcast only tensors read from memory: a
  // plan that broadcasts a value computed inside the group finalizes and
  // then computes wrong numbers (seen on the H200 with 9.19: softplus of
  // a [64, 1] column, broadcast over [64, 64]). Decline such groups; the
  // generated kernels run them.
  if (const Tensor *out = find(y))
    for (int i = 0; i < m->arity; ++i)
      if (const Tensor *operand = find(uids[i]);
          operand && operand->isVirtual && operand->dims != out->dims)
        return err("cuDNN does not broadcast a value computed inside the "
                   "group (input " +
                   std::to_string(i) + " is " + shapeText(operand->dims) +
                   ", the result " + shapeText(out->dims) + ")");
  // In a convolution's epilogue cuDNN broadcasts per-channel [1, C, 1, ..]
  // tensors and scalars only: a per-sample [N, C, 1, 1] bias (a diffusion
  // U-Net's time embedding) builds and computes wrong numbers.
  bool convGroup =
      std::any_of(spec.ops.begin(), spec.ops.end(), [](const OpSpec &o) {
        return o.kind.isOneOf(
            {OpKind::ConvFprop, OpKind::ConvDgrad, OpKind::ConvWgrad});
      });
  if (const Tensor *out = find(y); out && convGroup)
    for (int i = 0; i < m->arity; ++i) {
      const Tensor *operand = find(uids[i]);
      if (!operand || operand->isVirtual || operand->isByValue ||
          operand->dims == out->dims ||
          operand->dims.size() != out->dims.size())
        continue;
      for (size_t d = 0; d < operand->dims.size(); ++d)
        if (operand->dims[d] != 1 && d != 1)
          return err("cuDNN broadcasts only per-channel tensors in a "
                     "convolution's epilogue (input " +
                     std::to_string(i) + " is " + shapeText(operand->dims) +
                     ", the result " + shapeText(out->dims) + ")");
    }

  PwParams p;
  const std::string &mode = op->mode;
  if (mode == "relu" || mode == "relu_backward") {
    p.lowerClip = fAttr("lower_clip");
    p.upperClip = fAttr("upper_clip");
    p.slope = fAttr("negative_slope");
  } else if (mode == "leaky_relu" || mode == "leaky_relu_backward") {
    p.lowerClip = fAttr("lower_clip").value_or(0.0);
    p.upperClip = fAttr("upper_clip");
    p.slope = fAttr("negative_slope").value_or(0.01);
  } else if (mode == "swish" || mode == "swish_backward") {
    p.swishBeta = fAttr("swish_beta");
  } else if (mode == "elu" || mode == "elu_backward") {
    p.eluAlpha = fAttr("elu_alpha");
  } else if (mode == "softplus" || mode == "softplus_backward") {
    p.softplusBeta = fAttr("softplus_beta");
  } else if (mode == "gen_index") {
    p.axis = iAttr("axis");
    if (!p.axis)
      return err("gen_index needs the 'axis' attribute");
    if (*p.axis < 0) {
      const Tensor *t = find(uids[0]);
      if (t)
        *p.axis += static_cast<int64_t>(t->dims.size());
    }
  }
  if (m->backward) // (loss, input) -> d input
    return pointwise(m->mode, uids[1], 0, 0, y, comp(), p, true, uids[0]);
  return pointwise(m->mode, uids[0], uids[1], uids[2], y, comp(), p);
}

std::string Lowering::lowerReduction() {
  static const char *names[] = {"add", "mul",   "min",   "max",         "amax",
                                "avg", "norm1", "norm2", "mul_no_zeros"};
  static const cudnnReduceTensorOp_t codes[] = {
      CUDNN_REDUCE_TENSOR_ADD,         CUDNN_REDUCE_TENSOR_MUL,
      CUDNN_REDUCE_TENSOR_MIN,         CUDNN_REDUCE_TENSOR_MAX,
      CUDNN_REDUCE_TENSOR_AMAX,        CUDNN_REDUCE_TENSOR_AVG,
      CUDNN_REDUCE_TENSOR_NORM1,       CUDNN_REDUCE_TENSOR_NORM2,
      CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS};
  for (size_t i = 0; i < 9; ++i) {
    if (op->mode != names[i])
      continue;
    if (hasIn(Port::group_offset))
      return err("reduction with group_offset has no cuDNN lowering");
    int64_t x, y;
    TRY(in(Port::input, x));
    TRY(out(Port::output, y));
    return reduction(codes[i], x, y, comp());
  }
  return err("unknown reduction mode '" + op->mode + "'");
}

std::string Lowering::lowerReshape() {
  int64_t x, y;
  TRY(in(Port::input, x));
  TRY(out(Port::output, y));
  return reshape(x, y);
}

} // namespace graph::rt::cudnn
