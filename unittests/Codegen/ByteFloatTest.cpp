//===- ByteFloatTest.cpp - fp8/fp4 codecs against the CPU reference -------===//
//
// The generated kernels' software codecs, built on constants in a func and
// constant-folded: every byte decodes to the reference's value, and a set
// of f32 values (zeros, subnormals, ties, the largest finite, overflow, inf,
// NaN) encodes to the reference's byte, for e4m3fn, e5m2, e8m0fnu and e2m1.
//
//===----------------------------------------------------------------------===//

#include "ByteFloat.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

using namespace mlir;
namespace ref = ::graph::ref;
using ref::DType;

namespace {

struct Codec : ::testing::Test {
  Codec() {
    ctx.loadDialect<arith::ArithDialect, func::FuncDialect,
                    math::MathDialect>();
  }

  /// Builds `body` on a constant in a func returning one value, folds it and
  /// returns the constant attribute (null when it did not fold).
  Attribute fold(Type argType, Attribute arg, Type resultType,
                 function_ref<Value(OpBuilder &, Location, Value)> body) {
    OpBuilder b(&ctx);
    Location loc = b.getUnknownLoc();
    module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    auto fn =
        func::FuncOp::create(b, loc, "f", b.getFunctionType({}, {resultType}));
    b.setInsertionPointToEnd(fn.addEntryBlock());
    Value c = arith::ConstantOp::create(b, loc, argType, cast<TypedAttr>(arg));
    func::ReturnOp::create(b, loc, body(b, loc, c));
    if (failed(verify(*module)))
      return nullptr;
    PassManager pm(&ctx);
    pm.addPass(createCanonicalizerPass());
    if (failed(pm.run(*module)))
      return nullptr;
    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    auto cst = ret.getOperand(0).getDefiningOp<arith::ConstantOp>();
    return cst ? cst.getValue() : nullptr;
  }

  std::optional<float> decode(uint8_t byte, DType t) {
    Attribute a = fold(
        IntegerType::get(&ctx, 8),
        IntegerAttr::get(IntegerType::get(&ctx, 8), static_cast<int8_t>(byte)),
        Float32Type::get(&ctx), [&](OpBuilder &b, Location loc, Value v) {
          return mlir::graph::decodeByteFloat(b, loc, v, t);
        });
    if (!a)
      return std::nullopt;
    return cast<FloatAttr>(a).getValue().convertToFloat();
  }

  std::optional<uint8_t> encode(float value, DType t) {
    Attribute a = fold(
        Float32Type::get(&ctx), FloatAttr::get(Float32Type::get(&ctx), value),
        IntegerType::get(&ctx, 8), [&](OpBuilder &b, Location loc, Value v) {
          return mlir::graph::encodeByteFloat(b, loc, v, t);
        });
    if (!a)
      return std::nullopt;
    return static_cast<uint8_t>(cast<IntegerAttr>(a).getInt() & 0xFF);
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

const DType kTypes[] = {DType::F8E4M3FN, DType::F8E5M2, DType::F8E8M0FNU,
                        DType::F4E2M1FN};

TEST_F(Codec, EveryByteDecodesAsTheReference) {
  for (DType t : kTypes) {
    int limit = t == DType::F4E2M1FN ? 16 : 256;
    for (int byte = 0; byte < limit; ++byte) {
      uint8_t element = static_cast<uint8_t>(byte);
      double want = ref::decode(t, &element);
      std::optional<float> got = decode(element, t);
      ASSERT_TRUE(got) << ref::dtypeName(t) << " byte " << byte
                       << " did not fold";
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(*got)) << ref::dtypeName(t) << " byte " << byte;
      else
        EXPECT_EQ(static_cast<double>(*got), want)
            << ref::dtypeName(t) << " byte " << byte;
    }
  }
}

TEST_F(Codec, ValuesEncodeAsTheReference) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> values = {0.0f,
                               -0.0f,
                               1.0f,
                               -1.0f,
                               0.5f,
                               1.5f,
                               1.0625f,
                               1.125f,
                               1.1875f,
                               3.0f,
                               0.1f,
                               -0.3f,
                               7.0f,
                               100.0f,
                               240.0f,
                               448.0f,
                               449.0f,
                               464.0f,
                               480.0f,
                               1000.0f,
                               57344.0f,
                               61440.0f,
                               65536.0f,
                               1e30f,
                               inf,
                               -inf,
                               std::numeric_limits<float>::quiet_NaN(),
                               std::ldexp(1.0f, -9),
                               std::ldexp(1.0f, -10),
                               std::ldexp(3.0f, -11),
                               std::ldexp(1.0f, -16),
                               std::ldexp(1.5f, -17),
                               0.25f,
                               0.75f,
                               5.0f,
                               6.0f,
                               7.5f,
                               -6.5f,
                               std::ldexp(1.0f, -126),
                               std::ldexp(1.0f, -127),
                               std::ldexp(1.5f, -127),
                               std::ldexp(1.75f, -127),
                               std::ldexp(1.0f, 127),
                               std::ldexp(1.5f, 126),
                               std::ldexp(1.5f, 127),
                               std::ldexp(1.5f, 3),
                               std::ldexp(1.5f, 4)};
  for (float v = -20.0f; v <= 20.0f; v += 0.37f)
    values.push_back(v);
  for (DType t : kTypes)
    for (float v : values) {
      uint8_t want = 0;
      ref::encode(t, static_cast<double>(v), &want);
      std::optional<uint8_t> got = encode(v, t);
      ASSERT_TRUE(got) << ref::dtypeName(t) << " " << v << " did not fold";
      EXPECT_EQ(*got, want) << ref::dtypeName(t) << " of " << v;
    }
}

} // namespace
