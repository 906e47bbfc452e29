// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=7 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: sliding-window sdpa, top-left, left bound 50 and right bound 37 (b1 h2
// s256 d64, bf16), forward with Stats and backward: a right bound > 0 is the
// case the FLOAT row shift got wrong (test_mhas_v2 random_fwd test23 family).
// GPU-ARGS: --random-inputs=7 --check-against=cpu
graph.graph @window(%q: tensor<1x2x256x64xbf16> {graph.name = "Q"},
                    %k: tensor<1x2x256x64xbf16> {graph.name = "K"},
                    %v: tensor<1x2x256x64xbf16> {graph.name = "V"},
                    %do: tensor<1x2x256x64xbf16> {graph.name = "dO"})
    -> (tensor<1x2x256x64xbf16> {graph.name = "O"}, tensor<1x2x256x64xbf16> {graph.name = "dQ"},
        tensor<1x2x256x64xbf16> {graph.name = "dK"}, tensor<1x2x256x64xbf16> {graph.name = "dV"})
    attributes {compute_data_type = f32} {
  %o, %stats = graph.sdpa %q, %k, %v {generate_stats, diagonal_band_left_bound = 50 : i64, diagonal_band_right_bound = 37 : i64, attn_scale_value = 0.125 : f64} : (tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>) -> (tensor<1x2x256x64xbf16>, tensor<1x2x256x1xf32>, none, none)
  %dq, %dk, %dv = graph.sdpa_backward %q, %k, %v, %o, %do, %stats {diagonal_band_left_bound = 50 : i64, diagonal_band_right_bound = 37 : i64, attn_scale_value = 0.125 : f64} : (tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x1xf32>) -> (tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>)
  graph.output %o, %dq, %dk, %dv : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>
}
