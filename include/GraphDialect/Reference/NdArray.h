//===- NdArray.h - Dense double arrays of the reference executor -*- C++
//-*-===//
//
// The CPU reference executor computes every op on dense, row-major arrays of
// double. Element types and strides only matter at the boundaries: loading a
// user buffer (any dtype, any strides) and storing a result (rounded to the
// tensor's dtype). Nothing here depends on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_REFERENCE_NDARRAY_H
#define GRAPHDIALECT_REFERENCE_NDARRAY_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace graph::ref {

/// Element types the reference reads and writes bit-exactly.
enum class DType {
  F32,
  F16,
  BF16,
  F64,
  I8,
  U8,
  I32,
  I64,
  I1, // stored as one byte, 0 or 1
  F8E4M3FN,
  F8E5M2,
  F8E8M0FNU,
  F4E2M1FN, // stored one value per byte (low nibble), like cuDNN's unpacked
            // view
};

/// Size in bytes of one stored element.
size_t byteWidth(DType type);
/// Short name as MLIR spells the element type ("f16", "bf16", "f8E4M3FN"...).
const char *dtypeName(DType type);
/// Parses the MLIR spelling; returns false when unknown.
bool parseDType(const std::string &name, DType &out);
bool isFloat(DType type);

/// Converts one stored element to double and back. `encode` rounds to
/// nearest-even and saturates or produces inf/nan exactly as the format does.
double decode(DType type, const void *element);
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

using Shape = std::vector<int64_t>;

/// The element count (0 when a dim is not positive) and row-major strides of
/// `shape`, by GraphDialect/Support/CheckedMath.h: a count or stride past
/// 2^63 - 1 saturates there instead of wrapping. checkLayout rejects such
/// shapes; check a user-given shape with it before allocating.
int64_t numElements(const Shape &shape);
Shape rowMajorStrides(const Shape &shape);

/// A dense row-major array of doubles.
struct NdArray {
  Shape shape;
  std::vector<double> data;

  NdArray() = default;
  explicit NdArray(Shape s, double fill = 0.0)
      : shape(std::move(s)), data(numElements(shape), fill) {}
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t size() const { return static_cast<int64_t>(data.size()); }
};

/// Checks that `strides` (empty = row-major) fit `shape`: same rank, no
/// negative dim or stride, an element count and span below 2^63. Returns
/// false and fills `error` otherwise. load and store do not check; call this
/// first on user-given layouts.
bool checkLayout(const Shape &shape, const Shape &strides,
                 std::string *error = nullptr);
/// Elements a strided buffer must hold: 1 + max offset (0 when empty),
/// saturating at 2^63 - 1.
int64_t spanElements(const Shape &shape, const Shape &strides);
/// The strides through which a (shape, strides) tensor reads as `newShape`
/// without a copy, or false when its layout does not allow it (numpy's
/// reshape rule: dims merged or split must be contiguous among themselves).
/// Unit dims get stride 1.
bool reshapeViewStrides(const Shape &shape, const Shape &strides,
                        const Shape &newShape, Shape &newStrides);

/// Reads a strided buffer of `type` (strides in elements, any non-negative
/// value, size-1 dims arbitrary; empty = row-major) into an NdArray.
NdArray load(const void *bytes, DType type, const Shape &shape,
             const Shape &strides);
/// Writes `array` into a strided buffer of `type`, rounding each element.
void store(const NdArray &array, DType type, const Shape &strides, void *bytes);
/// Rounds every element in place (what a virtual tensor of `type` holds).
void roundInPlace(NdArray &array, DType type);

} // namespace graph::ref

#endif // GRAPHDIALECT_REFERENCE_NDARRAY_H
