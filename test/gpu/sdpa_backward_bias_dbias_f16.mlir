// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=7 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: sdpa backward with a [1, h, s_q, s_kv] bias and its gradient dBias,
// causal, f16 b2 h3 s128 d64 (the frontend's test_mhas backward with
// bias1): the composite graph reduces dS over the batch into dBias.
// GPU-ARGS: --random-inputs=7 --check-against=cpu
graph.graph @dbias(%q: tensor<2x3x128x64xf16> {graph.name = "Q"},
                   %k: tensor<2x3x128x64xf16> {graph.name = "K"},
                   %v: tensor<2x3x128x64xf16> {graph.name = "V"},
                   %o: tensor<2x3x128x64xf16> {graph.name = "O"},
                   %do: tensor<2x3x128x64xf16> {graph.name = "dO"},
                   %stats: tensor<2x3x128x1xf32> {graph.name = "Stats"},
                   %bias: tensor<1x3x128x128xf16> {graph.name = "bias"})
    -> (tensor<2x3x128x64xf16> {graph.name = "dQ"}, tensor<2x3x128x64xf16> {graph.name = "dK"},
        tensor<2x3x128x64xf16> {graph.name = "dV"}, tensor<1x3x128x128xf16> {graph.name = "dBias"})
    attributes {compute_data_type = f32} {
  %dq, %dk, %dv, %db = graph.sdpa_backward %q, %k, %v, %o, %do, %stats bias %bias {attn_scale_value = 0.125 : f64, use_causal_mask} : (tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x1xf32>, tensor<1x3x128x128xf16>) -> (tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<1x3x128x128xf16>)
  graph.output %dq, %dk, %dv, %db : tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<2x3x128x64xf16>, tensor<1x3x128x128xf16>
}
