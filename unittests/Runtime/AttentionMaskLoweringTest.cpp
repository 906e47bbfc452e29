//===- AttentionMaskLoweringTest.cpp - The attention masks' cuDNN ops -----===//
//
// The cuDNN operations Lowering::attnMasks builds for the padding and
// diagonal-band masks of attention, printed from a recording stand-in for
// the cuDNN backend API (no library, no GPU): each operation with its
// pointwise descriptor and tensors, in the order the lowering made them.
// With the same stand-in, which sdpa_backward lowering
// use_deterministic_algorithm gets.
//
//===----------------------------------------------------------------------===//

#include "CudnnGroupInternal.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace graph::rt;
using namespace graph::rt::cudnn;
using graph::DType;
using graph::OpKind;
using graph::Port;
using graph::Shape;

namespace {

/// One descriptor the stand-in made: its type and its attributes, each as
/// text, in the order they were set.
struct FakeDesc {
  cudnnBackendDescriptorType_t type;
  std::vector<std::pair<cudnnBackendAttributeName_t, std::string>> attrs;
  int64_t uid = -1; // a tensor's CUDNN_ATTR_TENSOR_UNIQUE_ID
};
std::vector<std::unique_ptr<FakeDesc>> descs; // never freed while a test runs

const char *attrName(cudnnBackendAttributeName_t name) {
  switch (name) {
#define NAME(x, text)                                                          \
  case CUDNN_ATTR_##x:                                                         \
    return text;
    NAME(POINTWISE_MODE, "mode")
    NAME(POINTWISE_MATH_PREC, "prec")
    NAME(POINTWISE_AXIS, "axis")
    NAME(OPERATION_POINTWISE_PW_DESCRIPTOR, "pw")
    NAME(OPERATION_POINTWISE_XDESC, "x")
    NAME(OPERATION_POINTWISE_BDESC, "b")
    NAME(OPERATION_POINTWISE_TDESC, "t")
    NAME(OPERATION_POINTWISE_YDESC, "y")
    NAME(MATMUL_PADDING_VALUE, "padding")
    NAME(OPERATION_MATMUL_ADESC, "A")
    NAME(OPERATION_MATMUL_BDESC, "B")
    NAME(OPERATION_MATMUL_CDESC, "C")
    NAME(OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC, "M")
    NAME(OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC, "N")
    NAME(OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC, "K")
    NAME(OPERATION_REDUCTION_XDESC, "rx")
    NAME(OPERATION_REDUCTION_YDESC, "ry")
    NAME(OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC, "container")
    NAME(OPERATION_PAGED_CACHE_LOAD_YDESC, "pagedY")
    NAME(OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC, "seq")
    NAME(OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC, "table")
    NAME(TENSOR_RAGGED_OFFSET_DESC, "ragged")
    NAME(REDUCTION_OPERATOR, "op")
    NAME(OPERATION_REDUCTION_DESC, "red")
#undef NAME
  default:
    return nullptr;
  }
}

std::string modeName(cudnnPointwiseMode_t mode) {
  switch (mode) {
#define NAME(x)                                                                \
  case CUDNN_POINTWISE_##x:                                                    \
    return #x;
    NAME(ADD)
    NAME(SUB)
    NAME(MUL)
    NAME(CMP_GE)
    NAME(CMP_GT)
    NAME(CMP_LT)
    NAME(LOGICAL_AND)
    NAME(BINARY_SELECT)
    NAME(GEN_INDEX)
#undef NAME
  default:
    return "mode" + std::to_string(static_cast<int>(mode));
  }
}

std::string typeName(cudnnDataType_t type) {
  switch (type) {
  case CUDNN_DATA_FLOAT:
    return "FLOAT";
  case CUDNN_DATA_INT32:
    return "INT32";
  case CUDNN_DATA_BOOLEAN:
    return "BOOLEAN";
  default:
    return "type" + std::to_string(static_cast<int>(type));
  }
}

/// A tensor as the operations name it: t<n> for the n-th tensor the
/// lowering made (uids from kInternalUidBase), else its uid.
std::string tensorRef(int64_t uid) {
  return uid >= kInternalUidBase ? "t" + std::to_string(uid - kInternalUidBase)
                                 : "uid" + std::to_string(uid);
}

std::string valueText(cudnnBackendAttributeType_t type, int64_t count,
                      const void *value) {
  std::ostringstream os;
  for (int64_t i = 0; i < count; ++i) {
    if (i)
      os << ",";
    switch (type) {
    case CUDNN_TYPE_INT64:
      os << static_cast<const int64_t *>(value)[i];
      break;
    case CUDNN_TYPE_DOUBLE:
      os << static_cast<const double *>(value)[i];
      break;
    case CUDNN_TYPE_BOOLEAN:
      os << (static_cast<const bool *>(value)[i] ? "true" : "false");
      break;
    case CUDNN_TYPE_DATA_TYPE:
      os << typeName(static_cast<const cudnnDataType_t *>(value)[i]);
      break;
    case CUDNN_TYPE_POINTWISE_MODE:
      os << modeName(static_cast<const cudnnPointwiseMode_t *>(value)[i]);
      break;
    case CUDNN_TYPE_BACKEND_DESCRIPTOR: {
      auto *d = static_cast<FakeDesc *>(
          static_cast<const cudnnBackendDescriptor_t *>(value)[i]);
      if (d->type == CUDNN_BACKEND_TENSOR_DESCRIPTOR) {
        os << tensorRef(d->uid);
      } else {
        os << "{";
        for (size_t j = 0; j < d->attrs.size(); ++j)
          os << (j ? " " : "") << d->attrs[j].second;
        os << "}";
      }
      break;
    }
    default:
      os << "?" << static_cast<int>(type);
    }
  }
  return os.str();
}

cudnnStatus_t fakeCreate(cudnnBackendDescriptorType_t type,
                         cudnnBackendDescriptor_t *out) {
  descs.push_back(std::make_unique<FakeDesc>());
  descs.back()->type = type;
  *out = descs.back().get();
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t fakeDestroy(cudnnBackendDescriptor_t) {
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t fakeFinalize(cudnnBackendDescriptor_t) {
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t fakeSet(cudnnBackendDescriptor_t raw,
                      cudnnBackendAttributeName_t name,
                      cudnnBackendAttributeType_t type, int64_t count,
                      const void *value) {
  auto *d = static_cast<FakeDesc *>(raw);
  if (name == CUDNN_ATTR_TENSOR_UNIQUE_ID)
    d->uid = *static_cast<const int64_t *>(value);
  const char *known = attrName(name);
  std::string text = known ? known : "attr" + std::to_string(name);
  d->attrs.emplace_back(name, text + "=" + valueText(type, count, value));
  return CUDNN_STATUS_SUCCESS;
}

const CudnnApi &fakeApi() {
  static CudnnApi api = [] {
    CudnnApi a{};
    a.cudnnBackendCreateDescriptor = fakeCreate;
    a.cudnnBackendDestroyDescriptor = fakeDestroy;
    a.cudnnBackendFinalize = fakeFinalize;
    a.cudnnBackendSetAttribute = fakeSet;
    return a;
  }();
  return api;
}

using Attn = Lowering::Attn;

/// Runs attnMasks on a [1, 2, s_q, s_kv] f32 score and prints each
/// operation it made (its pointwise descriptor and tensors), then every
/// tensor it made, with the value of the by-value ones; or the error.
std::string lowerMasks(Attn a) {
  descs.clear();
  GraphSpec spec;
  spec.name = "masks";
  Lowering l(fakeApi(), spec, /*compositeAttention=*/true);
  a.b = 1;
  a.hq = a.hk = a.hv = 2;
  int64_t score = l.newVirtual({a.b, a.hq, a.sq, a.skv}, CUDNN_DATA_FLOAT);
  if (a.padding) {
    a.seqQ = l.newVirtual({a.b, 1, 1, 1}, CUDNN_DATA_INT32);
    a.seqKV = l.newVirtual({a.b, 1, 1, 1}, CUDNN_DATA_INT32);
  }
  if (std::string error = l.attnMasks(a, score); !error.empty())
    return "error: " + error;
  std::ostringstream os;
  for (const DescPtr &op : l.ops) {
    auto *d = static_cast<FakeDesc *>(op->raw);
    for (size_t j = 0; j < d->attrs.size(); ++j)
      os << (j ? " " : "") << d->attrs[j].second;
    os << "\n";
  }
  for (const auto &[uid, t] : l.tensors) {
    os << tensorRef(uid) << ": " << typeName(t.type) << " [";
    for (size_t i = 0; i < t.dims.size(); ++i)
      os << (i ? "," : "") << t.dims[i];
    os << "] strides [";
    for (size_t i = 0; i < t.strides.size(); ++i)
      os << (i ? "," : "") << t.strides[i];
    os << "]" << (t.isVirtual ? " virtual" : "");
    if (t.isByValue) {
      os << " value ";
      if (t.type == CUDNN_DATA_INT32) {
        int32_t v;
        std::memcpy(&v, t.value, sizeof(v));
        os << v;
      } else if (t.type == CUDNN_DATA_FLOAT) {
        float v;
        std::memcpy(&v, t.value, sizeof(v));
        os << v;
      } else {
        os << "?";
      }
    }
    os << "\n";
  }
  os << "result " << tensorRef(score) << "\n";
  return os.str();
}

TEST(AttentionMaskLowering, CausalTopLeft) {
  Attn a;
  a.sq = 3;
  a.skv = 5;
  a.right = 0;
  EXPECT_EQ(lowerMasks(a), R"(pw={mode=GEN_INDEX prec=INT32 axis=2} x=t0 y=t1
pw={mode=GEN_INDEX prec=INT32 axis=3} x=t0 y=t2
pw={mode=CMP_GE prec=BOOLEAN} x=t1 b=t2 y=t3
pw={mode=BINARY_SELECT prec=FLOAT} x=t0 b=t4 t=t3 y=t5
t0: FLOAT [1,2,3,5] strides [30,15,5,1] virtual
t1: INT32 [1,2,3,5] strides [30,15,5,1] virtual
t2: INT32 [1,2,3,5] strides [30,15,5,1] virtual
t3: BOOLEAN [1,2,3,5] strides [30,15,5,1] virtual
t4: FLOAT [1,1,1,1] strides [1,1,1,1] value -inf
t5: FLOAT [1,2,3,5] strides [30,15,5,1] virtual
result t5
)");
}

TEST(AttentionMaskLowering, BandBottomRight) {
  Attn a;
  a.sq = 3;
  a.skv = 5;
  a.bottomRight = true;
  a.right = 2;
  a.left = 4;
  EXPECT_EQ(lowerMasks(a), R"(pw={mode=GEN_INDEX prec=INT32 axis=2} x=t0 y=t1
pw={mode=GEN_INDEX prec=INT32 axis=3} x=t0 y=t2
pw={mode=ADD prec=INT32 axis=3} x=t1 b=t3 y=t4
pw={mode=SUB prec=INT32 axis=3} x=t4 b=t5 y=t6
pw={mode=ADD prec=INT32 axis=3} x=t6 b=t7 y=t8
pw={mode=CMP_GE prec=BOOLEAN} x=t8 b=t2 y=t9
pw={mode=BINARY_SELECT prec=FLOAT} x=t0 b=t10 t=t9 y=t11
pw={mode=GEN_INDEX prec=INT32 axis=2} x=t11 y=t12
pw={mode=GEN_INDEX prec=INT32 axis=3} x=t11 y=t13
pw={mode=ADD prec=INT32 axis=3} x=t13 b=t14 y=t15
pw={mode=SUB prec=INT32 axis=3} x=t15 b=t16 y=t17
pw={mode=ADD prec=INT32 axis=3} x=t17 b=t18 y=t19
pw={mode=CMP_GT prec=BOOLEAN} x=t19 b=t12 y=t20
pw={mode=BINARY_SELECT prec=FLOAT} x=t11 b=t21 t=t20 y=t22
t0: FLOAT [1,2,3,5] strides [30,15,5,1] virtual
t1: INT32 [1,2,3,5] strides [30,15,5,1] virtual
t2: INT32 [1,2,3,5] strides [30,15,5,1] virtual
t3: INT32 [1,1,1,1] strides [1,1,1,1] value 5
t4: INT32 [1,2,3,5] strides [30,15,5,1] virtual
t5: INT32 [1,1,1,1] strides [1,1,1,1] value 3
t6: INT32 [1,2,3,5] strides [30,15,5,1] virtual
t7: INT32 [1,1,1,1] strides [1,1,1,1] value 2
t8: INT32 [1,2,3,5] strides [30,15,5,1] virtual
t9: BOOLEAN [1,2,3,5] strides [30,15,5,1] virtual
t10: FLOAT [1,1,1,1] strides [1,1,1,1] value -inf
t11: FLOAT [1,2,3,5] strides [30,15,5,1] virtual
t12: INT32 [1,2,3,5] strides [30,15,5,1] virtual
t13: INT32 [1,2,3,5] strides [30,15,5,1] virtual
t14: INT32 [1,1,1,1] strides [1,1,1,1] value 4
t15: INT32 [1,2,3,5] strides [30,15,5,1] virtual
t16: INT32 [1,1,1,1] strides [1,1,1,1] value 5
t17: INT32 [1,2,3,5] strides [30,15,5,1] virtual
t18: INT32 [1,1,1,1] strides [1,1,1,1] value 3
t19: INT32 [1,2,3,5] strides [30,15,5,1] virtual
t20: BOOLEAN [1,2,3,5] strides [30,15,5,1] virtual
t21: FLOAT [1,1,1,1] strides [1,1,1,1] value -inf
t22: FLOAT [1,2,3,5] strides [30,15,5,1] virtual
result t22
)");
}

TEST(AttentionMaskLowering, SlidingWindowTopLeft) {
  Attn a;
  a.sq = 5;
  a.skv = 3;
  a.left = 2;
  EXPECT_EQ(lowerMasks(a), R"(pw={mode=GEN_INDEX prec=INT32 axis=2} x=t0 y=t1
pw={mode=GEN_INDEX prec=INT32 axis=3} x=t0 y=t2
pw={mode=ADD prec=INT32 axis=3} x=t2 b=t3 y=t4
pw={mode=CMP_GT prec=BOOLEAN} x=t4 b=t1 y=t5
pw={mode=BINARY_SELECT prec=FLOAT} x=t0 b=t6 t=t5 y=t7
t0: FLOAT [1,2,5,3] strides [30,15,3,1] virtual
t1: INT32 [1,2,5,3] strides [30,15,3,1] virtual
t2: INT32 [1,2,5,3] strides [30,15,3,1] virtual
t3: INT32 [1,1,1,1] strides [1,1,1,1] value 2
t4: INT32 [1,2,5,3] strides [30,15,3,1] virtual
t5: BOOLEAN [1,2,5,3] strides [30,15,3,1] virtual
t6: FLOAT [1,1,1,1] strides [1,1,1,1] value -inf
t7: FLOAT [1,2,5,3] strides [30,15,3,1] virtual
result t7
)");
}

TEST(AttentionMaskLowering, PaddingAndRightBound) {
  Attn a;
  a.sq = 4;
  a.skv = 4;
  a.padding = true;
  a.right = 1;
  EXPECT_EQ(lowerMasks(a), R"(pw={mode=GEN_INDEX prec=INT32 axis=2} x=t0 y=t3
pw={mode=GEN_INDEX prec=INT32 axis=3} x=t0 y=t4
pw={mode=CMP_LT prec=BOOLEAN} x=t3 b=t1 y=t5
pw={mode=CMP_LT prec=BOOLEAN} x=t4 b=t2 y=t6
pw={mode=LOGICAL_AND prec=BOOLEAN} x=t5 b=t6 y=t7
pw={mode=BINARY_SELECT prec=FLOAT} x=t0 b=t8 t=t7 y=t9
pw={mode=GEN_INDEX prec=INT32 axis=2} x=t9 y=t10
pw={mode=GEN_INDEX prec=INT32 axis=3} x=t9 y=t11
pw={mode=ADD prec=INT32 axis=3} x=t10 b=t12 y=t13
pw={mode=CMP_GE prec=BOOLEAN} x=t13 b=t11 y=t14
pw={mode=BINARY_SELECT prec=FLOAT} x=t9 b=t15 t=t14 y=t16
t0: FLOAT [1,2,4,4] strides [32,16,4,1] virtual
t1: INT32 [1,1,1,1] strides [1,1,1,1] virtual
t2: INT32 [1,1,1,1] strides [1,1,1,1] virtual
t3: INT32 [1,2,4,4] strides [32,16,4,1] virtual
t4: INT32 [1,2,4,4] strides [32,16,4,1] virtual
t5: BOOLEAN [1,2,4,4] strides [32,16,4,1] virtual
t6: BOOLEAN [1,2,4,4] strides [32,16,4,1] virtual
t7: BOOLEAN [1,2,4,4] strides [32,16,4,1] virtual
t8: FLOAT [1,1,1,1] strides [1,1,1,1] value -inf
t9: FLOAT [1,2,4,4] strides [32,16,4,1] virtual
t10: INT32 [1,2,4,4] strides [32,16,4,1] virtual
t11: INT32 [1,2,4,4] strides [32,16,4,1] virtual
t12: INT32 [1,1,1,1] strides [1,1,1,1] value 1
t13: INT32 [1,2,4,4] strides [32,16,4,1] virtual
t14: BOOLEAN [1,2,4,4] strides [32,16,4,1] virtual
t15: FLOAT [1,1,1,1] strides [1,1,1,1] value -inf
t16: FLOAT [1,2,4,4] strides [32,16,4,1] virtual
result t16
)");
}

// Bottom-right alignment under the padding mask moves each batch's
// diagonal by its own s_kv - s_q: the shifts add and subtract the length
// tensors (t1 = seq_len_q, t2 = seq_len_kv) instead of constants.
TEST(AttentionMaskLowering, BottomRightWithPaddingShiftsByEachBatchsLengths) {
  Attn a;
  a.sq = 4;
  a.skv = 4;
  a.padding = true;
  a.bottomRight = true;
  a.right = 0;
  a.left = 1;
  EXPECT_EQ(lowerMasks(a), R"(pw={mode=GEN_INDEX prec=INT32 axis=2} x=t0 y=t3
pw={mode=GEN_INDEX prec=INT32 axis=3} x=t0 y=t4
pw={mode=CMP_LT prec=BOOLEAN} x=t3 b=t1 y=t5
pw={mode=CMP_LT prec=BOOLEAN} x=t4 b=t2 y=t6
pw={mode=LOGICAL_AND prec=BOOLEAN} x=t5 b=t6 y=t7
pw={mode=BINARY_SELECT prec=FLOAT} x=t0 b=t8 t=t7 y=t9
pw={mode=GEN_INDEX prec=INT32 axis=2} x=t9 y=t10
pw={mode=GEN_INDEX prec=INT32 axis=3} x=t9 y=t11
pw={mode=ADD prec=INT32 axis=3} x=t10 b=t2 y=t12
pw={mode=SUB prec=INT32 axis=3} x=t12 b=t1 y=t13
pw={mode=CMP_GE prec=BOOLEAN} x=t13 b=t11 y=t14
pw={mode=BINARY_SELECT prec=FLOAT} x=t9 b=t15 t=t14 y=t16
pw={mode=GEN_INDEX prec=INT32 axis=2} x=t16 y=t17
pw={mode=GEN_INDEX prec=INT32 axis=3} x=t16 y=t18
pw={mode=ADD prec=INT32 axis=3} x=t18 b=t19 y=t20
pw={mode=SUB prec=INT32 axis=3} x=t20 b=t2 y=t21
pw={mode=ADD prec=INT32 axis=3} x=t21 b=t1 y=t22
pw={mode=CMP_GT prec=BOOLEAN} x=t22 b=t17 y=t23
pw={mode=BINARY_SELECT prec=FLOAT} x=t16 b=t24 t=t23 y=t25
t0: FLOAT [1,2,4,4] strides [32,16,4,1] virtual
t1: INT32 [1,1,1,1] strides [1,1,1,1] virtual
t2: INT32 [1,1,1,1] strides [1,1,1,1] virtual
t3: INT32 [1,2,4,4] strides [32,16,4,1] virtual
t4: INT32 [1,2,4,4] strides [32,16,4,1] virtual
t5: BOOLEAN [1,2,4,4] strides [32,16,4,1] virtual
t6: BOOLEAN [1,2,4,4] strides [32,16,4,1] virtual
t7: BOOLEAN [1,2,4,4] strides [32,16,4,1] virtual
t8: FLOAT [1,1,1,1] strides [1,1,1,1] value -inf
t9: FLOAT [1,2,4,4] strides [32,16,4,1] virtual
t10: INT32 [1,2,4,4] strides [32,16,4,1] virtual
t11: INT32 [1,2,4,4] strides [32,16,4,1] virtual
t12: INT32 [1,2,4,4] strides [32,16,4,1] virtual
t13: INT32 [1,2,4,4] strides [32,16,4,1] virtual
t14: BOOLEAN [1,2,4,4] strides [32,16,4,1] virtual
t15: FLOAT [1,1,1,1] strides [1,1,1,1] value -inf
t16: FLOAT [1,2,4,4] strides [32,16,4,1] virtual
t17: INT32 [1,2,4,4] strides [32,16,4,1] virtual
t18: INT32 [1,2,4,4] strides [32,16,4,1] virtual
t19: INT32 [1,1,1,1] strides [1,1,1,1] value 1
t20: INT32 [1,2,4,4] strides [32,16,4,1] virtual
t21: INT32 [1,2,4,4] strides [32,16,4,1] virtual
t22: INT32 [1,2,4,4] strides [32,16,4,1] virtual
t23: BOOLEAN [1,2,4,4] strides [32,16,4,1] virtual
t24: FLOAT [1,1,1,1] strides [1,1,1,1] value -inf
t25: FLOAT [1,2,4,4] strides [32,16,4,1] virtual
result t25
)");
}

/// Lowers one sdpa_backward (bf16 q [1, 4, 8, 16], k/v with `kvHeads`
/// heads; a padding mask when `padding`; a [1, 4, 8, 8] bias (uid 12) with
/// its gradient dBias (uid 13) when `bias`) and says whether it took the
/// unified SDPA_BWD operation ("unified"), the composite graph
/// ("composite"), or the error. `matmuls`: one line per matmul made, its
/// A/B/C tensors and M/N/K extents; `flow`: one line per matmul ("mm C=..")
/// or reduction ("red X -> Y") in the order made.
std::string lowerBackward(bool deterministic, int64_t kvHeads, bool padding,
                          std::string *matmuls = nullptr, bool bias = false,
                          std::string *flow = nullptr) {
  descs.clear();
  GraphSpec spec;
  spec.name = "bwd";
  auto tensor = [&](int64_t uid, Shape dims, DType dtype) {
    TensorSpec t;
    t.uid = uid;
    t.dtype = dtype;
    t.dims = dims;
    spec.tensors.push_back(t);
    return uid;
  };
  Shape q = {1, 4, 8, 16}, kv = {1, kvHeads, 8, 16}, row = {1, 4, 8, 1};
  OpSpec op;
  op.kind = OpKind::SdpaBackward;
  op.inputs[Port::q] = tensor(1, q, DType::BF16);
  op.inputs[Port::k] = tensor(2, kv, DType::BF16);
  op.inputs[Port::v] = tensor(3, kv, DType::BF16);
  op.inputs[Port::o] = tensor(4, q, DType::BF16);
  op.inputs[Port::dO] = tensor(5, q, DType::BF16);
  op.inputs[Port::stats] = tensor(6, row, DType::F32);
  op.outputs[Port::dQ] = tensor(7, q, DType::BF16);
  op.outputs[Port::dK] = tensor(8, kv, DType::BF16);
  op.outputs[Port::dV] = tensor(9, kv, DType::BF16);
  if (padding) {
    op.inputs[Port::seq_len_q] = tensor(10, {1, 1, 1, 1}, DType::I32);
    op.inputs[Port::seq_len_kv] = tensor(11, {1, 1, 1, 1}, DType::I32);
    op.intAttrs["use_padding_mask"] = {1};
  }
  if (deterministic)
    op.intAttrs["use_deterministic_algorithm"] = {1};
  if (bias) {
    op.inputs[Port::bias] = tensor(12, {1, 4, 8, 8}, DType::BF16);
    op.outputs[Port::dBias] = tensor(13, {1, 4, 8, 8}, DType::BF16);
  }
  spec.ops.push_back(op);
  Lowering l(fakeApi(), spec, /*compositeAttention=*/false);
  if (std::string error = l.addSpecTensors(); !error.empty())
    return "error: " + error;
  if (std::string error = l.lowerOp(spec.ops[0]); !error.empty())
    return "error: " + error;
  if (flow)
    for (const DescPtr &op : l.ops) {
      auto *d = static_cast<FakeDesc *>(op->raw);
      std::string x, y;
      for (auto &[name, text] : d->attrs) {
        if (text.rfind("rx=", 0) == 0)
          x = text.substr(3);
        if (text.rfind("ry=", 0) == 0)
          y = text.substr(3);
        if (text.rfind("C=", 0) == 0)
          *flow += "mm " + text + "\n";
      }
      if (!y.empty())
        *flow += "red " + x + " -> " + y + "\n";
    }
  if (matmuls)
    for (const DescPtr &op : l.ops) {
      auto *d = static_cast<FakeDesc *>(op->raw);
      if (d->type != CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR)
        continue;
      std::string line;
      for (auto &[name, text] : d->attrs)
        if (text.size() > 2 && text[1] == '=' &&
            std::string("ABCMNK").find(text[0]) != std::string::npos)
          line += (line.empty() ? "" : " ") + text;
      *matmuls += line + "\n";
    }
  return l.usedUnifiedAttention ? "unified" : "composite";
}

// use_deterministic_algorithm takes the composite graph (GQA included);
// without it the unified operation runs what it can.
TEST(SdpaBackwardLowering, DeterministicTakesTheCompositeGraphWhereItRuns) {
  EXPECT_EQ(lowerBackward(/*deterministic=*/false, 4, false), "unified");
  EXPECT_EQ(lowerBackward(/*deterministic=*/true, 4, false), "composite");
  EXPECT_EQ(lowerBackward(/*deterministic=*/true, 2, false), "composite");
  EXPECT_EQ(lowerBackward(/*deterministic=*/true, 4, true), "composite");
  EXPECT_EQ(lowerBackward(/*deterministic=*/false, 2, true), "unified");
}

// Under the padding mask each of the composite backward's five matmuls
// bounds its per-batch extents by the sequence lengths (uid10 = seq_len_q,
// uid11 = seq_len_kv), the way cuDNN's fused engines read the mask: S = Q
// K^T (M = s_q, N = s_kv), dV = P^T dO (M = s_kv, K = s_q), dP = dO V^T
// (M = s_q, N = s_kv), dK = dS^T Q (M = s_kv, K = s_q), dQ = dS K (M = s_q,
// K = s_kv). Without it, none carries an extent.
TEST(SdpaBackwardLowering, PaddingBoundsEveryMatmulBySequenceLengths) {
  std::string matmuls;
  ASSERT_EQ(lowerBackward(/*deterministic=*/true, 4, true, &matmuls),
            "composite");
  std::vector<std::string> lines;
  std::istringstream in(matmuls);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line.substr(line.find(" C=") + 1));
  ASSERT_EQ(lines.size(), 5u) << matmuls;
  auto extents = [](const std::string &line) {
    return line.substr(line.find(' ') + 1);
  };
  EXPECT_EQ(extents(lines[0]), "M=uid10 N=uid11");
  EXPECT_EQ(extents(lines[1]), "M=uid11 K=uid10");
  EXPECT_EQ(extents(lines[2]), "M=uid10 N=uid11");
  EXPECT_EQ(extents(lines[3]), "M=uid11 K=uid10");
  EXPECT_EQ(extents(lines[4]), "M=uid10 K=uid11");
  EXPECT_EQ(lines[1].substr(0, 7), "C=uid9 ") << "dV";
  EXPECT_EQ(lines[3].substr(0, 7), "C=uid8 ") << "dK";
  EXPECT_EQ(lines[4].substr(0, 7), "C=uid7 ") << "dQ";

  std::string plain;
  ASSERT_EQ(lowerBackward(/*deterministic=*/true, 4, false, &plain),
            "composite");
  EXPECT_EQ(plain.find("M="), std::string::npos) << plain;
  EXPECT_EQ(plain.find("N="), std::string::npos) << plain;
  EXPECT_EQ(plain.find("K="), std::string::npos) << plain;
}

std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

// dBias: the composite graph reduces dS into dBias (uid13) before
// attn_scale multiplies it (so between the dP matmul and the dK one), and
// writes dQ (uid7) by its matmul directly: cuDNN's fused engines make
// dBias only in that (dP-workspace) form.
TEST(SdpaBackwardLowering, DBiasReducesDSAndWritesDQDirectly) {
  std::string flow;
  ASSERT_EQ(lowerBackward(/*deterministic=*/false, 4, false, nullptr,
                          /*bias=*/true, &flow),
            "composite");
  std::vector<std::string> lines = splitLines(flow);
  // softmax_sum's row reduction, S, dV, dP, dBias, dK, dQ
  ASSERT_EQ(lines.size(), 7u) << flow;
  EXPECT_EQ(lines[0].substr(0, 4), "red ") << flow;
  EXPECT_EQ(lines[2], "mm C=uid9") << flow;
  EXPECT_EQ(lines[4].substr(lines[4].size() - 9), " -> uid13") << flow;
  EXPECT_EQ(lines[5], "mm C=uid8") << flow;
  EXPECT_EQ(lines[6], "mm C=uid7") << flow;
}

// GQA (q 4 heads, k/v 2): dV and dK are made per q head (virtual) and a
// reduction adds each pair of heads into uid9 (dV) and uid8 (dK).
TEST(SdpaBackwardLowering, GroupedQueryHeadsReduceIntoKVHeads) {
  std::string flow;
  ASSERT_EQ(lowerBackward(/*deterministic=*/true, 2, false, nullptr,
                          /*bias=*/true, &flow),
            "composite");
  std::vector<std::string> lines = splitLines(flow);
  // row reduction, S, dV (full), red -> dV, dP, dBias, dK (full), red -> dK,
  // dQ
  ASSERT_EQ(lines.size(), 9u) << flow;
  EXPECT_EQ(lines[2].substr(0, 5), "mm C=") << flow;
  EXPECT_EQ(lines[2].find("uid"), std::string::npos) << "dV per q head";
  EXPECT_EQ(lines[3], "red " + lines[2].substr(5) + " -> uid9") << flow;
  EXPECT_EQ(lines[5].substr(lines[5].size() - 9), " -> uid13") << flow;
  EXPECT_EQ(lines[7], "red " + lines[6].substr(5) + " -> uid8") << flow;
  EXPECT_EQ(lines[8], "mm C=uid7") << flow;
}

// A paged K/V cache (sdpa with page_table_k/v): two PAGED_CACHE_LOAD
// operations fill virtual K and V from the containers (uid2/uid3) through
// the tables (uid6/uid7) with seq_len_kv (uid5), and the composite graph's
// Q K^T matmul reads the K one (K^T's view: dims [1,2,16,24]).
TEST(SdpaForwardLowering, PagedCachesLoadKAndVFirst) {
  descs.clear();
  GraphSpec spec;
  spec.name = "paged";
  auto tensor = [&](int64_t uid, Shape dims, DType dtype) {
    TensorSpec t;
    t.uid = uid;
    t.dtype = dtype;
    t.dims = dims;
    spec.tensors.push_back(t);
    return uid;
  };
  OpSpec op;
  op.kind = OpKind::Sdpa;
  op.inputs[Port::q] = tensor(1, {1, 2, 8, 16}, DType::BF16);
  op.inputs[Port::k] = tensor(2, {3, 2, 8, 16}, DType::BF16);
  op.inputs[Port::v] = tensor(3, {3, 2, 8, 16}, DType::BF16);
  op.inputs[Port::seq_len_q] = tensor(4, {1, 1, 1, 1}, DType::I32);
  op.inputs[Port::seq_len_kv] = tensor(5, {1, 1, 1, 1}, DType::I32);
  op.inputs[Port::page_table_k] = tensor(6, {1, 1, 3, 1}, DType::I32);
  op.inputs[Port::page_table_v] = tensor(7, {1, 1, 3, 1}, DType::I32);
  op.outputs[Port::O] = tensor(8, {1, 2, 8, 16}, DType::BF16);
  op.intAttrs["use_padding_mask"] = {1};
  op.intAttrs["paged_attention_max_seq_len_kv"] = {24};
  spec.ops.push_back(op);
  Lowering l(fakeApi(), spec, /*compositeAttention=*/false);
  ASSERT_EQ(l.addSpecTensors(), "");
  ASSERT_EQ(l.lowerOp(spec.ops[0]), "");
  EXPECT_FALSE(l.usedUnifiedAttention) << "paged caches need the composite";
  std::vector<std::string> loads;
  std::string firstMatmulB;
  for (const DescPtr &d : l.ops) {
    auto *f = static_cast<FakeDesc *>(d->raw);
    std::string line;
    for (auto &[name, text] : f->attrs) {
      line += (line.empty() ? "" : " ") + text;
      if (f->type == CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR &&
          firstMatmulB.empty() && text.rfind("B=", 0) == 0)
        firstMatmulB = text.substr(2);
    }
    if (f->type == CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR)
      loads.push_back(line);
  }
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(loads[0].substr(0, 15), "container=uid2 ") << loads[0];
  EXPECT_NE(loads[0].find("seq=uid5 table=uid6"), std::string::npos)
      << loads[0];
  EXPECT_EQ(loads[1].substr(0, 15), "container=uid3 ") << loads[1];
  EXPECT_NE(loads[1].find("table=uid7"), std::string::npos) << loads[1];
  // K's load writes the tensor the Q K^T matmul reads as B.
  std::string kY = loads[0].substr(loads[0].find("pagedY=") + 7);
  kY = kY.substr(0, kY.find(' '));
  EXPECT_EQ(firstMatmulB, kY);
  const auto &k = l.tensors.at(kInternalUidBase + std::stoll(kY.substr(1)));
  EXPECT_EQ(k.dims, (Shape{1, 2, 24, 16}));
  EXPECT_TRUE(k.isVirtual);
}

// ALiBi without a causal band (right bound 0) is declined, naming why:
// cuDNN's fused attention computes it only under one.
TEST(SdpaForwardLowering, AlibiNeedsACausalBand) {
  auto lower = [](bool causal) {
    descs.clear();
    GraphSpec spec;
    spec.name = "alibi";
    for (int64_t uid : {1, 2, 3, 4}) {
      TensorSpec t;
      t.uid = uid;
      t.dtype = DType::BF16;
      t.dims = {1, 2, 8, 16};
      spec.tensors.push_back(t);
    }
    OpSpec op;
    op.kind = OpKind::Sdpa;
    op.inputs[Port::q] = 1;
    op.inputs[Port::k] = 2;
    op.inputs[Port::v] = 3;
    op.outputs[Port::O] = 4;
    op.intAttrs["use_alibi_mask"] = {1};
    if (causal)
      op.intAttrs["use_causal_mask"] = {1};
    spec.ops.push_back(op);
    Lowering l(fakeApi(), spec, /*compositeAttention=*/false);
    if (std::string error = l.addSpecTensors(); !error.empty())
      return error;
    return l.lowerOp(spec.ops[0]);
  };
  EXPECT_NE(lower(false).find("the ALiBi mask needs a causal band"),
            std::string::npos);
  EXPECT_EQ(lower(true), "");
}

} // namespace

namespace {

/// A one-op spec on tensors uid 1, 2, ... (`dims`/`dtype` each), the op's
/// ports bound in that order: inputs first, then outputs.
struct SpecBuilder {
  GraphSpec spec;
  OpSpec op;
  int64_t next = 1;
  int64_t add(Shape dims, DType dtype) {
    TensorSpec t;
    t.uid = next++;
    t.dtype = dtype;
    t.dims = std::move(dims);
    spec.tensors.push_back(t);
    return t.uid;
  }
};

/// Each operation's attributes, one line per operation, and each tensor
/// descriptor's (by uid) after "tensor uidN:".
std::string describeAll(const Lowering &l) {
  std::string text;
  for (const DescPtr &d : l.ops) {
    auto *f = static_cast<FakeDesc *>(d->raw);
    for (auto &[name, attr] : f->attrs)
      text += attr + " ";
    text += "\n";
  }
  for (const auto &d : descs)
    if (d->type == CUDNN_BACKEND_TENSOR_DESCRIPTOR && d->uid > 0 &&
        d->uid < kInternalUidBase) {
      text += "tensor uid" + std::to_string(d->uid) + ":";
      for (auto &[name, attr] : d->attrs)
        text += " " + attr;
      text += "\n";
    }
  return text;
}

} // namespace

// Ragged (packed THD) Q/K/V/O: each one's descriptor carries its offsets
// tensor (q/O: uid7, k/v: uid8), and the composite graph runs.
TEST(SdpaForwardLowering, RaggedTensorsCarryTheirOffsets) {
  descs.clear();
  SpecBuilder b;
  b.spec.name = "ragged";
  Shape dims = {2, 2, 8, 16};
  b.op.kind = OpKind::Sdpa;
  b.op.inputs[Port::q] = b.add(dims, DType::BF16);
  b.op.inputs[Port::k] = b.add(dims, DType::BF16);
  b.op.inputs[Port::v] = b.add(dims, DType::BF16);
  b.op.inputs[Port::seq_len_q] = b.add({2, 1, 1, 1}, DType::I32);
  b.op.inputs[Port::seq_len_kv] = b.add({2, 1, 1, 1}, DType::I32);
  b.op.outputs[Port::O] = b.add(dims, DType::BF16);
  b.op.inputs[Port::ragged_offset_q] = b.add({3, 1, 1, 1}, DType::I64);
  b.op.inputs[Port::ragged_offset_k] = b.add({3, 1, 1, 1}, DType::I64);
  b.op.inputs[Port::ragged_offset_v] = 8;
  b.op.inputs[Port::ragged_offset_O] = 7;
  b.op.intAttrs["use_padding_mask"] = {1};
  b.spec.ops.push_back(b.op);
  Lowering l(fakeApi(), b.spec, /*compositeAttention=*/false);
  ASSERT_EQ(l.addSpecTensors(), "");
  ASSERT_EQ(l.lowerOp(b.spec.ops[0]), "");
  EXPECT_FALSE(l.usedUnifiedAttention) << "ragged tensors need the composite";
  std::string text = describeAll(l);
  for (auto [uid, offsets] :
       {std::pair<int, int>{1, 7}, {2, 8}, {3, 8}, {6, 7}}) {
    std::string head = "tensor uid" + std::to_string(uid) + ":";
    size_t at = text.find(head);
    ASSERT_NE(at, std::string::npos) << text;
    std::string line = text.substr(at, text.find('\n', at) - at);
    EXPECT_NE(line.find("ragged=uid" + std::to_string(offsets)),
              std::string::npos)
        << line;
  }
  // The sequence lengths and offsets themselves are not ragged.
  size_t at = text.find("tensor uid4:");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(text.substr(at, text.find('\n', at) - at).find("ragged="),
            std::string::npos);
}

// fp8 attention forward: the frontend's SDPA FP8 graph. Two AMAX
// reductions write Amax_S (uid12) and Amax_O (uid13), P enters the second
// matmul in Q's fp8 type, and O (uid10) is the last multiply's output.
TEST(SdpaForwardLowering, Fp8AttentionScalesAndReportsAmax) {
  descs.clear();
  SpecBuilder b;
  b.spec.name = "fp8";
  Shape dims = {1, 2, 8, 16}, one = {1, 1, 1, 1};
  b.op.kind = OpKind::SdpaFp8;
  b.op.inputs[Port::q] = b.add(dims, DType::F8E4M3FN);
  b.op.inputs[Port::k] = b.add(dims, DType::F8E4M3FN);
  b.op.inputs[Port::v] = b.add(dims, DType::F8E4M3FN);
  for (Port port : {Port::descale_q, Port::descale_k, Port::descale_v,
                    Port::descale_s, Port::scale_s, Port::scale_o})
    b.op.inputs[port] = b.add(one, DType::F32);
  b.op.outputs[Port::O] = b.add(dims, DType::F16); // uid10
  b.op.outputs[Port::Stats] = b.add({1, 2, 8, 1}, DType::F32);
  b.op.outputs[Port::Amax_S] = b.add(one, DType::F32);
  b.op.outputs[Port::Amax_O] = b.add(one, DType::F32);
  b.op.intAttrs["use_causal_mask"] = {1};
  b.spec.ops.push_back(b.op);
  Lowering l(fakeApi(), b.spec, /*compositeAttention=*/false);
  ASSERT_EQ(l.addSpecTensors(), "");
  ASSERT_EQ(l.lowerOp(b.spec.ops[0]), "");
  std::vector<std::string> lines = splitLines(describeAll(l));
  std::vector<std::string> amax, matmuls;
  for (const std::string &line : lines) {
    if (line.find("ry=uid12") != std::string::npos ||
        line.find("ry=uid13") != std::string::npos)
      amax.push_back(line);
    if (line.rfind("A=", 0) == 0)
      matmuls.push_back(line);
  }
  // Amax_S of P (f32, before quantization), then Amax_O of the descaled O'
  ASSERT_EQ(amax.size(), 2u) << describeAll(l);
  EXPECT_NE(amax[0].find("ry=uid12"), std::string::npos) << amax[0];
  EXPECT_NE(amax[1].find("ry=uid13"), std::string::npos) << amax[1];
  ASSERT_EQ(matmuls.size(), 2u);
  // the second matmul's A: P quantized to e4m3
  std::string a = matmuls[1].substr(2, matmuls[1].find(' ') - 2);
  ASSERT_EQ(a.substr(0, 1), "t") << matmuls[1];
  EXPECT_EQ(l.tensors.at(kInternalUidBase + std::stoll(a.substr(1))).type,
            CUDNN_DATA_FP8_E4M3);
  // the descales and scales are all read
  std::string text = describeAll(l);
  for (int uid = 4; uid <= 9; ++uid)
    EXPECT_NE(text.find("b=uid" + std::to_string(uid) + " "), std::string::npos)
        << "scale uid" << uid << "\n"
        << text;
  // O = O' * scale_o (uid9) is the last operation
  size_t ops = l.ops.size();
  ASSERT_GE(lines.size(), ops);
  EXPECT_NE(lines[ops - 1].find("b=uid9 y=uid10"), std::string::npos)
      << lines[ops - 1];
}

// cuDNN reads a by-value tensor through the pointer the variant pack holds
// (Tensor::value): it must be aligned for the scalar. An unaligned epsilon
// (2 mod 8) crashed cuDNN's runtime-compiled norm engine on the H200.
TEST(ByValueLowering, ValuesAreAlignedForTheirScalar) {
  descs.clear();
  SpecBuilder b;
  b.spec.name = "norm";
  b.op.kind = OpKind::Layernorm;
  b.op.mode = "inference";
  b.op.inputs[Port::input] = b.add({8, 16, 1, 1}, DType::F16);
  b.op.inputs[Port::scale] = b.add({1, 16, 1, 1}, DType::F32);
  b.op.inputs[Port::bias] = b.add({1, 16, 1, 1}, DType::F32);
  int64_t epsilonUid = b.op.inputs[Port::epsilon] =
      b.add({1, 1, 1, 1}, DType::F32);
  b.op.outputs[Port::Y] = b.add({8, 16, 1, 1}, DType::F16);
  b.spec.ops.push_back(b.op);
  Lowering l(fakeApi(), b.spec, /*compositeAttention=*/false);
  ASSERT_EQ(l.addSpecTensors(), "");
  ASSERT_EQ(l.lowerOp(b.spec.ops[0]), "");
  const Tensor &epsilon = l.tensors.at(epsilonUid);
  ASSERT_TRUE(epsilon.isByValue) << "cuDNN takes a norm's epsilon by value";
  EXPECT_EQ(reinterpret_cast<uintptr_t>(epsilon.value) % 8, 0u);
}

// A graph.by_value input (the frontend's is_pass_by_value CPU scalar) in a
// pointwise op: cuDNN gets a by-value descriptor whose value the execute
// reads from the buffer (a device pointer in a by-value slot crashed cuDNN's
// runtime-compiled norm engine on the H200), and its plans are cached apart
// from those of the same graph reading the scalar from device memory.
TEST(ByValueLowering, ByValueInputIsReadFromItsBuffer) {
  descs.clear();
  SpecBuilder b;
  b.spec.name = "shift";
  b.op.kind = OpKind::Pointwise;
  b.op.mode = "add";
  b.op.inputs[Port::in0] = b.add({8, 16}, DType::F16);
  int64_t shiftUid = b.op.inputs[Port::in1] = b.add({1, 1}, DType::F64);
  b.op.outputs[Port::output] = b.add({8, 16}, DType::F16);
  b.spec.ops.push_back(b.op);
  std::string deviceKey = canonicalKey(b.spec);
  for (TensorSpec &t : b.spec.tensors)
    t.readByValue = t.uid == shiftUid;
  EXPECT_NE(canonicalKey(b.spec), deviceKey);
  Lowering l(fakeApi(), b.spec, /*compositeAttention=*/false);
  ASSERT_EQ(l.addSpecTensors(), "");
  ASSERT_EQ(l.lowerOp(b.spec.ops[0]), "");
  const Tensor &shift = l.tensors.at(shiftUid);
  EXPECT_TRUE(shift.isByValue);
  EXPECT_TRUE(shift.valueFromBuffer);
  // cuDNN has no f64 by-value scalar: the f64 buffer is narrowed on read.
  EXPECT_EQ(shift.type, CUDNN_DATA_FLOAT);
  EXPECT_TRUE(shift.valueIsF64);
  // Read by value on the host, it must be a one-element input: an output
  // so marked is refused, naming the tensor.
  {
    SpecBuilder bad;
    bad.spec.name = "bad";
    bad.op.kind = OpKind::Pointwise;
    bad.op.mode = "relu";
    bad.op.inputs[Port::in0] = bad.add({1, 1}, DType::F32);
    int64_t outUid = bad.op.outputs[Port::output] = bad.add({1, 1}, DType::F32);
    bad.spec.ops.push_back(bad.op);
    for (TensorSpec &t : bad.spec.tensors)
      t.readByValue = t.uid == outUid;
    Lowering badLowering(fakeApi(), bad.spec, /*compositeAttention=*/false);
    EXPECT_EQ(badLowering.addSpecTensors(),
              "group 'bad': tensor 2 is read by value, so it must be a "
              "one-element input of the group");
  }
  bool describedByValue = false;
  for (const auto &d : descs)
    if (d->type == CUDNN_BACKEND_TENSOR_DESCRIPTOR && d->uid == shiftUid)
      for (auto &[name, text] : d->attrs)
        describedByValue |= name == CUDNN_ATTR_TENSOR_IS_BY_VALUE &&
                            text.find("=true") != std::string::npos;
  EXPECT_TRUE(describedByValue);
}
