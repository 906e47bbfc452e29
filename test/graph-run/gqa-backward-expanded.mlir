// graph-expand-gqa-backward keeps the numbers: the expanded graph (k, v
// repeated per query head, dK, dV summed per key/value head) gives the
// gradients of the grouped-query backward on the CPU reference.
// RUN: graph-run %s --device=cpu --random-inputs=3 --output=dK=@%t.dk.npy --output=dV=@%t.dv.npy --output=dQ=@%t.dq.npy | FileCheck %s --check-prefix=REF
// RUN: graph-opt %s --graph-prepare --graph-expand-gqa-backward > %t.mlir
// RUN: FileCheck %s --check-prefix=EXPANDED < %t.mlir
// RUN: graph-run %t.mlir --device=cpu --random-inputs=3 --expected-output=dK=@%t.dk.npy --expected-output=dV=@%t.dv.npy --expected-output=dQ=@%t.dq.npy --rtol=1e-2 | FileCheck %s
// REF: result[0]
// EXPANDED: concatenate
// CHECK-COUNT-3: [SUCCESS]
graph.graph @gqa_backward(%q: tensor<1x8x16x8xf16> {graph.name = "q"}, %k: tensor<1x2x16x8xf16> {graph.name = "k"},
                          %v: tensor<1x2x16x8xf16> {graph.name = "v"}, %o: tensor<1x8x16x8xf16> {graph.name = "o"},
                          %do: tensor<1x8x16x8xf16> {graph.name = "dO"}, %stats: tensor<1x8x16x1xf32> {graph.name = "stats"})
    -> (tensor<1x8x16x8xf16> {graph.name = "dQ"}, tensor<1x2x16x8xf16> {graph.name = "dK"}, tensor<1x2x16x8xf16> {graph.name = "dV"})
    attributes {compute_data_type = f32} {
  %dq, %dk, %dv = graph.sdpa_backward %q, %k, %v, %o, %do, %stats {use_causal_mask, attn_scale_value = 0.35 : f64, name = "attn_bwd"}
      : (tensor<1x8x16x8xf16>, tensor<1x2x16x8xf16>, tensor<1x2x16x8xf16>, tensor<1x8x16x8xf16>, tensor<1x8x16x8xf16>, tensor<1x8x16x1xf32>)
      -> (tensor<1x8x16x8xf16>, tensor<1x2x16x8xf16>, tensor<1x2x16x8xf16>)
  graph.output %dq, %dk, %dv : tensor<1x8x16x8xf16>, tensor<1x2x16x8xf16>, tensor<1x2x16x8xf16>
}
