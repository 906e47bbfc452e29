//===- LegalInputsTest.cpp - The values integer inputs must hold ----------===//

#include "GraphDialect/Support/LegalInputs.h"

#include <gtest/gtest.h>

#include <map>

using namespace graph;

namespace {

/// A use over tensors given by port: dims and strides (empty: row-major).
struct FakeOp {
  std::map<Port, Shape> dims, strides;
  std::optional<int64_t> maxSeq, topK;

  IntegerInputUse use(Port port) const {
    IntegerInputUse u;
    u.port = port;
    u.dims = [this](Port p) -> std::optional<Shape> {
      auto it = dims.find(p);
      return it == dims.end() ? std::nullopt : std::optional<Shape>(it->second);
    };
    u.strides = [this](Port p) -> std::optional<Shape> {
      auto it = dims.find(p);
      if (it == dims.end())
        return std::nullopt;
      auto s = strides.find(p);
      return s == strides.end() ? rowMajorStrides(it->second) : s->second;
    };
    u.pagedMaxSeqLenKv = maxSeq;
    u.topK = topK;
    return u;
  }
};

TEST(LegalInputsTest, SequenceLengthsAreFull) {
  FakeOp op{{{Port::q, {2, 4, 96, 64}}, {Port::k, {2, 4, 160, 64}}}};
  EXPECT_EQ(legalIntegerValues(op.use(Port::seq_len_q), 2),
            (std::vector<double>{96, 96}));
  EXPECT_EQ(legalIntegerValues(op.use(Port::seq_len_kv), 2),
            (std::vector<double>{160, 160}));
}

TEST(LegalInputsTest, PagedSequenceLengthIsTheMaximum) {
  FakeOp op{{{Port::q, {2, 4, 1, 64}}, {Port::k, {8, 4, 16, 64}}}};
  op.maxSeq = 48;
  EXPECT_EQ(legalIntegerValues(op.use(Port::seq_len_kv), 2),
            (std::vector<double>{48, 48}));
  // seq_len_q is not paged: q's rows
  EXPECT_EQ(legalIntegerValues(op.use(Port::seq_len_q), 1),
            (std::vector<double>{1}));
}

TEST(LegalInputsTest, PageTablesStayInsideTheContainer) {
  FakeOp op{{{Port::k, {3, 4, 16, 64}}, {Port::v, {5, 4, 16, 64}}}};
  EXPECT_EQ(legalIntegerValues(op.use(Port::page_table_k), 4),
            (std::vector<double>{0, 1, 2, 0}));
  EXPECT_EQ(legalIntegerValues(op.use(Port::page_table_v), 4),
            (std::vector<double>{0, 1, 2, 3}));
  FakeOp flat{{{Port::k, {3, 64}}}};
  EXPECT_FALSE(legalIntegerValues(flat.use(Port::page_table_k), 4));
}

TEST(LegalInputsTest, RaggedOffsetsFollowTheBatchStride) {
  // given strides (BSHD-like) and row-major ones
  FakeOp op{{{Port::q, {3, 2, 8, 4}}, {Port::k, {3, 2, 8, 4}}},
            {{Port::q, {100, 4, 8, 1}}}};
  EXPECT_EQ(legalIntegerValues(op.use(Port::ragged_offset_q), 4),
            (std::vector<double>{0, 100, 200, 300}));
  EXPECT_EQ(legalIntegerValues(op.use(Port::ragged_offset_k), 3),
            (std::vector<double>{0, 64, 128}));
  // offsets of a tensor the op lacks constrain nothing
  EXPECT_FALSE(legalIntegerValues(op.use(Port::ragged_offset_v), 3));
}

TEST(LegalInputsTest, MoeOffsetsSplitTheTokens) {
  FakeOp op{{{Port::token, {1, 100, 64}}, {Port::weight, {4, 64, 32}}}};
  // implicit starts: one per expert
  EXPECT_EQ(legalIntegerValues(op.use(Port::first_token_offset), 4),
            (std::vector<double>{0, 25, 50, 75}));
  // explicit boundaries: experts + 1 entries ending at the row count
  EXPECT_EQ(legalIntegerValues(op.use(Port::first_token_offset), 5),
            (std::vector<double>{0, 25, 50, 75, 100}));
  // the backward names the weight dweight
  FakeOp bwd{{{Port::token, {1, 90, 64}}, {Port::dweight, {3, 64, 32}}}};
  EXPECT_EQ(legalIntegerValues(bwd.use(Port::first_token_offset), 3),
            (std::vector<double>{0, 30, 60}));
}

TEST(LegalInputsTest, MoeRoutingStaysInsideTheTokensAndScattersOnce) {
  // GATHER: 3 tokens routed top-2 into 6 rows, row r from token r / 2
  FakeOp gather{{{Port::token, {1, 3, 16}}, {Port::weight, {4, 16, 8}}}};
  gather.topK = 2;
  EXPECT_EQ(legalIntegerValues(gather.use(Port::token_index), 6),
            (std::vector<double>{0, 0, 1, 1, 2, 2}));
  // without top_k the fan-out (rows / tokens) stands for it, so a SCATTER
  // sharing the input (its 6 routed rows, top_k 2) gets the same values
  gather.topK.reset();
  EXPECT_EQ(legalIntegerValues(gather.use(Port::token_index), 6),
            (std::vector<double>{0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(legalIntegerValues(gather.use(Port::token_index), 5),
            (std::vector<double>{0, 1, 2, 0, 1}));
  // SCATTER: 6 routed rows, destination token_index * 2 + token_ks = r
  FakeOp scatter{{{Port::token, {1, 6, 16}}, {Port::weight, {4, 16, 8}}}};
  scatter.topK = 2;
  std::optional<std::vector<double>> index =
      legalIntegerValues(scatter.use(Port::token_index), 6);
  std::optional<std::vector<double>> ks =
      legalIntegerValues(scatter.use(Port::token_ks), 6);
  ASSERT_TRUE(index && ks);
  for (int r = 0; r < 6; ++r)
    EXPECT_EQ((*index)[r] * 2 + (*ks)[r], r);
  EXPECT_EQ(*index, *legalIntegerValues(gather.use(Port::token_index), 6));
  // no token dims: nothing to keep the rows inside
  FakeOp none{{{Port::weight, {4, 16, 8}}}};
  EXPECT_FALSE(legalIntegerValues(none.use(Port::token_index), 4));
}

TEST(LegalInputsTest, OtherPortsAndDynamicDimsAreFree) {
  FakeOp op{{{Port::q, {2, 4, -1, 64}}}};
  EXPECT_FALSE(legalIntegerValues(op.use(Port::seq_len_q), 2));
  EXPECT_FALSE(legalIntegerValues(op.use(Port::seq_len_kv), 2)); // no k
  EXPECT_FALSE(legalIntegerValues(op.use(Port::in0), 2));
}

TEST(LegalInputsTest, Splitmix64IsTheReferenceSequence) {
  // splitmix64 from state 0: the published first outputs
  uint64_t state = 0;
  EXPECT_EQ(splitmix64(state), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(splitmix64(state), 0x6E789E6AA1B965F4ull);
}

} // namespace
