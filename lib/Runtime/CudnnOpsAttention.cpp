//===- CudnnOpsAttention.cpp - Scaled dot-product attention ---------------===//
//
// Lowers sdpa and sdpa_backward to the unified SDPA descriptors where they
// cover the options, else to the composite pattern cuDNN's fused attention
// engines recognise.
//
//===----------------------------------------------------------------------===//

#include "CudnnGroupInternal.h"
#include "GraphDialect/Support/Alibi.h"

#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace graph::rt::cudnn {

/// Why the composite sdpa backward (the frontend's expanded graph) cannot
/// run `a`, or "" when it can: q heads must be a multiple of k/v heads.
static std::string compositeBackwardDeclines(const Lowering::Attn &a) {
  if (a.hk <= 0 || a.hv <= 0 || a.hq % a.hk != 0 || a.hq % a.hv != 0)
    return "the composite sdpa backward needs q heads to be a multiple of "
           "the k and v heads";
  return "";
}

std::string Lowering::pagedCacheLoad(int64_t container, int64_t table,
                                     int64_t seqLen, int64_t maxSeq,
                                     bool transposed, int64_t &uid) {
  const Tensor *c = find(container);
  const Tensor *t = find(table);
  if (!c || !t || c->dims.size() != 4 || t->dims.size() != 4)
    return err("a paged cache needs a rank-4 container and page table");
  uid = newVirtual({t->dims[0], c->dims[1], maxSeq, c->dims[3]}, c->type);
  DescPtr op, y;
  if (transposed)
    TRY(transposedView(uid, y));
  else
    TRY(tensor(uid, y));
  TRY(b.create(CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR, op,
               "OPERATION_PAGED_CACHE_LOAD"));
  SET_TENSOR(op, container,
             CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC);
  SET_DESC(op, CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC, y);
  SET_TENSOR(op, seqLen, CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC);
  SET_TENSOR(op, table, CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC);
  TRY(b.finalize(op, "OPERATION_PAGED_CACHE_LOAD"));
  ops.push_back(op);
  return "";
}

std::string Lowering::raggedTensors(Attn &a) {
  for (auto [port, offsetsPort] : kRaggedPorts) {
    if (!hasIn(offsetsPort))
      continue;
    int64_t uid, offsets;
    TRY(in(offsetsPort, offsets));
    if (hasIn(port))
      TRY(in(port, uid));
    else
      TRY(out(port, uid));
    auto it = tensors.find(uid);
    if (it == tensors.end() || it->second.isVirtual)
      return err(std::string("ragged tensor '") + portName(port) +
                 "' must be a tensor of the graph (not an intermediate)");
    if (it->second.desc ||
        (it->second.raggedOffset && it->second.raggedOffset != offsets))
      return err(std::string("ragged tensor '") + portName(port) +
                 "' is also read elsewhere in the group with another layout");
    it->second.raggedOffset = offsets;
    a.ragged = true;
  }
  return "";
}

std::string Lowering::attnCommon(Attn &a) {
  TRY(in(Port::q, a.q));
  TRY(in(Port::k, a.k));
  TRY(in(Port::v, a.v));
  // Ragged (packed THD) Q/K/V/O: the frontend's composite graph with the
  // offsets on those tensors' descriptors.
  TRY(raggedTensors(a));
  // Paged K/V caches (the frontend's composite graph): K and V are virtual
  // tensors the PAGED_CACHE_LOAD operations fill from their pages; K's in
  // the transposed layout the Q K^T matmul reads.
  if (hasIn(Port::page_table_k) || hasIn(Port::page_table_v)) {
    std::optional<int64_t> maxSeq = iAttr("paged_attention_max_seq_len_kv");
    if (!maxSeq || !flag("use_padding_mask"))
      return err("a paged K/V cache needs paged_attention_max_seq_len_kv and "
                 "the padding mask");
    int64_t seqKV;
    TRY(in(Port::seq_len_kv, seqKV));
    a.paged = true;
    if (hasIn(Port::page_table_k)) {
      int64_t table;
      TRY(in(Port::page_table_k, table));
      TRY(pagedCacheLoad(a.k, table, seqKV, *maxSeq, /*transposed=*/true, a.k));
    }
    if (hasIn(Port::page_table_v)) {
      int64_t table;
      TRY(in(Port::page_table_v, table));
      TRY(pagedCacheLoad(a.v, table, seqKV, *maxSeq, /*transposed=*/false,
                         a.v));
    }
  }
  const Tensor *q = find(a.q), *k = find(a.k), *v = find(a.v);
  if (!q || !k || !v || q->dims.size() != 4 || k->dims.size() != 4 ||
      v->dims.size() != 4)
    return err("q, k and v must be rank-4 tensors of the group");
  for (const Tensor *t : {q, k, v})
    if (t->strides[3] != 1)
      return err("the last stride of q, k and v must be 1");
  a.b = q->dims[0];
  a.hq = q->dims[1];
  a.sq = q->dims[2];
  a.d = q->dims[3];
  a.hk = k->dims[1];
  a.skv = k->dims[2];
  a.hv = v->dims[1];
  a.dv = v->dims[3];
  a.io = q->type;
  if (hasIn(Port::attn_scale)) {
    TRY(in(Port::attn_scale, a.scale));
  } else {
    a.scale =
        newScalar(fAttr("attn_scale_value").value_or(1.0), CUDNN_DATA_FLOAT, 4);
  }
  if (hasIn(Port::bias))
    TRY(in(Port::bias, a.bias));
  if (hasIn(Port::dropout_mask))
    TRY(in(Port::dropout_mask, a.dropMask));
  a.dropoutP = fAttr("dropout_probability").value_or(0.0);
  if (a.dropoutP > 0 && !a.dropMask)
    return err("dropout without an explicit dropout_mask (RNG dropout) is "
               "not lowered by the runtime");
  a.padding = flag("use_padding_mask");
  if (a.padding) {
    TRY(in(Port::seq_len_q, a.seqQ));
    TRY(in(Port::seq_len_kv, a.seqKV));
  }
  a.alibi = flag("use_alibi_mask");
  bool causal = flag("use_causal_mask");
  bool causalBR = flag("use_causal_mask_bottom_right");
  if (causal && causalBR)
    return err("use_causal_mask and use_causal_mask_bottom_right exclude "
               "each other");
  a.bottomRight = iAttr("diagonal_alignment").value_or(0) == 1;
  a.left = iAttr("diagonal_band_left_bound");
  if (auto w = iAttr("sliding_window_length"))
    a.left = *w;
  a.right = iAttr("diagonal_band_right_bound");
  if (causal || causalBR) {
    a.bottomRight = causalBR;
    if (!a.right)
      a.right = 0;
  }
  // cuDNN's fused attention takes ALiBi only under a causal band (the
  // frontend refuses the rest); without one, an H200 run of the frontend's
  // test_mhas differed from its reference in 75% of O.
  if (a.alibi && !(a.right && *a.right == 0))
    return err("the ALiBi mask needs a causal band (use_causal_mask, or "
               "diagonal_band_right_bound 0): cuDNN's fused attention does "
               "not compute ALiBi without one");
  return "";
}

std::string Lowering::attnScores(const Attn &a, int64_t &score) {
  DescPtr kT;
  TRY(attnScoreBase(a, score, kT, /*forward=*/true));
  return attnMasks(a, score);
}

std::string Lowering::transposedView(int64_t uid, DescPtr &out) {
  const Tensor *t = find(uid);
  return view(uid, {t->dims[0], t->dims[1], t->dims[3], t->dims[2]},
              {t->strides[0], t->strides[1], t->strides[3], t->strides[2]},
              out);
}

std::string Lowering::attnScoreBase(const Attn &a, int64_t &score, DescPtr &kT,
                                    bool forward) {
  TRY(transposedView(a.k, kT));
  Shape sDims = {a.b, a.hq, a.sq, a.skv};
  int64_t s = newVirtual(sDims, CUDNN_DATA_FLOAT);
  // Under the padding mask every attention matmul carries the sequence
  // lengths as per-batch M/N/K extents, as the frontend's composite graph
  // does: with the mask's selects alone, cuDNN's fused engines built the
  // graph and left padded keys unmasked (H200, cuDNN 9.19).
  std::optional<double> padKeys;
  if (forward && a.padding)
    padKeys = 0.0;
  TRY(matmul(a.q, a.k, s, CUDNN_DATA_FLOAT, padKeys, nullptr, kT, nullptr,
             a.gemm(a.seqQ, a.seqKV, 0)));
  int64_t scaled = newVirtual(sDims, CUDNN_DATA_FLOAT);
  TRY(pointwise(CUDNN_POINTWISE_MUL, s, a.scale, 0, scaled, CUDNN_DATA_FLOAT));
  score = scaled;
  if (a.bias) {
    int64_t biased = newVirtual(sDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_ADD, score, a.bias, 0, biased,
                  CUDNN_DATA_FLOAT));
    score = biased;
  }
  if (a.alibi) {
    // + slope[h] * (col - row), the slopes a [1, Hq, 1, 1] constant.
    int64_t row, col;
    TRY(attnRowCol(a, score, CUDNN_DATA_FLOAT, row, col));
    int64_t distance = newVirtual(sDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_SUB, col, row, 0, distance,
                  CUDNN_DATA_FLOAT));
    std::vector<float> slopes(a.hq);
    for (int64_t h = 0; h < a.hq; ++h)
      slopes[h] = static_cast<float>(alibiSlope(h, a.hq));
    int64_t slope = newScratchConstant({1, a.hq, 1, 1}, slopes);
    int64_t term = newVirtual(sDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_MUL, distance, slope, 0, term,
                  CUDNN_DATA_FLOAT));
    int64_t shifted = newVirtual(sDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_ADD, score, term, 0, shifted,
                  CUDNN_DATA_FLOAT));
    score = shifted;
  }
  return "";
}

std::string Lowering::attnRowCol(const Attn &a, int64_t score,
                                 cudnnDataType_t type, int64_t &row,
                                 int64_t &col) {
  Shape sDims = {a.b, a.hq, a.sq, a.skv};
  for (auto [axis, idx] : {std::pair<int64_t, int64_t *>{2, &row}, {3, &col}}) {
    *idx = newVirtual(sDims, type);
    PwParams p;
    p.axis = axis;
    TRY(pointwise(CUDNN_POINTWISE_GEN_INDEX, score, 0, 0, *idx, type, p));
  }
  return "";
}

std::string Lowering::attnMasks(const Attn &a, int64_t &score) {
  Shape sDims = {a.b, a.hq, a.sq, a.skv};
  // -inf, not the lowest finite float: a row whose every key is masked
  // (bottom-right causal with s_q > s_kv) then gives O = 0 as the frontend
  // defines it; with a finite fill it averaged V (H200, cuDNN 9.19).
  double maskValue = -std::numeric_limits<float>::infinity();
  auto select = [&](int64_t mask) -> std::string {
    int64_t negInf = newScalar(maskValue, CUDNN_DATA_FLOAT, 4);
    int64_t selected = newVirtual(sDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_BINARY_SELECT, score, negInf, mask, selected,
                  CUDNN_DATA_FLOAT));
    score = selected;
    return "";
  };
  if (a.padding) {
    int64_t row, col;
    TRY(attnRowCol(a, score, CUDNN_DATA_INT32, row, col));
    int64_t rowOk = newVirtual(sDims, CUDNN_DATA_BOOLEAN);
    int64_t colOk = newVirtual(sDims, CUDNN_DATA_BOOLEAN);
    int64_t both = newVirtual(sDims, CUDNN_DATA_BOOLEAN);
    TRY(pointwise(CUDNN_POINTWISE_CMP_LT, row, a.seqQ, 0, rowOk,
                  CUDNN_DATA_BOOLEAN));
    TRY(pointwise(CUDNN_POINTWISE_CMP_LT, col, a.seqKV, 0, colOk,
                  CUDNN_DATA_BOOLEAN));
    TRY(pointwise(CUDNN_POINTWISE_LOGICAL_AND, rowOk, colOk, 0, both,
                  CUDNN_DATA_BOOLEAN));
    TRY(select(both));
  }
  if (a.right || a.left) {
    // Row and column indices, shifts and comparisons all in INT32, as the
    // frontend writes the band: the same band from FLOAT indices plus a
    // FLOAT shift of the row ran with the shift dropped on the H200 (cuDNN
    // 9.19): every right bound > 0 and every bottom-right causal mask with
    // s_q != s_kv came out wrong (probe/sdpa_*band*.mlir, test_mhas_v2).
    cudnnDataType_t idxType = CUDNN_DATA_INT32;
    // One bound: keeps the scores where `compare`(shifted, other) holds,
    // `shifted` being the row index (`shiftRow`) or the column index with
    // `steps` (an add or subtract each, of a constant - zero ones skipped -
    // or of a [B, 1, 1, 1] length tensor) applied, `other` the other index.
    struct Step {
      cudnnPointwiseMode_t mode;
      int64_t constant = 0;
      int64_t lengths = 0; // uid of a per-batch length, or 0
    };
    auto keepBound = [&](bool shiftRow, const std::vector<Step> &steps,
                         cudnnPointwiseMode_t compare) -> std::string {
      int64_t row, col;
      TRY(attnRowCol(a, score, idxType, row, col));
      int64_t shifted = shiftRow ? row : col, other = shiftRow ? col : row;
      for (const Step &step : steps) {
        if (!step.lengths && step.constant == 0)
          continue;
        cudnnPointwiseMode_t mode = step.mode;
        int64_t c = step.lengths ? step.lengths
                                 : newScalar(static_cast<double>(step.constant),
                                             idxType, 4);
        int64_t next = newVirtual(sDims, idxType);
        PwParams p;
        p.axis = 3;
        TRY(pointwise(mode, shifted, c, 0, next, idxType, p));
        shifted = next;
      }
      int64_t keep = newVirtual(sDims, CUDNN_DATA_BOOLEAN);
      TRY(pointwise(compare, shifted, other, 0, keep, CUDNN_DATA_BOOLEAN));
      return select(keep);
    };
    // Bottom-right alignment moves the diagonal by s_kv - s_q: the
    // tensors' lengths, or each batch's under the padding mask.
    Step addKV{CUDNN_POINTWISE_ADD, a.skv}, subQ{CUDNN_POINTWISE_SUB, a.sq};
    Step subKV{CUDNN_POINTWISE_SUB, a.skv}, addQ{CUDNN_POINTWISE_ADD, a.sq};
    if (a.padding) {
      addKV.lengths = subKV.lengths = a.seqKV;
      subQ.lengths = addQ.lengths = a.seqQ;
    }
    if (a.right) {
      // keep col <= row + (s_kv - s_q) + right, written "+ s_kv - s_q" as
      // the frontend writes it.
      std::vector<Step> steps;
      if (a.bottomRight)
        steps = {addKV, subQ};
      steps.push_back({CUDNN_POINTWISE_ADD, *a.right});
      TRY(keepBound(/*shiftRow=*/true, steps, CUDNN_POINTWISE_CMP_GE));
    }
    if (a.left) {
      // keep col > row + (s_kv - s_q) - left: col + left - s_kv + s_q > row
      std::vector<Step> steps = {{CUDNN_POINTWISE_ADD, *a.left}};
      if (a.bottomRight) {
        steps.push_back(subKV);
        steps.push_back(addQ);
      }
      TRY(keepBound(/*shiftRow=*/false, steps, CUDNN_POINTWISE_CMP_GT));
    }
  }
  return "";
}

std::string Lowering::attnDropout(const Attn &a, int64_t &p,
                                  cudnnDataType_t outType) {
  if (!a.dropMask)
    return "";
  const Tensor *pt = find(p);
  Shape dims = pt->dims;
  double scale = 1.0 / (1.0 - a.dropoutP);
  int64_t masked = newVirtual(dims, CUDNN_DATA_FLOAT);
  TRY(pointwise(CUDNN_POINTWISE_MUL, p, a.dropMask, 0, masked,
                CUDNN_DATA_FLOAT));
  int64_t s = newScalar(scale, CUDNN_DATA_FLOAT, 4);
  int64_t scaled = newVirtual(dims, outType);
  TRY(pointwise(CUDNN_POINTWISE_MUL, masked, s, 0, scaled, CUDNN_DATA_FLOAT));
  p = scaled;
  return "";
}

std::string Lowering::lowerSdpa() {
  Attn a;
  TRY(attnCommon(a));
  int64_t o;
  TRY(out(Port::O, o));
  bool extraStats = hasOut(Port::score_max) || hasOut(Port::score_sum_exp);
  bool unified = !a.needsComposite() || a.paddingOnly();
  // cuDNN 9.19's SDPA_FWD operation has no sink (its descriptor gains one in
  // 9.21): a sink takes the composite graph.
  bool useUnified = unified && !extraStats && !hasIn(Port::attn_scale) &&
                    !a.right && !hasIn(Port::sink_token) && !a.left &&
                    !compositeAttention;
  // A block mask is an attribute of cuDNN's unified SDPA operation only.
  if (hasIn(Port::block_mask)) {
    if (!useUnified || a.padding)
      return err("block_mask runs on cuDNN's unified SDPA operation only, "
                 "which in cuDNN 9.19 takes no bias, ALiBi, dropout, padding "
                 "or diagonal band mask, sink, paging, ragged layout, "
                 "score_max/score_sum_exp or attn_scale tensor with it");
    usedUnifiedAttention = true;
    return unifiedSdpa(a, o);
  }
  if (useUnified && std::getenv("GRAPH_SDPA_COMPOSITE") == nullptr) {
    usedUnifiedAttention = true;
    return unifiedSdpa(a, o);
  }
  return compositeSdpa(a, o);
}

std::string Lowering::unifiedSdpa(const Attn &a, int64_t o) {
  DescPtr op, d;
  TRY(b.create(CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR, op,
               "OPERATION_SDPA_FWD"));
  TRY(tensor(a.q, d));
  SET_DESC(op, CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, d);
  TRY(tensor(a.k, d));
  SET_DESC(op, CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, d);
  TRY(tensor(a.v, d));
  SET_DESC(op, CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, d);
  TRY(tensor(o, d));
  SET_DESC(op, CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, d);
  if (hasOut(Port::Stats)) {
    int64_t stats;
    TRY(out(Port::Stats, stats));
    TRY(tensor(stats, d));
    SET_DESC(op, CUDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, d);
  }
  TRY(tensor(a.scale, d));
  SET_DESC(op, CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, d);
  if (hasIn(Port::block_mask)) {
    int64_t mask;
    TRY(in(Port::block_mask, mask));
    TRY(tensor(mask, d));
    SET_DESC(op, CUDNN_ATTR_OPERATION_SDPA_FWD_BLOCK_MASK_DESC, d);
  }
  if (a.padding) {
    TRY(tensor(a.seqQ, d));
    SET_DESC(op, CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC, d);
    TRY(tensor(a.seqKV, d));
    SET_DESC(op, CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC, d);
  }
  TRY(b.finalize(op, "OPERATION_SDPA_FWD"));
  ops.push_back(op);
  return "";
}

std::string Lowering::attnSinkExp(const Attn &a, int64_t sink, int64_t center,
                                  int64_t &p) {
  Shape rowDims = {a.b, a.hq, a.sq, 1};
  int64_t centered = newVirtual(rowDims, CUDNN_DATA_FLOAT);
  TRY(pointwise(CUDNN_POINTWISE_SUB, sink, center, 0, centered,
                CUDNN_DATA_FLOAT));
  p = newVirtual(rowDims, CUDNN_DATA_FLOAT);
  return pointwise(CUDNN_POINTWISE_EXP, centered, 0, 0, p, CUDNN_DATA_FLOAT);
}

std::string Lowering::attnSoftmax(const Attn &a, int64_t score, int64_t &e,
                                  int64_t &sum) {
  Shape sDims = {a.b, a.hq, a.sq, a.skv}, rowDims = {a.b, a.hq, a.sq, 1};
  // Softmax with its log-sum-exp statistics.
  int64_t mx = hasOut(Port::score_max) ? op->outputs.at(Port::score_max)
                                       : newVirtual(rowDims, CUDNN_DATA_FLOAT);
  // An attention sink is one more logit per head (the frontend's composite
  // softmax, which the fused engines match): the row max covers it and its
  // exp joins the row sum.
  // (uid 0 is a valid tensor: presence is the port's, not the uid's)
  bool hasSink = hasIn(Port::sink_token);
  int64_t sink = 0;
  if (hasSink) {
    TRY(in(Port::sink_token, sink));
    int64_t rowMax = newVirtual(rowDims, CUDNN_DATA_FLOAT);
    TRY(reduction(CUDNN_REDUCE_TENSOR_MAX, score, rowMax, CUDNN_DATA_FLOAT));
    TRY(pointwise(CUDNN_POINTWISE_MAX, rowMax, sink, 0, mx, CUDNN_DATA_FLOAT));
  } else {
    TRY(reduction(CUDNN_REDUCE_TENSOR_MAX, score, mx, CUDNN_DATA_FLOAT));
  }
  int64_t centered = newVirtual(sDims, CUDNN_DATA_FLOAT);
  TRY(pointwise(CUDNN_POINTWISE_SUB, score, mx, 0, centered, CUDNN_DATA_FLOAT));
  e = newVirtual(sDims, CUDNN_DATA_FLOAT);
  TRY(pointwise(CUDNN_POINTWISE_EXP, centered, 0, 0, e, CUDNN_DATA_FLOAT));
  sum = hasOut(Port::score_sum_exp) ? op->outputs.at(Port::score_sum_exp)
                                    : newVirtual(rowDims, CUDNN_DATA_FLOAT);
  if (hasSink) {
    int64_t sinkExp;
    TRY(attnSinkExp(a, sink, mx, sinkExp));
    int64_t rowSum = newVirtual(rowDims, CUDNN_DATA_FLOAT);
    TRY(reduction(CUDNN_REDUCE_TENSOR_ADD, e, rowSum, CUDNN_DATA_FLOAT));
    TRY(pointwise(CUDNN_POINTWISE_ADD, rowSum, sinkExp, 0, sum,
                  CUDNN_DATA_FLOAT));
  } else {
    TRY(reduction(CUDNN_REDUCE_TENSOR_ADD, e, sum, CUDNN_DATA_FLOAT));
  }
  // cuDNN's fused attention engines match the softmax only with its
  // statistics written out: without a user Stats tensor (inference) they
  // go to a scratch buffer in the workspace, else the heuristics offer no
  // engine config for a causal or masked inference graph.
  // With score_max/score_sum_exp requested and no Stats, the softmax
  // statistics are those two outputs (the frontend's graph has no Stats
  // chain then).
  bool extraStats = hasOut(Port::score_max) || hasOut(Port::score_sum_exp);
  if (hasOut(Port::Stats) || !extraStats) {
    int64_t stats;
    if (hasOut(Port::Stats))
      TRY(out(Port::Stats, stats));
    else
      stats = newScratch(rowDims, CUDNN_DATA_FLOAT);
    int64_t logSum = newVirtual(rowDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_LOG, sum, 0, 0, logSum, CUDNN_DATA_FLOAT));
    TRY(pointwise(CUDNN_POINTWISE_ADD, mx, logSum, 0, stats, CUDNN_DATA_FLOAT));
  }
  return "";
}

std::string Lowering::compositeSdpa(const Attn &a, int64_t o) {
  int64_t score, e, sum;
  TRY(attnScores(a, score));
  TRY(attnSoftmax(a, score, e, sum));
  // P in the io type: the A operand of the second matmul.
  Shape sDims = {a.b, a.hq, a.sq, a.skv};
  int64_t p = newVirtual(sDims, a.dropMask ? CUDNN_DATA_FLOAT : a.io);
  TRY(pointwise(CUDNN_POINTWISE_DIV, e, sum, 0, p, CUDNN_DATA_FLOAT));
  TRY(attnDropout(a, p, a.io));
  return matmul(p, a.v, o, CUDNN_DATA_FLOAT, std::nullopt, nullptr, nullptr,
                nullptr, a.gemm(a.seqQ, 0, a.seqKV));
}

std::string Lowering::lowerSdpaFp8() {
  // The frontend's SDPA FP8 forward node, which cuDNN's fused fp8 attention
  // engines match: S = Q K^T * attn_scale * descale_q * descale_k, masks,
  // softmax with its statistics, Amax_S = amax(P), P * scale_s in Q's fp8
  // type, O' = P V * descale_s * descale_v, Amax_O = amax(O'), O = O' *
  // scale_o in O's type (fp8, f16 or bf16).
  Attn a;
  TRY(attnCommon(a));
  // Paged K/V and ragged Q/K/V/O/Stats come from attnCommon as for the
  // f16 forward (the frontend's fp8 graph takes both on Hopper from cuDNN
  // 9.14 on).
  if (a.bias || a.alibi || a.dropMask || a.dropoutP > 0)
    return err("fp8 attention with a bias, ALiBi or dropout is not lowered "
               "by the runtime");
  int64_t o, descaleQ, descaleK, descaleV, descaleS, scaleS, scaleO;
  TRY(out(Port::O, o));
  TRY(in(Port::descale_q, descaleQ));
  TRY(in(Port::descale_k, descaleK));
  TRY(in(Port::descale_v, descaleV));
  TRY(in(Port::descale_s, descaleS));
  TRY(in(Port::scale_s, scaleS));
  TRY(in(Port::scale_o, scaleO));
  // x * each of `factors`, in f32, into a new virtual of `dims` (the last
  // into `last` when given).
  auto scaleBy = [&](int64_t &x, const Shape &dims,
                     std::initializer_list<int64_t> factors,
                     int64_t last = 0) -> std::string {
    size_t i = 0;
    for (int64_t factor : factors) {
      bool final = ++i == factors.size() && last;
      int64_t y = final ? last : newVirtual(dims, CUDNN_DATA_FLOAT);
      TRY(pointwise(CUDNN_POINTWISE_MUL, x, factor, 0, y, CUDNN_DATA_FLOAT));
      x = y;
    }
    return "";
  };
  Shape sDims = {a.b, a.hq, a.sq, a.skv}, oDims = {a.b, a.hq, a.sq, a.dv};
  Shape one = {1, 1, 1, 1};
  int64_t score, e, sum;
  DescPtr kT;
  TRY(attnScoreBase(a, score, kT, /*forward=*/true));
  TRY(scaleBy(score, sDims, {descaleQ, descaleK}));
  TRY(attnMasks(a, score));
  TRY(attnSoftmax(a, score, e, sum));
  int64_t p = newVirtual(sDims, CUDNN_DATA_FLOAT);
  TRY(pointwise(CUDNN_POINTWISE_DIV, e, sum, 0, p, CUDNN_DATA_FLOAT));
  int64_t amaxS = hasOut(Port::Amax_S) ? op->outputs.at(Port::Amax_S)
                                       : newScratch(one, CUDNN_DATA_FLOAT);
  TRY(reduction(CUDNN_REDUCE_TENSOR_AMAX, p, amaxS, CUDNN_DATA_FLOAT));
  int64_t p8 = newVirtual(sDims, a.io);
  TRY(scaleBy(p, sDims, {scaleS}, p8));
  int64_t pv = newVirtual(oDims, CUDNN_DATA_FLOAT);
  TRY(matmul(p8, a.v, pv, CUDNN_DATA_FLOAT, std::nullopt, nullptr, nullptr,
             nullptr, a.gemm(a.seqQ, 0, a.seqKV)));
  TRY(scaleBy(pv, oDims, {descaleS, descaleV}));
  int64_t amaxO = hasOut(Port::Amax_O) ? op->outputs.at(Port::Amax_O)
                                       : newScratch(one, CUDNN_DATA_FLOAT);
  TRY(reduction(CUDNN_REDUCE_TENSOR_AMAX, pv, amaxO, CUDNN_DATA_FLOAT));
  return scaleBy(pv, oDims, {scaleO}, o);
}

std::string Lowering::lowerSdpaBackward() {
  Attn a;
  TRY(attnCommon(a));
  int64_t o, dO, stats, dQ, dK, dV;
  TRY(in(Port::o, o));
  TRY(in(Port::dO, dO));
  TRY(in(Port::stats, stats));
  TRY(out(Port::dQ, dQ));
  TRY(out(Port::dK, dK));
  TRY(out(Port::dV, dV));
  // Deterministic gradients: cuDNN 9.19's SDPA_BWD operation has no such
  // option, so the composite graph, with dQ written by its matmul directly
  // (the f32 accumulator's engines add partial dQ in any order). dBias
  // needs that form too: cuDNN's fused backward engines reduce dS into
  // dBias only in their dP-workspace variant, which a dQ written directly
  // selects (as the frontend's composite node does).
  bool dBias = hasOut(Port::dBias);
  bool deterministic = flag("use_deterministic_algorithm") &&
                       compositeBackwardDeclines(a).empty();
  bool dQDirect = deterministic || dBias;
  if ((!a.needsComposite() || a.paddingOnly()) && !hasIn(Port::attn_scale) &&
      !hasIn(Port::sink_token) && !a.right && !a.left && !compositeAttention &&
      !deterministic && std::getenv("GRAPH_SDPA_COMPOSITE") == nullptr) {
    usedUnifiedAttention = true;
    DescPtr op;
    TRY(b.create(CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR, op,
                 "OPERATION_SDPA_BWD"));
    SET_TENSOR(op, a.q, CUDNN_ATTR_OPERATION_SDPA_BWD_QDESC);
    SET_TENSOR(op, a.k, CUDNN_ATTR_OPERATION_SDPA_BWD_KDESC);
    SET_TENSOR(op, a.v, CUDNN_ATTR_OPERATION_SDPA_BWD_VDESC);
    SET_TENSOR(op, o, CUDNN_ATTR_OPERATION_SDPA_BWD_ODESC);
    SET_TENSOR(op, dO, CUDNN_ATTR_OPERATION_SDPA_BWD_DODDESC);
    SET_TENSOR(op, stats, CUDNN_ATTR_OPERATION_SDPA_BWD_STATSDESC);
    SET_TENSOR(op, a.scale, CUDNN_ATTR_OPERATION_SDPA_BWD_SCALEDESC);
    SET_TENSOR(op, dQ, CUDNN_ATTR_OPERATION_SDPA_BWD_DQDESC);
    SET_TENSOR(op, dK, CUDNN_ATTR_OPERATION_SDPA_BWD_DKDESC);
    SET_TENSOR(op, dV, CUDNN_ATTR_OPERATION_SDPA_BWD_DVDESC);
    if (a.padding) {
      SET_TENSOR(op, a.seqQ, CUDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_QDESC);
      SET_TENSOR(op, a.seqKV, CUDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KVDESC);
    }
    TRY(b.finalize(op, "OPERATION_SDPA_BWD"));
    ops.push_back(op);
    return "";
  }
  if (std::string why = compositeBackwardDeclines(a); !why.empty())
    return err(why);
  // Measured on the H200 (cuDNN 9.19, test_sdpa_custom_features): with
  // dropout the fused backward returns the sink's gradient times the keep
  // probability, so that combination is declined rather than run wrong.
  if (hasIn(Port::sink_token) && (a.dropMask || a.dropoutP > 0))
    return err("sdpa_backward with a sink_token and dropout: cuDNN 9.19's "
               "fused backward scales dSink_token by the keep probability "
               "(measured on the H200), so it is not run");
  // The graph of the cuDNN frontend's composite SDPA backward node
  // (scaled_dot_product_flash_attention.h, SDPABackwardNode::expand_node),
  // which the fused flash-attention backward engines match:
  //  * K and V appear only through their transposed descriptors (K^T, V^T);
  //    dQ reads K as a reshape of K^T into a virtual [b, h, s_kv, d].
  //  * softmax_sum = rowsum(dO * O) * dropout_scale_inv is a non-virtual
  //    f32 [b, h, s_q, 1] (workspace), made by a pointwise op.
  //  * P = exp(S * scale [+ bias] - Stats, then masks); dV = P^T dO.
  //  * dS = (dP [* dropout mask] - softmax_sum) * P [* dropout scale]
  //    * attn_scale stays f32; dK = dS^T Q; dQ = dS K^T^T into a
  //    non-virtual f32 dQ accumulator (workspace), then identity to dQ.
  Shape sDims = {a.b, a.hq, a.sq, a.skv}, rowDims = {a.b, a.hq, a.sq, 1};
  double keep = 1.0 - a.dropoutP;
  // softmax_sum chain.
  int64_t dOO = newVirtual({a.b, a.hq, a.sq, a.dv}, CUDNN_DATA_FLOAT);
  TRY(pointwise(CUDNN_POINTWISE_MUL, dO, o, 0, dOO, CUDNN_DATA_FLOAT));
  int64_t rowSum = newVirtual(rowDims, CUDNN_DATA_FLOAT);
  TRY(reduction(CUDNN_REDUCE_TENSOR_ADD, dOO, rowSum, CUDNN_DATA_FLOAT));
  int64_t softmaxSum = newScratch(rowDims, CUDNN_DATA_FLOAT);
  TRY(pointwise(CUDNN_POINTWISE_MUL, rowSum,
                newScalar(a.dropMask ? keep : 1.0, CUDNN_DATA_FLOAT, 4), 0,
                softmaxSum, CUDNN_DATA_FLOAT));
  // The sink's gradient (the frontend's composite node): its probability
  // exp(sink - Stats) times rowsum(dO * O), summed into [1, H, 1, 1].
  if (hasIn(Port::sink_token)) {
    int64_t sink, dSink;
    TRY(in(Port::sink_token, sink));
    TRY(out(Port::dSink_token, dSink));
    int64_t sinkP;
    TRY(attnSinkExp(a, sink, stats, sinkP));
    int64_t perRow = newVirtual(rowDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_MUL, sinkP, rowSum, 0, perRow,
                  CUDNN_DATA_FLOAT));
    TRY(reduction(CUDNN_REDUCE_TENSOR_ADD, perRow, dSink, CUDNN_DATA_FLOAT));
  }
  // P = exp(S * scale [+ bias] - Stats, masked).
  int64_t score;
  DescPtr kT;
  TRY(attnScoreBase(a, score, kT, /*forward=*/false));
  int64_t centered = newVirtual(sDims, CUDNN_DATA_FLOAT);
  TRY(pointwise(CUDNN_POINTWISE_SUB, score, stats, 0, centered,
                CUDNN_DATA_FLOAT));
  TRY(attnMasks(a, centered));
  int64_t p = newVirtual(sDims, CUDNN_DATA_FLOAT);
  TRY(pointwise(CUDNN_POINTWISE_EXP, centered, 0, 0, p, CUDNN_DATA_FLOAT));
  int64_t pDropped = p;
  TRY(attnDropout(a, pDropped, CUDNN_DATA_FLOAT));
  // dV = P^T dO (P transposed by a reshape into the io type). With fewer
  // k/v heads than q heads (GQA/MQA) the matmul makes one gradient per q
  // head and a reduction adds each group into its k/v head.
  Shape tDims = {a.b, a.hq, a.skv, a.sq};
  Shape tStrides = {a.hq * a.sq * a.skv, a.sq * a.skv, 1, a.skv};
  auto perQueryHead = [&](int64_t grad, int64_t heads, int64_t width) {
    if (heads == a.hq)
      return grad;
    return newVirtual({a.b, a.hq, a.skv, width}, a.io);
  };
  auto reduceHeads = [&](int64_t full, int64_t grad) -> std::string {
    if (full == grad)
      return "";
    return reduction(CUDNN_REDUCE_TENSOR_ADD, full, grad, CUDNN_DATA_FLOAT);
  };
  int64_t pT = newVirtual(tDims, a.io, tStrides);
  TRY(reshape(pDropped, pT));
  int64_t dVFull = perQueryHead(dV, a.hv, a.dv);
  TRY(matmul(pT, dO, dVFull, CUDNN_DATA_FLOAT, std::nullopt, nullptr, nullptr,
             nullptr, a.gemm(a.seqKV, 0, a.seqQ)));
  TRY(reduceHeads(dVFull, dV));
  // dP = dO V^T.
  DescPtr vT;
  TRY(transposedView(a.v, vT));
  int64_t dP = newVirtual(sDims, CUDNN_DATA_FLOAT);
  TRY(matmul(dO, a.v, dP, CUDNN_DATA_FLOAT, std::nullopt, nullptr, vT, nullptr,
             a.gemm(a.seqQ, a.seqKV, 0)));
  if (a.dropMask) {
    int64_t masked = newVirtual(sDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_MUL, dP, a.dropMask, 0, masked,
                  CUDNN_DATA_FLOAT));
    dP = masked;
  }
  // dS = (dP - softmax_sum) * P [* dropout scale] * attn_scale.
  int64_t diff = newVirtual(sDims, CUDNN_DATA_FLOAT);
  TRY(pointwise(CUDNN_POINTWISE_SUB, dP, softmaxSum, 0, diff,
                CUDNN_DATA_FLOAT));
  int64_t dS = newVirtual(sDims, CUDNN_DATA_FLOAT);
  TRY(pointwise(CUDNN_POINTWISE_MUL, diff, p, 0, dS, CUDNN_DATA_FLOAT));
  if (a.dropMask) {
    int64_t scaled = newVirtual(sDims, CUDNN_DATA_FLOAT);
    TRY(pointwise(CUDNN_POINTWISE_MUL, dS,
                  newScalar(1.0 / keep, CUDNN_DATA_FLOAT, 4), 0, scaled,
                  CUDNN_DATA_FLOAT));
    dS = scaled;
  }
  // dBias = dS summed over the dims bias broadcasts (bias is added after
  // the scale, so before attn_scale multiplies dS).
  if (dBias)
    TRY(reduction(CUDNN_REDUCE_TENSOR_ADD, dS, op->outputs.at(Port::dBias),
                  CUDNN_DATA_FLOAT));
  int64_t dSs = newVirtual(sDims, CUDNN_DATA_FLOAT);
  TRY(pointwise(CUDNN_POINTWISE_MUL, dS, a.scale, 0, dSs, CUDNN_DATA_FLOAT));
  dS = dSs;
  // dK = dS^T Q.
  int64_t dST = newVirtual(tDims, a.io, tStrides);
  TRY(reshape(dS, dST));
  int64_t dKFull = perQueryHead(dK, a.hk, a.d);
  TRY(matmul(dST, a.q, dKFull, CUDNN_DATA_FLOAT, std::nullopt, nullptr, nullptr,
             nullptr, a.gemm(a.seqKV, 0, a.seqQ)));
  TRY(reduceHeads(dKFull, dK));
  // dQ = dS K: K is the reshape of K^T back to [b, h, s_kv, d].
  const Tensor *k = find(a.k);
  int64_t kR = newVirtual(k->dims, CUDNN_DATA_FLOAT, k->strides);
  TRY(reshape(a.k, kR, kT));
  GemmOverrides dQExtents = a.gemm(a.seqQ, 0, a.seqKV);
  if (dQDirect)
    return matmul(dS, kR, dQ, CUDNN_DATA_FLOAT, std::nullopt, nullptr, nullptr,
                  nullptr, dQExtents);
  int64_t dQacc = newScratch({a.b, a.hq, a.sq, a.d}, CUDNN_DATA_FLOAT);
  TRY(matmul(dS, kR, dQacc, CUDNN_DATA_FLOAT, std::nullopt, nullptr, nullptr,
             nullptr, dQExtents));
  return pointwise(CUDNN_POINTWISE_IDENTITY, dQacc, 0, 0, dQ, CUDNN_DATA_FLOAT);
}

std::string Lowering::lowerRng() {
  int64_t seed, offset, y;
  TRY(in(Port::seed, seed));
  TRY(in(Port::offset, offset));
  TRY(out(Port::Y, y));
  std::optional<double> keep = fAttr("bernoulli_probability");
  if (!keep)
    return err("missing bernoulli_probability");
  DescPtr rng, o, d;
  TRY(b.create(CUDNN_BACKEND_RNG_DESCRIPTOR, rng, "RNG"));
  cudnnRngDistribution_t distribution = CUDNN_RNG_DISTRIBUTION_BERNOULLI;
  SET(rng, CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, 1,
      &distribution);
  double p = *keep;
  SET(rng, CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, 1, &p);
  TRY(b.finalize(rng, "RNG"));
  TRY(b.create(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR, o, "OPERATION_RNG"));
  TRY(tensor(y, d));
  SET_DESC(o, CUDNN_ATTR_OPERATION_RNG_YDESC, d);
  TRY(tensor(seed, d));
  SET_DESC(o, CUDNN_ATTR_OPERATION_RNG_SEED, d);
  TRY(tensor(offset, d));
  SET_DESC(o, CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, d);
  SET_DESC(o, CUDNN_ATTR_OPERATION_RNG_DESC, rng);
  TRY(b.finalize(o, "OPERATION_RNG"));
  extraDescs.push_back(rng);
  ops.push_back(o);
  return "";
}

} // namespace graph::rt::cudnn
