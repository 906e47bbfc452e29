//===- CudnnGroup.cpp - GraphSpec -> cuDNN backend graph, plans, run -----===//
//
// Lowers one group to cuDNN backend descriptors (tensors, operations, the
// operation graph), queries the heuristics, builds execution plans and
// executes them with a variant pack. sdpa lowers to the unified SDPA
// descriptors where they cover the options, else to the composite pattern
// cuDNN's fused attention engines recognise.
//
//===----------------------------------------------------------------------===//

#include "RuntimeApi.h"

#include "GraphDialect/Runtime/CudnnGraph.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <sstream>

using namespace graph::rt;
using namespace graph::rt::detail;
namespace ref = graph::ref;

namespace {

//===----------------------------------------------------------------------===//
// Descriptors
//===----------------------------------------------------------------------===//

struct Desc {
  const CudnnApi *api = nullptr;
  cudnnBackendDescriptor_t raw = nullptr;
  ~Desc() {
    if (raw)
      api->cudnnBackendDestroyDescriptor(raw);
  }
};
using DescPtr = std::shared_ptr<Desc>;

/// Creates, sets and finalizes descriptors; every failure becomes a message
/// naming the group, the step and cuDNN's status.
struct Builder {
  const CudnnApi &api;
  std::string group;
  std::string context; // "op 'name' (kind)"

  std::string fail(const std::string &step, cudnnStatus_t status) const {
    std::string out = "group '" + group + "'";
    if (!context.empty())
      out += ", " + context;
    return out + ": " + step + " failed: " + cudnnStatusText(api, status);
  }

  std::string create(cudnnBackendDescriptorType_t type, DescPtr &out,
                     const char *typeName) {
    out = std::make_shared<Desc>();
    out->api = &api;
    if (cudnnStatus_t s = api.cudnnBackendCreateDescriptor(type, &out->raw);
        s != CUDNN_STATUS_SUCCESS) {
      out->raw = nullptr;
      return fail(std::string("cudnnBackendCreateDescriptor(") + typeName + ")",
                  s);
    }
    return "";
  }

  std::string set(const DescPtr &d, cudnnBackendAttributeName_t name,
                  const char *attrName, cudnnBackendAttributeType_t type,
                  int64_t count, const void *value) {
    if (cudnnStatus_t s =
            api.cudnnBackendSetAttribute(d->raw, name, type, count, value);
        s != CUDNN_STATUS_SUCCESS)
      return fail(std::string("cudnnBackendSetAttribute(") + attrName + ")", s);
    return "";
  }

  std::string finalize(const DescPtr &d, const char *what) {
    if (cudnnStatus_t s = api.cudnnBackendFinalize(d->raw);
        s != CUDNN_STATUS_SUCCESS)
      return fail(std::string("cudnnBackendFinalize(") + what + ")", s);
    return "";
  }
};

#define TRY(expr)                                                              \
  do {                                                                         \
    if (std::string tryError = (expr); !tryError.empty())                      \
      return tryError;                                                         \
  } while (0)
#define SET(desc, attr, type, count, value)                                    \
  TRY(b.set(desc, attr, #attr, type, count, value))
#define SET_DESC(desc, attr, tensor)                                           \
  do {                                                                         \
    cudnnBackendDescriptor_t rawDesc = (tensor)->raw;                          \
    SET(desc, attr, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &rawDesc);               \
  } while (0)

cudnnDataType_t toCudnn(ref::DType t) {
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

/// Writes `value` as one element of `type` into `out` (by-value scalars).
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
    ref::encode(DType::F16, value, out);
    return;
  case CUDNN_DATA_BFLOAT16:
    ref::encode(DType::BF16, value, out);
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

Shape rowMajor(const Shape &dims) { return ref::rowMajorStrides(dims); }

//===----------------------------------------------------------------------===//
// Lowering state
//===----------------------------------------------------------------------===//

/// A tensor of the lowered cuDNN graph: the spec's, or one the lowering
/// made (virtual intermediates, by-value constants, scratch buffers).
struct Tensor {
  int64_t uid = 0;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  Shape dims, strides;
  bool isVirtual = false;
  bool isByValue = false;
  unsigned char value[8] = {0};
  bool isScratch = false; // non-virtual, lives in the workspace tail
  int64_t scratchOffset = 0;
  DescPtr desc;
};

/// "64x1": dims for messages.
std::string shapeText(const Shape &dims) {
  std::string text;
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? "x" : "") + std::to_string(dims[i]);
  return text;
}

/// Why attention with a padding mask is declined (see lowerSdpa).
constexpr const char *kPaddingNotRun =
    "the padding mask (seq_len_q/seq_len_kv) together with a causal or "
    "band mask, a bias, dropout or attn_scale as a tensor is not lowered "
    "correctly: cuDNN's composite attention builds it and leaves keys and "
    "rows unmasked (measured on the H200, cuDNN 9.19); a padding mask alone "
    "runs on the unified sdpa operation";

constexpr int64_t kInternalUidBase = int64_t(1) << 40;

/// The lowering passes uid 0 for "no tensor" (an absent optional operand),
/// while 0 is a valid user uid: the lowered spec carries a user's uid 0 as
/// kUidZeroKey (also its cuDNN unique id), and execute maps it back to find
/// the caller's buffer.
constexpr int64_t kUidZeroKey = kInternalUidBase - 1;

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

class Lowering {
public:
  Lowering(const CudnnApi &api, const GraphSpec &spec)
      : b{api, spec.name, ""}, spec(spec) {}

  Builder b;
  const GraphSpec &spec;
  std::map<int64_t, Tensor> tensors;
  std::vector<DescPtr> ops;
  std::vector<DescPtr> extraDescs; // views sharing a uid, kept alive
  int64_t nextUid = kInternalUidBase;
  int64_t scratchBytes = 0;

  std::string addSpecTensors() {
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
      tensors[t.uid] = out;
    }
    return "";
  }

  std::string makeDesc(Tensor &t, const Shape &dims, const Shape &strides,
                       DescPtr &out) {
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
    return b.finalize(out, ("TENSOR uid " + std::to_string(t.uid)).c_str());
  }

  /// The descriptor of tensor `uid`, made on first use.
  std::string tensor(int64_t uid, DescPtr &out) {
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

  /// A second descriptor of `uid` with other dims/strides (a transposed view).
  std::string view(int64_t uid, const Shape &dims, const Shape &strides,
                   DescPtr &out) {
    auto it = tensors.find(uid);
    if (it == tensors.end())
      return "group '" + spec.name + "': uid " + std::to_string(uid) +
             " is not a tensor of the group";
    TRY(makeDesc(it->second, dims, strides, out));
    extraDescs.push_back(out);
    return "";
  }

  int64_t newVirtual(const Shape &dims, cudnnDataType_t type,
                     const Shape &strides = {}) {
    Tensor t;
    t.uid = nextUid++;
    t.type = type;
    t.dims = dims;
    t.strides = strides.empty() ? rowMajor(dims) : strides;
    t.isVirtual = true;
    tensors[t.uid] = t;
    return t.uid;
  }

  int64_t newScalar(double value, cudnnDataType_t type, size_t rank) {
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

  int64_t newScratch(const Shape &dims, cudnnDataType_t type) {
    Tensor t;
    t.uid = nextUid++;
    t.type = type;
    t.dims = dims;
    t.strides = rowMajor(dims);
    t.isScratch = true;
    t.scratchOffset = scratchBytes;
    int64_t bytes = ref::numElements(dims) * cudnnTypeBytes(type);
    scratchBytes += (bytes + 255) / 256 * 256;
    tensors[t.uid] = t;
    return t.uid;
  }

  /// Gives virtual tensor `uid` memory in the workspace tail: for outputs
  /// cuDNN's engines always write (a norm backward's DScale and DBias, even
  /// when nothing reads them).
  void toScratch(int64_t uid) {
    auto it = tensors.find(uid);
    if (it == tensors.end() || !it->second.isVirtual)
      return;
    Tensor &t = it->second;
    t.isVirtual = false;
    t.isScratch = true;
    t.scratchOffset = scratchBytes;
    int64_t bytes = ref::spanElements(t.dims, t.strides) * cudnnTypeBytes(t.type);
    scratchBytes += (bytes + 255) / 256 * 256;
  }

  const Tensor *find(int64_t uid) const {
    auto it = tensors.find(uid);
    return it == tensors.end() ? nullptr : &it->second;
  }

  //===--------------------------------------------------------------------===//
  // Primitive operations
  //===--------------------------------------------------------------------===//

  struct PwParams {
    std::optional<double> lowerClip, upperClip, slope, eluAlpha, softplusBeta,
        swishBeta;
    std::optional<int64_t> axis;
  };

  /// y = mode(x [, b [, t]]). Backward modes: x = input, b unused, dy/dx
  /// given through `dy`/`dx` (dx is y).
  std::string pointwise(cudnnPointwiseMode_t mode, int64_t x, int64_t bIn,
                        int64_t t, int64_t y, cudnnDataType_t prec,
                        const PwParams &p = {}, bool backward = false,
                        int64_t dy = 0) {
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
    TRY(setD(CUDNN_ATTR_POINTWISE_SWISH_BETA,
             "CUDNN_ATTR_POINTWISE_SWISH_BETA", p.swishBeta));
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

  /// C = A x B; aDesc/bDesc override the tensors' own descriptors (views).
  std::string matmul(int64_t a, int64_t bT, int64_t c, cudnnDataType_t comp,
                     std::optional<double> padding = std::nullopt,
                     DescPtr aDesc = nullptr, DescPtr bDesc = nullptr,
                     DescPtr cDesc = nullptr) {
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
    TRY(b.finalize(op, "OPERATION_MATMUL"));
    ops.push_back(op);
    return "";
  }

  std::string reduction(cudnnReduceTensorOp_t mode, int64_t x, int64_t y,
                        cudnnDataType_t comp) {
    DescPtr red;
    TRY(b.create(CUDNN_BACKEND_REDUCTION_DESCRIPTOR, red, "REDUCTION"));
    SET(red, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE,
        1, &mode);
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

  /// y = x viewed with y's dims/strides; `xDesc` overrides x's descriptor.
  std::string reshape(int64_t x, int64_t y, DescPtr xDesc = nullptr) {
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

  //===--------------------------------------------------------------------===//
  // Spec ops
  //===--------------------------------------------------------------------===//

  const OpSpec *op = nullptr;

  std::string err(const std::string &message) const {
    return "group '" + spec.name + "', " + b.context + ": " + message;
  }

  bool hasIn(const char *port) const { return op->inputs.count(port) != 0; }
  bool hasOut(const char *port) const { return op->outputs.count(port) != 0; }
  std::string in(const char *port, int64_t &uid) const {
    auto it = op->inputs.find(port);
    if (it == op->inputs.end())
      return err(std::string("missing input '") + port + "'");
    uid = it->second;
    return "";
  }
  std::string out(const char *port, int64_t &uid) const {
    auto it = op->outputs.find(port);
    if (it == op->outputs.end())
      return err(std::string("missing output '") + port + "'");
    uid = it->second;
    return "";
  }
  std::optional<double> fAttr(const char *name) const {
    auto it = op->floatAttrs.find(name);
    if (it == op->floatAttrs.end())
      return std::nullopt;
    return it->second;
  }
  std::optional<int64_t> iAttr(const char *name) const {
    auto it = op->intAttrs.find(name);
    if (it == op->intAttrs.end() || it->second.empty())
      return std::nullopt;
    return it->second.front();
  }
  std::vector<int64_t> iVec(const char *name, size_t n, int64_t dflt) const {
    auto it = op->intAttrs.find(name);
    if (it == op->intAttrs.end() || it->second.empty())
      return std::vector<int64_t>(n, dflt);
    return it->second;
  }
  bool flag(const char *name) const { return iAttr(name).value_or(0) != 0; }
  cudnnDataType_t comp() const { return toCudnn(op->computeType); }

  std::string lowerOp(const OpSpec &o) {
    op = &o;
    b.context = "op '" + (o.name.empty() ? o.kind : o.name) + "' (" + o.kind +
                (o.mode.empty() ? "" : " " + o.mode) + ")";
    const std::string &k = o.kind;
    if (k == "pointwise")
      return lowerPointwise();
    if (k == "matmul")
      return lowerMatmul();
    if (k == "conv_fprop" || k == "conv_dgrad" || k == "conv_wgrad")
      return lowerConv();
    if (k == "reduction")
      return lowerReduction();
    if (k == "layernorm" || k == "rmsnorm" || k == "instancenorm" ||
        k == "adalayernorm" || k == "batchnorm")
      return lowerNormForward();
    if (k == "batchnorm_inference")
      return lowerBatchnormInference();
    if (k == "layernorm_backward" || k == "rmsnorm_backward" ||
        k == "instancenorm_backward" || k == "adalayernorm_backward" ||
        k == "batchnorm_backward")
      return lowerNormBackward();
    if (k == "genstats")
      return lowerGenstats();
    if (k == "reshape") {
      int64_t x, y;
      TRY(in("input", x));
      TRY(out("output", y));
      return reshape(x, y);
    }
    if (k == "sdpa")
      return lowerSdpa();
    if (k == "sdpa_backward")
      return lowerSdpaBackward();
    return err("the cuDNN runtime does not lower '" + k + "'");
  }

  std::string lowerPointwise() {
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
    static const char *ports[3] = {"in0", "in1", "in2"};
    for (int i = 0; i < m->arity; ++i)
      TRY(in(ports[i], uids[i]));
    TRY(out("output", y));
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
                     "group (input " + std::to_string(i) + " is " +
                     shapeText(operand->dims) + ", the result " +
                     shapeText(out->dims) + ")");
    // In a convolution's epilogue cuDNN broadcasts per-channel [1, C, 1, ..]
    // tensors and scalars only: a per-sample [N, C, 1, 1] bias (a diffusion
    // U-Net's time embedding) builds and computes wrong numbers.
    bool convGroup = std::any_of(
        spec.ops.begin(), spec.ops.end(),
        [](const OpSpec &o) { return o.kind.rfind("conv_", 0) == 0; });
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
                       "convolution's epilogue (input " + std::to_string(i) +
                       " is " + shapeText(operand->dims) + ", the result " +
                       shapeText(out->dims) + ")");
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

  std::string lowerMatmul() {
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
      int64_t &wide = at->type == CUDNN_DATA_FLOAT && narrow(bt->type) ? a
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

  std::string lowerConv() {
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
    cudnnConvolutionMode_t mode = op->mode == "convolution"
                                      ? CUDNN_CONVOLUTION
                                      : CUDNN_CROSS_CORRELATION;
    cudnnDataType_t c = comp();
    DescPtr conv;
    TRY(b.create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, conv, "CONVOLUTION"));
    SET(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1,
        &spatial);
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
    TRY(b.set(o, ca, "CONV_DESC", CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
              &conv->raw));
    float alpha = 1.0f, beta = 0.0f;
    TRY(b.set(o, alphaA, "ALPHA", CUDNN_TYPE_FLOAT, 1, &alpha));
    TRY(b.set(o, betaA, "BETA", CUDNN_TYPE_FLOAT, 1, &beta));
    TRY(b.finalize(o, typeName));
    ops.push_back(o);
    return "";
  }

  std::string lowerReduction() {
    static const char *names[] = {"add",  "mul",   "min",   "max",
                                  "amax", "avg",   "norm1", "norm2",
                                  "mul_no_zeros"};
    static const cudnnReduceTensorOp_t codes[] = {
        CUDNN_REDUCE_TENSOR_ADD,   CUDNN_REDUCE_TENSOR_MUL,
        CUDNN_REDUCE_TENSOR_MIN,   CUDNN_REDUCE_TENSOR_MAX,
        CUDNN_REDUCE_TENSOR_AMAX,  CUDNN_REDUCE_TENSOR_AVG,
        CUDNN_REDUCE_TENSOR_NORM1, CUDNN_REDUCE_TENSOR_NORM2,
        CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS};
    for (size_t i = 0; i < 9; ++i) {
      if (op->mode != names[i])
        continue;
      if (hasIn("group_offset"))
        return err("reduction with group_offset has no cuDNN lowering");
      int64_t x, y;
      TRY(in("input", x));
      TRY(out("output", y));
      return reduction(codes[i], x, y, comp());
    }
    return err("unknown reduction mode '" + op->mode + "'");
  }

  std::string setOptionalDesc(const DescPtr &o, const char *port, bool isInput,
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

  std::string lowerNormForward() {
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

  /// Y = (x - mean) * inv_variance * scale + bias, as pointwise ops (the
  /// cuDNN frontend's batchnorm_inference does the same).
  std::string lowerBatchnormInference() {
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

  std::string lowerNormBackward() {
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

  std::string lowerGenstats() {
    DescPtr o, d;
    TRY(b.create(CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR, o,
                 "OPERATION_GEN_STATS"));
    cudnnGenStatsMode_t mode = CUDNN_GENSTATS_SUM_SQSUM;
    cudnnDataType_t c = comp();
    SET(o, CUDNN_ATTR_OPERATION_GENSTATS_MODE, CUDNN_TYPE_GENSTATS_MODE, 1,
        &mode);
    SET(o, CUDNN_ATTR_OPERATION_GENSTATS_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1,
        &c);
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

  //===--------------------------------------------------------------------===//
  // Attention
  //===--------------------------------------------------------------------===//

  struct Attn {
    int64_t q = 0, k = 0, v = 0, scale = 0, bias = 0, seqQ = 0, seqKV = 0,
            dropMask = 0;
    int64_t b = 0, hq = 0, hk = 0, hv = 0, sq = 0, skv = 0, d = 0, dv = 0;
    cudnnDataType_t io = CUDNN_DATA_BFLOAT16;
    bool causalTL = false, causalBR = false, padding = false, alibi = false;
    bool bottomRight = false;
    std::optional<int64_t> left, right;
    double dropoutP = 0;
    bool needsComposite() const {
      return bias || padding || alibi || dropMask || dropoutP > 0 ||
             left.has_value() || right.has_value();
    }
    /// A padding mask and nothing else: the unified op carries it through
    /// its SEQ_LEN descriptors (the composite mask measured wrong).
    bool paddingOnly() const {
      return padding && !bias && !alibi && !dropMask && dropoutP <= 0 &&
             !left.has_value() && !right.has_value();
    }
  };

  std::string attnCommon(Attn &a) {
    TRY(in("q", a.q));
    TRY(in("k", a.k));
    TRY(in("v", a.v));
    const Tensor *q = find(a.q), *k = find(a.k), *v = find(a.v);
    if (!q || !k || !v || q->dims.size() != 4 || k->dims.size() != 4 ||
        v->dims.size() != 4)
      return err("q, k and v must be rank-4 tensors of the group");
    for (const Tensor *t : {q, k, v})
      if (t->strides[3] != 1)
        return err("the last stride of q, k and v must be 1");
    a.b = q->dims[0];
    a.hq = q->dims[1];
    a.sq = q->dims[2];
    a.d = q->dims[3];
    a.hk = k->dims[1];
    a.skv = k->dims[2];
    a.hv = v->dims[1];
    a.dv = v->dims[3];
    a.io = q->type;
    if (hasIn("attn_scale")) {
      TRY(in("attn_scale", a.scale));
    } else {
      a.scale = newScalar(fAttr("attn_scale_value").value_or(1.0),
                          CUDNN_DATA_FLOAT, 4);
    }
    if (hasIn("bias"))
      TRY(in("bias", a.bias));
    if (hasIn("dropout_mask"))
      TRY(in("dropout_mask", a.dropMask));
    a.dropoutP = fAttr("dropout_probability").value_or(0.0);
    if (a.dropoutP > 0 && !a.dropMask)
      return err("dropout without an explicit dropout_mask (RNG dropout) is "
                 "not lowered by the runtime");
    a.padding = flag("use_padding_mask");
    if (a.padding) {
      TRY(in("seq_len_q", a.seqQ));
      TRY(in("seq_len_kv", a.seqKV));
    }
    a.alibi = flag("use_alibi_mask");
    if (a.alibi)
      return err("the ALiBi mask is not lowered by the runtime yet");
    bool causal = flag("use_causal_mask");
    bool causalBR = flag("use_causal_mask_bottom_right");
    if (causal && causalBR)
      return err("use_causal_mask and use_causal_mask_bottom_right exclude "
                 "each other");
    a.bottomRight = iAttr("diagonal_alignment").value_or(0) == 1;
    a.left = iAttr("diagonal_band_left_bound");
    if (auto w = iAttr("sliding_window_length"))
      a.left = *w;
    a.right = iAttr("diagonal_band_right_bound");
    if (causal || causalBR) {
      a.bottomRight = causalBR;
      if (!a.right)
        a.right = 0;
    }
    return "";
  }

  /// S = Q K^T (K through a transposed view of its uid) * scale, then
  /// bias and masks. Returns the masked score's uid.
  std::string attnScores(const Attn &a, int64_t &score) {
    DescPtr kT;
    TRY(attnScoreBase(a, score, kT));
    return attnMasks(a, score);
  }

  /// K^T: the transposed descriptor of K's uid (dims/strides 2 and 3 swapped).
  std::string transposedView(int64_t uid, DescPtr &out) {
    const Tensor *t = find(uid);
    return view(uid, {t->dims[0], t->dims[1], t->dims[3], t->dims[2]},
                {t->strides[0], t->strides[1], t->strides[3], t->strides[2]},
                out);
  }

  /// S = Q K^T * scale [+ bias]; `kT` is the K^T descriptor it used.
  std::string attnScoreBase(const Attn &a, int64_t &score, DescPtr &kT) {
    TRY(transposedView(a.k, kT));
    Shape sDims = {a.b, a.hq, a.sq, a.skv};
    int64_t s = newVirtual(sDims, CUDNN_DATA_FLOAT);
    TRY(matmul(a.q, a.k, s, CUDNN_DATA_FLOAT, std::nullopt, nullptr, kT));
    int64_t scaled = newVirtual(sDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_MUL, s, a.scale, 0, scaled,
                  CUDNN_DATA_FLOAT));
    score = scaled;
    if (a.bias) {
      int64_t biased = newVirtual(sDims, CUDNN_DATA_FLOAT);
      TRY(pointwise(CUDNN_POINTWISE_ADD, score, a.bias, 0, biased,
                    CUDNN_DATA_FLOAT));
      score = biased;
    }
    return "";
  }

  /// The padding and diagonal-band masks on `score` (binary selects of the
  /// lowest float where masked), in the frontend's order.
  std::string attnMasks(const Attn &a, int64_t &score) {
    Shape sDims = {a.b, a.hq, a.sq, a.skv};
    double lowest = std::numeric_limits<float>::lowest();
    auto select = [&](int64_t mask) -> std::string {
      int64_t negInf = newScalar(lowest, CUDNN_DATA_FLOAT, 4);
      int64_t selected = newVirtual(sDims, CUDNN_DATA_FLOAT);
      TRY(pointwise(CUDNN_POINTWISE_BINARY_SELECT, score, negInf, mask,
                    selected, CUDNN_DATA_FLOAT));
      score = selected;
      return "";
    };
    auto genIndex = [&](int64_t axis, cudnnDataType_t type,
                        int64_t &idx) -> std::string {
      idx = newVirtual(sDims, type);
      PwParams p;
      p.axis = axis;
      return pointwise(CUDNN_POINTWISE_GEN_INDEX, score, 0, 0, idx, type, p);
    };
    if (a.padding) {
      int64_t row, col;
      TRY(genIndex(2, CUDNN_DATA_INT32, row));
      TRY(genIndex(3, CUDNN_DATA_INT32, col));
      int64_t rowOk = newVirtual(sDims, CUDNN_DATA_BOOLEAN);
      int64_t colOk = newVirtual(sDims, CUDNN_DATA_BOOLEAN);
      int64_t both = newVirtual(sDims, CUDNN_DATA_BOOLEAN);
      TRY(pointwise(CUDNN_POINTWISE_CMP_LT, row, a.seqQ, 0, rowOk,
                    CUDNN_DATA_BOOLEAN));
      TRY(pointwise(CUDNN_POINTWISE_CMP_LT, col, a.seqKV, 0, colOk,
                    CUDNN_DATA_BOOLEAN));
      TRY(pointwise(CUDNN_POINTWISE_LOGICAL_AND, rowOk, colOk, 0, both,
                    CUDNN_DATA_BOOLEAN));
      TRY(select(both));
    }
    if (a.right || a.left) {
      if (a.bottomRight && a.padding)
        return err("bottom-right alignment with a padding mask is not "
                   "lowered by the runtime yet");
      int64_t shift = a.bottomRight ? a.skv - a.sq : 0;
      if (a.right) {
        // keep col <= row + shift + right
        int64_t offset = shift + *a.right;
        if (offset == 0) {
          int64_t row, col;
          TRY(genIndex(2, CUDNN_DATA_INT32, row));
          TRY(genIndex(3, CUDNN_DATA_INT32, col));
          int64_t keep = newVirtual(sDims, CUDNN_DATA_BOOLEAN);
          TRY(pointwise(CUDNN_POINTWISE_CMP_GE, row, col, 0, keep,
                        CUDNN_DATA_BOOLEAN));
          TRY(select(keep));
        } else {
          int64_t row, col;
          TRY(genIndex(2, CUDNN_DATA_FLOAT, row));
          TRY(genIndex(3, CUDNN_DATA_FLOAT, col));
          int64_t off = newScalar(static_cast<double>(offset),
                                  CUDNN_DATA_FLOAT, 4);
          int64_t shifted = newVirtual(sDims, CUDNN_DATA_FLOAT);
          TRY(pointwise(CUDNN_POINTWISE_ADD, row, off, 0, shifted,
                        CUDNN_DATA_FLOAT));
          int64_t keep = newVirtual(sDims, CUDNN_DATA_BOOLEAN);
          TRY(pointwise(CUDNN_POINTWISE_CMP_GE, shifted, col, 0, keep,
                        CUDNN_DATA_BOOLEAN));
          TRY(select(keep));
        }
      }
      if (a.left) {
        // keep col > row + shift - left, i.e. col + left - shift > row
        int64_t row, col;
        TRY(genIndex(2, CUDNN_DATA_FLOAT, row));
        TRY(genIndex(3, CUDNN_DATA_FLOAT, col));
        int64_t off = newScalar(static_cast<double>(*a.left - shift),
                                CUDNN_DATA_FLOAT, 4);
        int64_t shifted = newVirtual(sDims, CUDNN_DATA_FLOAT);
        TRY(pointwise(CUDNN_POINTWISE_ADD, col, off, 0, shifted,
                      CUDNN_DATA_FLOAT));
        int64_t keep = newVirtual(sDims, CUDNN_DATA_BOOLEAN);
        TRY(pointwise(CUDNN_POINTWISE_CMP_GT, shifted, row, 0, keep,
                      CUDNN_DATA_BOOLEAN));
        TRY(select(keep));
      }
    }
    return "";
  }

  /// P * mask * dropout scale (explicit keep mask).
  std::string attnDropout(const Attn &a, int64_t &p, cudnnDataType_t outType) {
    if (!a.dropMask)
      return "";
    const Tensor *pt = find(p);
    Shape dims = pt->dims;
    double scale = 1.0 / (1.0 - a.dropoutP);
    int64_t masked = newVirtual(dims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_MUL, p, a.dropMask, 0, masked,
                  CUDNN_DATA_FLOAT));
    int64_t s = newScalar(scale, CUDNN_DATA_FLOAT, 4);
    int64_t scaled = newVirtual(dims, outType);
    TRY(pointwise(CUDNN_POINTWISE_MUL, masked, s, 0, scaled,
                  CUDNN_DATA_FLOAT));
    p = scaled;
    return "";
  }

  std::string lowerSdpa() {
    Attn a;
    TRY(attnCommon(a));
    int64_t o;
    TRY(out("O", o));
    bool extraStats = hasOut("score_max") || hasOut("score_sum_exp");
    bool unified = !a.needsComposite() || a.paddingOnly();
    if (unified && !extraStats && !hasIn("attn_scale") && !a.right &&
        !a.left && std::getenv("GRAPH_SDPA_COMPOSITE") == nullptr)
      return unifiedSdpa(a, o);
    // The composite graph's padding mask (gen_index < seq_len, select)
    // builds but is not applied: every masked key and row came out
    // unmasked on the H200 with cuDNN 9.19 (probe of 2026-12-01). An error
    // beats a wrong answer until the unified op's SEQ_LEN descriptors carry
    // it.
    if (a.padding)
      return err(kPaddingNotRun);
    return compositeSdpa(a, o);
  }

  std::string unifiedSdpa(const Attn &a, int64_t o) {
    DescPtr op, d;
    TRY(b.create(CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR, op,
                 "OPERATION_SDPA_FWD"));
    TRY(tensor(a.q, d));
    SET_DESC(op, CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, d);
    TRY(tensor(a.k, d));
    SET_DESC(op, CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, d);
    TRY(tensor(a.v, d));
    SET_DESC(op, CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, d);
    TRY(tensor(o, d));
    SET_DESC(op, CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, d);
    if (hasOut("Stats")) {
      int64_t stats;
      TRY(out("Stats", stats));
      TRY(tensor(stats, d));
      SET_DESC(op, CUDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, d);
    }
    TRY(tensor(a.scale, d));
    SET_DESC(op, CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, d);
    if (a.padding) {
      TRY(tensor(a.seqQ, d));
      SET_DESC(op, CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC, d);
      TRY(tensor(a.seqKV, d));
      SET_DESC(op, CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC, d);
    }
    TRY(b.finalize(op, "OPERATION_SDPA_FWD"));
    ops.push_back(op);
    return "";
  }

  std::string compositeSdpa(const Attn &a, int64_t o) {
    int64_t score;
    TRY(attnScores(a, score));
    Shape sDims = {a.b, a.hq, a.sq, a.skv}, rowDims = {a.b, a.hq, a.sq, 1};
    // Softmax with its log-sum-exp statistics.
    int64_t mx = hasOut("score_max") ? op->outputs.at("score_max")
                                     : newVirtual(rowDims, CUDNN_DATA_FLOAT);
    TRY(reduction(CUDNN_REDUCE_TENSOR_MAX, score, mx, CUDNN_DATA_FLOAT));
    int64_t centered = newVirtual(sDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_SUB, score, mx, 0, centered,
                  CUDNN_DATA_FLOAT));
    int64_t e = newVirtual(sDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_EXP, centered, 0, 0, e, CUDNN_DATA_FLOAT));
    int64_t sum = hasOut("score_sum_exp")
                      ? op->outputs.at("score_sum_exp")
                      : newVirtual(rowDims, CUDNN_DATA_FLOAT);
    TRY(reduction(CUDNN_REDUCE_TENSOR_ADD, e, sum, CUDNN_DATA_FLOAT));
    // cuDNN's fused attention engines match the softmax only with its
    // statistics written out: without a user Stats tensor (inference) they
    // go to a scratch buffer in the workspace, else the heuristics offer no
    // engine config for a causal or masked inference graph.
    int64_t stats;
    if (hasOut("Stats"))
      TRY(out("Stats", stats));
    else
      stats = newScratch(rowDims, CUDNN_DATA_FLOAT);
    int64_t logSum = newVirtual(rowDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_LOG, sum, 0, 0, logSum, CUDNN_DATA_FLOAT));
    TRY(pointwise(CUDNN_POINTWISE_ADD, mx, logSum, 0, stats,
                  CUDNN_DATA_FLOAT));
    // P in the io type: the A operand of the second matmul.
    int64_t p = newVirtual(sDims, a.dropMask ? CUDNN_DATA_FLOAT : a.io);
    TRY(pointwise(CUDNN_POINTWISE_DIV, e, sum, 0, p, CUDNN_DATA_FLOAT));
    TRY(attnDropout(a, p, a.io));
    return matmul(p, a.v, o, CUDNN_DATA_FLOAT);
  }

  std::string lowerSdpaBackward() {
    Attn a;
    TRY(attnCommon(a));
    int64_t o, dO, stats, dQ, dK, dV;
    TRY(in("o", o));
    TRY(in("dO", dO));
    TRY(in("stats", stats));
    TRY(out("dQ", dQ));
    TRY(out("dK", dK));
    TRY(out("dV", dV));
    if (hasOut("dBias"))
      return err("dBias is not lowered by the runtime yet");
    if ((!a.needsComposite() || a.paddingOnly()) && !hasIn("attn_scale") &&
        !a.right && !a.left && std::getenv("GRAPH_SDPA_COMPOSITE") == nullptr) {
      DescPtr op, d;
      TRY(b.create(CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR, op,
                   "OPERATION_SDPA_BWD"));
      auto setT = [&](int64_t uid, cudnnBackendAttributeName_t attr,
                      const char *name) -> std::string {
        DescPtr t;
        TRY(tensor(uid, t));
        return b.set(op, attr, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t->raw);
      };
#define SETT(uid, attr) TRY(setT(uid, attr, #attr))
      SETT(a.q, CUDNN_ATTR_OPERATION_SDPA_BWD_QDESC);
      SETT(a.k, CUDNN_ATTR_OPERATION_SDPA_BWD_KDESC);
      SETT(a.v, CUDNN_ATTR_OPERATION_SDPA_BWD_VDESC);
      SETT(o, CUDNN_ATTR_OPERATION_SDPA_BWD_ODESC);
      SETT(dO, CUDNN_ATTR_OPERATION_SDPA_BWD_DODDESC);
      SETT(stats, CUDNN_ATTR_OPERATION_SDPA_BWD_STATSDESC);
      SETT(a.scale, CUDNN_ATTR_OPERATION_SDPA_BWD_SCALEDESC);
      SETT(dQ, CUDNN_ATTR_OPERATION_SDPA_BWD_DQDESC);
      SETT(dK, CUDNN_ATTR_OPERATION_SDPA_BWD_DKDESC);
      SETT(dV, CUDNN_ATTR_OPERATION_SDPA_BWD_DVDESC);
      if (a.padding) {
        SETT(a.seqQ, CUDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_QDESC);
        SETT(a.seqKV, CUDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KVDESC);
      }
#undef SETT
      TRY(b.finalize(op, "OPERATION_SDPA_BWD"));
      ops.push_back(op);
      return "";
    }
    if (a.padding)
      return err(kPaddingNotRun);
    if (a.hq != a.hk || a.hq != a.hv)
      return err("the composite sdpa backward needs as many k/v heads as q "
                 "heads (GQA backward is not lowered yet)");
    // The graph of the cuDNN frontend's composite SDPA backward node
    // (scaled_dot_product_flash_attention.h, SDPABackwardNode::expand_node),
    // which the fused flash-attention backward engines match:
    //  * K and V appear only through their transposed descriptors (K^T, V^T);
    //    dQ reads K as a reshape of K^T into a virtual [b, h, s_kv, d].
    //  * softmax_sum = rowsum(dO * O) * dropout_scale_inv is a non-virtual
    //    f32 [b, h, s_q, 1] (workspace), made by a pointwise op.
    //  * P = exp(S * scale [+ bias] - Stats, then masks); dV = P^T dO.
    //  * dS = (dP [* dropout mask] - softmax_sum) * P [* dropout scale]
    //    * attn_scale stays f32; dK = dS^T Q; dQ = dS K^T^T into a
    //    non-virtual f32 dQ accumulator (workspace), then identity to dQ.
    Shape sDims = {a.b, a.hq, a.sq, a.skv}, rowDims = {a.b, a.hq, a.sq, 1};
    double keep = 1.0 - a.dropoutP;
    // softmax_sum chain.
    int64_t dOO = newVirtual({a.b, a.hq, a.sq, a.dv}, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_MUL, dO, o, 0, dOO, CUDNN_DATA_FLOAT));
    int64_t rowSum = newVirtual(rowDims, CUDNN_DATA_FLOAT);
    TRY(reduction(CUDNN_REDUCE_TENSOR_ADD, dOO, rowSum, CUDNN_DATA_FLOAT));
    int64_t softmaxSum = newScratch(rowDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_MUL, rowSum,
                  newScalar(a.dropMask ? keep : 1.0, CUDNN_DATA_FLOAT, 4), 0,
                  softmaxSum, CUDNN_DATA_FLOAT));
    // P = exp(S * scale [+ bias] - Stats, masked).
    int64_t score;
    DescPtr kT;
    TRY(attnScoreBase(a, score, kT));
    int64_t centered = newVirtual(sDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_SUB, score, stats, 0, centered,
                  CUDNN_DATA_FLOAT));
    TRY(attnMasks(a, centered));
    int64_t p = newVirtual(sDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_EXP, centered, 0, 0, p, CUDNN_DATA_FLOAT));
    int64_t pDropped = p;
    TRY(attnDropout(a, pDropped, CUDNN_DATA_FLOAT));
    // dV = P^T dO (P transposed by a reshape into the io type).
    Shape tDims = {a.b, a.hq, a.skv, a.sq};
    Shape tStrides = {a.hq * a.sq * a.skv, a.sq * a.skv, 1, a.skv};
    int64_t pT = newVirtual(tDims, a.io, tStrides);
    TRY(reshape(pDropped, pT));
    TRY(matmul(pT, dO, dV, CUDNN_DATA_FLOAT));
    // dP = dO V^T.
    DescPtr vT;
    TRY(transposedView(a.v, vT));
    int64_t dP = newVirtual(sDims, CUDNN_DATA_FLOAT);
    TRY(matmul(dO, a.v, dP, CUDNN_DATA_FLOAT, std::nullopt, nullptr, vT));
    if (a.dropMask) {
      int64_t masked = newVirtual(sDims, CUDNN_DATA_FLOAT);
      TRY(pointwise(CUDNN_POINTWISE_MUL, dP, a.dropMask, 0, masked,
                    CUDNN_DATA_FLOAT));
      dP = masked;
    }
    // dS = (dP - softmax_sum) * P [* dropout scale] * attn_scale.
    int64_t diff = newVirtual(sDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_SUB, dP, softmaxSum, 0, diff,
                  CUDNN_DATA_FLOAT));
    int64_t dS = newVirtual(sDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_MUL, diff, p, 0, dS, CUDNN_DATA_FLOAT));
    if (a.dropMask) {
      int64_t scaled = newVirtual(sDims, CUDNN_DATA_FLOAT);
      TRY(pointwise(CUDNN_POINTWISE_MUL, dS,
                    newScalar(1.0 / keep, CUDNN_DATA_FLOAT, 4), 0, scaled,
                    CUDNN_DATA_FLOAT));
      dS = scaled;
    }
    int64_t dSs = newVirtual(sDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_MUL, dS, a.scale, 0, dSs, CUDNN_DATA_FLOAT));
    dS = dSs;
    // dK = dS^T Q.
    int64_t dST = newVirtual(tDims, a.io, tStrides);
    TRY(reshape(dS, dST));
    TRY(matmul(dST, a.q, dK, CUDNN_DATA_FLOAT));
    // dQ = dS K: K is the reshape of K^T back to [b, h, s_kv, d].
    const Tensor *k = find(a.k);
    int64_t kR = newVirtual(k->dims, CUDNN_DATA_FLOAT, k->strides);
    TRY(reshape(a.k, kR, kT));
    int64_t dQacc = newScratch({a.b, a.hq, a.sq, a.d}, CUDNN_DATA_FLOAT);
    TRY(matmul(dS, kR, dQacc, CUDNN_DATA_FLOAT));
    return pointwise(CUDNN_POINTWISE_IDENTITY, dQacc, 0, 0, dQ,
                     CUDNN_DATA_FLOAT);
  }
};

//===----------------------------------------------------------------------===//
// The group
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Relabelings of layout-free graphs
//===----------------------------------------------------------------------===//

bool isPacked(const TensorSpec &t) {
  return t.strides.empty() || t.strides == ref::rowMajorStrides(t.dims);
}

/// `s` with every tensor described by other dims/strides over the same
/// bytes: `map(dims of a non-by-value tensor)` gives its new dims and
/// strides; by-value scalars become all-ones of rank `rank`.
GraphSpec relabeled(const GraphSpec &s, size_t rank,
                    const std::function<std::pair<Shape, Shape>(const Shape &)>
                        &map) {
  GraphSpec out = s;
  for (TensorSpec &t : out.tensors) {
    if (t.isByValue) {
      t.dims = Shape(rank, 1);
      t.strides = Shape(rank, 1);
      continue;
    }
    auto [dims, strides] = map(t.dims);
    t.dims = dims;
    t.strides = strides;
  }
  return out;
}

/// Equivalent descriptions of a pointwise-only graph whose tensors all
/// share one packed shape (every element maps to itself, so any relabeling
/// applied to all tensors alike keeps the result), or of a one-op reduction
/// of a packed tensor that keeps or reduces whole runs of axes.
std::vector<std::pair<std::string, GraphSpec>>
relabelings(const GraphSpec &s) {
  std::vector<std::pair<std::string, GraphSpec>> out;
  bool pointwiseOnly = !s.ops.empty();
  for (const OpSpec &o : s.ops)
    pointwiseOnly &= o.kind == "pointwise" && o.mode != "gen_index";
  auto dimsText = [](const Shape &d) {
    std::string t = "[";
    for (size_t i = 0; i < d.size(); ++i)
      t += (i ? "," : "") + std::to_string(d[i]);
    return t + "]";
  };
  if (pointwiseOnly) {
    const Shape *shape = nullptr;
    for (const TensorSpec &t : s.tensors) {
      if (t.isByValue)
        continue;
      if (!isPacked(t) || (shape && t.dims != *shape))
        return out;
      shape = &t.dims;
    }
    if (!shape || shape->empty())
      return out;
    int64_t n = ref::numElements(*shape), l = shape->back();
    if (l <= 0 || n <= 0)
      return out;
    int64_t rows = n / l;
    auto add = [&](const std::string &what, const Shape &d, const Shape &st) {
      if (d == *shape)
        return;
      out.push_back({what + " " + dimsText(d),
                     relabeled(s, d.size(), [&](const Shape &) {
                       return std::make_pair(d, st);
                     })});
    };
    add("channels-last", {rows, l, 1, 1}, {l, 1, l, l});
    add("packed", {1, rows, l}, {n, l, 1});
    add("channels-last", {1, l, rows, 1}, {n, 1, l, l});
    return out;
  }
  if (s.ops.size() != 1 || s.ops[0].kind != "reduction")
    return out;
  const OpSpec &op = s.ops[0];
  auto xi = op.inputs.find("input"), yi = op.outputs.find("output");
  if (xi == op.inputs.end() || yi == op.outputs.end())
    return out;
  const TensorSpec *x = nullptr, *y = nullptr;
  for (const TensorSpec &t : s.tensors) {
    if (t.uid == xi->second)
      x = &t;
    if (t.uid == yi->second)
      y = &t;
  }
  if (!x || !y || s.tensors.size() != 2 || !isPacked(*x) || !isPacked(*y) ||
      x->dims.size() != y->dims.size())
    return out;
  // Runs of kept (K) and reduced (R) axes, unit axes dropped.
  std::vector<std::pair<bool, int64_t>> runs; // (reduced, size)
  for (size_t i = 0; i < x->dims.size(); ++i) {
    int64_t dx = x->dims[i], dy = y->dims[i];
    if (dx == 1)
      continue;
    if (dy != dx && dy != 1)
      return out;
    bool reduced = dy == 1;
    if (!runs.empty() && runs.back().first == reduced)
      runs.back().second *= dx;
    else
      runs.push_back({reduced, dx});
  }
  auto add = [&](const std::string &what, const Shape &xd, const Shape &xs,
                 const Shape &yd, const Shape &ys) {
    if (xd == x->dims && yd == y->dims)
      return;
    GraphSpec alt = s;
    for (TensorSpec &t : alt.tensors) {
      bool isX = t.uid == x->uid;
      t.dims = isX ? xd : yd;
      t.strides = isX ? xs : ys;
    }
    out.push_back({what + " " + dimsText(xd) + "->" + dimsText(yd), alt});
  };
  if (runs.size() == 1 && runs[0].first) { // everything reduced
    int64_t n = runs[0].second;
    add("channels-last", {1, n, 1, 1}, {n, 1, n, n}, {1, 1, 1, 1},
        {1, 1, 1, 1});
    add("packed", {1, 1, n}, {n, n, 1}, {1, 1, 1}, {1, 1, 1});
  } else if (runs.size() == 2 && runs[0].first) { // [R, K] -> [1, K]
    int64_t r = runs[0].second, k = runs[1].second;
    add("channels-last", {1, k, r, 1}, {r * k, 1, k, k}, {1, k, 1, 1},
        {k, 1, k, k});
    add("channels-last", {r, k, 1, 1}, {k, 1, k, k}, {1, k, 1, 1},
        {k, 1, k, k});
    add("packed", {1, r, k}, {r * k, k, 1}, {1, 1, k}, {k, k, 1});
  } else if (runs.size() == 2 && !runs[0].first) { // [K, R] -> [K, 1]
    int64_t k = runs[0].second, r = runs[1].second;
    add("packed", {1, k, r}, {k * r, r, 1}, {1, k, 1}, {k, 1, 1});
    add("channels-last", {k, r, 1, 1}, {r, 1, r, r}, {k, 1, 1, 1},
        {1, 1, 1, 1});
  }
  return out;
}

struct Plan {
  PlanInfo info;
  DescPtr engineConfig; // from the heuristics, or made for addPlan
  DescPtr plan;
};

class CudnnGroupImpl final : public CudnnGroup {
public:
  Device &device;
  const CudnnApi &api;
  GraphSpec spec;
  // The spec the operation graph was lowered from: `spec`, or a relabeling
  // of it (same uids and bytes, other dims/strides) that cuDNN has engines
  // for. `relabel` names the relabeling ("" for none).
  std::unique_ptr<GraphSpec> loweredSpec;
  std::string relabel;
  std::unique_ptr<Lowering> lowering;
  DescPtr opGraph;
  std::vector<Plan> planList;
  std::vector<PlanInfo> infos;

  CudnnGroupImpl(Device &device, const CudnnApi &api, const GraphSpec &s)
      : device(device), api(api), spec(s) {}

  Builder builder(const std::string &context = "") {
    return Builder{api, spec.name, context};
  }

  std::string build() { return buildFrom(spec, ""); }

  std::string buildFrom(const GraphSpec &from, const std::string &label) {
    opGraph.reset();
    loweredSpec = std::make_unique<GraphSpec>(from);
    keyUidZero(*loweredSpec);
    relabel = label;
    lowering = std::make_unique<Lowering>(api, *loweredSpec);
    TRY(lowering->addSpecTensors());
    if (loweredSpec->ops.empty())
      return "group '" + spec.name + "' has no ops";
    for (const OpSpec &o : loweredSpec->ops)
      TRY(lowering->lowerOp(o));
    Builder b = builder("operation graph");
    TRY(b.create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, opGraph,
                 "OPERATIONGRAPH"));
    std::vector<cudnnBackendDescriptor_t> raw;
    for (const DescPtr &o : lowering->ops)
      raw.push_back(o->raw);
    cudnnHandle_t handle = static_cast<cudnnHandle_t>(device.cudnnHandle());
    SET(opGraph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        static_cast<int64_t>(raw.size()), raw.data());
    SET(opGraph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1,
        &handle);
    return b.finalize(opGraph, "OPERATIONGRAPH");
  }

  const std::vector<PlanInfo> &plans() const override { return infos; }

  /// Engine id, knobs and notes of a finalized engine config.
  std::string describe(const DescPtr &cfg, PlanInfo &info) {
    Builder b = builder("engine config");
    DescPtr engine;
    TRY(b.create(CUDNN_BACKEND_ENGINE_DESCRIPTOR, engine, "ENGINE"));
    int64_t count = 0;
    if (cudnnStatus_t s = api.cudnnBackendGetAttribute(
            cfg->raw, CUDNN_ATTR_ENGINECFG_ENGINE,
            CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &engine->raw);
        s != CUDNN_STATUS_SUCCESS)
      return b.fail("cudnnBackendGetAttribute(CUDNN_ATTR_ENGINECFG_ENGINE)", s);
    int64_t id = -1;
    if (cudnnStatus_t s = api.cudnnBackendGetAttribute(
            engine->raw, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1,
            &count, &id);
        s != CUDNN_STATUS_SUCCESS)
      return b.fail("cudnnBackendGetAttribute(CUDNN_ATTR_ENGINE_GLOBAL_INDEX)",
                    s);
    info.engineId = id;
    // Notes (best effort: older libraries may not report them).
    cudnnBackendNumericalNote_t numeric[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
    if (api.cudnnBackendGetAttribute(
            engine->raw, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
            CUDNN_TYPE_NUMERICAL_NOTE, CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &count,
            numeric) == CUDNN_STATUS_SUCCESS) {
      static const char *names[] = {
          "TENSOR_CORE", "DOWN_CONVERT_INPUTS", "REDUCED_PRECISION_REDUCTION",
          "FFT",         "NONDETERMINISTIC",    "WINOGRAD",
          "WINOGRAD_TILE_4x4", "WINOGRAD_TILE_6x6", "WINOGRAD_TILE_13x13",
          "STRICT_NAN_PROP"};
      for (int64_t i = 0; i < count; ++i)
        if (numeric[i] >= 0 && numeric[i] < CUDNN_NUMERICAL_NOTE_TYPE_COUNT)
          info.numericNotes.push_back(names[numeric[i]]);
    }
    cudnnBackendBehaviorNote_t behavior[CUDNN_BEHAVIOR_NOTE_TYPE_COUNT];
    if (api.cudnnBackendGetAttribute(
            engine->raw, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
            CUDNN_TYPE_BEHAVIOR_NOTE, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT, &count,
            behavior) == CUDNN_STATUS_SUCCESS) {
      static const char *names[] = {
          "RUNTIME_COMPILATION", "REQUIRES_FILTER_INT8x32_REORDER",
          "REQUIRES_BIAS_INT8x32_REORDER", "SUPPORTS_CUDA_GRAPH_NATIVE_API",
          "CUBLASLT_DEPENDENCY"};
      for (int64_t i = 0; i < count; ++i)
        if (behavior[i] >= 0 && behavior[i] < CUDNN_BEHAVIOR_NOTE_TYPE_COUNT)
          info.behaviorNotes.push_back(names[behavior[i]]);
    }
    // Knob choices.
    constexpr int64_t maxKnobs = CUDNN_KNOB_TYPE_COUNTS;
    std::vector<DescPtr> choices(maxKnobs);
    std::vector<cudnnBackendDescriptor_t> rawChoices(maxKnobs);
    for (int64_t i = 0; i < maxKnobs; ++i) {
      TRY(b.create(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, choices[i],
                   "KNOB_CHOICE"));
      rawChoices[i] = choices[i]->raw;
    }
    if (api.cudnnBackendGetAttribute(
            cfg->raw, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
            CUDNN_TYPE_BACKEND_DESCRIPTOR, maxKnobs, &count,
            rawChoices.data()) == CUDNN_STATUS_SUCCESS) {
      for (int64_t i = 0; i < count && i < maxKnobs; ++i) {
        cudnnBackendKnobType_t type;
        int64_t value = 0, n = 0;
        if (api.cudnnBackendGetAttribute(
                rawChoices[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE,
                CUDNN_TYPE_KNOB_TYPE, 1, &n, &type) != CUDNN_STATUS_SUCCESS ||
            api.cudnnBackendGetAttribute(
                rawChoices[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE,
                CUDNN_TYPE_INT64, 1, &n, &value) != CUDNN_STATUS_SUCCESS)
          continue;
        info.knobs.push_back({static_cast<int64_t>(type), value});
      }
    }
    info.name = planName(info.engineId, info.knobs);
    return "";
  }

  static std::string
  planName(int64_t engine, const std::vector<std::pair<int64_t, int64_t>> &k) {
    std::string name = "eng" + std::to_string(engine);
    for (auto [type, value] : k)
      name += "_k" + std::to_string(type) + "=" + std::to_string(value);
    return name;
  }

  std::string createPlans(const std::vector<HeurMode> &modes) override {
    std::string errors = queryHeuristics(modes);
    if (!planList.empty() || !relabel.empty())
      return planList.empty() ? noConfigError(errors, {}) : "";
    // cuDNN's runtime-fusion engines take pointwise-only and reduction-only
    // graphs only in some layouts (its own standalone samples use 3-D packed
    // pointwise tensors and channels-last 4-D reductions: cudnn-frontend
    // samples/cpp/pointwise.cpp; NCHW 4-D pointwise graphs get no engine:
    // cudnn-frontend issue #171). Such graphs are layout-free: every tensor
    // may be relabeled alike, so try the layouts those engines take.
    std::vector<std::string> tried;
    for (auto &[label, alt] : relabelings(spec)) {
      tried.push_back(label);
      if (!buildFrom(alt, label).empty())
        continue;
      queryHeuristics(modes);
      if (!planList.empty())
        return "";
    }
    std::string restore = build();
    if (!tried.empty() && restore.empty())
      relabel = "(none)"; // tried; do not retry on a later call
    return noConfigError(errors, tried);
  }

  std::string noConfigError(const std::string &errors,
                            const std::vector<std::string> &tried) const {
    if (!errors.empty())
      return errors;
    std::string kinds;
    bool pointwiseOnly = true, reductionOnly = spec.ops.size() == 1;
    for (const OpSpec &o : spec.ops) {
      pointwiseOnly &= o.kind == "pointwise";
      reductionOnly &= o.kind == "reduction";
    }
    std::string out =
        "group '" + spec.name + "': the heuristics offered no engine config";
    if (pointwiseOnly || reductionOnly) {
      out += std::string(" for this ") +
             (pointwiseOnly ? "pointwise-only" : "reduction-only") +
             " graph: cuDNN runs such graphs only on its runtime-fusion "
             "engines, which accept only some layouts";
      if (!tried.empty()) {
        out += " (also tried it relabeled as";
        for (size_t i = 0; i < tried.size(); ++i)
          out += (i ? ", " : " ") + tried[i];
        out += ")";
      }
    }
    return out;
  }

  std::string queryHeuristics(const std::vector<HeurMode> &modes) {
    std::string errors;
    for (HeurMode mode : modes) {
      cudnnBackendHeurMode_t m = mode == HeurMode::A   ? CUDNN_HEUR_MODE_A
                                 : mode == HeurMode::B ? CUDNN_HEUR_MODE_B
                                                       : CUDNN_HEUR_MODE_FALLBACK;
      const char *modeName = mode == HeurMode::A   ? "A"
                             : mode == HeurMode::B ? "B"
                                                   : "fallback";
      Builder b = builder(std::string("heuristics mode ") + modeName);
      std::string e = [&]() -> std::string {
        DescPtr heur;
        TRY(b.create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, heur, "ENGINEHEUR"));
        SET(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
            CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &opGraph->raw);
        SET(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &m);
        TRY(b.finalize(heur, "ENGINEHEUR"));
        int64_t count = 0;
        if (cudnnStatus_t s = api.cudnnBackendGetAttribute(
                heur->raw, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr);
            s != CUDNN_STATUS_SUCCESS)
          return b.fail("cudnnBackendGetAttribute(ENGINEHEUR_RESULTS count)",
                        s);
        std::vector<DescPtr> cfgs(count);
        std::vector<cudnnBackendDescriptor_t> raw(count);
        for (int64_t i = 0; i < count; ++i) {
          TRY(b.create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, cfgs[i],
                       "ENGINECFG"));
          raw[i] = cfgs[i]->raw;
        }
        int64_t got = 0;
        if (count > 0)
          if (cudnnStatus_t s = api.cudnnBackendGetAttribute(
                  heur->raw, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                  CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got, raw.data());
              s != CUDNN_STATUS_SUCCESS)
            return b.fail("cudnnBackendGetAttribute(ENGINEHEUR_RESULTS)", s);
        for (int64_t i = 0; i < got; ++i) {
          Plan p;
          p.engineConfig = cfgs[i];
          if (std::string why = describe(cfgs[i], p.info); !why.empty())
            p.info.error = why;
          bool duplicate = false;
          for (const Plan &existing : planList)
            duplicate |= existing.info.name == p.info.name &&
                         existing.info.engineId == p.info.engineId;
          if (duplicate)
            continue;
          planList.push_back(p);
          infos.push_back(p.info);
        }
        return "";
      }();
      if (!e.empty())
        errors += (errors.empty() ? "" : "; ") + e;
    }
    if (!relabel.empty() && relabel != "(none)")
      for (size_t i = 0; i < planList.size(); ++i)
        if (planList[i].info.name.find(" [as ") == std::string::npos) {
          planList[i].info.name += " [as " + relabel + "]";
          infos[i].name = planList[i].info.name;
        }
    return errors;
  }

  std::string addPlan(
      int64_t engineId,
      const std::vector<std::pair<int64_t, int64_t>> &knobs) override {
    Builder b = builder("engine " + std::to_string(engineId));
    DescPtr engine, cfg;
    TRY(b.create(CUDNN_BACKEND_ENGINE_DESCRIPTOR, engine, "ENGINE"));
    SET(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH,
        CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &opGraph->raw);
    SET(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &engineId);
    TRY(b.finalize(engine, "ENGINE"));
    std::vector<DescPtr> choices;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (auto [type, value] : knobs) {
      DescPtr c;
      TRY(b.create(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, c, "KNOB_CHOICE"));
      cudnnBackendKnobType_t t = static_cast<cudnnBackendKnobType_t>(type);
      SET(c, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &t);
      SET(c, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &value);
      TRY(b.finalize(c, "KNOB_CHOICE"));
      choices.push_back(c);
      raw.push_back(c->raw);
    }
    TRY(b.create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, cfg, "ENGINECFG"));
    SET(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
        &engine->raw);
    if (!raw.empty())
      SET(cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR,
          static_cast<int64_t>(raw.size()), raw.data());
    TRY(b.finalize(cfg, "ENGINECFG"));
    Plan p;
    p.engineConfig = cfg;
    p.info.engineId = engineId;
    p.info.knobs = knobs;
    p.info.name = planName(engineId, knobs);
    planList.push_back(p);
    infos.push_back(p.info);
    return "";
  }

  std::string finishPlan(size_t index) {
    Plan &p = planList[index];
    Builder b = builder("plan " + p.info.name);
    int64_t ws = 0, n = 0;
    if (cudnnStatus_t s = api.cudnnBackendGetAttribute(
            p.plan->raw, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
            CUDNN_TYPE_INT64, 1, &n, &ws);
        s != CUDNN_STATUS_SUCCESS)
      return b.fail("cudnnBackendGetAttribute(EXECUTION_PLAN_WORKSPACE_SIZE)",
                    s);
    p.info.workspaceBytes = ws;
    p.info.built = true;
    p.info.error.clear();
    infos[index] = p.info;
    return "";
  }

  std::string buildPlan(size_t index) override {
    if (index >= planList.size())
      return "group '" + spec.name + "': no plan " + std::to_string(index);
    Plan &p = planList[index];
    if (p.info.built)
      return "";
    Builder b = builder("plan " + p.info.name);
    std::string e = [&]() -> std::string {
      if (!p.engineConfig)
        return "group '" + spec.name + "': plan has no engine config";
      DescPtr plan;
      TRY(b.create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, plan,
                   "EXECUTION_PLAN"));
      cudnnHandle_t handle = static_cast<cudnnHandle_t>(device.cudnnHandle());
      SET(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1,
          &handle);
      SET(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
          CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &p.engineConfig->raw);
      TRY(b.finalize(plan, "EXECUTION_PLAN"));
      p.plan = plan;
      return finishPlan(index);
    }();
    if (!e.empty()) {
      p.info.error = e;
      infos[index] = p.info;
    }
    return e;
  }

  std::string addPlanFromJson(const std::string &json) override {
    Builder b = builder("plan from JSON");
    DescPtr plan;
    TRY(b.create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, plan,
                 "EXECUTION_PLAN"));
    cudnnHandle_t handle = static_cast<cudnnHandle_t>(device.cudnnHandle());
    SET(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
    SET(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
        static_cast<int64_t>(json.size()), json.data());
    TRY(b.finalize(plan, "EXECUTION_PLAN from JSON"));
    Plan p;
    p.plan = plan;
    p.info.name = "json";
    planList.push_back(p);
    infos.push_back(p.info);
    return finishPlan(planList.size() - 1);
  }

  int64_t workspaceBytes(size_t index) const override {
    if (index >= planList.size())
      return 0;
    int64_t own = (planList[index].info.workspaceBytes + 255) / 256 * 256;
    return own + lowering->scratchBytes;
  }

  DescPtr lastPack; // the variant pack of the last execute
  size_t lastPackPlan = 0;
  std::vector<void *> lastPackPointers;
  void *lastPackWorkspace = nullptr;
  // This execute's uids and pointers, kept so a repeated execute allocates
  // nothing.
  std::vector<int64_t> packUids;
  std::vector<void *> packPointers;

  std::string execute(size_t index, const std::map<int64_t, void *> &buffers,
                      void *workspace) override {
    if (index >= planList.size() || !planList[index].info.built)
      return "group '" + spec.name + "': plan " + std::to_string(index) +
             " is not built";
    Plan &p = planList[index];
    std::vector<int64_t> &uids = packUids;
    std::vector<void *> &pointers = packPointers;
    uids.clear();
    pointers.clear();
    int64_t scratchBase = (p.info.workspaceBytes + 255) / 256 * 256;
    if ((p.info.workspaceBytes > 0 || lowering->scratchBytes > 0) && !workspace)
      return "group '" + spec.name + "': plan " + p.info.name + " needs " +
             std::to_string(workspaceBytes(index)) +
             " bytes of workspace and none was given";
    for (auto &[uid, t] : lowering->tensors) {
      if (t.isVirtual)
        continue;
      uids.push_back(uid);
      if (t.isByValue) {
        pointers.push_back(t.value);
      } else if (t.isScratch) {
        pointers.push_back(static_cast<char *>(workspace) + scratchBase +
                           t.scratchOffset);
      } else {
        int64_t userUid = uid == kUidZeroKey ? 0 : uid;
        auto it = buffers.find(userUid);
        if (it == buffers.end() || !it->second)
          return "group '" + spec.name + "': no device buffer for tensor uid " +
                 std::to_string(userUid);
        pointers.push_back(it->second);
      }
    }
    // Repeated executes with the same buffers reuse the variant pack: its
    // creation is most of the host time of a small group.
    if (!lastPack || lastPackPlan != index || lastPackPointers != pointers ||
        lastPackWorkspace != workspace) {
      Builder b = builder("execute plan " + p.info.name);
      DescPtr pack;
      TRY(b.create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, pack,
                   "VARIANT_PACK"));
      SET(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64,
          static_cast<int64_t>(uids.size()), uids.data());
      SET(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
          static_cast<int64_t>(pointers.size()), pointers.data());
      SET(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1,
          &workspace);
      TRY(b.finalize(pack, "VARIANT_PACK"));
      lastPack = std::move(pack);
      lastPackPlan = index;
      lastPackPointers = pointers;
      lastPackWorkspace = workspace;
    }
    const DescPtr &pack = lastPack;
    if (cudnnStatus_t s = api.cudnnBackendExecute(
            static_cast<cudnnHandle_t>(device.cudnnHandle()), p.plan->raw,
            pack->raw);
        s != CUDNN_STATUS_SUCCESS)
      return builder("execute plan " + p.info.name)
          .fail("cudnnBackendExecute", s);
    return "";
  }

  std::string planJson(size_t index, std::string &json) override {
    if (index >= planList.size() || !planList[index].info.built)
      return "group '" + spec.name + "': plan " + std::to_string(index) +
             " is not built";
    Plan &p = planList[index];
    Builder b = builder("plan " + p.info.name + " JSON");
    int64_t size = 0;
    if (cudnnStatus_t s = api.cudnnBackendGetAttribute(
            p.plan->raw, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
            CUDNN_TYPE_CHAR, 0, &size, nullptr);
        s != CUDNN_STATUS_SUCCESS)
      return b.fail("cudnnBackendGetAttribute(JSON_REPRESENTATION size)", s);
    std::string text(static_cast<size_t>(size), '\0');
    if (cudnnStatus_t s = api.cudnnBackendGetAttribute(
            p.plan->raw, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
            CUDNN_TYPE_CHAR, size, &size, text.data());
        s != CUDNN_STATUS_SUCCESS)
      return b.fail("cudnnBackendGetAttribute(JSON_REPRESENTATION)", s);
    while (!text.empty() && text.back() == '\0')
      text.pop_back();
    json = text;
    return "";
  }
};

} // namespace

std::unique_ptr<CudnnGroup> CudnnGroup::create(Device &device,
                                               const GraphSpec &spec,
                                               std::string &error) {
  const CudnnApi *api = cudnnApi(error);
  if (!api)
    return nullptr;
  auto group = std::make_unique<CudnnGroupImpl>(device, *api, spec);
  error = group->build();
  if (!error.empty())
    return nullptr;
  return group;
}
