//===- BuilderTest.cpp - Tests of the C graph builder -----------*- C++ -*-===//
//
// Graphs built with graphBuilder* (no MLIR text), executed on the CPU
// reference executor and checked against naive computations; every misuse
// of the builder and a verifier failure surfacing through graphGetLastError;
// result dims filled in from the ops' shape rules.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect-c/Graph.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace {

#define EXPECT_CONTAINS(haystack, needle)                                      \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos)             \
      << "missing '" << (needle) << "' in:\n"                                  \
      << (haystack)

GraphBuffer buffer(int64_t uid, void *data, std::vector<int64_t> dims,
                   GraphDType dtype = GRAPH_F32) {
  GraphBuffer b = {};
  b.uid = uid;
  b.data = data;
  b.dtype = dtype;
  b.rank = static_cast<int32_t>(dims.size());
  for (size_t i = 0; i < dims.size(); ++i)
    b.dims[i] = dims[i];
  return b;
}

class BuilderTest : public ::testing::Test {
protected:
  GraphContext context = nullptr;
  GraphBuilder builder = nullptr;
  GraphModule module = nullptr;

  void SetUp() override {
    context = graphContextCreate();
    builder = graphBuilderCreate(context, "g", GRAPH_F32, GRAPH_F32, GRAPH_F32);
    ASSERT_NE(builder, nullptr) << graphGetLastError();
  }
  void TearDown() override {
    graphModuleDestroy(module);
    graphBuilderDestroy(builder);
    graphContextDestroy(context);
  }

  /// uid -1: none given (0 is a uid).
  int64_t tensor(std::vector<int64_t> dims, const char *name = nullptr,
                 int64_t uid = -1, GraphDType dtype = GRAPH_F32) {
    int64_t id = graphBuilderTensor(builder, dtype,
                                    static_cast<int32_t>(dims.size()),
                                    dims.data(), nullptr, name);
    EXPECT_GT(id, 0) << graphGetLastError();
    if (uid >= 0)
      EXPECT_EQ(graphTensorSetUid(builder, id, uid), GRAPH_OK)
          << graphGetLastError();
    return id;
  }
  int64_t output(std::vector<int64_t> dims, int64_t uid,
                 GraphDType dtype = GRAPH_F32) {
    int64_t id = tensor(dims, nullptr, uid, dtype);
    EXPECT_EQ(graphTensorSetOutput(builder, id, 1), GRAPH_OK);
    return id;
  }
  GraphStatus op(const char *kind, const char *mode,
                 std::vector<const char *> inPorts, std::vector<int64_t> ins,
                 std::vector<const char *> outPorts, std::vector<int64_t> outs,
                 const char *attrs = nullptr, const char *name = nullptr) {
    return graphBuilderOp(builder, kind, mode, name, inPorts.data(),
                          ins.data(), static_cast<int32_t>(ins.size()),
                          outPorts.data(), outs.data(),
                          static_cast<int32_t>(outs.size()), attrs);
  }
  std::string text() {
    char *t = graphBuilderPrint(builder, nullptr);
    std::string out = t ? t : "";
    graphFree(t);
    return out;
  }
  void finish() {
    module = graphBuilderFinish(builder);
    ASSERT_NE(module, nullptr) << graphGetLastError() << "\n" << text();
  }
  GraphStatus run(std::vector<GraphBuffer> buffers) {
    return graphExecute(module, GRAPH_DEVICE_CPU, buffers.data(),
                        static_cast<int32_t>(buffers.size()));
  }
};

std::vector<float> iota(size_t n, float scale, float offset) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = scale * static_cast<float>((i * 7) % 11) + offset;
  return v;
}

TEST_F(BuilderTest, MatmulBiasRelu) {
  int64_t a = tensor({1, 2, 3}, "a", 1), b = tensor({1, 3, 4}, "b", 2),
          bias = tensor({1, 1, 4}, "bias", 3);
  int64_t mm = tensor({1, 2, 4}), sum = tensor({1, 2, 4});
  int64_t y = output({1, 2, 4}, 4);
  ASSERT_EQ(graphTensorSetName(builder, y, "y"), GRAPH_OK);
  ASSERT_EQ(op("matmul", nullptr, {"A", "B"}, {a, b}, {"C"}, {mm}, nullptr,
               "mm"),
            GRAPH_OK)
      << graphGetLastError();
  ASSERT_EQ(op("pointwise", "add", {"inputs_0", "inputs_1"}, {mm, bias},
               {"output"}, {sum}),
            GRAPH_OK)
      << graphGetLastError();
  ASSERT_EQ(op("pointwise", "relu", {"inputs_0"}, {sum}, {"output"}, {y}),
            GRAPH_OK)
      << graphGetLastError();
  finish();
  EXPECT_EQ(graphNumInputs(module), 3);
  EXPECT_EQ(graphNumOutputs(module), 1);
  GraphTensorInfo info;
  ASSERT_EQ(graphGetOutput(module, 0, &info), GRAPH_OK);
  EXPECT_EQ(info.uid, 4);
  EXPECT_STREQ(info.name, "y");
  ASSERT_EQ(graphGetInput(module, 2, &info), GRAPH_OK);
  EXPECT_STREQ(info.name, "bias");

  std::vector<float> av = iota(6, 0.5f, -1.5f), bv = iota(12, 0.25f, -1),
                     cv = iota(4, 1.0f, -2), yv(8, -7);
  ASSERT_EQ(run({buffer(1, av.data(), {1, 2, 3}),
                 buffer(2, bv.data(), {1, 3, 4}),
                 buffer(3, cv.data(), {1, 1, 4}),
                 buffer(4, yv.data(), {1, 2, 4})}),
            GRAPH_OK)
      << graphGetLastError();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      double acc = cv[j];
      for (int k = 0; k < 3; ++k)
        acc += double(av[i * 3 + k]) * bv[k * 4 + j];
      EXPECT_NEAR(yv[i * 4 + j], std::max(acc, 0.0), 1e-5) << i << "," << j;
    }
}

TEST_F(BuilderTest, LayernormInferenceAndTraining) {
  const int64_t N = 2, C = 8;
  int64_t x = tensor({N, C, 1, 1}, "x", 1), g = tensor({1, C, 1, 1}, "g", 2),
          bb = tensor({1, C, 1, 1}, "b", 3);
  int64_t eps = graphBuilderScalar(builder, GRAPH_F32, 1e-5, "eps");
  ASSERT_GT(eps, 0);
  int64_t dims4[4] = {1, 1, 1, 1};
  ASSERT_EQ(graphTensorSetDims(builder, eps, 4, dims4), GRAPH_OK);
  int64_t yInf = output({N, C, 1, 1}, 4);
  int64_t yTrain = output({N, C, 1, 1}, 5), mean = output({N, 1, 1, 1}, 6),
          invVar = output({N, 1, 1, 1}, 7);
  ASSERT_EQ(op("layernorm", "inference", {"input", "scale", "bias", "epsilon"},
               {x, g, bb, eps}, {"Y"}, {yInf}),
            GRAPH_OK)
      << graphGetLastError();
  ASSERT_EQ(op("layernorm", "training", {"input", "scale", "bias", "epsilon"},
               {x, g, bb, eps}, {"Y", "mean", "inv_var"},
               {yTrain, mean, invVar}),
            GRAPH_OK)
      << graphGetLastError();
  finish();
  EXPECT_EQ(graphNumOutputs(module), 4);

  std::vector<float> xv = iota(N * C, 0.3f, -1), gv = iota(C, 0.1f, 0.5f),
                     bv = iota(C, 0.2f, -0.3f), y1(N * C), y2(N * C), m(N),
                     iv(N);
  ASSERT_EQ(run({buffer(1, xv.data(), {N, C, 1, 1}),
                 buffer(2, gv.data(), {1, C, 1, 1}),
                 buffer(3, bv.data(), {1, C, 1, 1}),
                 buffer(4, y1.data(), {N, C, 1, 1}),
                 buffer(5, y2.data(), {N, C, 1, 1}),
                 buffer(6, m.data(), {N, 1, 1, 1}),
                 buffer(7, iv.data(), {N, 1, 1, 1})}),
            GRAPH_OK)
      << graphGetLastError();
  for (int n = 0; n < N; ++n) {
    double mu = 0, var = 0;
    for (int c = 0; c < C; ++c)
      mu += xv[n * C + c];
    mu /= C;
    for (int c = 0; c < C; ++c)
      var += (xv[n * C + c] - mu) * (xv[n * C + c] - mu);
    var /= C;
    double inv = 1 / std::sqrt(var + 1e-5);
    EXPECT_NEAR(m[n], mu, 1e-5);
    EXPECT_NEAR(iv[n], inv, 1e-3);
    for (int c = 0; c < C; ++c) {
      double want = (xv[n * C + c] - mu) * inv * gv[c] + bv[c];
      EXPECT_NEAR(y1[n * C + c], want, 1e-4);
      EXPECT_NEAR(y2[n * C + c], want, 1e-4);
    }
  }
}

TEST_F(BuilderTest, ConvFpropWithPadding) {
  int64_t x = tensor({1, 1, 3, 3}, "x", 1), w = tensor({1, 1, 3, 3}, "w", 2);
  int64_t y = output({1, 1, 3, 3}, 3);
  ASSERT_EQ(op("conv_fprop", nullptr, {"image", "weight"}, {x, w}, {"Y"}, {y},
               "{padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, "
               "dilation = array<i64: 1, 1>}",
               "conv"),
            GRAPH_OK)
      << graphGetLastError();
  EXPECT_CONTAINS(text(), "padding = array<i64: 1, 1>");
  finish();
  std::vector<float> xv = iota(9, 1, 0), wv = iota(9, 0.5f, -1), yv(9);
  ASSERT_EQ(run({buffer(1, xv.data(), {1, 1, 3, 3}),
                 buffer(2, wv.data(), {1, 1, 3, 3}),
                 buffer(3, yv.data(), {1, 1, 3, 3})}),
            GRAPH_OK)
      << graphGetLastError();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double acc = 0;
      for (int r = 0; r < 3; ++r)
        for (int s = 0; s < 3; ++s) {
          int ii = i + r - 1, jj = j + s - 1;
          if (ii >= 0 && ii < 3 && jj >= 0 && jj < 3)
            acc += double(xv[ii * 3 + jj]) * wv[r * 3 + s];
        }
      EXPECT_NEAR(yv[i * 3 + j], acc, 1e-4) << i << "," << j;
    }
}

TEST_F(BuilderTest, SdpaCausalWithStats) {
  // sdpa takes f16 / bf16 q, k, v; Stats is f32.
  const int64_t B = 1, H = 1, S = 4, D = 2;
  int64_t q = tensor({B, H, S, D}, "q", 1, GRAPH_F16),
          k = tensor({B, H, S, D}, "k", 2, GRAPH_F16),
          v = tensor({B, H, S, D}, "v", 3, GRAPH_F16);
  int64_t o = output({B, H, S, D}, 4, GRAPH_F16),
          stats = output({B, H, S, 1}, 5);
  ASSERT_EQ(op("sdpa", nullptr, {"q", "k", "v"}, {q, k, v}, {"O", "Stats"},
               {o, stats},
               "{use_causal_mask, generate_stats, attn_scale_value = 0.5 : "
               "f64}"),
            GRAPH_OK)
      << graphGetLastError();
  finish();
  // Values exact in f16 (multiples of 1/4 below 4).
  auto half = [](std::vector<float> v) {
    return std::vector<_Float16>(v.begin(), v.end());
  };
  std::vector<_Float16> qv = half(iota(S * D, 0.25f, -1)),
                        kv = half(iota(S * D, 0.25f, -0.5f)),
                        vv = half(iota(S * D, 0.5f, 0)), ov(S * D);
  std::vector<float> sv(S);
  ASSERT_EQ(run({buffer(1, qv.data(), {B, H, S, D}, GRAPH_F16),
                 buffer(2, kv.data(), {B, H, S, D}, GRAPH_F16),
                 buffer(3, vv.data(), {B, H, S, D}, GRAPH_F16),
                 buffer(4, ov.data(), {B, H, S, D}, GRAPH_F16),
                 buffer(5, sv.data(), {B, H, S, 1})}),
            GRAPH_OK)
      << graphGetLastError();
  for (int i = 0; i < S; ++i) {
    std::vector<double> s(i + 1);
    double mx = -1e30;
    for (int j = 0; j <= i; ++j) {
      double dot = 0;
      for (int d = 0; d < D; ++d)
        dot += double(qv[i * D + d]) * double(kv[j * D + d]);
      s[j] = 0.5 * dot;
      mx = std::max(mx, s[j]);
    }
    double sum = 0;
    for (int j = 0; j <= i; ++j)
      sum += std::exp(s[j] - mx);
    EXPECT_NEAR(sv[i], mx + std::log(sum), 1e-4) << i; // log-sum-exp
    for (int d = 0; d < D; ++d) {
      double acc = 0;
      for (int j = 0; j <= i; ++j)
        acc += std::exp(s[j] - mx) / sum * double(vv[j * D + d]);
      EXPECT_NEAR(double(ov[i * D + d]), acc, 5e-3) << i << "," << d;
    }
  }
}

TEST_F(BuilderTest, ReductionAndPrepareAssignsUids) {
  int64_t x = tensor({3, 5}, "x");
  int64_t r = output({3, 1}, -1); // no uid: prepare assigns one
  ASSERT_EQ(op("reduction", "max", {"input"}, {x}, {"output"}, {r}), GRAPH_OK)
      << graphGetLastError();
  finish();
  ASSERT_EQ(graphModulePrepare(module), GRAPH_OK) << graphGetLastError();
  GraphTensorInfo in, out;
  ASSERT_EQ(graphGetInput(module, 0, &in), GRAPH_OK);
  ASSERT_EQ(graphGetOutput(module, 0, &out), GRAPH_OK);
  ASSERT_GT(in.uid, 0);
  ASSERT_GT(out.uid, 0);
  std::vector<float> xv = iota(15, 1, -3), rv(3);
  ASSERT_EQ(run({buffer(in.uid, xv.data(), {3, 5}),
                 buffer(out.uid, rv.data(), {3, 1})}),
            GRAPH_OK)
      << graphGetLastError();
  for (int i = 0; i < 3; ++i) {
    float m = xv[i * 5];
    for (int j = 1; j < 5; ++j)
      m = std::max(m, xv[i * 5 + j]);
    EXPECT_EQ(rv[i], m);
  }
}

TEST_F(BuilderTest, StridesAppearInTheType) {
  int64_t dims[2] = {2, 3}, strides[2] = {1, 2};
  int64_t x = graphBuilderTensor(builder, GRAPH_F16, 2, dims, strides, "x");
  ASSERT_GT(x, 0);
  int64_t y = output({2, 3}, -1, GRAPH_F16);
  ASSERT_EQ(graphTensorSetStrides(builder, y, 2, strides), GRAPH_OK);
  ASSERT_EQ(op("pointwise", "identity", {"inputs_0"}, {x}, {"output"}, {y}),
            GRAPH_OK);
  EXPECT_CONTAINS(text(), "tensor<2x3xf16, #graph.strides<[1, 2]>>");
  EXPECT_CONTAINS(text(), "graph.name = \"x\"");
  finish();
}

TEST_F(BuilderTest, Errors) {
  int64_t a = tensor({2, 3}, "a"), b = tensor({3, 4}, "b"),
          c = tensor({2, 4}, "c");

  EXPECT_EQ(op("matmull", nullptr, {"A", "B"}, {a, b}, {"C"}, {c}),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(), "unknown op kind 'matmull'");
  EXPECT_CONTAINS(graphGetLastError(), "matmul");

  EXPECT_EQ(op("matmul", nullptr, {"A", "X"}, {a, b}, {"C"}, {c}),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(), "unknown operand port 'X'");
  EXPECT_CONTAINS(graphGetLastError(), "A, B");

  EXPECT_EQ(op("matmul", nullptr, {"A"}, {a}, {"C"}, {c}),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(), "missing required operand port 'B'");

  EXPECT_EQ(op("matmul", nullptr, {"A", "B"}, {a, b}, {}, {}),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(), "missing required result port 'C'");

  EXPECT_EQ(op("matmul", nullptr, {"A", "A", "B"}, {a, a, b}, {"C"}, {c}),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(), "port 'A' is given twice");

  EXPECT_EQ(op("matmul", nullptr, {"A", "B"}, {a, 99}, {"C"}, {c}),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(), "tensor 99 does not exist");

  EXPECT_EQ(op("pointwise", "add", {"inputs_0", "inputs_2"}, {a, a},
               {"output"}, {tensor({2, 3})}),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(), "'inputs_1' is missing");

  EXPECT_EQ(op("pointwise", nullptr, {"inputs_0"}, {a}, {"output"}, {c}),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(), "needs its mode");

  EXPECT_EQ(op("matmul", nullptr, {"A", "B"}, {a, b}, {"C"}, {c},
               "{paddin = 0.0 : f64}"),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(), "unknown attribute 'paddin'");
  EXPECT_CONTAINS(graphGetLastError(), "padding");

  EXPECT_EQ(op("matmul", nullptr, {"A", "B"}, {a, b}, {"C"}, {c},
               "{name = \"x\"}"),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(), "set by the builder");

  // A tensor read as a graph input, then produced: used before it exists.
  int64_t d = tensor({2, 4}, "d");
  ASSERT_EQ(op("pointwise", "relu", {"inputs_0"}, {c}, {"output"}, {d}),
            GRAPH_OK)
      << graphGetLastError();
  EXPECT_EQ(op("matmul", nullptr, {"A", "B"}, {a, b}, {"C"}, {c}),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(), "tensor 3 ('c') is used before it exists");
  // Produced twice.
  EXPECT_EQ(op("pointwise", "relu", {"inputs_0"}, {a}, {"output"}, {d}),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(), "already the result of op #0");

  // Uid collisions name both tensors.
  ASSERT_EQ(graphTensorSetUid(builder, a, 7), GRAPH_OK);
  EXPECT_EQ(graphTensorSetUid(builder, b, 7), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(),
                  "uid 7 is already assigned to tensor 1 ('a'); cannot assign "
                  "it to tensor 2 ('b') too");
  EXPECT_EQ(graphTensorSetUid(builder, a, 7), GRAPH_OK); // same tensor: fine
  // 0 is a uid like any other (the frontend accepts it); negatives are not.
  ASSERT_EQ(graphTensorSetUid(builder, c, 0), GRAPH_OK) << graphGetLastError();
  EXPECT_EQ(graphTensorSetUid(builder, d, 0), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(), "uid 0 is already assigned to tensor 3");
  EXPECT_EQ(graphTensorSetUid(builder, d, -2), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(),
                  "uid -2 of tensor 5 ('d') is negative (uids must be >= 0)");

  // Handles and arguments.
  EXPECT_EQ(graphTensorSetName(builder, 0, "x"), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(), "tensor 0 does not exist");
  EXPECT_EQ(graphTensorSetOutput(nullptr, a, 1), GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(), "builder is NULL");
  int64_t dims[2] = {2, 3};
  EXPECT_EQ(graphBuilderTensor(builder, GRAPH_F32, -1, dims, nullptr, nullptr),
            -1);
  EXPECT_EQ(graphBuilderTensor(builder, static_cast<GraphDType>(99), 2, dims,
                               nullptr, nullptr),
            -1);
  EXPECT_CONTAINS(graphGetLastError(), "unknown dtype 99");
  EXPECT_EQ(graphBuilderScalar(builder, GRAPH_I32, 1.5, "s") > 0, true);
  EXPECT_EQ(graphBuilderFinish(builder), nullptr); // non-integral i32 scalar
  EXPECT_CONTAINS(graphGetLastError(), "non-integral value");
  EXPECT_EQ(graphBuilderCreate(nullptr, "g", GRAPH_F32, GRAPH_F32, GRAPH_F32),
            nullptr);
}

TEST_F(BuilderTest, VerifierFailureSurfaces) {
  int64_t a = tensor({2, 3}, "a"), b = tensor({5, 4}, "b"); // K: 3 vs 5
  int64_t c = output({2, 4}, -1);
  ASSERT_EQ(op("matmul", nullptr, {"A", "B"}, {a, b}, {"C"}, {c}, nullptr,
               "mm"),
            GRAPH_OK);
  EXPECT_EQ(graphBuilderFinish(builder), nullptr);
  EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_INVALID_GRAPH);
  EXPECT_CONTAINS(graphGetLastError(), "<builder @g>");
  EXPECT_CONTAINS(graphGetLastError(), "error:");
  EXPECT_CONTAINS(graphGetLastError(), "graph.matmul");
}

/// The dims graphTensorGetDims reads (asserting it succeeds).
std::vector<int64_t> dimsOf(GraphBuilder builder, int64_t tensor) {
  int32_t rank = 0;
  GraphStatus query = graphTensorGetDims(builder, tensor, &rank, nullptr);
  EXPECT_EQ(query, rank ? GRAPH_ERROR_INVALID_ARGUMENT : GRAPH_OK);
  std::vector<int64_t> dims(rank);
  EXPECT_EQ(graphTensorGetDims(builder, tensor, &rank, dims.data()), GRAPH_OK)
      << graphGetLastError();
  return dims;
}

TEST_F(BuilderTest, ShapeRuleFillsResultDims) {
  using Dims = std::vector<int64_t>;
  // matmul C: [batch..., M, N], the batch dims broadcast.
  int64_t a = tensor({1, 2, 3}, "a"), b = tensor({5, 3, 4}, "b");
  int64_t c = tensor({}, "c");
  ASSERT_EQ(op("matmul", nullptr, {"A", "B"}, {a, b}, {"C"}, {c}), GRAPH_OK)
      << graphGetLastError();
  EXPECT_EQ(dimsOf(builder, c), (Dims{5, 2, 4}));
  // Dims the caller gave are kept as given (the verifier judges them).
  int64_t given = tensor({7, 7});
  ASSERT_EQ(op("pointwise", "relu", {"inputs_0"}, {c}, {"output"}, {given}),
            GRAPH_OK);
  EXPECT_EQ(dimsOf(builder, given), (Dims{7, 7}));
  // pointwise: the broadcast of the operands.
  int64_t bias = tensor({1, 1, 4}, "bias"), sum = tensor({});
  ASSERT_EQ(op("pointwise", "add", {"inputs_0", "inputs_1"}, {c, bias},
               {"output"}, {sum}),
            GRAPH_OK);
  EXPECT_EQ(dimsOf(builder, sum), (Dims{5, 2, 4}));
  // layernorm training: Y like input, the statistics with the normalized
  // dims (where scale is not 1) set to 1.
  int64_t scale = tensor({1, 1, 4}), shift = tensor({1, 1, 4});
  int64_t eps = graphBuilderScalar(builder, GRAPH_F32, 1e-5, "eps");
  int64_t y = tensor({}), mean = tensor({}), invVar = tensor({});
  ASSERT_EQ(op("layernorm", "training", {"input", "scale", "bias", "epsilon"},
               {sum, scale, shift, eps}, {"Y", "mean", "inv_var"},
               {y, mean, invVar}),
            GRAPH_OK)
      << graphGetLastError();
  EXPECT_EQ(dimsOf(builder, y), (Dims{5, 2, 4}));
  EXPECT_EQ(dimsOf(builder, mean), (Dims{5, 2, 1}));
  EXPECT_EQ(dimsOf(builder, invVar), (Dims{5, 2, 1}));
  // A convolution's output from its padding, stride and dilation.
  int64_t image = tensor({2, 4, 9, 9}), weight = tensor({8, 4, 3, 3});
  int64_t conv = tensor({});
  ASSERT_EQ(op("conv_fprop", nullptr, {"image", "weight"}, {image, weight},
               {"Y"}, {conv},
               "{padding = array<i64: 1, 1>, stride = array<i64: 2, 2>}"),
            GRAPH_OK)
      << graphGetLastError();
  EXPECT_EQ(dimsOf(builder, conv), (Dims{2, 8, 5, 5}));
  // Reduced dims are the user's: they stay unset.
  int64_t reduced = tensor({});
  ASSERT_EQ(op("reduction", "add", {"input"}, {sum}, {"output"}, {reduced}),
            GRAPH_OK);
  EXPECT_EQ(dimsOf(builder, reduced), Dims{});
  // Strides are read back as given; dims filled in come without strides.
  int64_t strides[3] = {0, 0, 0};
  int32_t rank = 3;
  ASSERT_EQ(graphTensorGetStrides(builder, sum, &rank, strides), GRAPH_OK);
  EXPECT_EQ(rank, 0);
  // The capacity protocol: too small says how many.
  rank = 1;
  EXPECT_EQ(graphTensorGetDims(builder, c, &rank, strides),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(rank, 3);
  EXPECT_CONTAINS(graphGetLastError(), "graphTensorGetDims");
  EXPECT_EQ(graphTensorGetDims(builder, 99, &rank, strides),
            GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(graphGetLastError(), "tensor 99 does not exist");
  EXPECT_EQ(graphTensorGetDims(builder, c, nullptr, strides),
            GRAPH_ERROR_INVALID_ARGUMENT);
}

TEST_F(BuilderTest, ShapeRuleFailureRefusesTheOp) {
  int64_t a = tensor({2, 3}, "a"), b = tensor({5, 4}, "b"); // K: 3 vs 5
  int64_t c = tensor({});
  EXPECT_EQ(
      op("matmul", nullptr, {"A", "B"}, {a, b}, {"C"}, {c}, nullptr, "mm"),
      GRAPH_ERROR_INVALID_GRAPH);
  EXPECT_CONTAINS(graphGetLastError(), "graphBuilderOp: op 'matmul' ('mm')");
  EXPECT_CONTAINS(graphGetLastError(), "matmul \"mm\": K of A is 3 but K "
                                       "of B is 5");
  EXPECT_EQ(dimsOf(builder, c), std::vector<int64_t>{});
  EXPECT_EQ(text().find("graph.matmul"), std::string::npos) << text();
  // With C's dims given, the op is recorded and the verifier judges it at
  // finish, as before.
  int64_t d = tensor({2, 4});
  EXPECT_EQ(op("matmul", nullptr, {"A", "B"}, {a, b}, {"C"}, {d}), GRAPH_OK);
  // An operand without dims yet: nothing to infer from.
  int64_t x = tensor({}), e = tensor({});
  EXPECT_EQ(op("pointwise", "relu", {"inputs_0"}, {x}, {"output"}, {e}),
            GRAPH_OK);
  EXPECT_EQ(dimsOf(builder, e), std::vector<int64_t>{});
}

// graphTensorSetByValue marks a one-element input graph.by_value (its
// value read from the buffer at each execute); the CPU reference reads the
// same buffer, and marking a tensor an op produces is refused.
TEST_F(BuilderTest, ByValueInputs) {
  int64_t x = tensor({2, 3}, "x", 1), s = tensor({1, 1}, "s", 2);
  int64_t y = output({2, 3}, 3);
  ASSERT_EQ(graphTensorSetByValue(builder, s, 1), GRAPH_OK);
  ASSERT_EQ(
      op("pointwise", "mul", {"inputs_0", "inputs_1"}, {x, s}, {"output"}, {y}),
      GRAPH_OK)
      << graphGetLastError();
  EXPECT_CONTAINS(text(),
                  "{graph.name = \"s\", graph.uid = 2 : i64, graph.by_value}");
  EXPECT_EQ(text().find("graph.by_value", text().find("graph.by_value") + 1),
            std::string::npos)
      << "only input s is by value";
  finish();
  std::vector<float> xv = iota(6, 1.0f, 0), sv = {2.5f}, yv(6, -7);
  ASSERT_EQ(run({buffer(1, xv.data(), {2, 3}), buffer(2, sv.data(), {1, 1}),
                 buffer(3, yv.data(), {2, 3})}),
            GRAPH_OK)
      << graphGetLastError();
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(yv[i], xv[i] * 2.5f);
}

TEST_F(BuilderTest, ByValueOnAProducedTensorIsRefused) {
  int64_t x = tensor({1, 1}, "x", 1), y = output({1, 1}, 2);
  ASSERT_EQ(graphTensorSetName(builder, y, "y"), GRAPH_OK);
  ASSERT_EQ(graphTensorSetByValue(builder, y, 1), GRAPH_OK);
  ASSERT_EQ(op("pointwise", "relu", {"inputs_0"}, {x}, {"output"}, {y}),
            GRAPH_OK);
  EXPECT_EQ(graphBuilderFinish(builder), nullptr);
  EXPECT_CONTAINS(graphGetLastError(),
                  "tensor 2 ('y'): setByValue marks a graph input, but op 0 "
                  "produces it");
}

} // namespace

TEST_F(BuilderTest, ScalarsComeBeforeTheirFirstReader) {
  int64_t a = tensor({2, 2}, "a", 1), b = tensor({2, 2}, "b", 2);
  int64_t sum = tensor({2, 2});
  int64_t s = graphBuilderScalar(builder, GRAPH_F32, 2.0, "two");
  int64_t unused = graphBuilderScalar(builder, GRAPH_F32, 3.0, "three");
  ASSERT_GT(s, 0);
  ASSERT_GT(unused, 0);
  int64_t y = output({2, 2}, 3);
  ASSERT_EQ(op("pointwise", "add", {"inputs_0", "inputs_1"}, {a, b}, {"output"},
               {sum}),
            GRAPH_OK)
      << graphGetLastError();
  ASSERT_EQ(op("pointwise", "mul", {"inputs_0", "inputs_1"}, {sum, s},
               {"output"}, {y}),
            GRAPH_OK)
      << graphGetLastError();
  std::string t = text();
  size_t three = t.find("\"three\""), add = t.find("pointwise_mode add");
  size_t two = t.find("\"two\""), mul = t.find("pointwise_mode mul");
  // Printed in the generic form: the mode is a property of the op.
  if (add == std::string::npos)
    add = t.find("\"add\""), mul = t.find("\"mul\"");
  ASSERT_NE(three, std::string::npos) << t;
  ASSERT_NE(two, std::string::npos) << t;
  EXPECT_LT(three, add) << t; // read by no op: first
  EXPECT_LT(add, two) << t;   // read by the second op: right before it
  EXPECT_LT(two, mul) << t;
  finish();
}

TEST_F(BuilderTest, NoIoDataType) {
  GraphBuilder noIo = graphBuilderCreate(
      context, "g2", static_cast<GraphDType>(-1), GRAPH_F32, GRAPH_F32);
  ASSERT_NE(noIo, nullptr) << graphGetLastError();
  char *t = graphBuilderPrint(noIo, nullptr);
  ASSERT_NE(t, nullptr) << graphGetLastError();
  std::string text = t;
  graphFree(t);
  EXPECT_EQ(text.find("io_data_type"), std::string::npos) << text;
  EXPECT_NE(text.find("intermediate_data_type = f32"), std::string::npos)
      << text;
  graphBuilderDestroy(noIo);
  EXPECT_EQ(graphBuilderCreate(context, "g3", static_cast<GraphDType>(-2),
                               GRAPH_F32, GRAPH_F32),
            nullptr);
  EXPECT_CONTAINS(graphGetLastError(), "unknown dtype -2");
}

TEST_F(BuilderTest, NonFiniteScalarsOfNarrowTypes) {
  double inf = std::numeric_limits<double>::infinity();
  double nan = std::numeric_limits<double>::quiet_NaN();
  int64_t h = graphBuilderScalar(builder, GRAPH_F16, -inf, "h");
  int64_t bf = graphBuilderScalar(builder, GRAPH_BF16, nan, "bf");
  int64_t e4 = graphBuilderScalar(builder, GRAPH_F8E4M3FN, nan, "e4");
  ASSERT_GT(h, 0);
  ASSERT_GT(bf, 0);
  ASSERT_GT(e4, 0);
  std::string t = text();
  EXPECT_NE(t.find("0xFC00 : f16"), std::string::npos) << t;
  EXPECT_NE(t.find("0x7FC0 : bf16"), std::string::npos) << t;
  EXPECT_NE(t.find("0x7F : f8E4M3FN"), std::string::npos) << t;

  // f8E4M3FN has no infinity.
  EXPECT_GT(graphBuilderScalar(builder, GRAPH_F8E4M3FN, inf, "bad"), 0);
  EXPECT_EQ(graphBuilderPrint(builder, nullptr), nullptr);
  EXPECT_CONTAINS(graphGetLastError(), "has no infinity");
}

TEST_F(BuilderTest, IntegerScalarsAreExact) {
  int64_t big = (int64_t(1) << 62) + 1;
  int64_t s = graphBuilderScalarInt(builder, GRAPH_I64, big, "big");
  ASSERT_GT(s, 0) << graphGetLastError();
  int64_t flag = graphBuilderScalarInt(builder, GRAPH_I1, 1, "flag");
  ASSERT_GT(flag, 0) << graphGetLastError();
  std::string t = text();
  EXPECT_NE(t.find("4611686018427387905 : i64"), std::string::npos) << t;
  EXPECT_NE(t.find("value = true"), std::string::npos) << t;
  EXPECT_EQ(graphBuilderScalarInt(builder, GRAPH_F32, 1, "f"), -1);
  EXPECT_CONTAINS(graphGetLastError(), "f32 is a float type");
}
