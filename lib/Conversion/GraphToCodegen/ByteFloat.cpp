//===- ByteFloat.cpp - fp8/fp4 codecs as scalar MLIR ----------------------===//

#include "ByteFloat.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::graph;
using ::graph::ref::DType;

namespace {

struct CodecBuilder : F32Bits {
  Value f32(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value mulf(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value divf(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value decode(Value byte, DType t);
  Value encode(Value value, DType t);
};

} // namespace

Value F32Bits::i32c(int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}
Value F32Bits::bitsOf(Value f) {
  return arith::BitcastOp::create(b, loc, b.getI32Type(), f);
}
Value F32Bits::floatOf(Value bits) {
  return arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
}
Value F32Bits::pow2(Value e) {
  return floatOf(arith::ShLIOp::create(
      b, loc, arith::AddIOp::create(b, loc, e, i32c(127)), i32c(23)));
}

namespace {
/// The one-byte float formats, as the CPU reference defines them.
struct ByteFormat {
  int expBits, mantBits, bias;
  bool ieeeSpecials; // all-ones exponent: inf/NaN (e5m2)
  bool allOnesNaN;   // only S.1111.111 is NaN (e4m3fn)
  bool saturates;    // no inf, no NaN: overflow and NaN saturate (e2m1)
  double maxFinite;
};
constexpr ByteFormat kE4M3{4, 3, 7, false, true, false, 448.0};
constexpr ByteFormat kE5M2{5, 2, 15, true, false, false, 57344.0};
constexpr ByteFormat kE2M1{2, 1, 1, false, false, true, 6.0};
const ByteFormat &byteFormat(DType t) {
  return t == DType::F8E4M3FN ? kE4M3 : t == DType::F8E5M2 ? kE5M2 : kE2M1;
}
} // namespace

Value CodecBuilder::decode(Value byte, DType t) {
  Value u = arith::ExtUIOp::create(b, loc, b.getI32Type(), byte);
  auto cmpEq = [&](Value x, int64_t c) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, i32c(c));
  };
  auto sel = [&](Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y).getResult();
  };
  Value nan = f32(std::numeric_limits<double>::quiet_NaN());
  if (t == DType::F8E8M0FNU) {
    // 2^(u - 127): u << 23 for u >= 1; 2^-127 is an f32 subnormal.
    Value normal = floatOf(arith::ShLIOp::create(b, loc, u, i32c(23)));
    Value v = sel(cmpEq(u, 0), floatOf(i32c(0x00400000)), normal);
    return sel(cmpEq(u, 255), nan, v);
  }
  const ByteFormat &f = byteFormat(t);
  int width = 1 + f.expBits + f.mantBits;
  int64_t expMask = (1 << f.expBits) - 1, mantMask = (1 << f.mantBits) - 1;
  Value sign = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, u, i32c(width - 1)), i32c(1));
  Value e = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, u, i32c(f.mantBits)),
      i32c(expMask));
  Value m = arith::AndIOp::create(b, loc, u, i32c(mantMask));
  // Normal: f32 fields; subnormal: m * 2^(1 - bias - mantBits).
  Value normalBits = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(
          b, loc, arith::AddIOp::create(b, loc, e, i32c(127 - f.bias)),
          i32c(23)),
      arith::ShLIOp::create(b, loc, m, i32c(23 - f.mantBits)));
  Value sub = mulf(arith::UIToFPOp::create(b, loc, b.getF32Type(), m),
                   f32(std::ldexp(1.0, 1 - f.bias - f.mantBits)));
  Value v = sel(cmpEq(e, 0), sub, floatOf(normalBits));
  if (f.ieeeSpecials) {
    Value special =
        sel(cmpEq(m, 0), f32(std::numeric_limits<double>::infinity()), nan);
    v = sel(cmpEq(e, expMask), special, v);
  }
  if (f.allOnesNaN)
    v = sel(
        arith::AndIOp::create(b, loc, cmpEq(e, expMask), cmpEq(m, mantMask)),
        nan, v);
  return sel(cmpEq(sign, 1), arith::NegFOp::create(b, loc, v), v);
}

Value CodecBuilder::encode(Value value, DType t) {
  auto sel = [&](Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y).getResult();
  };
  auto cmpF = [&](arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y).getResult();
  };
  auto cmpI = [&](arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y).getResult();
  };
  auto trunc8 = [&](Value x) {
    return arith::TruncIOp::create(b, loc, b.getI8Type(), x).getResult();
  };
  Value isNan = cmpF(arith::CmpFPredicate::UNO, value, value);
  Value bits = bitsOf(value);
  Value magBits = arith::AndIOp::create(b, loc, bits, i32c(0x7FFFFFFF));
  Value expField = arith::ShRUIOp::create(b, loc, magBits, i32c(23));
  if (t == DType::F8E8M0FNU) {
    // RNE on the exponent, ties to the even field; no zero: below 2^-127
    // -> 0x00; negative, inf, NaN, overflow -> 0xFF.
    Value mant = arith::AndIOp::create(b, loc, bits, i32c(0x7FFFFF));
    Value field = expField; // exponent + 127 for normal f32
    Value up = arith::OrIOp::create(
        b, loc, cmpI(arith::CmpIPredicate::ugt, mant, i32c(0x400000)),
        arith::AndIOp::create(
            b, loc, cmpI(arith::CmpIPredicate::eq, mant, i32c(0x400000)),
            cmpI(arith::CmpIPredicate::eq,
                 arith::AndIOp::create(b, loc, field, i32c(1)), i32c(1))));
    Value rounded = arith::AddIOp::create(
        b, loc, field, arith::ExtUIOp::create(b, loc, b.getI32Type(), up));
    // f32 subnormals: [2^-127, 2^-126) rounds to 0x00 or 0x01.
    Value subnormal = sel(cmpI(arith::CmpIPredicate::ugt, mant, i32c(0x600000)),
                          i32c(1), i32c(0));
    Value code =
        sel(cmpI(arith::CmpIPredicate::eq, field, i32c(0)), subnormal, rounded);
    Value bad = arith::OrIOp::create(
        b, loc, isNan,
        arith::OrIOp::create(b, loc,
                             cmpF(arith::CmpFPredicate::OLT, value, f32(0.0)),
                             cmpI(arith::CmpIPredicate::uge, code, i32c(255))));
    code = sel(bad, i32c(255), code);
    code = sel(cmpF(arith::CmpFPredicate::OEQ, value, f32(0.0)), i32c(0), code);
    return trunc8(code);
  }
  const ByteFormat &f = byteFormat(t);
  int width = 1 + f.expBits + f.mantBits;
  int emin = 1 - f.bias;
  Value sign = arith::ShLIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, i32c(31)), i32c(width - 1));
  Value mag = floatOf(magBits);
  // Round |x| onto the grid: quantum 2^(max(exp, emin) - mantBits).
  Value exponent = arith::SubIOp::create(b, loc, expField, i32c(127));
  Value clamped = arith::MaxSIOp::create(b, loc, exponent, i32c(emin));
  Value quantumExp = arith::SubIOp::create(b, loc, clamped, i32c(f.mantBits));
  Value quantum = pow2(quantumExp);
  Value rounded =
      mulf(math::RoundEvenOp::create(b, loc, divf(mag, quantum)), quantum);
  // Grid bits of a finite rounded magnitude.
  Value rBits = bitsOf(rounded);
  Value rExp = arith::SubIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, rBits, i32c(23)), i32c(127));
  Value normalCode = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(b, loc,
                            arith::AddIOp::create(b, loc, rExp, i32c(f.bias)),
                            i32c(f.mantBits)),
      arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, rBits, i32c(23 - f.mantBits)),
          i32c((1 << f.mantBits) - 1)));
  Value subCode = arith::FPToUIOp::create(
      b, loc, b.getI32Type(),
      divf(rounded, f32(std::ldexp(1.0, emin - f.mantBits))));
  Value code = sel(cmpI(arith::CmpIPredicate::slt, rExp, i32c(emin)), subCode,
                   normalCode);
  code = sel(cmpF(arith::CmpFPredicate::OEQ, rounded, f32(0.0)), i32c(0), code);
  // Overflow (inf included) and NaN by the format's rules.
  int64_t maxCode = 0;
  {
    // Bits of maxFinite: top usable exponent, largest usable mantissa.
    int topExp = (1 << f.expBits) - 1 - (f.ieeeSpecials ? 1 : 0);
    int mant = (1 << f.mantBits) - 1 - (f.allOnesNaN ? 1 : 0);
    maxCode = (topExp << f.mantBits) | mant;
  }
  int64_t expAll = ((1 << f.expBits) - 1) << f.mantBits;
  int64_t nanCode = f.ieeeSpecials ? expAll | (1 << (f.mantBits - 1))
                                   : expAll | ((1 << f.mantBits) - 1);
  Value over = cmpF(arith::CmpFPredicate::OGT, rounded, f32(f.maxFinite));
  Value overCode = f.saturates      ? i32c(maxCode)
                   : f.ieeeSpecials ? i32c(expAll) // inf
                                    : i32c(nanCode);
  code = sel(over, overCode, code);
  code = arith::OrIOp::create(b, loc, code, sign);
  // NaN: the format's NaN keeps the sign; e2m1 has none and gives +6.
  Value nanValue =
      f.saturates
          ? i32c(maxCode)
          : arith::OrIOp::create(b, loc, i32c(nanCode), sign).getResult();
  code = sel(isNan, nanValue, code);
  return trunc8(code);
}

Value mlir::graph::decodeByteFloat(OpBuilder &b, Location loc, Value byte,
                                   DType t) {
  return CodecBuilder{{b, loc}}.decode(byte, t);
}

Value mlir::graph::encodeByteFloat(OpBuilder &b, Location loc, Value value,
                                   DType t) {
  return CodecBuilder{{b, loc}}.encode(value, t);
}
