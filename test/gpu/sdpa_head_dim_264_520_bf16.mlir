// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=3 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: causal sdpa forward bf16 with head dims above 256 (q/k 264, v 520; the
// GPU: frontend's test_mhas draws them from cuDNN 9.9 on): the op takes any
// GPU: head dim, the engine decides (a refusal names cuDNN's reason).
// GPU-ARGS: --random-inputs=3 --check-against=cpu
graph.graph @sdpa_wide(%q: tensor<1x2x128x264xbf16> {graph.name = "Q"}, %k: tensor<1x2x128x264xbf16> {graph.name = "K"}, %v: tensor<1x2x128x520xbf16> {graph.name = "V"})
    -> (tensor<1x2x128x520xbf16> {graph.name = "O"}, tensor<1x2x128x1xf32> {graph.name = "Stats"}) attributes {compute_data_type = f32} {
  %o, %stats = graph.sdpa %q, %k, %v {use_causal_mask, generate_stats, attn_scale_value = 0.0615 : f64} : (tensor<1x2x128x264xbf16>, tensor<1x2x128x264xbf16>, tensor<1x2x128x520xbf16>) -> (tensor<1x2x128x520xbf16>, tensor<1x2x128x1xf32>, none, none)
  graph.output %o, %stats : tensor<1x2x128x520xbf16>, tensor<1x2x128x1xf32>
}
