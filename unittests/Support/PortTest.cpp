//===- PortTest.cpp - Port names, parsing, order and SpecPort -------------===//

#include "GraphDialect/Support/Port.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace graph;

TEST(Port, NamesRoundTripInNameOrder) {
  for (size_t i = 0; i < kNumPorts; ++i) {
    Port port = static_cast<Port>(i);
    std::optional<Port> parsed = parsePort(portName(port));
    ASSERT_TRUE(parsed) << portName(port);
    EXPECT_EQ(*parsed, port);
    if (i > 0)
      EXPECT_LT(std::string(portName(static_cast<Port>(i - 1))),
                std::string(portName(port)));
  }
  // Ports differing only in case are distinct ports.
  EXPECT_STREQ(portName(Port::DBias), "DBias");
  EXPECT_STREQ(portName(Port::dBias), "dBias");
  EXPECT_NE(Port::Stats, Port::stats);
  EXPECT_EQ(parsePort("inv_variance"), Port::inv_variance);
  EXPECT_EQ(parsePort("in2"), Port::in2);
  EXPECT_FALSE(parsePort("inputs_0"));
  EXPECT_FALSE(parsePort(""));
  EXPECT_FALSE(parsePort("A "));
}

TEST(Port, SpecPortKeepsUnknownTextAndOrdersByName) {
  SpecPort known = "scale";
  EXPECT_EQ(known.get(), Port::scale);
  EXPECT_EQ(known, Port::scale);
  EXPECT_EQ(known, "scale");
  EXPECT_NE(known, Port::bias);
  SpecPort text = variadicElement(Port::inputs, 1);
  EXPECT_FALSE(text.get());
  EXPECT_EQ(text, "inputs_1");
  EXPECT_EQ(std::string(text), "inputs_1");
  EXPECT_EQ(pointwiseInput(0), Port::in0);
  EXPECT_EQ(pointwiseInput(3), "in3");
  std::ostringstream os;
  os << known << ',' << text << ',' << Port::Y;
  EXPECT_EQ(os.str(), "scale,inputs_1,Y");
  EXPECT_EQ("no " + known + " input", "no scale input");

  // A map keyed by SpecPort iterates as one keyed by the names did.
  std::vector<std::string> names = {"inputs_10", "Y",        "inputs_2",
                                    "bias",      "in0",      "DBias",
                                    "dBias",     "inputs_0", "input"};
  std::map<SpecPort, int> typed;
  std::map<std::string, int> byName;
  for (size_t i = 0; i < names.size(); ++i) {
    typed[names[i]] = static_cast<int>(i);
    byName[names[i]] = static_cast<int>(i);
  }
  std::vector<std::string> typedOrder, nameOrder;
  for (auto &[port, i] : typed)
    typedOrder.push_back(port.name());
  for (auto &[name, i] : byName)
    nameOrder.push_back(name);
  EXPECT_EQ(typedOrder, nameOrder);
  EXPECT_EQ(typed.count(Port::input), 1u);
  EXPECT_EQ(typed.count("inputs_2"), 1u);
  EXPECT_EQ(typed.count(Port::output), 0u);
}
