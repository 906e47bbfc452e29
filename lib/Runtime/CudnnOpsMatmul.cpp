//===- CudnnOpsMatmul.cpp - Matmul ----------------------------------------===//
//
// Lowers matmul, casting a mixed-precision operand in a pointwise
// prologue.
//
//===----------------------------------------------------------------------===//

#include "CudnnGroupInternal.h"

#include <string>

namespace graph::rt::cudnn {

std::string Lowering::lowerMatmul() {
  int64_t a, bb, c;
  TRY(in("A", a));
  TRY(in("B", bb));
  TRY(out("C", c));
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
  return matmul(a, bb, c, comp(), fAttr("padding"));
}

} // namespace graph::rt::cudnn
