//===- CudnnDescriptors.cpp - Tensors and primitive cuDNN ops -------------===//
//
// Lowering members shared by every op family: cuDNN data types, the
// tensor descriptors of a group (its own tensors, virtual intermediates,
// by-value scalars and workspace scratch), the primitive operation
// descriptors (pointwise, matmul, reduction, reshape) and the dispatch from
// op kind to the family lowering.
//
//===----------------------------------------------------------------------===//

#include "CudnnGroupInternal.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

namespace graph::rt::cudnn {

cudnnDataType_t toCudnn(DType t) {
  switch (t) {
  case DType::F32:
    return CUDNN_DATA_FLOAT;
  case DType::F16:
    return CUDNN_DATA_HALF;
  case DType::BF16:
    return CUDNN_DATA_BFLOAT16;
  case DType::F64:
    return CUDNN_DATA_DOUBLE;
  case DType::I8:
    return CUDNN_DATA_INT8;
  case DType::U8:
    return CUDNN_DATA_UINT8;
  case DType::I32:
    return CUDNN_DATA_INT32;
  case DType::I64:
    return CUDNN_DATA_INT64;
  case DType::I1:
    return CUDNN_DATA_BOOLEAN;
  case DType::F8E4M3FN:
    return CUDNN_DATA_FP8_E4M3;
  case DType::F8E5M2:
    return CUDNN_DATA_FP8_E5M2;
  case DType::F8E8M0FNU:
    return CUDNN_DATA_FP8_E8M0;
  case DType::F4E2M1FN:
    return CUDNN_DATA_FP4_E2M1;
  }
  return CUDNN_DATA_FLOAT;
}

size_t cudnnTypeBytes(cudnnDataType_t t) {
  switch (t) {
  case CUDNN_DATA_DOUBLE:
  case CUDNN_DATA_INT64:
    return 8;
  case CUDNN_DATA_FLOAT:
  case CUDNN_DATA_INT32:
    return 4;
  case CUDNN_DATA_HALF:
  case CUDNN_DATA_BFLOAT16:
    return 2;
  default:
    return 1;
  }
}

void encodeScalar(cudnnDataType_t type, double value, unsigned char *out) {
  std::memset(out, 0, 8);
  switch (type) {
  case CUDNN_DATA_DOUBLE:
    std::memcpy(out, &value, 8);
    return;
  case CUDNN_DATA_INT64: {
    int64_t v = static_cast<int64_t>(value);
    std::memcpy(out, &v, 8);
    return;
  }
  case CUDNN_DATA_INT32: {
    int32_t v = static_cast<int32_t>(value);
    std::memcpy(out, &v, 4);
    return;
  }
  case CUDNN_DATA_HALF:
    encode(DType::F16, value, out);
    return;
  case CUDNN_DATA_BFLOAT16:
    encode(DType::BF16, value, out);
    return;
  case CUDNN_DATA_BOOLEAN:
  case CUDNN_DATA_INT8:
  case CUDNN_DATA_UINT8:
    out[0] = static_cast<unsigned char>(value);
    return;
  default: {
    float v = static_cast<float>(value);
    std::memcpy(out, &v, 4);
    return;
  }
  }
}

std::string shapeText(const Shape &dims) {
  std::string text;
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? "x" : "") + std::to_string(dims[i]);
  return text;
}

void keyUidZero(GraphSpec &spec) {
  auto key = [](int64_t &uid) {
    if (uid == 0)
      uid = kUidZeroKey;
  };
  for (TensorSpec &t : spec.tensors)
    key(t.uid);
  for (OpSpec &op : spec.ops) {
    for (auto &port : op.inputs)
      key(port.second);
    for (auto &port : op.outputs)
      key(port.second);
  }
}

std::string Lowering::addSpecTensors() {
  for (const TensorSpec &t : spec.tensors) {
    if (tensors.count(t.uid))
      return "group '" + spec.name + "': uid " + std::to_string(t.uid) +
             " is given twice";
    if (t.uid <= 0 && !t.isVirtual) // keyUidZero moved a user's 0
      return "group '" + spec.name + "': non-virtual tensor has uid " +
             std::to_string(t.uid) + " (uids must be >= 0)";
    Tensor out;
    out.uid = t.uid;
    out.type = toCudnn(t.dtype);
    out.dims = t.dims;
    out.strides = t.strides.empty() ? rowMajor(t.dims) : t.strides;
    if (out.strides.size() != out.dims.size())
      return "group '" + spec.name + "': tensor " + std::to_string(t.uid) +
             " has " + std::to_string(out.dims.size()) + " dims but " +
             std::to_string(out.strides.size()) + " strides";
    out.isVirtual = t.isVirtual;
    out.isByValue = t.isByValue;
    if (t.isByValue)
      encodeScalar(out.type, t.byValue, out.value);
    if (t.readByValue) {
      // Read on the host at each execute: only a one-element input fits.
      bool written =
          std::any_of(spec.ops.begin(), spec.ops.end(), [&](const OpSpec &o) {
            return std::any_of(
                o.outputs.begin(), o.outputs.end(),
                [&](const auto &p) { return p.second == t.uid; });
          });
      if (t.isVirtual || written || numElements(t.dims) != 1)
        return "group '" + spec.name + "': tensor " + std::to_string(t.uid) +
               " is read by value, so it must be a one-element input of "
               "the group";
      readValueFromBuffer(out);
    }
    tensors[t.uid] = out;
  }
  return "";
}

std::string Lowering::makeDesc(Tensor &t, const Shape &dims,
                               const Shape &strides, DescPtr &out) {
  TRY(b.create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, out, "TENSOR"));
  int64_t alignment = 16;
  SET(out, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &t.uid);
  SET(out, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &t.type);
  SET(out, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64,
      static_cast<int64_t>(dims.size()), dims.data());
  SET(out, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64,
      static_cast<int64_t>(strides.size()), strides.data());
  SET(out, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
  bool isVirtual = t.isVirtual;
  SET(out, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &isVirtual);
  if (t.isByValue) {
    bool byValue = true;
    SET(out, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &byValue);
  }
  if (t.raggedOffset)
    SET_TENSOR(out, t.raggedOffset, CUDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC);
  return b.finalize(out, ("TENSOR uid " + std::to_string(t.uid)).c_str());
}

std::string Lowering::tensor(int64_t uid, DescPtr &out) {
  auto it = tensors.find(uid);
  if (it == tensors.end())
    return "group '" + spec.name + "', " + b.context + ": uid " +
           std::to_string(uid) + " is not a tensor of the group";
  Tensor &t = it->second;
  if (!t.desc)
    TRY(makeDesc(t, t.dims, t.strides, t.desc));
  out = t.desc;
  return "";
}

std::string Lowering::view(int64_t uid, const Shape &dims, const Shape &strides,
                           DescPtr &out) {
  auto it = tensors.find(uid);
  if (it == tensors.end())
    return "group '" + spec.name + "': uid " + std::to_string(uid) +
           " is not a tensor of the group";
  TRY(makeDesc(it->second, dims, strides, out));
  extraDescs.push_back(out);
  return "";
}

int64_t Lowering::newVirtual(const Shape &dims, cudnnDataType_t type,
                             const Shape &strides) {
  Tensor t;
  t.uid = nextUid++;
  t.type = type;
  t.dims = dims;
  t.strides = strides.empty() ? rowMajor(dims) : strides;
  t.isVirtual = true;
  tensors[t.uid] = t;
  return t.uid;
}

int64_t Lowering::newScalar(double value, cudnnDataType_t type, size_t rank) {
  Tensor t;
  t.uid = nextUid++;
  t.type = type;
  t.dims = Shape(rank, 1);
  t.strides = Shape(rank, 1);
  t.isByValue = true;
  encodeScalar(type, value, t.value);
  tensors[t.uid] = t;
  return t.uid;
}

int64_t Lowering::newScratch(const Shape &dims, cudnnDataType_t type) {
  Tensor t;
  t.uid = nextUid++;
  t.type = type;
  t.dims = dims;
  t.strides = rowMajor(dims);
  t.isScratch = true;
  t.scratchOffset = scratchBytes;
  int64_t bytes = numElements(dims) * cudnnTypeBytes(type);
  scratchBytes += (bytes + 255) / 256 * 256;
  tensors[t.uid] = t;
  return t.uid;
}

int64_t Lowering::newScratchConstant(const Shape &dims,
                                     const std::vector<float> &values) {
  int64_t uid = newScratch(dims, CUDNN_DATA_FLOAT);
  std::vector<unsigned char> &bytes = tensors[uid].scratchInit;
  bytes.resize(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return uid;
}

std::string Lowering::toByValue(int64_t uid, Port port) {
  auto it = tensors.find(uid);
  if (it == tensors.end())
    return err(std::string(portName(port)) + ": uid " + std::to_string(uid) +
               " is not a tensor of the group");
  Tensor &t = it->second;
  if (t.isByValue)
    return "";
  if (t.isVirtual || t.isScratch)
    return err(std::string(portName(port)) +
               ": cuDNN takes it by value, so it must be a graph input or a "
               "constant, not computed inside the fused group");
  int64_t count = 1;
  for (int64_t d : t.dims)
    count *= d;
  if (count != 1)
    return err(std::string(portName(port)) +
               ": cuDNN takes it by value, so it must "
               "have one element, not " +
               shapeText(t.dims));
  readValueFromBuffer(t);
  return "";
}

void Lowering::readValueFromBuffer(Tensor &t) {
  t.isByValue = true;
  t.valueFromBuffer = true;
  // cuDNN has no f64 by-value scalar: an f64 buffer is narrowed to f32 as
  // it is read (a descriptor already made keeps its type).
  if (t.type == CUDNN_DATA_DOUBLE && !t.desc) {
    t.type = CUDNN_DATA_FLOAT;
    t.valueIsF64 = true;
  }
}

void Lowering::toScratch(int64_t uid) {
  auto it = tensors.find(uid);
  if (it == tensors.end() || !it->second.isVirtual)
    return;
  Tensor &t = it->second;
  t.isVirtual = false;
  t.isScratch = true;
  t.scratchOffset = scratchBytes;
  int64_t bytes = spanElements(t.dims, t.strides) * cudnnTypeBytes(t.type);
  scratchBytes += (bytes + 255) / 256 * 256;
}

std::string Lowering::pointwise(cudnnPointwiseMode_t mode, int64_t x,
                                int64_t bIn, int64_t t, int64_t y,
                                cudnnDataType_t prec, const PwParams &p,
                                bool backward, int64_t dy) {
  DescPtr pw;
  TRY(b.create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, pw, "POINTWISE"));
  SET(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
  SET(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec);
  auto setD = [&](cudnnBackendAttributeName_t a, const char *n,
                  std::optional<double> v) -> std::string {
    if (!v)
      return "";
    double d = *v;
    return b.set(pw, a, n, CUDNN_TYPE_DOUBLE, 1, &d);
  };
  TRY(setD(CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP,
           "CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP", p.lowerClip));
  TRY(setD(CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP,
           "CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP", p.upperClip));
  TRY(setD(CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE,
           "CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE", p.slope));
  TRY(setD(CUDNN_ATTR_POINTWISE_ELU_ALPHA, "CUDNN_ATTR_POINTWISE_ELU_ALPHA",
           p.eluAlpha));
  TRY(setD(CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA,
           "CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA", p.softplusBeta));
  TRY(setD(CUDNN_ATTR_POINTWISE_SWISH_BETA, "CUDNN_ATTR_POINTWISE_SWISH_BETA",
           p.swishBeta));
  if (p.axis) {
    int64_t axis = *p.axis;
    SET(pw, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &axis);
  }
  TRY(b.finalize(pw, "POINTWISE"));

  DescPtr op;
  TRY(b.create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, op,
               "OPERATION_POINTWISE"));
  SET_DESC(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pw);
  DescPtr d;
  TRY(tensor(x, d));
  SET_DESC(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, d);
  if (backward) {
    TRY(tensor(dy, d));
    SET_DESC(op, CUDNN_ATTR_OPERATION_POINTWISE_DYDESC, d);
    TRY(tensor(y, d));
    SET_DESC(op, CUDNN_ATTR_OPERATION_POINTWISE_DXDESC, d);
  } else {
    if (bIn) {
      TRY(tensor(bIn, d));
      SET_DESC(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, d);
    }
    if (t) {
      TRY(tensor(t, d));
      SET_DESC(op, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, d);
    }
    TRY(tensor(y, d));
    SET_DESC(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, d);
  }
  TRY(b.finalize(op, "OPERATION_POINTWISE"));
  ops.push_back(op);
  return "";
}

std::string Lowering::setTensor(const DescPtr &op, int64_t uid,
                                cudnnBackendAttributeName_t attr,
                                const char *name) {
  DescPtr d;
  TRY(tensor(uid, d));
  return b.set(op, attr, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d->raw);
}

std::string Lowering::matmul(int64_t a, int64_t bT, int64_t c,
                             cudnnDataType_t comp,
                             std::optional<double> padding, DescPtr aDesc,
                             DescPtr bDesc, DescPtr cDesc,
                             const GemmOverrides &overrides) {
  DescPtr mm;
  TRY(b.create(CUDNN_BACKEND_MATMUL_DESCRIPTOR, mm, "MATMUL"));
  SET(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp);
  if (padding) {
    double pad = *padding;
    SET(mm, CUDNN_ATTR_MATMUL_PADDING_VALUE, CUDNN_TYPE_DOUBLE, 1, &pad);
  }
  TRY(b.finalize(mm, "MATMUL"));
  DescPtr op;
  TRY(b.create(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, op,
               "OPERATION_MATMUL"));
  if (!aDesc)
    TRY(tensor(a, aDesc));
  if (!bDesc)
    TRY(tensor(bT, bDesc));
  if (!cDesc)
    TRY(tensor(c, cDesc));
  SET_DESC(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, aDesc);
  SET_DESC(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, bDesc);
  SET_DESC(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, cDesc);
  SET_DESC(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, mm);
  if (overrides.m)
    SET_TENSOR(op, overrides.m,
               CUDNN_ATTR_OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC);
  if (overrides.n)
    SET_TENSOR(op, overrides.n,
               CUDNN_ATTR_OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC);
  if (overrides.k)
    SET_TENSOR(op, overrides.k,
               CUDNN_ATTR_OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC);
  TRY(b.finalize(op, "OPERATION_MATMUL"));
  ops.push_back(op);
  return "";
}

std::string Lowering::reduction(cudnnReduceTensorOp_t mode, int64_t x,
                                int64_t y, cudnnDataType_t comp) {
  DescPtr red;
  TRY(b.create(CUDNN_BACKEND_REDUCTION_DESCRIPTOR, red, "REDUCTION"));
  SET(red, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1,
      &mode);
  SET(red, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp);
  TRY(b.finalize(red, "REDUCTION"));
  DescPtr op, d;
  TRY(b.create(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, op,
               "OPERATION_REDUCTION"));
  TRY(tensor(x, d));
  SET_DESC(op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, d);
  TRY(tensor(y, d));
  SET_DESC(op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, d);
  SET_DESC(op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, red);
  TRY(b.finalize(op, "OPERATION_REDUCTION"));
  ops.push_back(op);
  return "";
}

std::string Lowering::reshape(int64_t x, int64_t y, DescPtr xDesc) {
  DescPtr op, d = xDesc;
  TRY(b.create(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR, op,
               "OPERATION_RESHAPE"));
  if (!d)
    TRY(tensor(x, d));
  SET_DESC(op, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, d);
  TRY(tensor(y, d));
  SET_DESC(op, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, d);
  TRY(b.finalize(op, "OPERATION_RESHAPE"));
  ops.push_back(op);
  return "";
}

std::string Lowering::lowerOp(const OpSpec &o) {
  // Op kind -> the family lowering (CudnnOps<Family>.cpp).
  using LowerFn = std::string (Lowering::*)();
  static const std::pair<OpKind, LowerFn> kLowerings[] = {
      {OpKind::Pointwise, &Lowering::lowerPointwise},
      {OpKind::Matmul, &Lowering::lowerMatmul},
      {OpKind::MoeGroupedMatmul, &Lowering::lowerMoeGroupedMatmul},
      {OpKind::ConvFprop, &Lowering::lowerConv},
      {OpKind::ConvDgrad, &Lowering::lowerConv},
      {OpKind::ConvWgrad, &Lowering::lowerConv},
      {OpKind::Reduction, &Lowering::lowerReduction},
      {OpKind::Layernorm, &Lowering::lowerNormForward},
      {OpKind::Rmsnorm, &Lowering::lowerNormForward},
      {OpKind::Instancenorm, &Lowering::lowerNormForward},
      {OpKind::AdaLayernorm, &Lowering::lowerNormForward},
      {OpKind::Batchnorm, &Lowering::lowerNormForward},
      {OpKind::BatchnormInference, &Lowering::lowerBatchnormInference},
      {OpKind::LayernormBackward, &Lowering::lowerNormBackward},
      {OpKind::RmsnormBackward, &Lowering::lowerNormBackward},
      {OpKind::InstancenormBackward, &Lowering::lowerNormBackward},
      {OpKind::AdaLayernormBackward, &Lowering::lowerNormBackward},
      {OpKind::BatchnormBackward, &Lowering::lowerNormBackward},
      {OpKind::Genstats, &Lowering::lowerGenstats},
      {OpKind::Reshape, &Lowering::lowerReshape},
      {OpKind::Sdpa, &Lowering::lowerSdpa},
      {OpKind::SdpaFp8, &Lowering::lowerSdpaFp8},
      {OpKind::SdpaBackward, &Lowering::lowerSdpaBackward},
      {OpKind::Rng, &Lowering::lowerRng},
  };
  op = &o;
  b.context = "op '" + (o.name.empty() ? o.kind : o.name) + "' (" + o.kind +
              (o.mode.empty() ? "" : " " + o.mode) + ")";
  for (const auto &[kind, lower] : kLowerings)
    if (o.kind == kind)
      return (this->*lower)();
  return err("the cuDNN runtime does not lower '" + o.kind + "'");
}

} // namespace graph::rt::cudnn
