// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=13 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: sdpa backward with an attention sink and its gradient dSink_token
// ([1, h, 1, 1] f32: minus the sink's probability times rowsum(dO * O),
// summed over batches and rows), causal, bf16 b2 h4 s128 d64.
// GPU: Passes on the H200 (2026-12-03, cuDNN 9.19: dQ, dK, dV, dSink_token);
// GPU: with dropout the engine scales dSink by the keep probability, so the
// GPU: lowering declines a backward sink with dropout.
// GPU-ARGS: --random-inputs=13 --check-against=cpu
graph.graph @sink_backward(%q: tensor<2x4x128x64xbf16> {graph.name = "Q"},
                           %k: tensor<2x4x128x64xbf16> {graph.name = "K"},
                           %v: tensor<2x4x128x64xbf16> {graph.name = "V"},
                           %o: tensor<2x4x128x64xbf16> {graph.name = "O"},
                           %do: tensor<2x4x128x64xbf16> {graph.name = "dO"},
                           %stats: tensor<2x4x128x1xf32> {graph.name = "Stats"},
                           %sink: tensor<1x4x1x1xf32> {graph.name = "sink"})
    -> (tensor<2x4x128x64xbf16> {graph.name = "dQ"}, tensor<2x4x128x64xbf16> {graph.name = "dK"},
        tensor<2x4x128x64xbf16> {graph.name = "dV"}, tensor<1x4x1x1xf32> {graph.name = "dSink"})
    attributes {compute_data_type = f32} {
  %dq, %dk, %dv, %ds = graph.sdpa_backward %q, %k, %v, %o, %do, %stats sink_token %sink {attn_scale_value = 0.125 : f64, use_causal_mask} : (tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x1xf32>, tensor<1x4x1x1xf32>) -> (tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<1x4x1x1xf32>)
  graph.output %dq, %dk, %dv, %ds : tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<2x4x128x64xbf16>, tensor<1x4x1x1xf32>
}
