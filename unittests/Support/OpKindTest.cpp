//===- OpKindTest.cpp - OpKind names, parsing and SpecOpKind --------------===//

#include "GraphDialect/Support/OpKind.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace graph;

TEST(OpKind, NamesRoundTrip) {
  for (size_t i = 0; i < kNumOpKinds; ++i) {
    OpKind kind = static_cast<OpKind>(i);
    std::optional<OpKind> parsed = parseOpKind(opKindName(kind));
    ASSERT_TRUE(parsed) << opKindName(kind);
    EXPECT_EQ(*parsed, kind);
  }
  EXPECT_STREQ(opKindName(OpKind::ConvFprop), "conv_fprop");
  EXPECT_STREQ(opKindName(OpKind::SdpaFp8Backward), "sdpa_fp8_backward");
  EXPECT_EQ(parseOpKind("matmul"), OpKind::Matmul);
  EXPECT_FALSE(parseOpKind("relu"));
  EXPECT_FALSE(parseOpKind(""));
  EXPECT_FALSE(parseOpKind("matmul "));
}

TEST(OpKind, SpecOpKindParsesOnceAndKeepsUnknownText) {
  SpecOpKind kind;
  EXPECT_FALSE(kind.get());
  EXPECT_STREQ(kind.name(), "");
  kind = "rmsnorm_backward";
  EXPECT_EQ(kind, OpKind::RmsnormBackward);
  EXPECT_NE(kind, OpKind::Rmsnorm);
  EXPECT_TRUE(kind.isOneOf({OpKind::Rmsnorm, OpKind::RmsnormBackward}));
  EXPECT_EQ(std::string(kind), "rmsnorm_backward");
  EXPECT_EQ("op " + kind + "!", "op rmsnorm_backward!");
  kind = "frobnicate";
  EXPECT_FALSE(kind.get());
  EXPECT_FALSE(kind.isOneOf({OpKind::Matmul}));
  EXPECT_EQ(kind, "frobnicate");
  std::ostringstream os;
  os << kind;
  EXPECT_EQ(os.str(), "frobnicate");
  kind = OpKind::Pointwise;
  EXPECT_EQ(kind, "pointwise");
}
