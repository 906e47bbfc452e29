//===- BadInputTest.cpp - Hostile text through the C API -------------------===//
//
// Issue 13: text nested too deep for the parser's stack is an error status,
// never a crash of the process that embeds the library (Python's from_mlir).
//
//===----------------------------------------------------------------------===//

#include "GraphDialect-c/Graph.h"

#include <gtest/gtest.h>

#include <string>

namespace {

std::string nestedAttribute(int depth) {
  return "graph.graph @g(%x: tensor<4xf32>) attributes {deep = " +
         std::string(depth, '[') + std::string(depth, ']') +
         "} {\n  graph.output\n}\n";
}

TEST(CAPIBadInput, DeepNestingIsAnError) {
  GraphContext context = graphContextCreate();
  std::string text = nestedAttribute(10000);
  EXPECT_EQ(graphModuleParseNamed(context, text.data(), text.size(), "deep.mlir"),
            nullptr);
  EXPECT_EQ(graphGetLastStatus(), GRAPH_ERROR_INVALID_GRAPH);
  std::string error = graphGetLastError();
  EXPECT_NE(error.find("deep.mlir"), std::string::npos) << error;
  EXPECT_NE(error.find("nesting deeper than 256 brackets at line 1"),
            std::string::npos)
      << error;
  graphContextDestroy(context);
}

TEST(CAPIBadInput, ShallowNestingParses) {
  GraphContext context = graphContextCreate();
  std::string text = nestedAttribute(100);
  GraphModule module =
      graphModuleParseNamed(context, text.data(), text.size(), "ok.mlir");
  EXPECT_NE(module, nullptr) << graphGetLastError();
  if (module)
    graphModuleDestroy(module);
  graphContextDestroy(context);
}

} // namespace
