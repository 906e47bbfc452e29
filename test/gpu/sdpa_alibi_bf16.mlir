// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=5 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: ALiBi + causal sdpa forward and backward, bf16 b2 h4 s512 d64 (the
// frontend's test_sdpa_alibi shape): the slopes are a [1,4,1,1] constant the
// cuDNN lowering uploads into the workspace before each run.
// GPU-ARGS: --random-inputs=5 --check-against=cpu
graph.graph @alibi(%q: tensor<2x4x512x64xbf16> {graph.name = "Q"},
                   %k: tensor<2x4x512x64xbf16> {graph.name = "K"},
                   %v: tensor<2x4x512x64xbf16> {graph.name = "V"},
                   %do: tensor<2x4x512x64xbf16> {graph.name = "dO"})
    -> (tensor<2x4x512x64xbf16> {graph.name = "O"}, tensor<2x4x512x1xf32> {graph.name = "Stats"},
        tensor<2x4x512x64xbf16> {graph.name = "dQ"}, tensor<2x4x512x64xbf16> {graph.name = "dK"},
        tensor<2x4x512x64xbf16> {graph.name = "dV"})
    attributes {compute_data_type = f32} {
  %o, %stats = graph.sdpa %q, %k, %v {use_causal_mask, use_alibi_mask, generate_stats, attn_scale_value = 0.125 : f64} : (tensor<2x4x512x64xbf16>, tensor<2x4x512x64xbf16>, tensor<2x4x512x64xbf16>) -> (tensor<2x4x512x64xbf16>, tensor<2x4x512x1xf32>, none, none)
  %dq, %dk, %dv = graph.sdpa_backward %q, %k, %v, %o, %do, %stats {use_causal_mask, use_alibi_mask, attn_scale_value = 0.125 : f64} : (tensor<2x4x512x64xbf16>, tensor<2x4x512x64xbf16>, tensor<2x4x512x64xbf16>, tensor<2x4x512x64xbf16>, tensor<2x4x512x64xbf16>, tensor<2x4x512x1xf32>) -> (tensor<2x4x512x64xbf16>, tensor<2x4x512x64xbf16>, tensor<2x4x512x64xbf16>)
  graph.output %o, %stats, %dq, %dk, %dv : tensor<2x4x512x64xbf16>, tensor<2x4x512x1xf32>, tensor<2x4x512x64xbf16>, tensor<2x4x512x64xbf16>, tensor<2x4x512x64xbf16>
}
