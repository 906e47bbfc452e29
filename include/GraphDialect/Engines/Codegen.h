//===- Codegen.h - The generated-kernel engine's support list ---*- C++ -*-===//
//
// The codegen engine's per-op support list, in the terms both the IR and a
// group description (rt::OpSpec) carry, so that graph-select-engines (on
// ops) and the kernel generator (on group descriptions) ask the same rule:
// lib/Engines/Codegen/CodegenEngine.cpp is the one place it lives. What
// the generator decides beyond it (stage planning: views of by-value
// scalars, missing ports, norm axes) is the engine's group-level decline
// at generation time (codegenV2Declines in GraphToCodegen.h).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_ENGINES_CODEGEN_H
#define GRAPHDIALECT_ENGINES_CODEGEN_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir::graph {

/// One op as the codegen engine's per-op rule sees it.
struct CodegenOpInfo {
  /// The op's name without the dialect ("pointwise", "rmsnorm_backward"),
  /// as group descriptions name it.
  StringRef kind;
  /// The pointwise mode's name (kind "pointwise"); ignored otherwise.
  StringRef mode;
  /// Whether the op has a group_offset operand (ragged reduction/quantize).
  bool ragged = false;
  /// Ranks of the reduction's input and output; -1 when not known yet.
  int64_t inputRank = -1;
  int64_t outputRank = -1;
};

/// Why the generated kernels have no kernel for `op`, or "" when they have
/// one (element types are checked separately, per tensor).
std::string codegenDeclinesOp(const CodegenOpInfo &op);

} // namespace mlir::graph

#endif // GRAPHDIALECT_ENGINES_CODEGEN_H
