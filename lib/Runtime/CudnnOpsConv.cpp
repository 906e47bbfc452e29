//===- CudnnOpsConv.cpp - Convolution fprop, dgrad and wgrad --------------===//
//
// Lowers the three convolution ops to one convolution descriptor and the
// matching forward, backward-data or backward-filter operation.
//
//===----------------------------------------------------------------------===//

#include "CudnnGroupInternal.h"

#include <string>
#include <vector>

namespace graph::rt::cudnn {

std::string Lowering::lowerConv() {
  const std::string &k = op->kind;
  int64_t x = 0, w = 0, y = 0;
  cudnnBackendDescriptorType_t type;
  cudnnBackendAttributeName_t xa, wa, ya, ca, alphaA, betaA;
  const char *typeName;
  if (k == "conv_fprop") {
    TRY(in("image", x));
    TRY(in("weight", w));
    TRY(out("Y", y));
    type = CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR;
    typeName = "OPERATION_CONVOLUTION_FORWARD";
    xa = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X;
    wa = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W;
    ya = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y;
    ca = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC;
    alphaA = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA;
    betaA = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA;
  } else if (k == "conv_dgrad") {
    TRY(in("loss", y));
    TRY(in("filter", w));
    TRY(out("DX", x));
    type = CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR;
    typeName = "OPERATION_CONVOLUTION_BACKWARD_DATA";
    xa = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX;
    wa = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W;
    ya = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY;
    ca = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC;
    alphaA = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA;
    betaA = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA;
  } else {
    TRY(in("image", x));
    TRY(in("loss", y));
    TRY(out("DW", w));
    type = CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR;
    typeName = "OPERATION_CONVOLUTION_BACKWARD_FILTER";
    xa = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X;
    wa = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW;
    ya = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY;
    ca = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC;
    alphaA = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA;
    betaA = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA;
  }
  const Tensor *xt = find(x);
  if (!xt || xt->dims.size() < 3)
    return err("the image needs rank >= 3 ([N, C, spatial...])");
  int64_t spatial = static_cast<int64_t>(xt->dims.size()) - 2;
  std::vector<int64_t> pre = iVec("pre_padding", spatial, 0);
  std::vector<int64_t> post = iVec("post_padding", spatial, 0);
  if (op->intAttrs.count("padding")) {
    pre = iVec("padding", spatial, 0);
    post = pre;
  }
  std::vector<int64_t> stride = iVec("stride", spatial, 1);
  std::vector<int64_t> dilation = iVec("dilation", spatial, 1);
  for (auto *v : {&pre, &post, &stride, &dilation})
    if (static_cast<int64_t>(v->size()) != spatial)
      return err("padding/stride/dilation need " + std::to_string(spatial) +
                 " entries");
  cudnnConvolutionMode_t mode =
      op->mode == "convolution" ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
  cudnnDataType_t c = comp();
  DescPtr conv;
  TRY(b.create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, conv, "CONVOLUTION"));
  SET(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial);
  SET(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &c);
  SET(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1,
      &mode);
  SET(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, spatial,
      pre.data());
  SET(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, spatial,
      post.data());
  SET(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, spatial,
      dilation.data());
  SET(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, spatial,
      stride.data());
  TRY(b.finalize(conv, "CONVOLUTION"));
  DescPtr o, d;
  TRY(b.create(type, o, typeName));
  TRY(tensor(x, d));
  TRY(b.set(o, xa, "X/DX", CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d->raw));
  TRY(tensor(w, d));
  TRY(b.set(o, wa, "W/DW", CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d->raw));
  TRY(tensor(y, d));
  TRY(b.set(o, ya, "Y/DY", CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d->raw));
  TRY(b.set(o, ca, "CONV_DESC", CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv->raw));
  float alpha = 1.0f, beta = 0.0f;
  TRY(b.set(o, alphaA, "ALPHA", CUDNN_TYPE_FLOAT, 1, &alpha));
  TRY(b.set(o, betaA, "BETA", CUDNN_TYPE_FLOAT, 1, &beta));
  TRY(b.finalize(o, typeName));
  ops.push_back(o);
  return "";
}

} // namespace graph::rt::cudnn
