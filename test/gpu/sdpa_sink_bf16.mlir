// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=11 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: sdpa forward with an attention sink (sink_token [1, h, 1, 1] f32,
// test_mhas_v2's with_sink_token), causal, bf16 b2 h4 s128 d64, with
// Stats: the frontend's composite softmax with the sink's max and exp ops.
// GPU: Passes on the H200 (2026-12-03, cuDNN 9.19: O and Stats).
// GPU-ARGS: --random-inputs=11 --check-against=cpu
graph.graph @sink(%q: tensor<2x4x128x64xbf16> {graph.name = "Q"},
                  %k: tensor<2x4x128x64xbf16> {graph.name = "K"},
                  %v: tensor<2x4x128x64xbf16> {graph.name = "V"},
                  %sink: tensor<1x4x1x1xf32> {graph.name = "sink"})
    -> (tensor<2x4x128x64xbf16> {graph.name = "O"}, tensor<2x4x128x1xf32> {graph.name = "Stats"})
    attributes {compute_data_type = f32} {
  %o, %stats = graph.sdpa %q, %k, %v sink_token %sink {attn_scale_value = 0.125 : f64, use_causal_mask, generate_stats} : (tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<1x4x1x1xf32>) -> (tensor<2x4x128x64xbf16>, tensor<2x4x128x1xf32>, none, none)
  graph.output %o, %stats : tensor<2x4x128x64xbf16>, tensor<2x4x128x1xf32>
}
