// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=5 --input=seq_q=@%S/Inputs/sdpa_padding_seq_q.npy --input=seq_kv=@%S/Inputs/sdpa_padding_seq_kv.npy --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: sdpa forward and backward bf16 (b2 h4 s128 d64) with the padding mask
// GPU: (seq_len_q 128/77, seq_len_kv 128/100) and a bottom-right causal (each batch's diagonal at its own s_kv - s_q):
// GPU: the composite graphs, every attention matmul bounded by the lengths.
// GPU-ARGS: --random-inputs=5 --input=seq_q=@%S/Inputs/sdpa_padding_seq_q.npy --input=seq_kv=@%S/Inputs/sdpa_padding_seq_kv.npy --check-against=cpu
graph.graph @sdpa_padding(%q: tensor<2x4x128x64xbf16> {graph.name = "Q"},
                          %k: tensor<2x4x128x64xbf16> {graph.name = "K"},
                          %v: tensor<2x4x128x64xbf16> {graph.name = "V"},
                          %do: tensor<2x4x128x64xbf16> {graph.name = "dO"},
                          %lq: tensor<2x1x1x1xi32> {graph.name = "seq_q"},
                          %lkv: tensor<2x1x1x1xi32> {graph.name = "seq_kv"})
    -> (tensor<2x4x128x64xbf16> {graph.name = "O"}, tensor<2x4x128x1xf32> {graph.name = "Stats"},
        tensor<2x4x128x64xbf16> {graph.name = "dQ"}, tensor<2x4x128x64xbf16> {graph.name = "dK"}, tensor<2x4x128x64xbf16> {graph.name = "dV"})
    attributes {compute_data_type = f32} {
  %o, %stats = graph.sdpa %q, %k, %v seq_len_q %lq seq_len_kv %lkv {use_padding_mask, use_causal_mask_bottom_right, generate_stats, attn_scale_value = 0.125 : f64} : (tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>) -> (tensor<2x4x128x64xbf16>, tensor<2x4x128x1xf32>, none, none)
  %dq, %dk, %dv = graph.sdpa_backward %q, %k, %v, %o, %do, %stats seq_len_q %lq seq_len_kv %lkv {use_padding_mask, use_causal_mask_bottom_right, attn_scale_value = 0.125 : f64} : (tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x1xf32>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>) -> (tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>)
  graph.output %o, %stats, %dq, %dk, %dv : tensor<2x4x128x64xbf16>, tensor<2x4x128x1xf32>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>
}
