// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=5 --input=seq_q=@%S/Inputs/sdpa_padding_seq_q.npy --input=seq_kv=@%S/Inputs/sdpa_padding_seq_kv.npy --input=off_q=@%S/Inputs/sdpa_ragged_offsets_q.npy --input=off_kv=@%S/Inputs/sdpa_ragged_offsets_kv.npy --input=off_st=@%S/Inputs/sdpa_ragged_offsets_stats.npy --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: sdpa forward bf16 (b2 h4 s128 d64) on ragged (packed THD) Q, K, V
// GPU: and O: batch 1 starts right after batch 0's 128 positions (offsets
// GPU: [0, 32768, 52480] for Q/O, [0, 32768, 58368] for K/V), with the
// GPU: padding mask (seq_len_q 128/77, seq_len_kv 128/100) and a causal
// GPU: band: the composite graph with ragged offset descriptors; Stats
// GPU: packed too (THD [b, s, h, 1], offsets [0, 512, 820]). Passes on the
// GPU: H200 (2026-12-02, the GPU suite at 9df4591).
// GPU-ARGS: --random-inputs=5 --input=seq_q=@%S/Inputs/sdpa_padding_seq_q.npy --input=seq_kv=@%S/Inputs/sdpa_padding_seq_kv.npy --input=off_q=@%S/Inputs/sdpa_ragged_offsets_q.npy --input=off_kv=@%S/Inputs/sdpa_ragged_offsets_kv.npy --input=off_st=@%S/Inputs/sdpa_ragged_offsets_stats.npy --check-against=cpu
graph.graph @sdpa_ragged_stats(%q: tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>> {graph.name = "Q"},
                         %k: tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>> {graph.name = "K"},
                         %v: tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>> {graph.name = "V"},
                         %lq: tensor<2x1x1x1xi32> {graph.name = "seq_q"},
                         %lkv: tensor<2x1x1x1xi32> {graph.name = "seq_kv"},
                         %offq: tensor<3x1x1x1xi64> {graph.name = "off_q"},
                         %offkv: tensor<3x1x1x1xi64> {graph.name = "off_kv"},
                         %offst: tensor<3x1x1x1xi64> {graph.name = "off_st"})
    -> (tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>> {graph.name = "O"}, tensor<2x4x128x1xf32, #graph.strides<[512, 1, 4, 1]>> {graph.name = "Stats"})
    attributes {compute_data_type = f32} {
  %o, %stats = graph.sdpa %q, %k, %v seq_len_q %lq seq_len_kv %lkv ragged_offset_q %offq ragged_offset_k %offkv ragged_offset_v %offkv ragged_offset_O %offq ragged_offset_Stats %offst {attn_scale_value = 0.125 : f64, use_padding_mask, use_causal_mask, generate_stats} : (tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>>, tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>>, tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>) -> (tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>>, tensor<2x4x128x1xf32, #graph.strides<[512, 1, 4, 1]>>, none, none)
  graph.output %o, %stats : tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>>, tensor<2x4x128x1xf32, #graph.strides<[512, 1, 4, 1]>>
}
