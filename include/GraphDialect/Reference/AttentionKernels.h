//===- AttentionKernels.h - CPU reference of the sdpa family ----*- C++ -*-===//
//
// MLIR-free reference kernels for sdpa, sdpa_backward, sdpa_fp8(_backward)
// and sdpa_mxfp8(_backward). All arrays are logical, dense, row-major
// NdArrays of doubles; every sum accumulates in double. Functions return an
// empty string on success, otherwise a message naming the port and the rule.
//
// Semantics (cuDNN frontend Attention.md, node/sdpa_fp8*.h, matmul_fp8.h and
// the reference of test/python/test_mhas.py):
//
//   Q [B,Hq,Sq,D], K [B,Hk,Skv,D], V [B,Hv,Skv,Dv]; Hq % Hk == Hq % Hv == 0;
//   query head h reads kv head h / (Hq/Hk) and value head h / (Hq/Hv).
//   S[i,j]  = attnScale * <q_i, k_j>  (+ bias[i,j])  (+ alibi[h](j - i))
//   attnScale defaults to 1.0 ("Set to 1.0 by default", Attention.md).
//   ALiBi slopes (test_mhas.py): n = 2^floor(log2 Hq), m0 = 2^(-8/n),
//     slope[h] = m0^(h+1) for h < n, else (2^(-4/n))^(1 + 2(h-n)).
//   Masked entries (excluded from max, sum and P):
//     padding: j >= seq_len_kv[b]; rows i >= seq_len_q[b] are dead rows.
//     With alignment TOP_LEFT shift = 0, BOTTOM_RIGHT shift = skv_b - sq_b
//     (skv_b/sq_b = seq_len_kv[b]/seq_len_q[b] with padding, else Skv/Sq):
//     right bound r: masked when j > i + shift + r   (r = 0: causal);
//     left bound l:  masked when j <= i + shift - l  ("at or before
//                    row_idx - left_bound"); sliding_window_length = l.
//     Legacy flags: causal_mask = {TOP_LEFT, r = 0}, causal_mask_bottom_right
//     = {BOTTOM_RIGHT, r = 0} (see applyLegacyMaskFlags).
//   P = softmax over unmasked j; Stats = max + ln(sum exp(S - max)) (natural
//   log, fp32 in cuDNN); score_max = max; score_sum_exp = sum exp(S - max).
//   Dropout (after softmax): P' = P * mask * dropoutScale, dropoutScale
//   defaults to 1/(1-p). Only an explicit keep-mask is reproducible on the
//   CPU: p > 0 without a mask is rejected.
//   O = P' V.
//   Dead rows (i >= seq_len_q, or every key masked): O = 0, Stats = -inf,
//   score_max = -inf, score_sum_exp = 0, and no gradient flows through them.
//   cuDNN leaves these rows unspecified/engine dependent (its tests zero them
//   before comparing); compare valid rows only.
//
// Backward (exact gradient of the forward, using the given Stats and O the way
// cuDNN does): P = exp(S - Stats); D_i = sum_d dO_i,d O_i,d;
//   dP'_ij = <dO_i, v_j>, dS_ij = P_ij (mask_ij c dP'_ij - D_i),
//   dV_j = sum_i P'_ij dO_i, dQ_i = attnScale sum_j dS_ij k_j,
//   dK_j = attnScale sum_i dS_ij q_i, dBias = dS summed over broadcast dims;
//   dK/dV sum over the query heads of a group.
//
// FP8 (node/sdpa_fp8.h, sdpa_fp8_bwd.h, matmul_fp8.h). Q/K/V/O/dO hold the
// decoded fp8 values; scales are per-tensor:
//   fwd: S = <q,k> attnScale descaleQ descaleK (+bias, masks); P' as above;
//        Amax_S = max|P'| (before scale_s); P8 = round_pType(P' scaleS);
//        Of = (P8 V) descaleS descaleV; Amax_O = max|Of| (before scale_o);
//        O = Of scaleO (returned unrounded: store() rounds to O's dtype).
//        pType is Q's fp8 type (the frontend sets P8's dtype to Q's).
//   bwd: D = rowsum(dO O) descaleDO descaleO;
//        P = exp(S - Stats) with S as in fwd; P8 = round_pType(P scaleS);
//        dVf = (P8^T dO) descaleS descaleDO; amax_dV = max|dVf|;
//        dV = dVf scaleDV; dP = (dO V^T) descaleDO descaleV;
//        dS = (dP - D) P attnScale;
//        amax_dP = max|dS|; dS8 = round_dPType(dS scaleDP), dPType = dO's type;
//        dQf = (dS8 K) descaleDP descaleK; dKf = (dS8^T Q) descaleDP descaleQ;
//        amaxes before the output scales; outputs multiplied by their scales.
//        Dropout is not supported by cuDNN's fp8 backward: rejected.
//
// MXFP8 (block 32, E8M0 descales given in their logical, un-swizzled layout:
// the descale has the data's dims with the block axis divided by 32, rounded
// up; larger (padded) descale dims are accepted and the tail ignored):
//   fwd: Q, K blocked along D (axis 3), V blocked along Skv (axis 2); the
//        inputs are dequantized (x * descale of its block), then the sdpa
//        forward runs in double. P is kept unquantized by default
//        (MxPQuant::None); Amax_O = max|O| (MXFP8 O is unscaled).
//   bwd (sdpa_fp8_bwd.h MXFP8 branch): S from q (axis 3) and k (axis 3);
//        D from the f16 copies o_f16, dO_f16; dV = P^T deq(dO_T, axis 2);
//        dP = deq(dO, axis 3) deq(v, axis 2)^T; dQ = dS deq(k_T, axis 2);
//        dK = dS^T deq(q_T, axis 2); P and dS stay unquantized ("MXFP8 keeps
//        P in fp32"); amaxes of the unscaled outputs.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_REFERENCE_ATTENTIONKERNELS_H
#define GRAPHDIALECT_REFERENCE_ATTENTIONKERNELS_H

#include "GraphDialect/Reference/NdArray.h"
#include "GraphDialect/Support/Alibi.h"

#include <optional>
#include <string>

namespace graph::ref {

enum class DiagonalAlignment { TopLeft, BottomRight };

/// Mask, scale and dropout options shared by every sdpa variant.
struct SdpaOptions {
  double attnScale = 1.0;
  const NdArray *bias = nullptr; // [B|1, Hq|1, Sq|1, Skv|1]
  bool useAlibiMask = false;
  bool usePaddingMask = false;
  const NdArray *seqLenQ = nullptr;  // [B,1,1,1] (any shape of B elements)
  const NdArray *seqLenKV = nullptr; // [B,1,1,1]
  DiagonalAlignment diagonalAlignment = DiagonalAlignment::TopLeft;
  std::optional<int64_t> leftBound;  // diagonal_band_left_bound (>= 1)
  std::optional<int64_t> rightBound; // diagonal_band_right_bound (>= 0)
  double dropoutProbability = 0.0;
  const NdArray *dropoutMask = nullptr; // [B|1, Hq|1, Sq|1, Skv|1], 0 = drop
  std::optional<double> dropoutScale;   // default 1 / (1 - p)
  // An attention sink: one extra logit per query head in every valid row's
  // softmax, with no value row ([1, Hq, 1, 1]; Stats counts it).
  const NdArray *sinkToken = nullptr;
  // Block sparsity: bit n % 8 of byte n / 8 of [B, Hq, ceil(Sq / 128),
  // ceil(ceil(Skv / 128) / 8)] keeps tile (i / 128, n = j / 128).
  const NdArray *blockMask = nullptr;
};

/// Folds the deprecated frontend flags into the band options: causal sets
/// {TopLeft, right 0}, causal bottom right {BottomRight, right 0} (a right
/// bound already given is kept), sliding_window_length sets the left bound.
/// Returns an error when both causal flags are set.
std::string applyLegacyMaskFlags(SdpaOptions &opts, bool causalMask,
                                 bool causalMaskBottomRight,
                                 std::optional<int64_t> slidingWindowLength);

using graph::alibiSlope; // GraphDialect/Support/Alibi.h

struct SdpaForwardResult {
  NdArray o;           // [B,Hq,Sq,Dv]
  NdArray stats;       // [B,Hq,Sq,1]
  NdArray scoreMax;    // [B,Hq,Sq,1]
  NdArray scoreSumExp; // [B,Hq,Sq,1]
};

std::string sdpaForward(const NdArray &q, const NdArray &k, const NdArray &v,
                        const SdpaOptions &opts, SdpaForwardResult &out);

/// The `[B, H, maxSeq, D]` K or V a paged cache holds: position s of batch
/// b is row s % page_size of page table[b, 0, s / page_size, 0] of
/// `container` `[pages, H, page_size, D]`. Positions at or past the batch's
/// `seqLen` (`[B, 1, 1, 1]`; null: none) read zero (the padding mask hides
/// them); a page number outside the container is an error naming it.
std::string pagedCacheGather(const NdArray &container, const NdArray &table,
                             const NdArray *seqLen, int64_t maxSeq,
                             NdArray &out);

/// The padded `[B, H, S, D]` value of a ragged (packed) tensor `port`.
/// `value` is the tensor as its `strides` (empty: row-major) read the
/// buffer; batch b starts at element `offsets[b]` of that buffer instead of
/// `b * strides[0]` and packs its first `seqLen[b]` positions (the others
/// read 0). An offset reading past the buffer is an error naming `port`.
std::string raggedUnpack(const NdArray &value, const Shape &strides,
                         const NdArray &offsets, const NdArray &seqLen,
                         const std::string &port, NdArray &out);

/// The inverse for an output: `padded`'s first `seqLen[b]` positions of
/// each batch written at the ragged offsets, as `strides` read that buffer
/// back (positions nothing writes are 0). `written`, when given, gets one
/// flag per element of `out` (row-major): whether a packed position lies
/// at its address, i.e. whether the result writes it; the gaps between
/// batches and the tail past the last are not written.
std::string raggedPack(const NdArray &padded, const Shape &strides,
                       const NdArray &offsets, const NdArray &seqLen,
                       const std::string &port, NdArray &out,
                       std::vector<char> *written = nullptr);

struct SdpaBackwardResult {
  NdArray dQ, dK, dV;
  NdArray dBias;      // bias's shape; empty without bias
  NdArray dSinkToken; // [1, Hq, 1, 1]; empty without a sink
};

std::string sdpaBackward(const NdArray &q, const NdArray &k, const NdArray &v,
                         const NdArray &o, const NdArray &dO,
                         const NdArray &stats, const SdpaOptions &opts,
                         SdpaBackwardResult &out);

//===----------------------------------------------------------------------===//
// FP8
//===----------------------------------------------------------------------===//

struct SdpaFp8ForwardScales {
  double descaleQ = 1, descaleK = 1, descaleV = 1, descaleS = 1;
  double scaleS = 1, scaleO = 1;
};

struct SdpaFp8ForwardResult {
  NdArray o, stats, scoreMax, scoreSumExp;
  double amaxS = 0, amaxO = 0;
};

/// `pType` is the fp8 type P is quantized to (Q's dtype).
std::string sdpaFp8Forward(const NdArray &q, const NdArray &k, const NdArray &v,
                           const SdpaFp8ForwardScales &scales, DType pType,
                           const SdpaOptions &opts, SdpaFp8ForwardResult &out);

struct SdpaFp8BackwardScales {
  double descaleQ = 1, descaleK = 1, descaleV = 1, descaleO = 1, descaleDO = 1,
         descaleS = 1, descaleDP = 1;
  double scaleS = 1, scaleDQ = 1, scaleDK = 1, scaleDV = 1, scaleDP = 1;
};

struct SdpaFp8BackwardResult {
  NdArray dQ, dK, dV, dBias;
  double amaxDQ = 0, amaxDK = 0, amaxDV = 0, amaxDP = 0;
};

/// `pType`: Q's fp8 type; `dPType`: dO's fp8 type.
std::string sdpaFp8Backward(const NdArray &q, const NdArray &k,
                            const NdArray &v, const NdArray &o,
                            const NdArray &dO, const NdArray &stats,
                            const SdpaFp8BackwardScales &scales, DType pType,
                            DType dPType, const SdpaOptions &opts,
                            SdpaFp8BackwardResult &out);

//===----------------------------------------------------------------------===//
// MXFP8
//===----------------------------------------------------------------------===//

/// Multiplies every element of `x` by the descale of its block: the block of
/// x[..., i_axis, ...] is descale[..., i_axis / blockSize, ...]. `descale`
/// has x's rank; every dim must be >= the needed extent.
std::string blockDequantize(const NdArray &x, const NdArray &descale,
                            int64_t axis, int64_t blockSize, NdArray &out,
                            const char *port);

struct SdpaMxfp8ForwardResult {
  NdArray o, stats, scoreMax, scoreSumExp;
  double amaxO = 0;
};

/// Optional quantization of P before P V (unknown in cuDNN; off by default).
struct MxPQuant {
  bool enabled = false;
  DType type = DType::F8E4M3FN;
  double scale = 1.0; // P8 = round(P scale); the product is divided back
};

std::string sdpaMxfp8Forward(const NdArray &q, const NdArray &k,
                             const NdArray &v, const NdArray &descaleQ,
                             const NdArray &descaleK, const NdArray &descaleV,
                             const SdpaOptions &opts,
                             SdpaMxfp8ForwardResult &out,
                             const MxPQuant &pQuant = {});

struct SdpaMxfp8BackwardInputs {
  const NdArray *q = nullptr, *qT = nullptr, *k = nullptr, *kT = nullptr,
                *v = nullptr, *oF16 = nullptr, *dOF16 = nullptr, *dO = nullptr,
                *dOT = nullptr, *stats = nullptr;
  const NdArray *descaleQ = nullptr, *descaleQT = nullptr, *descaleK = nullptr,
                *descaleKT = nullptr, *descaleV = nullptr, *descaleDO = nullptr,
                *descaleDOT = nullptr;
};

struct SdpaMxfp8BackwardResult {
  NdArray dQ, dK, dV;
  double amaxDQ = 0, amaxDK = 0, amaxDV = 0;
};

std::string sdpaMxfp8Backward(const SdpaMxfp8BackwardInputs &in,
                              const SdpaOptions &opts,
                              SdpaMxfp8BackwardResult &out);

} // namespace graph::ref

#endif // GRAPHDIALECT_REFERENCE_ATTENTIONKERNELS_H
