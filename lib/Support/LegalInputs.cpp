//===- LegalInputs.cpp - Values an integer input must hold ----------------===//

#include "GraphDialect/Support/LegalInputs.h"

#include <algorithm>

using namespace graph;

uint64_t graph::splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::optional<std::vector<double>>
graph::legalIntegerValues(const IntegerInputUse &use, int64_t count) {
  if (count < 0)
    return std::nullopt;
  // Allocated only for a use that fixes the values (most do not).
  std::vector<double> values;
  auto fill = [&](double v) { return std::vector<double>(count, v); };

  // Ragged offsets: each batch where the padded layout has it (the
  // sequence lengths are full), so every position is written and read.
  for (auto [ragged, offsets] : kRaggedPorts) {
    if (use.port != offsets)
      continue;
    std::optional<Shape> strides = use.strides(ragged);
    if (!strides)
      return std::nullopt;
    int64_t batchStride = strides->empty() ? 0 : (*strides)[0];
    values.resize(count);
    for (int64_t i = 0; i < count; ++i)
      values[i] = static_cast<double>(i * batchStride);
    return values;
  }

  // Page tables, row-major [B, 1, pages_per_batch, 1]: element i is b *
  // pages_per_batch + j, kept inside the container's pages.
  for (auto [table, container] : {std::pair{Port::page_table_k, Port::k},
                                  std::pair{Port::page_table_v, Port::v}}) {
    if (use.port != table)
      continue;
    std::optional<Shape> dims = use.dims(container);
    if (!dims || dims->size() != 4 || (*dims)[0] <= 0)
      return std::nullopt;
    values.resize(count);
    for (int64_t i = 0; i < count; ++i)
      values[i] = static_cast<double>(i % (*dims)[0]);
    return values;
  }

  // Sequence lengths: the length the pages make, else the full one.
  if (use.port == Port::seq_len_kv && use.pagedMaxSeqLenKv)
    return fill(static_cast<double>(*use.pagedMaxSeqLenKv));
  for (auto [length, of] : {std::pair{Port::seq_len_q, Port::q},
                            std::pair{Port::seq_len_kv, Port::k}}) {
    if (use.port != length)
      continue;
    std::optional<Shape> dims = use.dims(of);
    if (!dims || dims->size() < 2 || (*dims)[dims->size() - 2] < 0)
      return std::nullopt;
    return fill(static_cast<double>((*dims)[dims->size() - 2]));
  }

  // MoE group offsets: evenly spaced over the token rows, explicit
  // boundaries (count % experts == 1) or implicit starts.
  if (use.port == Port::first_token_offset) {
    std::optional<Shape> token = use.dims(Port::token);
    std::optional<Shape> weight = use.dims(Port::weight);
    if (!weight)
      weight = use.dims(Port::dweight);
    if (!token || !weight || token->size() < 2 || weight->empty() ||
        (*weight)[0] <= 0 || count == 0)
      return std::nullopt;
    int64_t rows = (*token)[token->size() - 2], experts = (*weight)[0];
    if (rows < 0)
      return std::nullopt;
    bool explicitBounds = experts == 1 || count % experts == 1;
    int64_t groups = explicitBounds ? count - 1 : count;
    values.resize(count);
    for (int64_t i = 0; i < count; ++i)
      values[i] = groups > 0 ? static_cast<double>(i * rows / groups) : 0.0;
    return values;
  }

  // MoE routing: random rows would read outside the tokens or scatter two
  // routed rows onto one destination (token_index * top_k + token_ks).
  if (use.port == Port::token_index || use.port == Port::token_ks) {
    std::optional<Shape> token = use.dims(Port::token);
    if (!token || token->size() < 2)
      return std::nullopt;
    int64_t rows = (*token)[token->size() - 2];
    if (rows <= 0)
      return std::nullopt;
    // A GATHER without top_k routes `count` rows from `rows` tokens: its
    // fan-out is count / rows, so an input a SCATTER shares (whose top_k is
    // that fan-out) gets the same values whichever use is asked first.
    int64_t topK = std::max<int64_t>(1, use.topK.value_or(count / rows));
    values.resize(count);
    for (int64_t i = 0; i < count; ++i)
      values[i] = static_cast<double>(
          use.port == Port::token_ks ? i % topK : (i / topK) % rows);
    return values;
  }
  return std::nullopt;
}
