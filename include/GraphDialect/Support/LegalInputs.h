//===- LegalInputs.h - Values an integer input must hold --------*- C++ -*-===//
//
// Some integer inputs index memory: sdpa's sequence lengths, ragged offsets
// and page tables, MoE token offsets. Random data there makes an engine read
// outside its buffers, so the tools that invent inputs (graph-run's random
// inputs, the GPU executor's autotuning runs) give them values their use
// makes legal. Both ask here, each describing the use in its own terms (IR
// values or a runtime spec); the rules live once.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_SUPPORT_LEGALINPUTS_H
#define GRAPHDIALECT_SUPPORT_LEGALINPUTS_H

#include "GraphDialect/Support/OpKind.h"
#include "GraphDialect/Support/Port.h"
#include "GraphDialect/Support/Shape.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace graph {

/// One op's use of an integer input: the port it is bound to and what the
/// rules read from the rest of the op.
struct IntegerInputUse {
  Port port;
  /// Dims of the op's operand or result `port`; nullopt when absent.
  std::function<std::optional<Shape>(Port)> dims;
  /// Strides of the op's operand or result `port` (row-major when the
  /// tensor gives none); nullopt when absent.
  std::function<std::optional<Shape>(Port)> strides;
  /// sdpa's paged_attention_max_seq_len_kv, when the op has paged caches.
  std::optional<int64_t> pagedMaxSeqLenKv;
  /// moe_grouped_matmul's top_k, when the op has one.
  std::optional<int64_t> topK;
};

/// The `count` values an integer input must hold for `use`, or nullopt when
/// the use does not constrain it:
///  - a ragged offset: batch b starts where the padded layout has it (b
///    times the ragged tensor's batch stride), with full sequence lengths;
///  - a page table of K or V ([B, 1, pages_per_batch, 1]): entry i names
///    page i % pages of its container;
///  - seq_len_kv of paged caches: paged_attention_max_seq_len_kv;
///  - seq_len_q / seq_len_kv: the full length (q's / k's dim -2);
///  - MoE first_token_offset: evenly spaced row offsets over the tokens,
///    with an end boundary when count % experts == 1 (or one expert);
///  - MoE token_index / token_ks: routed row r comes from token r / top_k
///    as its slot r % top_k (inside the token rows; in SCATTER mode every
///    destination row token_index * top_k + token_ks is r, written once);
///    without top_k (GATHER) the fan-out count / token rows stands for it.
std::optional<std::vector<double>>
legalIntegerValues(const IntegerInputUse &use, int64_t count);

/// One splitmix64 step: decorrelates a seed into a generator state (the
/// random inputs of graph-run and the autotuning data both draw with it).
uint64_t splitmix64(uint64_t &state);

} // namespace graph

#endif // GRAPHDIALECT_SUPPORT_LEGALINPUTS_H
