// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=9 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: bottom-right causal sdpa with s_q > s_kv (b1 h2 s_q 200 s_kv 160 d64,
// bf16), forward with Stats and backward: the first 40 query rows see no key,
// so their O and dQ are 0 (the frontend's test_mhas_v2 random_fwd test17
// family). The composite band is INT32 indices shifted by "+ s_kv - s_q" and
// a -inf fill; a FLOAT shift ran with the shift dropped and a finite fill
// averaged V over the dead rows (H200, cuDNN 9.19).
// GPU-ARGS: --random-inputs=9 --check-against=cpu
graph.graph @tall(%q: tensor<1x2x200x64xbf16> {graph.name = "Q"},
                  %k: tensor<1x2x160x64xbf16> {graph.name = "K"},
                  %v: tensor<1x2x160x64xbf16> {graph.name = "V"},
                  %do: tensor<1x2x200x64xbf16> {graph.name = "dO"})
    -> (tensor<1x2x200x64xbf16> {graph.name = "O"}, tensor<1x2x200x64xbf16> {graph.name = "dQ"},
        tensor<1x2x160x64xbf16> {graph.name = "dK"}, tensor<1x2x160x64xbf16> {graph.name = "dV"})
    attributes {compute_data_type = f32} {
  %o, %stats = graph.sdpa %q, %k, %v {generate_stats, diagonal_alignment = #graph.diagonal_alignment<bottom_right>, diagonal_band_right_bound = 0 : i64, attn_scale_value = 0.125 : f64} : (tensor<1x2x200x64xbf16>, tensor<1x2x160x64xbf16>, tensor<1x2x160x64xbf16>) -> (tensor<1x2x200x64xbf16>, tensor<1x2x200x1xf32>, none, none)
  %dq, %dk, %dv = graph.sdpa_backward %q, %k, %v, %o, %do, %stats {diagonal_alignment = #graph.diagonal_alignment<bottom_right>, diagonal_band_right_bound = 0 : i64, attn_scale_value = 0.125 : f64} : (tensor<1x2x200x64xbf16>, tensor<1x2x160x64xbf16>, tensor<1x2x160x64xbf16>, tensor<1x2x200x64xbf16>, tensor<1x2x200x64xbf16>, tensor<1x2x200x1xf32>) -> (tensor<1x2x200x64xbf16>, tensor<1x2x160x64xbf16>, tensor<1x2x160x64xbf16>)
  graph.output %o, %dq, %dk, %dv : tensor<1x2x200x64xbf16>, tensor<1x2x200x64xbf16>, tensor<1x2x160x64xbf16>, tensor<1x2x160x64xbf16>
}
