//===- Engine.h - One interface for every engine ----------------*- C++ -*-===//
//
// An engine runs fused groups: cuDNN (backend operation graphs), codegen
// (kernels we generate) and the CPU reference (the oracle). Each is one
// implementation of `Engine`, in its own folder under lib/Engines/, and is
// the one place that decides what it accepts:
//
//   declines(op)         the static per-op rule ("" = accepts, else why not);
//   declinesGroup(ops)   the group-level rule (default: every op accepted);
//   planNames()          every plan it may propose, in rank order;
//   proposePlans(ops)    the plans it proposes for one group;
//   runsFusedInto(p, c)  whether it runs producer p only (or better) in
//                        the group of c, its reader (graph-fuse asks).
//
// The registry looks engines up by name and holds the default ranking that
// graph-select-engines uses (cudnn, codegen). Modelled on mlir-tensorrt's
// CompilerBackendAttrInterface, as a plain C++ registry: this library
// depends on the graph dialect only (no Conversion, no Runtime), so every
// layer above it can ask.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_ENGINES_ENGINE_H
#define GRAPHDIALECT_ENGINES_ENGINE_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mlir::graph {

class Engine {
public:
  virtual ~Engine();

  /// The engine's name: in `graph.engines` lists, in
  /// `--graph-select-engines=engines=...` and in plan reports.
  virtual StringRef name() const = 0;

  /// The static per-op rule: "" when the engine can run `op`, else the rule
  /// that declines it (the caller names the op: `emitNodeError` or
  /// `describe`).
  virtual std::string declines(Operation *op) const = 0;

  /// The group-level rule for `ops` (one fused group, in program order): ""
  /// when the engine takes them as one unit, else why not. The default
  /// accepts a group whose every op it accepts, and otherwise names the
  /// first op it declines and the rule (`<kind> "<label>": <reason>`).
  virtual std::string declinesGroup(ArrayRef<Operation *> ops) const;

  /// Every plan the engine may propose, in rank order.
  virtual std::vector<std::string> planNames() const = 0;

  /// The plans the engine proposes for group `ops`: planNames() when
  /// declinesGroup(ops) is "", none otherwise. Plans that need more than
  /// the IR (cuDNN's heuristics, the kernel generator's stage planning)
  /// are narrowed further where that information exists.
  virtual std::vector<std::string>
  proposePlans(ArrayRef<Operation *> ops) const;

  /// Whether the engine runs `producer`, whose result `consumer` reads, in
  /// `consumer`'s group rather than alone (cuDNN: the Philox rng of an
  /// sdpa's dropout mask, a mixed-precision matmul's operand casts).
  /// graph-fuse then moves a producer that is alone in its group into the
  /// group `consumer` opens. The default: never.
  virtual bool runsFusedInto(Operation *producer, Operation *consumer) const;

protected:
  Engine() = default;
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;
};

/// `op` as errors name it: `<kind>` or `<kind> "<label>"`.
std::string describeNode(Operation *op);

/// Every registered engine, in registration order: cudnn, codegen,
/// reference.
ArrayRef<const Engine *> getEngines();

/// The engine named `name`, or null.
const Engine *lookupEngine(StringRef name);

/// Whether some engine runs `producer` in the group of `consumer`, its
/// reader (Engine::runsFusedInto): graph-fuse's question.
bool anyEngineRunsFusedInto(Operation *producer, Operation *consumer);

/// Why an engine that cannot reproduce cuDNN's Philox stream declines
/// graph.rng (codegen and the reference).
std::string philoxStreamDeclined();

/// The engines graph-select-engines ranks when it is given none: cudnn,
/// then codegen. The reference engine is the CPU oracle, not ranked.
ArrayRef<StringRef> getDefaultEngineRanking();

/// Why engine `name` declines `op` (its static per-op rule), "" when it
/// accepts it, or "unknown engine '<name>'".
std::string engineDeclines(StringRef name, Operation *op);

/// Why engine `name` declines group `ops` (its group-level rule), "" when
/// it accepts it, or "unknown engine '<name>'".
std::string engineDeclinesGroup(StringRef name, ArrayRef<Operation *> ops);

/// The built-in engines (lib/Engines/<name>/).
const Engine &getCudnnEngine();
const Engine &getCodegenEngine();
const Engine &getReferenceEngine();

} // namespace mlir::graph

#endif // GRAPHDIALECT_ENGINES_ENGINE_H
