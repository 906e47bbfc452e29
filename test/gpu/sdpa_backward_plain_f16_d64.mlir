// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=6 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: an sdpa backward with no mask, f16 b2 h3 s128 d64 (the frontend's
// test_sdpa_slightly_negative_row_max shape). cuDNN 9.19 refuses it as the
// unified SDPA_BWD operation (buildDAG BAD_PARAM); the cuDNN group retries
// it as the composite attention graph.
// GPU-ARGS: --random-inputs=6 --check-against=cpu
graph.graph @plain(%q: tensor<2x3x128x64xf16> {graph.name = "Q"},
                   %k: tensor<2x3x128x64xf16> {graph.name = "K"},
                   %v: tensor<2x3x128x64xf16> {graph.name = "V"},
                   %o: tensor<2x3x128x64xf16> {graph.name = "O"},
                   %do: tensor<2x3x128x64xf16> {graph.name = "dO"},
                   %stats: tensor<2x3x128x1xf32> {graph.name = "Stats"})
    -> (tensor<2x3x128x64xf16> {graph.name = "dQ"}, tensor<2x3x128x64xf16> {graph.name = "dK"},
        tensor<2x3x128x64xf16> {graph.name = "dV"})
    attributes {compute_data_type = f32} {
  %dq, %dk, %dv = graph.sdpa_backward %q, %k, %v, %o, %do, %stats {attn_scale_value = 0.125 : f64} : (tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x1xf32>) -> (tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>)
  graph.output %dq, %dk, %dv : tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>
}
