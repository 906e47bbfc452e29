//===- CudnnOpsMatmul.cpp - Matmul ----------------------------------------===//
//
// Lowers matmul, casting a mixed-precision operand in a pointwise
// prologue, and the mixture-of-experts grouped matmul.
//
//===----------------------------------------------------------------------===//

#include "CudnnGroupInternal.h"

#include <string>

namespace graph::rt::cudnn {

std::string Lowering::lowerMatmul() {
  int64_t a, bb, c;
  TRY(in(Port::A, a));
  TRY(in(Port::B, bb));
  TRY(out(Port::C, c));
  // Mixed operands (an f32 A of a bf16 B, say): cuDNN's matmul engines
  // take one input type, so the f32 side is cast to the 16-bit type in a
  // pointwise prologue, the rounding the tensor cores would do anyway.
  const Tensor *at = find(a), *bt = find(bb);
  auto narrow = [](cudnnDataType_t t) {
    return t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
  };
  if (at && bt && at->type != bt->type) {
    int64_t &wide = at->type == CUDNN_DATA_FLOAT && narrow(bt->type)   ? a
                    : bt->type == CUDNN_DATA_FLOAT && narrow(at->type) ? bb
                                                                       : c;
    if (&wide != &c) {
      const Tensor *w = find(wide);
      cudnnDataType_t to = (&wide == &a ? bt : at)->type;
      int64_t cast = newVirtual(w->dims, to, w->strides);
      TRY(pointwise(CUDNN_POINTWISE_IDENTITY, wide, 0, 0, cast,
                    CUDNN_DATA_FLOAT));
      wide = cast;
    }
  }
  // f32 operands with a 16-bit C: cuDNN 9.19's engine 0 (the heuristics'
  // first pick) writes NaN there whatever the layouts (measured on the
  // H200), while f32 C is right; so the product stays f32 and an identity
  // epilogue rounds it into C.
  const Tensor *ct = find(c);
  at = find(a);
  bt = find(bb);
  if (at && bt && ct && at->type == CUDNN_DATA_FLOAT &&
      bt->type == CUDNN_DATA_FLOAT && narrow(ct->type)) {
    Shape dims = ct->dims, strides = ct->strides; // newVirtual may move ct
    int64_t wide = newVirtual(dims, CUDNN_DATA_FLOAT, strides);
    TRY(matmul(a, bb, wide, comp(), fAttr("padding")));
    return pointwise(CUDNN_POINTWISE_IDENTITY, wide, 0, 0, c, CUDNN_DATA_FLOAT);
  }
  return matmul(a, bb, c, comp(), fAttr("padding"));
}

std::string Lowering::lowerMoeGroupedMatmul() {
  static const OpPort kPorts[] = {
      PORT(token, kInput | kRequired,
           CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOKEN_DESC),
      PORT(weight, kInput | kRequired,
           CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_WEIGHT_DESC),
      PORT(first_token_offset, kInput | kRequired,
           CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_FIRST_TOKEN_OFFSET_DESC),
      PORT(token_index, kInput,
           CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOKEN_INDEX_DESC),
      PORT(token_ks, kInput,
           CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOKEN_KS_DESC),
      PORT(output, kOutput | kRequired,
           CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_OUTPUT_DESC),
  };
  DescPtr o;
  TRY(b.create(CUDNN_BACKEND_OPERATION_MOE_GROUPED_MATMUL_DESCRIPTOR, o,
               "OPERATION_MOE_GROUPED_MATMUL"));
  // The graph's moe_mode values are cuDNN's (none, gather, scatter).
  auto mode =
      static_cast<cudnnMoeGroupedMatmulMode_t>(iAttr("mode").value_or(0));
  cudnnDataType_t c = comp();
  SET(o, CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_MODE,
      CUDNN_TYPE_MOE_GROUPED_MATMUL_MODE, 1, &mode);
  SET(o, CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_MATH_PREC,
      CUDNN_TYPE_DATA_TYPE, 1, &c);
  TRY(setPorts(*this, o, kPorts));
  if (std::optional<int64_t> topK = iAttr("top_k")) {
    int32_t k = static_cast<int32_t>(*topK);
    SET(o, CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOP_K, CUDNN_TYPE_INT32, 1,
        &k);
  }
  TRY(b.finalize(o, "OPERATION_MOE_GROUPED_MATMUL"));
  ops.push_back(o);
  return "";
}

} // namespace graph::rt::cudnn
