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

namespace {

/// Which tensor of the convolution a port is: the image x (or DX), the
/// filter w (or DW), the response y (or DY).
enum ConvRole { kConvX, kConvW, kConvY };

struct ConvPort {
  Port name;
  bool isInput;
  ConvRole role;
};

/// One convolution op: its ports, read in this order, and the cuDNN
/// operation descriptor with its attributes.
struct ConvFamily {
  OpKind kind;
  ConvPort ports[3];
  cudnnBackendDescriptorType_t type;
  const char *typeName;
  cudnnBackendAttributeName_t x, w, y, conv, alpha, beta;
};

const ConvFamily kConvFamilies[] = {
    {OpKind::ConvFprop,
     {{Port::image, true, kConvX},
      {Port::weight, true, kConvW},
      {Port::Y, false, kConvY}},
     CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
     "OPERATION_CONVOLUTION_FORWARD",
     CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
     CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
     CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
     CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
     CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
     CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA},
    {OpKind::ConvDgrad,
     {{Port::loss, true, kConvY},
      {Port::filter, true, kConvW},
      {Port::DX, false, kConvX}},
     CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
     "OPERATION_CONVOLUTION_BACKWARD_DATA",
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA},
    {OpKind::ConvWgrad,
     {{Port::image, true, kConvX},
      {Port::loss, true, kConvY},
      {Port::DW, false, kConvW}},
     CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
     "OPERATION_CONVOLUTION_BACKWARD_FILTER",
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA},
};

} // namespace

std::string Lowering::lowerConv() {
  const ConvFamily *family = nullptr;
  for (const ConvFamily &candidate : kConvFamilies)
    if (op->kind == candidate.kind)
      family = &candidate;
  if (!family)
    return err("'" + op->kind + "' is not a convolution");
  int64_t uids[3] = {0, 0, 0};
  for (const ConvPort &port : family->ports)
    TRY(port.isInput ? in(port.name, uids[port.role])
                     : out(port.name, uids[port.role]));
  int64_t x = uids[kConvX], w = uids[kConvW], y = uids[kConvY];
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
  TRY(b.create(family->type, o, family->typeName));
  TRY(tensor(x, d));
  TRY(b.set(o, family->x, "X/DX", CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d->raw));
  TRY(tensor(w, d));
  TRY(b.set(o, family->w, "W/DW", CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d->raw));
  TRY(tensor(y, d));
  TRY(b.set(o, family->y, "Y/DY", CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d->raw));
  TRY(b.set(o, family->conv, "CONV_DESC", CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
            &conv->raw));
  float alpha = 1.0f, beta = 0.0f;
  TRY(b.set(o, family->alpha, "ALPHA", CUDNN_TYPE_FLOAT, 1, &alpha));
  TRY(b.set(o, family->beta, "BETA", CUDNN_TYPE_FLOAT, 1, &beta));
  TRY(b.finalize(o, family->typeName));
  ops.push_back(o);
  return "";
}

} // namespace graph::rt::cudnn
