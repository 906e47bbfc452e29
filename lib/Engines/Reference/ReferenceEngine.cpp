//===- ReferenceEngine.cpp - The CPU reference as an engine ---------------===//
//
// The CPU reference executor (lib/Reference) runs every op of the dialect
// in float64-accumulating kernels: it accepts every op and group and is the
// oracle the GPU engines' results are checked against. Its one plan is the
// frontend-visible "reference_cpu".
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Engines/Engine.h"
#include "GraphDialect/GraphOps.h"

using namespace mlir;
using namespace mlir::graph;

namespace {

class ReferenceEngine final : public Engine {
public:
  StringRef name() const override { return "reference"; }

  std::string declines(Operation *op) const override {
    if (isa<RngOp>(op))
      return philoxStreamDeclined();
    return "";
  }

  std::vector<std::string> planNames() const override {
    return {"reference_cpu"};
  }
};

} // namespace

const Engine &mlir::graph::getReferenceEngine() {
  static const ReferenceEngine engine;
  return engine;
}
