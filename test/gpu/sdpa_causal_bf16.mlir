// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=9 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: causal sdpa forward bf16 (b2 h8 s1024 d128) with Stats, and its backward.
// GPU-ARGS: --random-inputs=9 --check-against=cpu
graph.graph @sdpa(%q: tensor<2x8x1024x128xbf16> {graph.name = "Q"},
                  %k: tensor<2x8x1024x128xbf16> {graph.name = "K"},
                  %v: tensor<2x8x1024x128xbf16> {graph.name = "V"},
                  %do: tensor<2x8x1024x128xbf16> {graph.name = "dO"})
    -> (tensor<2x8x1024x128xbf16> {graph.name = "O"}, tensor<2x8x1024x1xf32> {graph.name = "Stats"},
        tensor<2x8x1024x128xbf16> {graph.name = "dQ"}, tensor<2x8x1024x128xbf16> {graph.name = "dK"},
        tensor<2x8x1024x128xbf16> {graph.name = "dV"})
    attributes {compute_data_type = f32} {
  %o, %stats = graph.sdpa %q, %k, %v {use_causal_mask, generate_stats, attn_scale_value = 0.08838834764831845 : f64} : (tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>) -> (tensor<2x8x1024x128xbf16>, tensor<2x8x1024x1xf32>, none, none)
  %dq, %dk, %dv = graph.sdpa_backward %q, %k, %v, %o, %do, %stats {use_causal_mask, attn_scale_value = 0.08838834764831845 : f64} : (tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>, tensor<2x8x1024x1xf32>) -> (tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>)
  graph.output %o, %stats, %dq, %dk, %dv : tensor<2x8x1024x128xbf16>, tensor<2x8x1024x1xf32>, tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>
}
