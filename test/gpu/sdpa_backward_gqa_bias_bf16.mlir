// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=8 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: grouped-query sdpa backward (q 6 heads, k/v 2) with a bias, its
// dBias and deterministic gradients, bf16 b2 s64 d64: the composite graph
// makes dK and dV per q head and reduces each group of 3 into its k/v head.
// GPU-ARGS: --random-inputs=8 --check-against=cpu
graph.graph @gqa(%q: tensor<2x6x64x64xbf16> {graph.name = "Q"},
                 %k: tensor<2x2x64x64xbf16> {graph.name = "K"},
                 %v: tensor<2x2x64x64xbf16> {graph.name = "V"},
                 %o: tensor<2x6x64x64xbf16> {graph.name = "O"},
                 %do: tensor<2x6x64x64xbf16> {graph.name = "dO"},
                 %stats: tensor<2x6x64x1xf32> {graph.name = "Stats"},
                 %bias: tensor<1x6x64x64xbf16> {graph.name = "bias"})
    -> (tensor<2x6x64x64xbf16> {graph.name = "dQ"}, tensor<2x2x64x64xbf16> {graph.name = "dK"},
        tensor<2x2x64x64xbf16> {graph.name = "dV"}, tensor<1x6x64x64xbf16> {graph.name = "dBias"})
    attributes {compute_data_type = f32} {
  %dq, %dk, %dv, %db = graph.sdpa_backward %q, %k, %v, %o, %do, %stats bias %bias {attn_scale_value = 0.125 : f64, use_deterministic_algorithm} : (tensor<2x6x64x64xbf16>, tensor<2x2x64x64xbf16>, tensor<2x2x64x64xbf16>, tensor<2x6x64x64xbf16>, tensor<2x6x64x64xbf16>, tensor<2x6x64x1xf32>, tensor<1x6x64x64xbf16>) -> (tensor<2x6x64x64xbf16>, tensor<2x2x64x64xbf16>, tensor<2x2x64x64xbf16>, tensor<1x6x64x64xbf16>)
  graph.output %dq, %dk, %dv, %db : tensor<2x6x64x64xbf16>, tensor<2x2x64x64xbf16>, tensor<2x2x64x64xbf16>, tensor<1x6x64x64xbf16>
}
