//===- ByValuePortsTest.cpp - The ports cuDNN reads by value --------------===//

#include "GraphDialect/Support/ByValuePorts.h"

#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <vector>

using namespace graph;

// The table generated from GraphOps.td's Graph_ByValue marks lists exactly
// the norms' epsilon and batchnorm's momentum, in mnemonic order.
TEST(ByValuePorts, ListsExactlyTheNormScalars) {
  std::vector<std::string> listed;
  for (const OpKindPort &entry : kByValuePorts)
    listed.push_back(std::string(opKindName(entry.kind)) + "." +
                     portName(entry.port));
  EXPECT_EQ(listed, (std::vector<std::string>{
                        "adalayernorm.epsilon", "batchnorm.epsilon",
                        "batchnorm.momentum", "instancenorm.epsilon",
                        "layernorm.epsilon", "rmsnorm.epsilon"}));
}

TEST(ByValuePorts, Lookup) {
  EXPECT_TRUE(isByValuePort(OpKind::Layernorm, Port::epsilon));
  EXPECT_TRUE(isByValuePort(OpKind::Batchnorm, Port::momentum));
  // Only the marked operands: not another port of a norm, not a port of
  // that name on another op, not the backward norms (no epsilon operand).
  EXPECT_FALSE(isByValuePort(OpKind::Layernorm, Port::scale));
  EXPECT_FALSE(isByValuePort(OpKind::Layernorm, Port::momentum));
  EXPECT_FALSE(isByValuePort(OpKind::LayernormBackward, Port::epsilon));
  EXPECT_FALSE(isByValuePort(OpKind::BatchnormInference, Port::epsilon));
  static_assert(isByValuePort(OpKind::Rmsnorm, Port::epsilon));
  static_assert(std::size(kByValuePorts) == 6);
}
