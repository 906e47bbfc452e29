// RUN: graph-opt %s --graph-prepare --graph-expand-gqa-backward | FileCheck %s

// Grouped-query attention backward (8 query heads, 2 key/value heads): k
// and v are read repeated per query head, and dK/dV are the sums of the 4
// query heads' gradients of each key/value head, back in the user's types.
// CHECK-LABEL: graph.graph @gqa_backward
// CHECK: %[[K5:.+]] = reshape %arg1 {name = "attn_bwd.gqa_k5"} : ({{.*}}) -> tensor<1x2x1x16x8xbf16
// CHECK: %[[KC:.+]] = concatenate %[[K5]], %[[K5]], %[[K5]], %[[K5]] {axis = 2 : i64, name = "attn_bwd.gqa_k_repeated"} : ({{.*}}) -> tensor<1x2x4x16x8xbf16
// CHECK: %[[KH:.+]] = reshape %[[KC]] {name = "attn_bwd.gqa_k_heads"} : ({{.*}}) -> tensor<1x8x16x8xbf16
// CHECK: %[[VH:.+]] = reshape {{.*}}gqa_v_heads
// CHECK: %[[DQ:.+]], %[[DKX:.+]], %[[DVX:.+]] = sdpa_backward %arg0, %[[KH]], %[[VH]], {{.*}} -> (tensor<1x8x16x8xbf16, {{.*}}>, tensor<1x8x16x8xbf16, {{.*}}>, tensor<1x8x16x8xbf16, {{.*}}>)
// CHECK: %[[G:.+]] = reshape %[[DKX]] {name = "attn_bwd.gqa_dK_groups"} : ({{.*}}) -> tensor<1x2x4x16x8xbf16
// CHECK: %[[S:.+]] = reduction add %[[G]] {name = "attn_bwd.gqa_dK_sum"} : ({{.*}}) -> tensor<1x2x1x16x8xbf16
// CHECK: %[[DK:.+]] = reshape %[[S]] {name = "attn_bwd.gqa_dK"} : ({{.*}}) -> tensor<1x2x16x8xbf16
// CHECK: %[[DV:.+]] = reshape {{.*}}gqa_dV"
// CHECK: output %[[DQ]], %[[DK]], %[[DV]]
graph.graph @gqa_backward(%q: tensor<1x8x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>,
                          %o: tensor<1x8x16x8xbf16>, %do: tensor<1x8x16x8xbf16>, %stats: tensor<1x8x16x1xf32>)
    -> (tensor<1x8x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>) attributes {compute_data_type = f32} {
  %dq, %dk, %dv = graph.sdpa_backward %q, %k, %v, %o, %do, %stats {use_causal_mask, attn_scale_value = 0.35 : f64, name = "attn_bwd"}
      : (tensor<1x8x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x8x16x8xbf16>, tensor<1x8x16x8xbf16>, tensor<1x8x16x1xf32>)
      -> (tensor<1x8x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>)
  graph.output %dq, %dk, %dv : tensor<1x8x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>
}

// Multi-head attention backward is left alone.
// CHECK-LABEL: graph.graph @mha_backward
// CHECK-NOT: concatenate
// CHECK: sdpa_backward %arg0, %arg1, %arg2
graph.graph @mha_backward(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>,
                          %o: tensor<1x2x16x8xbf16>, %do: tensor<1x2x16x8xbf16>, %stats: tensor<1x2x16x1xf32>)
    -> (tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>) attributes {compute_data_type = f32} {
  %dq, %dk, %dv = graph.sdpa_backward %q, %k, %v, %o, %do, %stats {use_causal_mask}
      : (tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x1xf32>)
      -> (tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>)
  graph.output %dq, %dk, %dv : tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>
}
