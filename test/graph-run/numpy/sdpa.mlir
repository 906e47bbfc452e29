// RUN: %python %S/check.py sdpa %s graph-run %t | FileCheck %s
// CHECK: [OK] sdpa/o_causal:
// CHECK: [OK] sdpa/o_full:
graph.graph @sdpa(%q: tensor<2x2x16x8xbf16> {graph.name = "q"},
                  %k: tensor<2x2x16x8xbf16> {graph.name = "k"},
                  %v: tensor<2x2x16x8xbf16> {graph.name = "v"})
    -> (tensor<2x2x16x8xbf16> {graph.name = "o_causal"}, tensor<2x2x16x8xbf16> {graph.name = "o_full"}) {
  %o = graph.sdpa %q, %k, %v {use_causal_mask, attn_scale_value = 0.35355339059327373 : f64}
      : (tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>) -> (tensor<2x2x16x8xbf16>, none, none, none)
  %of = graph.sdpa %q, %k, %v {attn_scale_value = 0.35355339059327373 : f64}
      : (tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>) -> (tensor<2x2x16x8xbf16>, none, none, none)
  graph.output %o, %of : tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>
}
