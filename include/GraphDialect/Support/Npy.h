//===- Npy.h - Reading and writing numpy .npy files -------------*- C++ -*-===//
//
// The .npy codec of graph-run and the C API. Nothing here depends on MLIR.
//
// Formats: versions 1.0, 2.0 and 3.0 of the .npy header; little- or
// big-endian data (big-endian is byte-swapped on reading); C or Fortran order
// (Fortran data is transposed to C order on reading). Files are always
// written as version 1.0 (2.0 when the header needs it), little-endian, C
// order.
//
// Element types. numpy names f32 f16 f64 i8 u8 i32 i64 and i1 (bool)
// natively ('<f4' '<f2' '<f8' '|i1' '|u1' '<i4' '<i8' '|b1'). The types numpy
// cannot name use a raw-bits convention: the data is a same-width unsigned
// integer array whose bits are the encoding, and the element type comes from
// the graph, not from the file:
//
//   bf16                          '<u2'   the 16 bits of the bfloat16
//   f8E4M3FN, f8E5M2, f8E8M0FNU   '|u1'   the 8 bits of the fp8 value
//   f4E2M1FN                      '|u1'   one value per byte, in the low
//                                         nibble (the high nibble is zero)
//
// In numpy: `x.view(np.uint16)` of an ml_dtypes bfloat16 array, or
// `(f32.view(np.uint32) >> 16).astype(np.uint16)` for truncation.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_SUPPORT_NPY_H
#define GRAPHDIALECT_SUPPORT_NPY_H

#include "GraphDialect/Support/DType.h"
#include "GraphDialect/Support/Shape.h"

#include <cstdint>
#include <string>
#include <vector>

namespace graph {

/// The contents of a .npy file: data in C (row-major) order, little-endian.
struct NpyArray {
  /// The dtype descriptor normalized to little-endian, e.g. "<f4", "|u1".
  std::string descr;
  /// Bytes per element (from the descriptor).
  size_t itemSize = 0;
  Shape shape;
  /// Row-major, little-endian element bytes.
  std::vector<uint8_t> data;

  int64_t numElements() const { return graph::numElements(shape); }
};

/// The descriptor a .npy file of `type` carries ("<f4", "<u2" for bf16,
/// "|u1" for the fp8 types and fp4...).
const char *npyDescr(DType type);

/// Parses a whole .npy file held in memory. Returns "" or the reason.
std::string parseNpy(const uint8_t *bytes, size_t size, NpyArray &out);
/// Reads and parses the .npy file at `path`. Returns "" or the reason.
std::string readNpyFile(const std::string &path, NpyArray &out);

/// Checks that `array` can hold `type` (by the convention above: the
/// descriptor matches and fp4 bytes have a zero high nibble, bools are 0/1).
/// Returns "" or a message naming the expected and the given descriptor.
std::string checkNpyDType(const NpyArray &array, DType type);

/// Serializes `numElements(shape)` row-major elements of `type` at `data`
/// into a .npy file image.
std::vector<uint8_t> serializeNpy(DType type, const Shape &shape,
                                  const void *data);
/// Writes a .npy file. Returns "" or the reason.
std::string writeNpyFile(const std::string &path, DType type,
                         const Shape &shape, const void *data);

} // namespace graph

#endif // GRAPHDIALECT_SUPPORT_NPY_H
