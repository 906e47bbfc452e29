//===- CudnnGroupInternal.h - cuDNN lowering internals ----------*- C++ -*-===//
//
// Internal to lib/Runtime. The backend-descriptor builder, the tensors of a
// lowered group and the Lowering class, whose members are defined in
// CudnnDescriptors.cpp (tensors, primitive operations, dispatch) and in one
// CudnnOps<Family>.cpp per op family. CudnnGroup.cpp plans and executes;
// CudnnRelabel.cpp offers other layouts of layout-free graphs.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_LIB_RUNTIME_CUDNNGROUPINTERNAL_H
#define GRAPHDIALECT_LIB_RUNTIME_CUDNNGROUPINTERNAL_H

#include "RuntimeApi.h"

#include "GraphDialect/Runtime/CudnnGraph.h"
#include "GraphDialect/Support/ByValuePorts.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace graph::rt::cudnn {

using namespace graph::rt::detail;

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
/// SET_DESC with the descriptor of a tensor uid (Lowering::setTensor).
#define SET_TENSOR(desc, uid, attr) TRY(setTensor(desc, uid, attr, #attr))
#define SET_DESC(desc, attr, tensor)                                           \
  do {                                                                         \
    cudnnBackendDescriptor_t rawDesc = (tensor)->raw;                          \
    SET(desc, attr, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &rawDesc);               \
  } while (0)

cudnnDataType_t toCudnn(DType t);

size_t cudnnTypeBytes(cudnnDataType_t t);

/// Writes `value` as one element of `type` into `out` (by-value scalars).
void encodeScalar(cudnnDataType_t type, double value, unsigned char *out);

inline Shape rowMajor(const Shape &dims) { return rowMajorStrides(dims); }

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
  // A by-value tensor's value, which the variant pack points cuDNN at:
  // aligned for the widest scalar it holds (unaligned after the two bools
  // above, it sat at an address of 2 mod 8; see the note of 2026-12-03).
  alignas(8) unsigned char value[8] = {0};
  bool isScratch = false; // non-virtual, lives in the workspace tail
  int64_t scratchOffset = 0;
  // Contents a scratch tensor must hold when the plan runs (constants the
  // lowering computes on the host, e.g. ALiBi slopes); uploaded when the
  // execute's workspace is not the one they were last uploaded to (a
  // group's workspace is its own).
  std::vector<unsigned char> scratchInit;
  void *scratchUploadedTo = nullptr;
  // A by-value tensor whose value is the caller's one-element buffer, read
  // on the host before each execute (cuDNN takes a norm's epsilon by value;
  // the frontend's programs pass it as a tensor). While the stream is
  // captured into a CUDA graph the last value read is used.
  bool valueFromBuffer = false;
  bool valueRead = false;
  // The caller's buffer holds an f64 (the frontend's programs pass torch
  // float64 CPU tensors); cuDNN is given its value as a FLOAT.
  bool valueIsF64 = false;
  // Ragged (packed) tensor: the uid of its [B + 1, 1, 1, 1] element
  // offsets, set on each of its descriptors (views included); 0: none.
  int64_t raggedOffset = 0;
  DescPtr desc;
};

/// "64x1": dims for messages.
std::string shapeText(const Shape &dims);

constexpr int64_t kInternalUidBase = int64_t(1) << 40;

/// The lowering passes uid 0 for "no tensor" (an absent optional operand),
/// while 0 is a valid user uid: the lowered spec carries a user's uid 0 as
/// kUidZeroKey (also its cuDNN unique id), and execute maps it back to find
/// the caller's buffer.
constexpr int64_t kUidZeroKey = kInternalUidBase - 1;

void keyUidZero(GraphSpec &spec);

/// Per-batch GEMM extents of a matmul: uids of [B, 1, 1, 1] integer
/// tensors that bound M, N or K of each batch (0: the tensor's own extent).
struct GemmOverrides {
  int64_t m = 0, n = 0, k = 0;
};

class Lowering {
public:
  /// `compositeAttention`: attention lowers to the composite pattern even
  /// where the unified SDPA operations apply (the group asks for it after
  /// cuDNN refused the unified graph).
  Lowering(const CudnnApi &api, const GraphSpec &spec, bool compositeAttention)
      : b{api, spec.name, ""}, spec(spec),
        compositeAttention(compositeAttention) {}

  Builder b;
  const GraphSpec &spec;
  std::map<int64_t, Tensor> tensors;
  std::vector<DescPtr> ops;
  std::vector<DescPtr> extraDescs; // views sharing a uid, kept alive
  int64_t nextUid = kInternalUidBase;
  int64_t scratchBytes = 0;

  std::string addSpecTensors();

  std::string makeDesc(Tensor &t, const Shape &dims, const Shape &strides,
                       DescPtr &out);

  /// The descriptor of tensor `uid`, made on first use.
  std::string tensor(int64_t uid, DescPtr &out);

  /// Sets `op`'s descriptor attribute `attr` (spelled `name` in messages)
  /// to the tensor descriptor of `uid`.
  std::string setTensor(const DescPtr &op, int64_t uid,
                        cudnnBackendAttributeName_t attr, const char *name);

  /// A second descriptor of `uid` with other dims/strides (a transposed view).
  std::string view(int64_t uid, const Shape &dims, const Shape &strides,
                   DescPtr &out);

  int64_t newVirtual(const Shape &dims, cudnnDataType_t type,
                     const Shape &strides = {});

  int64_t newScalar(double value, cudnnDataType_t type, size_t rank);

  int64_t newScratch(const Shape &dims, cudnnDataType_t type);

  /// A scratch f32 tensor holding `values` (row-major) when the plan runs.
  int64_t newScratchConstant(const Shape &dims,
                             const std::vector<float> &values);

  const bool compositeAttention;
  /// The lowering used a unified SDPA operation (a composite retry may help).
  bool usedUnifiedAttention = false;

  /// Gives virtual tensor `uid` memory in the workspace tail: for outputs
  /// cuDNN's engines always write (a norm backward's DScale and DBias, even
  /// when nothing reads them).
  void toScratch(int64_t uid);

  /// Makes tensor `uid` (operand `port`) by-value for an attribute cuDNN
  /// reads by value only: a one-element graph input is read from its
  /// buffer before each execute; a computed one is an error.
  std::string toByValue(int64_t uid, Port port);
  /// Makes `t` a by-value tensor whose value is read from its buffer on the
  /// host at each execute.
  void readValueFromBuffer(Tensor &t);

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
                        int64_t dy = 0);

  /// C = A x B; aDesc/bDesc override the tensors' own descriptors (views).
  std::string matmul(int64_t a, int64_t bT, int64_t c, cudnnDataType_t comp,
                     std::optional<double> padding = std::nullopt,
                     DescPtr aDesc = nullptr, DescPtr bDesc = nullptr,
                     DescPtr cDesc = nullptr,
                     const GemmOverrides &overrides = {});

  std::string reduction(cudnnReduceTensorOp_t mode, int64_t x, int64_t y,
                        cudnnDataType_t comp);

  /// y = x viewed with y's dims/strides; `xDesc` overrides x's descriptor.
  std::string reshape(int64_t x, int64_t y, DescPtr xDesc = nullptr);

  //===--------------------------------------------------------------------===//
  // Spec ops
  //===--------------------------------------------------------------------===//

  const OpSpec *op = nullptr;

  std::string err(const std::string &message) const {
    return "group '" + spec.name + "', " + b.context + ": " + message;
  }

  bool hasIn(Port port) const { return op->inputs.count(port) != 0; }
  bool hasOut(Port port) const { return op->outputs.count(port) != 0; }
  std::string in(Port port, int64_t &uid) const {
    auto it = op->inputs.find(port);
    if (it == op->inputs.end())
      return err(std::string("missing input '") + portName(port) + "'");
    uid = it->second;
    return "";
  }
  std::string out(Port port, int64_t &uid) const {
    auto it = op->outputs.find(port);
    if (it == op->outputs.end())
      return err(std::string("missing output '") + portName(port) + "'");
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

  std::string lowerOp(const OpSpec &o);

  std::string lowerPointwise();

  std::string lowerMatmul();
  std::string lowerMoeGroupedMatmul();

  std::string lowerConv();

  std::string lowerReduction();

  std::string lowerReshape();

  std::string lowerNormForward();

  /// Y = (x - mean) * inv_variance * scale + bias, as pointwise ops (the
  /// cuDNN frontend's batchnorm_inference does the same).
  std::string lowerBatchnormInference();

  std::string lowerNormBackward();

  std::string lowerGenstats();

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
    bool paged = false; // K or V read from a paged cache (composite only)
    bool ragged = false; // a packed (THD) tensor (composite only)
    std::optional<int64_t> left, right;
    double dropoutP = 0;
    bool needsComposite() const {
      return bias || padding || alibi || dropMask || dropoutP > 0 ||
             left.has_value() || right.has_value() || paged || ragged;
    }
    /// A padding mask and nothing else: the unified op carries it through
    /// its SEQ_LEN descriptors.
    /// The attention matmul's per-batch extents under the padding mask
    /// (the sequence lengths cuDNN's fused engines read the mask from);
    /// none without it.
    GemmOverrides gemm(int64_t m, int64_t n, int64_t k) const {
      return padding ? GemmOverrides{m, n, k} : GemmOverrides{};
    }
    bool paddingOnly() const {
      return padding && !bias && !alibi && !dropMask && dropoutP <= 0 &&
             !left.has_value() && !right.has_value() && !paged && !ragged;
    }
  };

  std::string attnCommon(Attn &a);

  /// Ragged (packed) tensors of the op: for each offsets port of
  /// kRaggedPorts given, its tensor's descriptors carry the offsets.
  std::string raggedTensors(Attn &a);

  /// K or V of a paged cache: a PAGED_CACHE_LOAD of `container` through
  /// `table` into a new virtual [b, heads, maxSeq, width] (`uid`), whose
  /// descriptor is K^T's view for K (`transposed`), as the attention
  /// matmul reads it.
  std::string pagedCacheLoad(int64_t container, int64_t table, int64_t seqLen,
                             int64_t maxSeq, bool transposed, int64_t &uid);

  /// S = Q K^T (K through a transposed view of its uid) * scale, then
  /// bias and masks. Returns the masked score's uid.
  std::string attnScores(const Attn &a, int64_t &score);

  /// K^T: the transposed descriptor of K's uid (dims/strides 2 and 3 swapped).
  std::string transposedView(int64_t uid, DescPtr &out);

  /// S = Q K^T * scale [+ bias]; `kT` is the K^T descriptor it used.
  /// `forward`: padded keys read as 0 (the forward's Q K^T).
  std::string attnScoreBase(const Attn &a, int64_t &score, DescPtr &kT,
                            bool forward);

  /// The padding and diagonal-band masks on `score` (binary selects of the
  /// lowest float where masked), in the frontend's order.
  std::string attnMasks(const Attn &a, int64_t &score);

  /// The row and column index (axes 2 and 3) of each element of the
  /// [B, H, Sq, Skv] score `score`, as new virtual tensors of `type`.
  std::string attnRowCol(const Attn &a, int64_t score, cudnnDataType_t type,
                         int64_t &row, int64_t &col);

  /// P * mask * dropout scale (explicit keep mask).
  std::string attnDropout(const Attn &a, int64_t &p, cudnnDataType_t outType);

  std::string lowerSdpa();
  std::string lowerSdpaFp8();

  std::string unifiedSdpa(const Attn &a, int64_t o);

  /// `p` = exp(sink - center), a virtual [b, h, s_q, 1]: the sink's share
  /// of each row (center is the row max in the forward, Stats backward).
  std::string attnSinkExp(const Attn &a, int64_t sink, int64_t center,
                          int64_t &p);
  /// Softmax of the masked scores: e = exp(score - rowmax), sum = rowsum(e),
  /// and the log-sum-exp statistics into Stats (scratch without one; the
  /// fused engines match only a softmax with statistics) or score_max /
  /// score_sum_exp when requested.
  std::string attnSoftmax(const Attn &a, int64_t score, int64_t &e,
                          int64_t &sum);

  std::string compositeSdpa(const Attn &a, int64_t o);

  std::string lowerSdpaBackward();
  /// cuDNN's Philox Bernoulli generator (the mask of sdpa dropout).
  std::string lowerRng();
};

/// Equivalent descriptions of a layout-free graph (see CudnnRelabel.cpp),
/// each with a label naming its layout.
std::vector<std::pair<std::string, GraphSpec>> relabelings(const GraphSpec &s);

/// `s` with its one 1x1 convolution (stride 1, no padding, channels-last
/// image) described as a matmul over the same bytes: the image as [1,
/// positions, C], the filter as [1, C, K], every other tensor of the group
/// an image of the same positions (channels-last), a per-channel vector or
/// a scalar, relabeled alike. None when the group is not of that form.
/// cuDNN's matmul engines run it faster than its convolution engines on
/// the H100 (ResNet-50's 56x56 bottleneck, conv 256->64 with batchnorm and
/// relu: 0.034 against 0.037 ms; 64->256 with the residual add: 0.070
/// against 0.080 ms, graph-run, each form's best plan).
std::optional<std::pair<std::string, GraphSpec>>
convAsMatmul(const GraphSpec &s);

//===----------------------------------------------------------------------===//
// Port tables: ops whose ports map one to one onto descriptor attributes
//===----------------------------------------------------------------------===//

/// How a port of an op reaches its operation descriptor.
enum PortFlags : unsigned {
  kOutput = 0,
  kInput = 1,
  kRequired = 2, // else set only when the op has the port
  kScratch = 4,  // cuDNN always writes it: a virtual one gets workspace memory
  kNotRms = 8,   // absent from RMS norm
};

struct OpPort {
  Port port;
  unsigned flags;
  cudnnBackendAttributeName_t attr;
  const char *attrName;
};

/// A port table entry: the op port, its flags and the attribute.
#define PORT(port, flags, attr)                                                \
  { Port::port, flags, attr, #attr }

/// Sets the descriptor of each port in `ports` on `o`, in order. An input
/// that GraphOps.td marks by value (Support/ByValuePorts.h) is handed to
/// cuDNN as a value (Lowering::toByValue).
template <size_t N>
std::string setPorts(Lowering &l, const DescPtr &o, const OpPort (&ports)[N],
                     bool isRms = false) {
  std::optional<OpKind> kind = l.op->kind.get();
  for (const OpPort &p : ports) {
    if ((p.flags & kNotRms) && isRms)
      continue;
    bool isInput = p.flags & kInput;
    int64_t uid;
    if (p.flags & kRequired) {
      TRY(isInput ? l.in(p.port, uid) : l.out(p.port, uid));
    } else {
      const auto &opPorts = isInput ? l.op->inputs : l.op->outputs;
      auto it = opPorts.find(p.port);
      if (it == opPorts.end())
        continue;
      uid = it->second;
    }
    if (p.flags & kScratch)
      l.toScratch(uid);
    if (isInput && kind && isByValuePort(*kind, p.port))
      TRY(l.toByValue(uid, p.port));
    DescPtr d;
    TRY(l.tensor(uid, d));
    TRY(l.b.set(o, p.attr, p.attrName, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                &d->raw));
  }
  return "";
}

} // namespace graph::rt::cudnn

#endif // GRAPHDIALECT_LIB_RUNTIME_CUDNNGROUPINTERNAL_H
