//===- RuntimeGpuTest.cpp - cuDNN groups against the CPU reference --------===//
//
// Builds GraphSpecs by hand, runs them through cuDNN and compares with the
// reference kernels (relative error of the norm: fp32 1e-5, tf32 1e-3,
// fp16/bf16 1e-2; no NaN). Every test skips when there is no GPU.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Reference/AttentionKernels.h"
#include "GraphDialect/Reference/Kernels.h"
#include "GraphDialect/Runtime/CudnnGraph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

using namespace graph;
using namespace graph::rt;
using ref::DType;
using ref::NdArray;
using ref::Shape;

namespace {

Device *gpu(std::string &why) { return Device::get(why); }

#define REQUIRE_GPU()                                                          \
  std::string gpuError;                                                        \
  Device *device = gpu(gpuError);                                              \
  if (!device)                                                                 \
  GTEST_SKIP() << "no GPU runtime: " << gpuError

Shape nhwc(const Shape &d) { // logical [N, C, H, W] stored channels-last
  return {d[1] * d[2] * d[3], 1, d[3] * d[1], d[1]};
}

/// A hand-built group with host data for its inputs.
struct Case {
  GraphSpec spec;
  std::map<int64_t, NdArray> values; // inputs (already rounded)
  std::mt19937 rng{1234};

  Case(const std::string &name) { spec.name = name; }

  int64_t tensor(int64_t uid, DType t, Shape dims, Shape strides = {},
                 bool isVirtual = false) {
    TensorSpec s;
    s.uid = uid;
    s.dtype = t;
    s.dims = dims;
    s.strides = strides.empty() ? ref::rowMajorStrides(dims) : strides;
    s.isVirtual = isVirtual;
    spec.tensors.push_back(s);
    return uid;
  }
  int64_t input(int64_t uid, DType t, Shape dims, Shape strides = {},
                double lo = -1, double hi = 1) {
    tensor(uid, t, dims, strides);
    NdArray a(dims);
    std::uniform_real_distribution<double> dist(lo, hi);
    for (double &x : a.data)
      x = ref::roundTo(t, dist(rng));
    values[uid] = a;
    return uid;
  }
  int64_t scalar(int64_t uid, double value, size_t rank = 4) {
    TensorSpec s;
    s.uid = uid;
    s.dtype = DType::F32;
    s.dims = Shape(rank, 1);
    s.strides = Shape(rank, 1);
    s.isByValue = true;
    s.byValue = value;
    spec.tensors.push_back(s);
    return uid;
  }
  OpSpec &op(const std::string &kind, const std::string &mode,
             std::map<SpecPort, int64_t> in,
             std::map<SpecPort, int64_t> out) {
    OpSpec o;
    o.kind = kind;
    o.mode = mode;
    o.name = kind + std::to_string(spec.ops.size());
    o.inputs = std::move(in);
    o.outputs = std::move(out);
    spec.ops.push_back(o);
    return spec.ops.back();
  }
  const TensorSpec &find(int64_t uid) const {
    for (const TensorSpec &t : spec.tensors)
      if (t.uid == uid)
        return t;
    return spec.tensors.front();
  }

  /// Runs the group; fills `results` for every non-virtual output.
  std::string run(Device &device, std::map<int64_t, NdArray> &results,
                  double *ms = nullptr) {
    CudnnGroup *group = nullptr;
    size_t plan = 0;
    if (std::string e = getCachedPlan(device, spec, group, plan); !e.empty())
      return e;
    std::printf("group %s: plan %s\n", spec.name.c_str(),
                group->plans()[plan].name.c_str());
    return runPlan(device, *group, plan, results, ms);
  }

  /// Runs built plan `plan` of `group` (made from `spec`) on the inputs.
  std::string runPlan(Device &device, CudnnGroup &groupRef, size_t plan,
                      std::map<int64_t, NdArray> &results,
                      double *ms = nullptr) {
    CudnnGroup *group = &groupRef;
    std::map<int64_t, void *> buffers;
    std::vector<void *> owned;
    auto cleanup = [&] {
      for (void *p : owned)
        device.free(p);
    };
    std::string error;
    for (const TensorSpec &t : spec.tensors) {
      if (t.isVirtual || t.isByValue)
        continue;
      size_t bytes = ref::spanElements(t.dims, t.strides) * ref::byteWidth(t.dtype);
      void *p = device.alloc(bytes, error);
      if (!p) {
        cleanup();
        return error;
      }
      owned.push_back(p);
      buffers[t.uid] = p;
      std::vector<unsigned char> host(bytes, 0);
      auto it = values.find(t.uid);
      if (it != values.end())
        ref::store(it->second, t.dtype, t.strides, host.data());
      if (std::string e = device.copyToDevice(p, host.data(), bytes);
          !e.empty()) {
        cleanup();
        return e;
      }
    }
    int64_t wsBytes = group->workspaceBytes(plan);
    void *ws = nullptr;
    if (wsBytes > 0) {
      ws = device.alloc(wsBytes, error);
      if (!ws) {
        cleanup();
        return error;
      }
      owned.push_back(ws);
    }
    std::string e = group->execute(plan, buffers, ws);
    if (e.empty() && ms)
      e = device.time([&] { return group->execute(plan, buffers, ws); }, *ms);
    if (e.empty())
      e = device.synchronize();
    for (const TensorSpec &t : spec.tensors) {
      if (!e.empty())
        break;
      if (t.isVirtual || t.isByValue || values.count(t.uid))
        continue;
      size_t bytes = ref::spanElements(t.dims, t.strides) * ref::byteWidth(t.dtype);
      std::vector<unsigned char> host(bytes);
      e = device.copyToHost(host.data(), buffers[t.uid], bytes);
      results[t.uid] = ref::load(host.data(), t.dtype, t.dims, t.strides);
    }
    cleanup();
    return e;
  }
};

double relError(const NdArray &got, const NdArray &want, bool &nan) {
  double diff = 0, norm = 0;
  nan = false;
  for (size_t i = 0; i < want.data.size() && i < got.data.size(); ++i) {
    if (std::isnan(got.data[i]))
      nan = true;
    double d = got.data[i] - want.data[i];
    diff += d * d;
    norm += want.data[i] * want.data[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

#define EXPECT_CLOSE(got, want, bound)                                         \
  do {                                                                         \
    ASSERT_EQ((got).shape, (want).shape);                                      \
    bool hasNan = false;                                                       \
    double rel = relError(got, want, hasNan);                                  \
    EXPECT_FALSE(hasNan) << #got << " has NaN";                                \
    EXPECT_LT(rel, bound) << #got << " relative error " << rel;                \
  } while (0)

NdArray rounded(NdArray a, DType t) {
  ref::roundInPlace(a, t);
  return a;
}

NdArray pw(ref::PointwiseMode mode, std::vector<const NdArray *> in,
           const Shape &shape, ref::PointwiseParams p = {}) {
  NdArray out;
  EXPECT_EQ(ref::pointwise(mode, in, shape, p, out), "");
  return out;
}

} // namespace

TEST(RuntimeGpu, DeviceVersion) {
  REQUIRE_GPU();
  std::string v = device->version();
  EXPECT_NE(v.find("cuDNN 9."), std::string::npos) << v;
  std::printf("device: %s\n", v.c_str());
}

/// gelu(A @ B + bias) in bf16 (uids 1, 2, 3 in; 4 out): one group cuDNN's
/// runtime-fusion engines compile when a plan is finalized.
static void matmulBiasGelu(Case &c, int64_t M, int64_t K, int64_t N) {
  c.input(1, DType::BF16, {1, M, K});
  c.input(2, DType::BF16, {1, K, N});
  c.input(3, DType::BF16, {1, 1, N});
  c.tensor(10, DType::F32, {1, M, N}, {}, true);
  c.tensor(11, DType::F32, {1, M, N}, {}, true);
  c.tensor(4, DType::BF16, {1, M, N});
  c.op("matmul", "", {{"A", 1}, {"B", 2}}, {{"C", 10}});
  c.op("pointwise", "add", {{"in0", 10}, {"in1", 3}}, {{"output", 11}});
  c.op("pointwise", "gelu", {{"in0", 11}}, {{"output", 4}});
}

static NdArray matmulBiasGeluReference(Case &c) {
  NdArray mm;
  EXPECT_EQ(ref::matmul(c.values[1], c.values[2], mm), "");
  NdArray biased = pw(ref::PointwiseMode::add, {&mm, &c.values[3]}, mm.shape);
  return rounded(pw(ref::PointwiseMode::gelu, {&biased}, biased.shape),
                 DType::BF16);
}

TEST(RuntimeGpu, MatmulBf16BiasGelu) {
  REQUIRE_GPU();
  Case c("matmul_bias_gelu");
  matmulBiasGelu(c, 128, 256, 192);
  std::map<int64_t, NdArray> out;
  ASSERT_EQ(c.run(*device, out), "");
  EXPECT_CLOSE(out[4], matmulBiasGeluReference(c), 1e-2);
}

TEST(RuntimeGpu, BatchedHalfMatmulBroadcast) {
  REQUIRE_GPU();
  Case c("batched_matmul");
  c.input(1, DType::F16, {4, 64, 96});
  c.input(2, DType::F16, {1, 96, 80});
  c.tensor(3, DType::F16, {4, 64, 80});
  c.op("matmul", "", {{"A", 1}, {"B", 2}}, {{"C", 3}});
  std::map<int64_t, NdArray> out;
  ASSERT_EQ(c.run(*device, out), "");
  NdArray want;
  ASSERT_EQ(ref::matmul(c.values[1], c.values[2], want), "");
  EXPECT_CLOSE(out[3], rounded(want, DType::F16), 1e-2);
}

class ConvFprop : public ::testing::TestWithParam<int64_t> {};

TEST_P(ConvFprop, HalfNhwcBiasRelu) {
  REQUIRE_GPU();
  int64_t stride = GetParam();
  Case c("conv_bias_relu");
  Shape x = {2, 32, 16, 16}, w = {64, 32, 3, 3};
  int64_t o = (16 + 2 - 3) / stride + 1;
  Shape y = {2, 64, o, o};
  c.input(1, DType::F16, x, nhwc(x));
  c.input(2, DType::F16, w, nhwc(w));
  c.input(3, DType::F16, {1, 64, 1, 1}, nhwc({1, 64, 1, 1}));
  c.tensor(10, DType::F32, y, nhwc(y), true);
  c.tensor(11, DType::F32, y, nhwc(y), true);
  c.tensor(4, DType::F16, y, nhwc(y));
  OpSpec &conv = c.op("conv_fprop", "", {{"image", 1}, {"weight", 2}},
                      {{"Y", 10}});
  conv.intAttrs["pre_padding"] = {1, 1};
  conv.intAttrs["post_padding"] = {1, 1};
  conv.intAttrs["stride"] = {stride, stride};
  c.op("pointwise", "bias", {{"in0", 10}, {"in1", 3}}, {{"output", 11}});
  c.op("pointwise", "relu", {{"in0", 11}}, {{"output", 4}});
  std::map<int64_t, NdArray> out;
  ASSERT_EQ(c.run(*device, out), "");
  ref::ConvParams p;
  p.prePadding = {1, 1};
  p.postPadding = {1, 1};
  p.stride = {stride, stride};
  NdArray cv;
  ASSERT_EQ(ref::convFprop(c.values[1], c.values[2], p, cv), "");
  NdArray b = pw(ref::PointwiseMode::add, {&cv, &c.values[3]}, cv.shape);
  NdArray want =
      rounded(pw(ref::PointwiseMode::relu, {&b}, b.shape), DType::F16);
  EXPECT_CLOSE(out[4], want, 1e-2);
}
INSTANTIATE_TEST_SUITE_P(Strides, ConvFprop, ::testing::Values(1, 2));

TEST(RuntimeGpu, ConvDgradAndWgrad) {
  REQUIRE_GPU();
  Shape x = {2, 32, 16, 16}, w = {64, 32, 3, 3}, y = {2, 64, 16, 16};
  ref::ConvParams p;
  p.prePadding = {1, 1};
  p.postPadding = {1, 1};
  {
    Case c("conv_dgrad");
    c.input(1, DType::F16, y, nhwc(y));
    c.input(2, DType::F16, w, nhwc(w));
    c.tensor(3, DType::F16, x, nhwc(x));
    OpSpec &op = c.op("conv_dgrad", "", {{"loss", 1}, {"filter", 2}},
                      {{"DX", 3}});
    op.intAttrs["pre_padding"] = {1, 1};
    op.intAttrs["post_padding"] = {1, 1};
    std::map<int64_t, NdArray> out;
    ASSERT_EQ(c.run(*device, out), "");
    NdArray want;
    ASSERT_EQ(ref::convDgrad(c.values[1], c.values[2], p, x, want), "");
    EXPECT_CLOSE(out[3], rounded(want, DType::F16), 1e-2);
  }
  {
    Case c("conv_wgrad");
    c.input(1, DType::F16, x, nhwc(x));
    c.input(2, DType::F16, y, nhwc(y));
    c.tensor(3, DType::F16, w, nhwc(w));
    OpSpec &op = c.op("conv_wgrad", "", {{"image", 1}, {"loss", 2}},
                      {{"DW", 3}});
    op.intAttrs["pre_padding"] = {1, 1};
    op.intAttrs["post_padding"] = {1, 1};
    std::map<int64_t, NdArray> out;
    ASSERT_EQ(c.run(*device, out), "");
    NdArray want;
    ASSERT_EQ(ref::convWgrad(c.values[1], c.values[2], p, w, want), "");
    EXPECT_CLOSE(out[3], rounded(want, DType::F16), 1e-2);
  }
}

namespace {
/// Norm forward (layernorm or rmsnorm) then its backward, bf16 io.
void normForwardBackward(Device *device, bool rms) {
  int64_t rows = 256, d = 512;
  Shape x = {rows, d, 1, 1}, s = {1, d, 1, 1}, st = {rows, 1, 1, 1};
  NdArray mean, invVar;
  std::map<int64_t, NdArray> fwd;
  Case c(rms ? "rmsnorm_fwd" : "layernorm_fwd");
  {
    c.input(1, DType::BF16, x);
    c.input(2, DType::F32, s, {}, 0.5, 1.5);
    if (!rms)
      c.input(3, DType::F32, s);
    c.scalar(4, 1e-5);
    c.tensor(5, DType::BF16, x);
    if (!rms)
      c.tensor(6, DType::F32, st);
    c.tensor(7, DType::F32, st);
    std::map<SpecPort, int64_t> in = {
        {"input", 1}, {"scale", 2}, {"epsilon", 4}};
    std::map<SpecPort, int64_t> outs = {{"Y", 5}, {"inv_var", 7}};
    if (!rms) {
      in["bias"] = 3;
      outs["mean"] = 6;
    }
    c.op(rms ? "rmsnorm" : "layernorm", "training", in, outs);
    ASSERT_EQ(c.run(*device, fwd), "");
    ref::NormForwardResult want;
    if (rms)
      ASSERT_EQ(ref::rmsnormForward(c.values[1], c.values[2], nullptr, 1e-5,
                                    true, want),
                "");
    else
      ASSERT_EQ(ref::layernormForward(c.values[1], c.values[2], &c.values[3],
                                      1e-5, true, want),
                "");
    EXPECT_CLOSE(fwd[5], rounded(want.y, DType::BF16), 1e-2);
    if (!rms)
      EXPECT_CLOSE(fwd[6], want.mean, 1e-5);
    EXPECT_CLOSE(fwd[7], want.invVariance, 1e-4);
    mean = want.mean;
    invVar = want.invVariance;
  }
  Case g(rms ? "rmsnorm_bwd" : "layernorm_bwd");
  g.input(1, DType::BF16, x); // dy
  g.tensor(2, DType::BF16, x);
  g.values[2] = c.values[1];
  g.tensor(3, DType::F32, s);
  g.values[3] = c.values[2];
  if (!rms) {
    g.tensor(4, DType::F32, st);
    g.values[4] = mean;
  }
  g.tensor(5, DType::F32, st);
  g.values[5] = invVar;
  g.tensor(6, DType::BF16, x);
  g.tensor(7, DType::F32, s);
  std::map<SpecPort, int64_t> in = {
      {"grad", 1}, {"input", 2}, {"scale", 3}, {"inv_variance", 5}};
  std::map<SpecPort, int64_t> outs = {{"DX", 6}, {"DScale", 7}};
  if (!rms) {
    in["mean"] = 4;
    g.tensor(8, DType::F32, s);
    outs["DBias"] = 8;
  }
  g.op(rms ? "rmsnorm_backward" : "layernorm_backward", "", in, outs);
  std::map<int64_t, NdArray> bwd;
  ASSERT_EQ(g.run(*device, bwd), "");
  ref::NormBackwardResult want;
  if (rms)
    ASSERT_EQ(ref::rmsnormBackward(g.values[1], g.values[2], g.values[3],
                                   invVar, false, want),
              "");
  else
    ASSERT_EQ(ref::layernormBackward(g.values[1], g.values[2], g.values[3],
                                     mean, invVar, want),
              "");
  EXPECT_CLOSE(bwd[6], rounded(want.dx, DType::BF16), 1e-2);
  EXPECT_CLOSE(bwd[7], want.dscale, 1e-3);
  if (!rms)
    EXPECT_CLOSE(bwd[8], want.dbias, 1e-3);
}
} // namespace

TEST(RuntimeGpu, LayernormTrainingForwardBackwardBf16) {
  REQUIRE_GPU();
  normForwardBackward(device, false);
}

TEST(RuntimeGpu, RmsnormForwardBackwardBf16) {
  REQUIRE_GPU();
  normForwardBackward(device, true);
}

TEST(RuntimeGpu, BatchnormTrainingRunningStatsRelu) {
  REQUIRE_GPU();
  Case c("batchnorm_relu");
  Shape x = {4, 32, 8, 8}, s = {1, 32, 1, 1};
  c.input(1, DType::F16, x, nhwc(x));
  c.input(2, DType::F32, s, {}, 0.5, 1.5);
  c.input(3, DType::F32, s);
  c.scalar(4, 1e-5);
  c.input(5, DType::F32, s);           // running mean
  c.input(6, DType::F32, s, {}, 0.5, 2); // running var
  c.scalar(7, 0.1);                    // momentum
  c.tensor(10, DType::F16, x, nhwc(x), true);
  c.tensor(11, DType::F16, x, nhwc(x));
  c.tensor(12, DType::F32, s);
  c.tensor(13, DType::F32, s);
  c.tensor(14, DType::F32, s);
  c.tensor(15, DType::F32, s);
  c.op("batchnorm", "",
       {{"input", 1}, {"scale", 2}, {"bias", 3}, {"epsilon", 4},
        {"in_running_mean", 5}, {"in_running_var", 6}, {"momentum", 7}},
       {{"Y", 10}, {"mean", 12}, {"inv_var", 13}, {"next_running_mean", 14},
        {"next_running_var", 15}});
  c.op("pointwise", "relu", {{"in0", 10}}, {{"output", 11}});
  std::map<int64_t, NdArray> out;
  ASSERT_EQ(c.run(*device, out), "");
  ref::BatchnormForwardResult want;
  ASSERT_EQ(ref::batchnormForward(c.values[1], c.values[2], &c.values[3], 1e-5,
                                  &c.values[5], &c.values[6], 0.1, want),
            "");
  NdArray y = rounded(want.y, DType::F16);
  EXPECT_CLOSE(out[11], rounded(pw(ref::PointwiseMode::relu, {&y}, y.shape),
                                DType::F16),
               1e-2);
  EXPECT_CLOSE(out[12], want.mean, 1e-4);
  EXPECT_CLOSE(out[13], want.invVariance, 1e-4);
  EXPECT_CLOSE(out[14], want.nextRunningMean, 1e-4);
  EXPECT_CLOSE(out[15], want.nextRunningVar, 1e-4);
}

TEST(RuntimeGpu, BatchnormInference) {
  REQUIRE_GPU();
  Case c("batchnorm_inference");
  Shape x = {4, 32, 8, 8}, s = {1, 32, 1, 1};
  c.input(1, DType::F16, x, nhwc(x));
  c.input(2, DType::F32, s);
  c.input(3, DType::F32, s, {}, 0.5, 2);
  c.input(4, DType::F32, s, {}, 0.5, 1.5);
  c.input(5, DType::F32, s);
  c.tensor(6, DType::F16, x, nhwc(x));
  c.op("batchnorm_inference", "",
       {{"input", 1}, {"mean", 2}, {"inv_variance", 3}, {"scale", 4},
        {"bias", 5}},
       {{"Y", 6}});
  std::map<int64_t, NdArray> out;
  ASSERT_EQ(c.run(*device, out), "");
  NdArray want;
  ASSERT_EQ(ref::batchnormInference(c.values[1], c.values[2], c.values[3],
                                    c.values[4], &c.values[5], want),
            "");
  EXPECT_CLOSE(out[6], rounded(want, DType::F16), 1e-2);
}

TEST(RuntimeGpu, ReductionAddAndMax) {
  REQUIRE_GPU();
  for (const char *mode : {"add", "max"}) {
    Case c(std::string("reduction_") + mode);
    c.input(1, DType::F32, {8, 64, 32});
    c.tensor(2, DType::F32, {8, 64, 1});
    c.op("reduction", mode, {{"input", 1}}, {{"output", 2}});
    std::map<int64_t, NdArray> out;
    ASSERT_EQ(c.run(*device, out), "") << mode;
    ref::ReductionMode m;
    ASSERT_TRUE(ref::parseReductionMode(mode, m));
    NdArray want;
    ASSERT_EQ(ref::reduce(c.values[1], m, {8, 64, 1}, want), "");
    EXPECT_CLOSE(out[2], want, 1e-5);
  }
}

TEST(RuntimeGpu, PointwiseChainF32) {
  REQUIRE_GPU();
  Case c("pointwise_chain");
  Shape x = {1, 64, 128};
  c.input(1, DType::F32, x);
  c.input(2, DType::F32, {1, 1, 128});
  c.scalar(3, 0.5, 3);
  c.tensor(10, DType::F32, x, {}, true);
  c.tensor(11, DType::F32, x, {}, true);
  c.tensor(4, DType::F32, x);
  c.op("pointwise", "scale", {{"in0", 1}, {"in1", 3}}, {{"output", 10}});
  c.op("pointwise", "tanh", {{"in0", 10}}, {{"output", 11}});
  c.op("pointwise", "add", {{"in0", 11}, {"in1", 2}}, {{"output", 4}});
  std::map<int64_t, NdArray> out;
  ASSERT_EQ(c.run(*device, out), "");
  NdArray half(Shape{1, 1, 1}, 0.5);
  NdArray a = pw(ref::PointwiseMode::mul, {&c.values[1], &half}, x);
  NdArray t = pw(ref::PointwiseMode::tanh, {&a}, x);
  NdArray want = pw(ref::PointwiseMode::add, {&t, &c.values[2]}, x);
  EXPECT_CLOSE(out[4], want, 1e-5);
}

namespace {
struct SdpaData {
  NdArray q, k, v, o, stats, dO;
};

/// Causal bf16 sdpa: forward (with Stats) through cuDNN vs the reference.
void sdpaForwardCase(Device *device, int64_t B, int64_t H, int64_t S,
                     int64_t D, bool causal, SdpaData *keep) {
  Case c(causal ? "sdpa_fwd_causal" : "sdpa_fwd");
  Shape qs = {B, H, S, D}, st = {B, H, S, 1};
  double scale = 1.0 / std::sqrt(static_cast<double>(D));
  c.input(1, DType::BF16, qs);
  c.input(2, DType::BF16, qs);
  c.input(3, DType::BF16, qs);
  c.tensor(4, DType::BF16, qs);
  c.tensor(5, DType::F32, st);
  OpSpec &op = c.op("sdpa", "", {{"q", 1}, {"k", 2}, {"v", 3}},
                    {{"O", 4}, {"Stats", 5}});
  op.floatAttrs["attn_scale_value"] = scale;
  if (causal)
    op.intAttrs["use_causal_mask"] = {1};
  std::map<int64_t, NdArray> out;
  double ms = 0;
  ASSERT_EQ(c.run(*device, out, &ms), "");
  std::printf("%s b%lld h%lld s%lld d%lld: %.3f ms\n", c.spec.name.c_str(),
              (long long)B, (long long)H, (long long)S, (long long)D, ms);
  ref::SdpaOptions opts;
  opts.attnScale = scale;
  if (causal)
    opts.rightBound = 0;
  ref::SdpaForwardResult want;
  ASSERT_EQ(ref::sdpaForward(c.values[1], c.values[2], c.values[3], opts, want),
            "");
  EXPECT_CLOSE(out[4], rounded(want.o, DType::BF16), 1e-2);
  EXPECT_CLOSE(out[5], want.stats, 1e-3);
  if (keep) {
    keep->q = c.values[1];
    keep->k = c.values[2];
    keep->v = c.values[3];
    keep->o = rounded(want.o, DType::BF16);
    keep->stats = rounded(want.stats, DType::F32);
  }
}
} // namespace

TEST(RuntimeGpu, SdpaForwardUnifiedBf16) {
  REQUIRE_GPU();
  sdpaForwardCase(device, 2, 8, 512, 128, false, nullptr);
}

TEST(RuntimeGpu, SdpaCausalForwardAndBackwardBf16) {
  REQUIRE_GPU();
  int64_t B = 2, H = 8, S = 1024, D = 128;
  SdpaData data;
  sdpaForwardCase(device, B, H, S, D, true, &data);
  if (HasFatalFailure() || data.o.data.empty())
    return;
  Case c("sdpa_bwd_causal");
  Shape qs = {B, H, S, D}, st = {B, H, S, 1};
  double scale = 1.0 / std::sqrt(static_cast<double>(D));
  int64_t uid = 1;
  for (NdArray *a : {&data.q, &data.k, &data.v, &data.o}) {
    c.tensor(uid, DType::BF16, qs);
    c.values[uid++] = *a;
  }
  c.input(5, DType::BF16, qs); // dO
  c.tensor(6, DType::F32, st);
  c.values[6] = data.stats;
  c.tensor(7, DType::BF16, qs);
  c.tensor(8, DType::BF16, qs);
  c.tensor(9, DType::BF16, qs);
  OpSpec &op = c.op("sdpa_backward", "",
                    {{"q", 1}, {"k", 2}, {"v", 3}, {"o", 4}, {"dO", 5},
                     {"stats", 6}},
                    {{"dQ", 7}, {"dK", 8}, {"dV", 9}});
  op.floatAttrs["attn_scale_value"] = scale;
  op.intAttrs["use_causal_mask"] = {1};
  std::map<int64_t, NdArray> out;
  double ms = 0;
  ASSERT_EQ(c.run(*device, out, &ms), "");
  std::printf("sdpa_bwd_causal: %.3f ms\n", ms);
  ref::SdpaOptions opts;
  opts.attnScale = scale;
  opts.rightBound = 0;
  ref::SdpaBackwardResult want;
  ASSERT_EQ(ref::sdpaBackward(data.q, data.k, data.v, data.o, c.values[5],
                              data.stats, opts, want),
            "");
  EXPECT_CLOSE(out[7], rounded(want.dQ, DType::BF16), 1e-2);
  EXPECT_CLOSE(out[8], rounded(want.dK, DType::BF16), 1e-2);
  EXPECT_CLOSE(out[9], rounded(want.dV, DType::BF16), 1e-2);
}

TEST(RuntimeGpu, PlanListAndJsonRoundTrip) {
  REQUIRE_GPU();
  Case c("plan_json");
  c.input(1, DType::BF16, {1, 128, 64});
  c.input(2, DType::BF16, {1, 64, 32});
  c.tensor(3, DType::BF16, {1, 128, 32});
  c.op("matmul", "", {{"A", 1}, {"B", 2}}, {{"C", 3}});
  std::string error;
  auto group = CudnnGroup::create(*device, c.spec, error);
  ASSERT_TRUE(group) << error;
  ASSERT_EQ(group->createPlans({HeurMode::A, HeurMode::Fallback}), "");
  ASSERT_FALSE(group->plans().empty());
  size_t built = group->plans().size();
  for (size_t i = 0; i < group->plans().size(); ++i)
    if (group->buildPlan(i).empty()) {
      built = i;
      break;
    }
  ASSERT_LT(built, group->plans().size());
  const PlanInfo &info = group->plans()[built];
  EXPECT_GE(info.engineId, 0);
  std::printf("plan %s, workspace %lld\n", info.name.c_str(),
              (long long)info.workspaceBytes);
  // Replaying the engine id and knobs gives a plan that builds too.
  ASSERT_EQ(group->addPlan(info.engineId, info.knobs), "");
  EXPECT_EQ(group->buildPlan(group->plans().size() - 1), "");
  std::string json;
  ASSERT_EQ(group->planJson(built, json), "");
  EXPECT_FALSE(json.empty());
  EXPECT_EQ(group->addPlanFromJson(json), "");
}

// The ranking finalizes its candidate plans on several threads at once
// (runtime-fusion plans compile their kernels then), each thread on its own
// cuDNN handle: the same plans build as when built one after another, and
// each computes the group on the device's handle.
TEST(RuntimeGpu, PlansBuiltInParallelMatchSerialBuilds) {
  REQUIRE_GPU();
  // The build handles: the device's first, then distinct ones, the same
  // ones again when asked again.
  std::vector<void *> handles, again;
  ASSERT_EQ(device->buildHandles(4, handles), "");
  ASSERT_EQ(handles.size(), 4u);
  EXPECT_EQ(handles[0], device->cudnnHandle());
  EXPECT_EQ(std::set<void *>(handles.begin(), handles.end()).size(), 4u);
  ASSERT_EQ(device->buildHandles(3, again), "");
  EXPECT_EQ(again, std::vector<void *>(handles.begin(), handles.begin() + 3));

  Case c("parallel_builds");
  matmulBiasGelu(c, 256, 128, 192);
  std::string error;
  auto parallel = CudnnGroup::create(*device, c.spec, error);
  ASSERT_TRUE(parallel) << error;
  auto serial = CudnnGroup::create(*device, c.spec, error);
  ASSERT_TRUE(serial) << error;
  for (CudnnGroup *g : {parallel.get(), serial.get()})
    ASSERT_EQ(g->createPlans({HeurMode::A, HeurMode::Fallback}), "");
  ASSERT_EQ(parallel->plans().size(), serial->plans().size());
  size_t count = std::min<size_t>(parallel->plans().size(), 8);
  ASSERT_GE(count, 2u) << "too few plans to build in parallel";
  std::vector<size_t> indices(count);
  std::iota(indices.begin(), indices.end(), 0);
  std::vector<std::string> answers = parallel->buildPlans(indices, 4);
  ASSERT_EQ(answers.size(), count);
  NdArray want = matmulBiasGeluReference(c);
  size_t built = 0;
  for (size_t i = 0; i < count; ++i) {
    std::string alone = serial->buildPlan(i);
    EXPECT_EQ(answers[i].empty(), alone.empty())
        << parallel->plans()[i].name << ": in parallel '" << answers[i]
        << "', alone '" << alone << "'";
    EXPECT_EQ(parallel->plans()[i].built, answers[i].empty());
    if (!answers[i].empty())
      continue;
    ++built;
    std::map<int64_t, NdArray> out;
    ASSERT_EQ(c.runPlan(*device, *parallel, i, out), "")
        << parallel->plans()[i].name;
    EXPECT_CLOSE(out[4], want, 1e-2);
  }
  EXPECT_GE(built, 1u);
  std::printf("%zu of %zu plans built in parallel\n", built, count);
}

// Single-op groups the heuristics used to reject ("offered no engine
// config"): the runtime retries layout-free graphs relabeled into layouts
// cuDNN's runtime-fusion engines take.
TEST(RuntimeGpu, StandaloneReluHalfNchw) {
  REQUIRE_GPU();
  Case c("relu_f16_nchw");
  Shape x = {8, 32, 16, 16};
  c.input(1, DType::F16, x);
  c.tensor(2, DType::F16, x);
  c.op("pointwise", "relu", {{"in0", 1}}, {{"output", 2}});
  std::map<int64_t, NdArray> out;
  ASSERT_EQ(c.run(*device, out), "");
  EXPECT_CLOSE(out[2], pw(ref::PointwiseMode::relu, {&c.values[1]}, x), 1e-3);
}

TEST(RuntimeGpu, StandaloneMaxReductionColumns) {
  REQUIRE_GPU();
  // As the runtime gets it today (2-D) and as GraphToCudnn will pad it.
  for (bool padded : {false, true}) {
    Case c(padded ? "reduce_max_rank3" : "reduce_max_rank2");
    Shape x = padded ? Shape{1, 64, 256} : Shape{64, 256};
    Shape y = padded ? Shape{1, 1, 256} : Shape{1, 256};
    c.input(1, DType::F32, x);
    c.tensor(2, DType::F32, y);
    c.op("reduction", "max", {{"input", 1}}, {{"output", 2}});
    std::map<int64_t, NdArray> out;
    ASSERT_EQ(c.run(*device, out), "") << c.spec.name;
    NdArray want;
    ASSERT_EQ(ref::reduce(c.values[1], ref::ReductionMode::max, y, want), "");
    EXPECT_CLOSE(out[2], want, 1e-6);
  }
}

TEST(RuntimeGpu, MatmulBf16ToF32Rank3) {
  REQUIRE_GPU();
  // The rank-3 form GraphToCudnn pads 2-D matmuls to.
  Case c("matmul_bf16_f32_rank3");
  c.input(1, DType::BF16, {1, 256, 512});
  c.input(2, DType::BF16, {1, 512, 384});
  c.tensor(3, DType::F32, {1, 256, 384});
  c.op("matmul", "", {{"A", 1}, {"B", 2}}, {{"C", 3}});
  std::map<int64_t, NdArray> out;
  ASSERT_EQ(c.run(*device, out), "");
  NdArray want;
  ASSERT_EQ(ref::matmul(c.values[1], c.values[2], want), "");
  EXPECT_CLOSE(out[3], want, 1e-3);
  // The 2-D form, for the record (not lowered by the runtime itself).
  Case d("matmul_bf16_f32_rank2");
  d.input(1, DType::BF16, {256, 512});
  d.input(2, DType::BF16, {512, 384});
  d.tensor(3, DType::F32, {256, 384});
  d.op("matmul", "", {{"A", 1}, {"B", 2}}, {{"C", 3}});
  std::map<int64_t, NdArray> out2;
  std::printf("2-D matmul: %s\n", d.run(*device, out2).c_str());
}
