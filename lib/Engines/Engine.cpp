//===- Engine.cpp - The engine interface's defaults and the registry ------===//

#include "GraphDialect/Engines/Engine.h"

#include "GraphDialect/GraphOps.h"

using namespace mlir;
using namespace mlir::graph;

Engine::~Engine() = default;

std::string Engine::declinesGroup(ArrayRef<Operation *> ops) const {
  for (Operation *op : ops)
    if (std::string why = declines(op); !why.empty())
      return describeNode(op) + ": " + why;
  return "";
}

std::vector<std::string> Engine::proposePlans(ArrayRef<Operation *> ops) const {
  if (!declinesGroup(ops).empty())
    return {};
  return planNames();
}

bool Engine::runsFusedInto(Operation *, Operation *) const { return false; }

bool mlir::graph::anyEngineRunsFusedInto(Operation *producer,
                                         Operation *consumer) {
  return llvm::any_of(getEngines(), [&](const Engine *engine) {
    return engine->runsFusedInto(producer, consumer);
  });
}

std::string mlir::graph::philoxStreamDeclined() {
  return "cuDNN's Philox stream is reproduced by cuDNN only (give the keep "
         "mask as an input instead)";
}

std::string mlir::graph::describeNode(Operation *op) {
  std::string text = op->getName().stripDialect().str();
  StringRef label = getNodeLabel(op);
  if (!label.empty())
    text += (" \"" + label + "\"").str();
  return text;
}

ArrayRef<const Engine *> mlir::graph::getEngines() {
  static const Engine *const engines[] = {
      &getCudnnEngine(), &getCodegenEngine(), &getReferenceEngine()};
  return engines;
}

const Engine *mlir::graph::lookupEngine(StringRef name) {
  for (const Engine *engine : getEngines())
    if (engine->name() == name)
      return engine;
  return nullptr;
}

ArrayRef<StringRef> mlir::graph::getDefaultEngineRanking() {
  static const StringRef ranking[] = {"cudnn", "codegen"};
  return ranking;
}

static std::string unknownEngine(StringRef name) {
  return ("unknown engine '" + name + "'").str();
}

std::string mlir::graph::engineDeclines(StringRef name, Operation *op) {
  const Engine *engine = lookupEngine(name);
  return engine ? engine->declines(op) : unknownEngine(name);
}

std::string mlir::graph::engineDeclinesGroup(StringRef name,
                                             ArrayRef<Operation *> ops) {
  const Engine *engine = lookupEngine(name);
  return engine ? engine->declinesGroup(ops) : unknownEngine(name);
}
