//===- ScalarOpsTest.cpp - emitPointwise against the CPU reference -------===//
//
// For every pointwise mode but gen_index: build emitPointwise on f32
// constants in a func, canonicalize (arith and math fold constants), and
// compare the folded value with graph::ref::pointwiseScalar on the same
// inputs, rounded to f32 as the kernels store it.
//
//===----------------------------------------------------------------------===//

#include "ScalarOps.h"

#include "GraphDialect/Reference/Kernels.h"
#include "GraphDialect/Runtime/CudnnGraph.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <set>

using namespace mlir;
namespace ref = ::graph::ref;
namespace rt = ::graph::rt;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// Modes built from arith alone: the folded value must equal the reference
/// bit for bit (after rounding to f32).
const std::set<std::string> kExact = {
    "add",    "add_square", "div",     "logical_and", "logical_or",
    "mul",    "sub",        "max",     "min",         "mod",
    "cmp_eq", "cmp_ge",     "cmp_gt",  "cmp_le",      "cmp_lt",
    "cmp_neq", "bias",      "scale",   "identity",    "logical_not",
    "neg",    "reciprocal", "relu",    "relu_backward", "binary_select",
    "abs",    "ceil",       "floor"};

/// Single math ops whose folders decline some constants: rsqrt has none,
/// log and sqrt none for -0 or out-of-domain inputs. Only these may stay
/// unfolded.
const std::set<std::string> kFolderGaps = {"log", "rsqrt", "sqrt"};

struct Fixture : ::testing::Test {
  Fixture() {
    ctx.loadDialect<arith::ArithDialect, func::FuncDialect,
                    math::MathDialect>();
  }

  /// The folded f32 result of `op` on `args`, or nullopt when the builder
  /// returned null, the func does not verify, or it did not fold.
  std::optional<float> fold(const rt::OpSpec &op, ArrayRef<float> args,
                            std::string &why) {
    OpBuilder b(&ctx);
    Location loc = b.getUnknownLoc();
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    auto fn = func::FuncOp::create(b, loc, "f",
                                   b.getFunctionType({}, {b.getF32Type()}));
    b.setInsertionPointToEnd(fn.addEntryBlock());
    SmallVector<Value> values;
    for (float v : args)
      values.push_back(
          arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v)));
    Value r = mlir::graph::emitPointwise(
        b, loc, op.mode,
        [&](const char *name, double fallback) {
          auto it = op.floatAttrs.find(name);
          return it == op.floatAttrs.end() ? fallback : it->second;
        },
        values);
    if (!r) {
      why = "emitPointwise returned null";
      return std::nullopt;
    }
    func::ReturnOp::create(b, loc, r);
    if (failed(verify(*module))) {
      why = "the func does not verify";
      return std::nullopt;
    }
    PassManager pm(&ctx);
    pm.addPass(createCanonicalizerPass());
    if (failed(pm.run(*module))) {
      why = "canonicalize failed";
      return std::nullopt;
    }
    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    auto cst = ret.getOperand(0).getDefiningOp<arith::ConstantOp>();
    if (!cst) {
      std::string s;
      llvm::raw_string_ostream os(s);
      fn.print(os);
      why = "did not fold:\n" + s;
      return std::nullopt;
    }
    return cast<FloatAttr>(cst.getValue()).getValue().convertToFloat();
  }

  MLIRContext ctx;
};

/// Sample operand tuples for a mode of `arity` operands: negative, zero,
/// large, NaN and the relu clip edges.
std::vector<std::vector<float>> samples(int arity) {
  const std::vector<float> vals = {-100.0f, -3.5f, -1.0f, -0.0f, 0.0f, 0.5f,
                                   1.0f,    2.5f,  6.0f,  40.0f, 1e20f, kNaN};
  std::vector<std::vector<float>> out;
  if (arity == 1) {
    for (float a : vals)
      out.push_back({a});
  } else if (arity == 2) {
    for (float a : vals)
      for (float c : vals)
        out.push_back({a, c});
  } else {
    for (float m : {0.0f, -0.0f, 1.0f, -2.0f, kNaN})
      out.push_back({-3.5f, 2.5f, m});
  }
  return out;
}

void checkAll(Fixture &fx, const ref::PointwiseParams &params,
              const std::map<std::string, double> &floatAttrs) {
  int checked = 0, unfolded = 0;
  for (int i = 0; i <= static_cast<int>(ref::PointwiseMode::binary_select);
       ++i) {
    auto mode = static_cast<ref::PointwiseMode>(i);
    std::string name = ref::pointwiseModeName(mode);
    if (name == "gen_index")
      continue;
    SCOPED_TRACE(name);
    ASSERT_TRUE(mlir::graph::codegenHasPointwise(name));
    ASSERT_EQ(mlir::graph::pointwiseArity(name),
              static_cast<unsigned>(ref::pointwiseArity(mode)));
    rt::OpSpec op;
    op.kind = "pointwise";
    op.mode = name;
    op.floatAttrs = floatAttrs;
    bool exact = kExact.count(name);
    for (const std::vector<float> &args : samples(ref::pointwiseArity(mode))) {
      double wide[3] = {0, 0, 0};
      for (size_t k = 0; k < args.size(); ++k)
        wide[k] = args[k];
      float want =
          static_cast<float>(ref::pointwiseScalar(mode, wide, params));
      std::string at = name + "(";
      for (float v : args)
        at += std::to_string(v) + ",";
      at += ")";
      std::string why;
      std::optional<float> got = fx.fold(op, args, why);
      // math folders decline some constants (NaN, out of domain).
      if (!got && (kFolderGaps.count(name) || std::isnan(want)) &&
          why.rfind("did not fold", 0) == 0) {
        ++unfolded;
        continue;
      }
      if (!got) {
        ADD_FAILURE() << at << ": " << why;
        continue;
      }
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(*got)) << at << " = " << *got;
      } else if (exact || std::isinf(want)) {
        EXPECT_EQ(*got, want) << at;
      } else {
        // f32 against double, plus for backward modes the reference's own
        // double rounding scaled by dy: its 1 - sigmoid(x) is 0 for x > 37,
        // where the kernels' e / (1 + e)^2 keeps the tail.
        double tol = 2e-5 * std::max(1.0f, std::fabs(want));
        if (name.find("_backward") != std::string::npos)
          tol += 4.4e-16 * std::fabs(args[0]);
        EXPECT_NEAR(*got, want, tol) << at;
      }
      ++checked;
    }
  }
  // Nearly every case folds: a folder gap must not hide a whole mode.
  EXPECT_GT(checked, 20 * unfolded);
  ::testing::Test::RecordProperty("checked", checked);
  ::testing::Test::RecordProperty("unfolded", unfolded);
}

TEST_F(Fixture, EveryModeMatchesTheReferenceWithDefaults) {
  checkAll(*this, {}, {});
}

TEST_F(Fixture, EveryModeMatchesTheReferenceWithAttributes) {
  ref::PointwiseParams p;
  p.negativeSlope = 0.25;
  p.lowerClip = -1.0;
  p.upperClip = 6.0;
  p.swishBeta = 1.5;
  p.eluAlpha = 0.75;
  p.softplusBeta = 2.0;
  checkAll(*this, p,
           {{"negative_slope", 0.25}, {"lower_clip", -1.0},
            {"upper_clip", 6.0}, {"swish_beta", 1.5}, {"elu_alpha", 0.75},
            {"softplus_beta", 2.0}});
}

TEST(ScalarOps, GenIndexIsLeftToTheKernelGenerator) {
  EXPECT_FALSE(mlir::graph::codegenHasPointwise("gen_index"));
  EXPECT_FALSE(mlir::graph::codegenHasPointwise("no_such_mode"));
}

} // namespace
