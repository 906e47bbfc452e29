//===- DType.cpp - Element type table and codecs ----------------*- C++ -*-===//
//
// Every float format is decoded exactly to double and encoded from double
// with one rounding (round to nearest, ties to even), never through float.
//
// Overflow on encode follows ml_dtypes (and PyTorch's c10 casts):
//   f16, bf16, f8E5M2  beyond max finite -> +-inf (IEEE)
//   f8E4M3FN           no inf: anything that rounds above 448 -> NaN
//                      (0x7F / 0xFF), inf -> NaN
//   f4E2M1FN           no inf, no NaN: saturates to +-6; NaN -> +6, the
//                      value PTX's cvt.satfinite gives a format without NaN
//   f8E8M0FNU          unsigned power of two 2^(e-127), e in [0, 254],
//                      0xFF = NaN; rounding is RNE on the exponent (a tie
//                      between 2^k and 2^(k+1) goes to the even biased
//                      exponent, as ml_dtypes' bit rounding does); zero and
//                      anything below 2^-127 -> 0x00 (there is no zero);
//                      negative, inf, NaN and overflow above 2^127 -> 0xFF.
// The *Saturating variants clamp finite overflow and inf to +-max finite
// (NaN stays NaN), the `satfinite` behaviour of the GPU converts.
// Integers round to nearest even and saturate; NaN -> 0. i1 is value != 0.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Support/DType.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

namespace graph {

namespace {

/// A small binary float format with an implicit leading bit.
struct MiniFloat {
  int expBits;
  int mantBits;
  int bias;
  /// The all-ones exponent is reserved for inf/NaN (IEEE style).
  bool ieeeSpecials;
  /// Only S.1111.111 is NaN (f8E4M3FN).
  bool allOnesNaN;
  enum class Overflow { ToInf, ToNaN, Saturate } overflow;

  int minExponent() const { return 1 - bias; }
  int maxFieldExponent() const {
    int top = (1 << expBits) - 1;
    return ieeeSpecials ? top - 1 : top;
  }
  double maxFinite() const {
    int e = maxFieldExponent() - bias;
    // e4m3fn: the all-ones mantissa at the top exponent is NaN.
    double mantissaMax = allOnesNaN ? (2.0 - 2.0 * std::ldexp(1.0, -mantBits))
                                    : (2.0 - std::ldexp(1.0, -mantBits));
    return std::ldexp(mantissaMax, e);
  }
  int width() const { return 1 + expBits + mantBits; }
};

constexpr MiniFloat kF16{5, 10, 15, true, false, MiniFloat::Overflow::ToInf};
constexpr MiniFloat kBF16{8, 7, 127, true, false, MiniFloat::Overflow::ToInf};
constexpr MiniFloat kE5M2{5, 2, 15, true, false, MiniFloat::Overflow::ToInf};
constexpr MiniFloat kE4M3{4, 3, 7, false, true, MiniFloat::Overflow::ToNaN};
constexpr MiniFloat kE2M1{2, 1, 1, false, false, MiniFloat::Overflow::Saturate};

const MiniFloat *miniFormat(DType type) {
  switch (type) {
  case DType::F16:
    return &kF16;
  case DType::BF16:
    return &kBF16;
  case DType::F8E5M2:
    return &kE5M2;
  case DType::F8E4M3FN:
    return &kE4M3;
  case DType::F4E2M1FN:
    return &kE2M1;
  default:
    return nullptr;
  }
}

double decodeMini(const MiniFloat &f, uint32_t bits) {
  uint32_t mantMask = (1u << f.mantBits) - 1;
  uint32_t expMask = (1u << f.expBits) - 1;
  bool negative = (bits >> (f.expBits + f.mantBits)) & 1;
  uint32_t exp = (bits >> f.mantBits) & expMask;
  uint32_t mant = bits & mantMask;
  double value;
  if (f.ieeeSpecials && exp == expMask) {
    value = mant ? std::numeric_limits<double>::quiet_NaN()
                 : std::numeric_limits<double>::infinity();
  } else if (f.allOnesNaN && exp == expMask && mant == mantMask) {
    value = std::numeric_limits<double>::quiet_NaN();
  } else if (exp == 0) {
    value = std::ldexp(static_cast<double>(mant), f.minExponent() - f.mantBits);
  } else {
    value = std::ldexp(static_cast<double>(mant | (1u << f.mantBits)),
                       static_cast<int>(exp) - f.bias - f.mantBits);
  }
  return negative ? -value : value;
}

uint32_t nanBits(const MiniFloat &f, bool negative) {
  uint32_t sign = negative ? 1u << (f.expBits + f.mantBits) : 0;
  uint32_t expMask = (1u << f.expBits) - 1;
  uint32_t mantMask = (1u << f.mantBits) - 1;
  if (f.ieeeSpecials) // quiet NaN: top mantissa bit
    return sign | (expMask << f.mantBits) | (1u << (f.mantBits - 1));
  return sign | (expMask << f.mantBits) | mantMask;
}

/// Rounds |value| onto the format's grid (RNE) without range checks.
double roundMagnitude(const MiniFloat &f, double magnitude) {
  if (magnitude == 0.0)
    return 0.0;
  int e;
  std::frexp(magnitude, &e); // magnitude = m * 2^e, m in [0.5, 1)
  int exponent = e - 1;
  if (exponent < f.minExponent())
    exponent = f.minExponent();
  // Scaling by a power of two is exact, so nearbyint does the one rounding.
  int quantumExp = exponent - f.mantBits;
  return std::ldexp(std::nearbyint(std::ldexp(magnitude, -quantumExp)),
                    quantumExp);
}

/// Bits of a value already on the grid and within range.
uint32_t gridBits(const MiniFloat &f, double magnitude, bool negative) {
  uint32_t sign = negative ? 1u << (f.expBits + f.mantBits) : 0;
  if (magnitude == 0.0)
    return sign;
  int e;
  std::frexp(magnitude, &e);
  int exponent = e - 1;
  if (exponent < f.minExponent()) { // subnormal
    auto mant = static_cast<uint32_t>(
        std::ldexp(magnitude, f.mantBits - f.minExponent()));
    return sign | mant;
  }
  auto mant =
      static_cast<uint32_t>(std::ldexp(magnitude, f.mantBits - exponent) -
                            std::ldexp(1.0, f.mantBits));
  return sign | (static_cast<uint32_t>(exponent + f.bias) << f.mantBits) | mant;
}

/// The format's bits of a finite `value` whose magnitude rounds (to nearest,
/// ties to even) to a normal number of the format, from the double's own
/// bits; false for zero, subnormals, NaN, inf and overflow, which
/// encodeMini's general path handles.
bool encodeNormal(const MiniFloat &f, double value, uint32_t &bits) {
  uint64_t raw;
  std::memcpy(&raw, &value, sizeof(raw));
  int exponent = static_cast<int>((raw >> 52) & 0x7FF) - 1023;
  if (exponent < f.minExponent() || exponent > f.maxFieldExponent() - f.bias)
    return false; // (the double's own zero and subnormals land here too)
  int drop = 52 - f.mantBits;
  uint64_t fraction = raw & ((uint64_t(1) << 52) - 1);
  uint64_t mant = fraction >> drop;
  uint64_t rest = fraction & ((uint64_t(1) << drop) - 1);
  uint64_t half = uint64_t(1) << (drop - 1);
  if (rest > half || (rest == half && (mant & 1)))
    ++mant;
  int field = exponent + f.bias;
  if (mant >> f.mantBits) { // rounded up into the next binade
    mant = 0;
    ++field;
  }
  uint32_t result = (static_cast<uint32_t>(field) << f.mantBits) |
                    static_cast<uint32_t>(mant);
  // Above max finite (or e4m3fn's NaN pattern): the general path decides.
  uint32_t top = static_cast<uint32_t>(f.maxFieldExponent()) << f.mantBits |
                 ((1u << f.mantBits) - 1);
  if (field > f.maxFieldExponent() || (f.allOnesNaN && result == top))
    return false;
  bits = (raw >> 63 ? 1u << (f.expBits + f.mantBits) : 0) | result;
  return true;
}

uint32_t encodeMini(const MiniFloat &f, double value, bool saturate) {
  if (uint32_t bits; encodeNormal(f, value, bits))
    return bits;
  bool negative = std::signbit(value);
  if (std::isnan(value)) {
    if (f.overflow == MiniFloat::Overflow::Saturate) // no NaN in the format
      return gridBits(f, f.maxFinite(), false);
    return nanBits(f, negative);
  }
  double magnitude = std::fabs(value);
  double rounded =
      std::isinf(magnitude) ? magnitude : roundMagnitude(f, magnitude);
  if (rounded > f.maxFinite()) {
    if (saturate || f.overflow == MiniFloat::Overflow::Saturate)
      return gridBits(f, f.maxFinite(), negative);
    if (f.overflow == MiniFloat::Overflow::ToNaN)
      return nanBits(f, negative);
    uint32_t sign = negative ? 1u << (f.expBits + f.mantBits) : 0;
    return sign | (((1u << f.expBits) - 1) << f.mantBits); // inf
  }
  return gridBits(f, rounded, negative);
}

uint8_t encodeE8M0(double value, bool saturate) {
  if (std::isnan(value))
    return 0xFF;
  if (value < 0.0)
    return 0xFF; // unsigned format: no negative values
  if (std::isinf(value))
    return saturate ? 0xFE : 0xFF;
  if (value == 0.0)
    return 0x00;
  int e;
  double m = std::frexp(value, &e); // value = m * 2^e, m in [0.5, 1)
  int exponent = e - 1;             // value = (2m) * 2^exponent, 2m in [1,2)
  double mant = 2.0 * m;
  if (mant > 1.5 || (mant == 1.5 && ((exponent + 127) & 1)))
    ++exponent; // round up; on a tie only when that makes the field even
  if (exponent < -127)
    return 0x00;
  if (exponent > 127)
    return saturate ? 0xFE : 0xFF;
  return static_cast<uint8_t>(exponent + 127);
}

template <typename Int> Int roundToInt(double value) {
  if (std::isnan(value))
    return 0;
  double r = std::nearbyint(value);
  if (r <= static_cast<double>(std::numeric_limits<Int>::min()))
    return std::numeric_limits<Int>::min();
  // 2^63 is exact in double; anything at or above it saturates.
  if (r >= std::ldexp(1.0, std::numeric_limits<Int>::digits))
    return std::numeric_limits<Int>::max();
  return static_cast<Int>(r);
}

template <typename T> T loadAs(const void *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T> void storeAs(void *p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

void encodeImpl(DType type, double value, void *element, bool saturate) {
  if (const MiniFloat *f = miniFormat(type)) {
    uint32_t bits = encodeMini(*f, value, saturate);
    if (f->width() > 8)
      storeAs<uint16_t>(element, static_cast<uint16_t>(bits));
    else
      storeAs<uint8_t>(element, static_cast<uint8_t>(bits));
    return;
  }
  switch (type) {
  case DType::F32: {
    float v = static_cast<float>(value);
    if (saturate && std::isinf(v) && !std::isnan(value))
      v = std::copysign(std::numeric_limits<float>::max(), v);
    storeAs<float>(element, v);
    return;
  }
  case DType::F64:
    storeAs<double>(element, value);
    return;
  case DType::I8:
    storeAs<int8_t>(element, roundToInt<int8_t>(value));
    return;
  case DType::U8:
    storeAs<uint8_t>(element, roundToInt<uint8_t>(value));
    return;
  case DType::I32:
    storeAs<int32_t>(element, roundToInt<int32_t>(value));
    return;
  case DType::I64:
    storeAs<int64_t>(element, roundToInt<int64_t>(value));
    return;
  case DType::I1:
    storeAs<uint8_t>(element, value != 0.0 ? 1 : 0);
    return;
  case DType::F8E8M0FNU:
    storeAs<uint8_t>(element, encodeE8M0(value, saturate));
    return;
  default:
    return;
  }
}

} // namespace

namespace {

/// Indexed by the DType value.
constexpr DTypeInfo kDTypes[kNumDTypes] = {
    {DType::F32, "f32", 4, true, "<f4"},
    {DType::F16, "f16", 2, true, "<f2"},
    {DType::BF16, "bf16", 2, true, "<u2"},
    {DType::F64, "f64", 8, true, "<f8"},
    {DType::I8, "i8", 1, false, "|i1"},
    {DType::U8, "ui8", 1, false, "|u1"},
    {DType::I32, "i32", 4, false, "<i4"},
    {DType::I64, "i64", 8, false, "<i8"},
    {DType::I1, "i1", 1, false, "|b1"},
    {DType::F8E4M3FN, "f8E4M3FN", 1, true, "|u1"},
    {DType::F8E5M2, "f8E5M2", 1, true, "|u1"},
    {DType::F8E8M0FNU, "f8E8M0FNU", 1, true, "|u1"},
    {DType::F4E2M1FN, "f4E2M1FN", 1, true, "|u1"},
};

constexpr bool tableInOrder() {
  for (int i = 0; i < kNumDTypes; ++i)
    if (static_cast<int>(kDTypes[i].type) != i)
      return false;
  return true;
}
static_assert(tableInOrder(), "kDTypes must be indexed by the DType value");

} // namespace

const DTypeInfo &dtypeInfo(DType type) {
  return kDTypes[static_cast<int>(type)];
}

bool dtypeFromInt(int value, DType &out) {
  if (value < 0 || value >= kNumDTypes)
    return false;
  out = static_cast<DType>(value);
  return true;
}

bool parseDType(const std::string &name, DType &out) {
  for (const DTypeInfo &info : kDTypes) {
    if (name == info.name) {
      out = info.type;
      return true;
    }
  }
  if (name == "u8") { // numpy-ish alias of MLIR's ui8
    out = DType::U8;
    return true;
  }
  return false;
}

double dtypeMaxFinite(DType type) {
  if (const MiniFloat *f = miniFormat(type))
    return f->maxFinite();
  switch (type) {
  case DType::F32:
    return std::numeric_limits<float>::max();
  case DType::F64:
    return std::numeric_limits<double>::max();
  case DType::I8:
    return 127;
  case DType::U8:
    return 255;
  case DType::I32:
    return std::numeric_limits<int32_t>::max();
  case DType::I64:
    return static_cast<double>(std::numeric_limits<int64_t>::max());
  case DType::I1:
    return 1;
  case DType::F8E8M0FNU:
    return std::ldexp(1.0, 127);
  default:
    return 0;
  }
}

namespace {
/// The bit-level decode; decode() looks one- and two-byte types up in a
/// table made from this.
double decodeBits(DType type, const void *element) {
  if (const MiniFloat *f = miniFormat(type)) {
    uint32_t bits =
        f->width() > 8 ? loadAs<uint16_t>(element) : loadAs<uint8_t>(element);
    if (f->width() < 8)
      bits &= (1u << f->width()) - 1; // packed formats: low bits only
    return decodeMini(*f, bits);
  }
  switch (type) {
  case DType::F32:
    return loadAs<float>(element);
  case DType::F64:
    return loadAs<double>(element);
  case DType::I8:
    return loadAs<int8_t>(element);
  case DType::U8:
    return loadAs<uint8_t>(element);
  case DType::I32:
    return loadAs<int32_t>(element);
  case DType::I64:
    return static_cast<double>(loadAs<int64_t>(element));
  case DType::I1:
    return loadAs<uint8_t>(element) != 0 ? 1.0 : 0.0;
  case DType::F8E8M0FNU: {
    uint8_t bits = loadAs<uint8_t>(element);
    if (bits == 0xFF)
      return std::numeric_limits<double>::quiet_NaN();
    return std::ldexp(1.0, static_cast<int>(bits) - 127);
  }
  default:
    return 0.0;
  }
}
} // namespace

const double *decodeTable(DType type) {
  size_t width = byteWidth(type);
  if (width > 2)
    return nullptr;
  // One table per type, made on first use (a static's initialization is
  // thread-safe) and never destroyed: a decode may run on a pool thread at
  // exit.
  static std::atomic<const double *> tables[kNumDTypes] = {};
  static std::once_flag made[kNumDTypes];
  int index = static_cast<int>(type);
  if (const double *table = tables[index].load(std::memory_order_acquire))
    return table;
  std::call_once(made[index], [&] {
    size_t size = size_t(1) << (8 * width);
    auto *table = new double[size];
    for (size_t bits = 0; bits < size; ++bits) {
      uint8_t bytes[2] = {static_cast<uint8_t>(bits),
                          static_cast<uint8_t>(bits >> 8)};
      table[bits] = decodeBits(type, bytes);
    }
    tables[index].store(table, std::memory_order_release);
  });
  return tables[index].load(std::memory_order_acquire);
}

double decode(DType type, const void *element) {
  size_t width = byteWidth(type);
  if (width > 2)
    return decodeBits(type, element);
  const auto *bytes = static_cast<const uint8_t *>(element);
  size_t bits = width == 2 ? bytes[0] | size_t(bytes[1]) << 8 : bytes[0];
  return decodeTable(type)[bits];
}

void encode(DType type, double value, void *element) {
  encodeImpl(type, value, element, /*saturate=*/false);
}

void encodeSaturating(DType type, double value, void *element) {
  encodeImpl(type, value, element, /*saturate=*/true);
}

double roundTo(DType type, double value) {
  if (type == DType::F64)
    return value;
  if (type == DType::F32)
    return static_cast<double>(static_cast<float>(value));
  unsigned char buffer[8] = {};
  encode(type, value, buffer);
  return decode(type, buffer);
}

double roundToSaturating(DType type, double value) {
  if (type == DType::F64)
    return value;
  unsigned char buffer[8] = {};
  encodeSaturating(type, value, buffer);
  return decode(type, buffer);
}

} // namespace graph
