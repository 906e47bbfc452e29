// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=6 --input=seq_q=@%S/Inputs/sdpa_padding_seq_q.npy --input=seq_kv=@%S/Inputs/sdpa_padding_seq_kv.npy --input=off_q=@%S/Inputs/sdpa_ragged_offsets_q.npy --input=off_kv=@%S/Inputs/sdpa_ragged_offsets_kv.npy --input=off_st=@%S/Inputs/sdpa_ragged_offsets_stats.npy --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: sdpa backward bf16 (b2 h4 s128 d64) on ragged (packed THD) q, k, v,
// GPU: o, dO and dQ, dK, dV (offsets as sdpa_ragged_bf16), padding mask and
// GPU: causal band; stats packed too (THD [b, s, h, 1]). Passes on the H200
// GPU: (2026-12-02, the GPU suite at 9df4591).
// GPU-ARGS: --random-inputs=6 --input=seq_q=@%S/Inputs/sdpa_padding_seq_q.npy --input=seq_kv=@%S/Inputs/sdpa_padding_seq_kv.npy --input=off_q=@%S/Inputs/sdpa_ragged_offsets_q.npy --input=off_kv=@%S/Inputs/sdpa_ragged_offsets_kv.npy --input=off_st=@%S/Inputs/sdpa_ragged_offsets_stats.npy --check-against=cpu
graph.graph @sdpa_backward_ragged_stats(%q: tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>> {graph.name = "q"}, %k: tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>> {graph.name = "k"},
                                  %v: tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>> {graph.name = "v"}, %o: tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>> {graph.name = "o"},
                                  %do: tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>> {graph.name = "dO"},
                                  %stats: tensor<2x4x128x1xf32, #graph.strides<[512, 1, 4, 1]>> {graph.name = "stats"},
                                  %lq: tensor<2x1x1x1xi32> {graph.name = "seq_q"},
                                  %lkv: tensor<2x1x1x1xi32> {graph.name = "seq_kv"},
                                  %offq: tensor<3x1x1x1xi64> {graph.name = "off_q"},
                                  %offkv: tensor<3x1x1x1xi64> {graph.name = "off_kv"},
                         %offst: tensor<3x1x1x1xi64> {graph.name = "off_st"})
    -> (tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>> {graph.name = "dQ"}, tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>> {graph.name = "dK"}, tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>> {graph.name = "dV"})
    attributes {compute_data_type = f32} {
  %dq, %dk, %dv = graph.sdpa_backward %q, %k, %v, %o, %do, %stats seq_len_q %lq seq_len_kv %lkv ragged_offset_q %offq ragged_offset_k %offkv ragged_offset_v %offkv ragged_offset_o %offq ragged_offset_dO %offq ragged_offset_dQ %offq ragged_offset_dK %offkv ragged_offset_dV %offkv ragged_offset_stats %offst {attn_scale_value = 0.125 : f64, use_padding_mask, use_causal_mask} : (tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>>, tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>>, tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>>, tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>>, tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>>, tensor<2x4x128x1xf32, #graph.strides<[512, 1, 4, 1]>>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>) -> (tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>>, tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>>, tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>>)
  graph.output %dq, %dk, %dv : tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>>, tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>>, tensor<2x4x128x64xbf16, #graph.strides<[32768, 64, 256, 1]>>
}
