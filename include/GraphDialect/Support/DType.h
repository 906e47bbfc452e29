//===- DType.h - Element types: names, sizes and codecs ---------*- C++ -*-===//
//
// The element types every layer below the dialect shares (the reference, the
// runtime, the engines, the C API): one table of names, byte widths and
// classes, and the bit-exact conversions of one stored element to and from
// double. Nothing here depends on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_SUPPORT_DTYPE_H
#define GRAPHDIALECT_SUPPORT_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace graph {

/// Element types stored bit-exactly. The values are the C API's GraphDType
/// values (GraphDialect-c/Graph.h), which lib/CAPI checks at compile time.
enum class DType : int {
  F32 = 0,
  F16 = 1,
  BF16 = 2,
  F64 = 3,
  I8 = 4,
  U8 = 5,
  I32 = 6,
  I64 = 7,
  I1 = 8, // stored as one byte, 0 or 1
  F8E4M3FN = 9,
  F8E5M2 = 10,
  F8E8M0FNU = 11,
  F4E2M1FN = 12, // stored one value per byte (low nibble), like cuDNN's
                 // unpacked view
};

/// How many DType values there are; they run from 0 to kNumDTypes - 1.
constexpr int kNumDTypes = 13;

/// The one table of element types.
struct DTypeInfo {
  DType type;
  /// The MLIR spelling ("f16", "bf16", "ui8", "f8E4M3FN"...).
  const char *name;
  /// Bytes of one stored element.
  size_t bytes;
  bool isFloat;
  /// The .npy descriptor (Support/Npy.h's raw-bits convention for the types
  /// numpy cannot name).
  const char *npyDescr;
};

/// The row of `type`; every DType has one.
const DTypeInfo &dtypeInfo(DType type);
/// The DType whose value is `value`, false when none is (a C caller's 99).
bool dtypeFromInt(int value, DType &out);

/// Size in bytes of one stored element.
inline size_t byteWidth(DType type) { return dtypeInfo(type).bytes; }
/// Short name as MLIR spells the element type ("f16", "bf16", "f8E4M3FN"...).
inline const char *dtypeName(DType type) { return dtypeInfo(type).name; }
inline bool isFloat(DType type) { return dtypeInfo(type).isFloat; }
/// Parses the MLIR spelling (and "u8" for ui8); returns false when unknown.
bool parseDType(const std::string &name, DType &out);

/// Converts one stored element to double and back. `encode` rounds to
/// nearest-even and saturates or produces inf/nan exactly as the format does.
double decode(DType type, const void *element);
/// decode() of every bit pattern of a one- or two-byte type, indexed by the
/// element's little-endian bits; null for wider types. Made once per type.
const double *decodeTable(DType type);
void encode(DType type, double value, void *element);
/// Rounds a double to the nearest value representable in `type`.
double roundTo(DType type, double value);

/// Like encode/roundTo, but finite overflow and +-inf clamp to +-max finite
/// (NaN stays NaN): the `satfinite` converts of the GPU. Integers and f4E2M1FN
/// saturate in both variants.
void encodeSaturating(DType type, double value, void *element);
double roundToSaturating(DType type, double value);
/// Largest finite value of `type` (448 for f8E4M3FN, 6 for f4E2M1FN...).
double dtypeMaxFinite(DType type);

} // namespace graph

#endif // GRAPHDIALECT_SUPPORT_DTYPE_H
