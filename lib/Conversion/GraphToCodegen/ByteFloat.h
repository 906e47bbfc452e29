//===- ByteFloat.h - fp8/fp4 codecs as scalar MLIR ---------------*- C++
//-*-===//
//
// One-byte float tensors (e4m3fn, e5m2, e8m0fnu, and e2m1 one value per
// byte) are i8 in the generated kernels, decoded to f32 on load and encoded
// on store in software, bit for bit as the CPU reference's codecs do
// (lib/Reference/NdArray.cpp: RNE, e4m3 overflow -> NaN, e5m2 -> inf, e2m1
// saturates, e8m0 rounds the exponent to even).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_GRAPHTOCODEGEN_BYTEFLOAT_H
#define LIB_CONVERSION_GRAPHTOCODEGEN_BYTEFLOAT_H

#include "GraphDialect/Reference/NdArray.h"

#include "mlir/IR/Builders.h"

namespace mlir::graph {

inline bool isByteFloat(::graph::ref::DType t) {
  using ::graph::ref::DType;
  return t == DType::F8E4M3FN || t == DType::F8E5M2 || t == DType::F8E8M0FNU ||
         t == DType::F4E2M1FN;
}

/// Integer views of f32 values, shared by the codecs and the quantize
/// kernels' power-of-two scales.
struct F32Bits {
  OpBuilder &b;
  Location loc;
  Value i32c(int64_t v);
  Value bitsOf(Value f);
  Value floatOf(Value bits);
  /// 2^e for an i32 exponent e in the normal f32 range.
  Value pow2(Value e);
};

/// The f32 value of an i8 holding a `t` element.
Value decodeByteFloat(OpBuilder &b, Location loc, Value byte,
                      ::graph::ref::DType t);
/// The i8 `t` encoding of an f32 value (not saturating; clamp first for the
/// satfinite behaviour).
Value encodeByteFloat(OpBuilder &b, Location loc, Value value,
                      ::graph::ref::DType t);

} // namespace mlir::graph

#endif // LIB_CONVERSION_GRAPHTOCODEGEN_BYTEFLOAT_H
