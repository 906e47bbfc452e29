// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=5 --check-against=cpu --verbose-plans %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: attention scores over [batch, heads] with a causal mask made of
// gen_index along the score rows and columns (the frontend's score_mod
// masks). The group's batch dims merge into one; the index axes move with
// the matrix dims they count along.
// GPU-ARGS: --random-inputs=5 --check-against=cpu
graph.graph @masked_scores(%q: tensor<2x4x128x64xf16> {graph.name = "Q"},
                           %kt: tensor<2x4x64x128xf16> {graph.name = "KT"},
                           %fill: tensor<1x1x1x1xf32> {graph.by_value, graph.name = "fill"})
    -> (tensor<2x4x128x128xf32> {graph.name = "S"})
    attributes {compute_data_type = f32} {
  %s = graph.matmul %q, %kt : (tensor<2x4x128x64xf16>, tensor<2x4x64x128xf16>) -> tensor<2x4x128x128xf32>
  %r = graph.pointwise gen_index(%s) {axis = 2 : i64, compute_data_type = i32} : (tensor<2x4x128x128xf32>) -> tensor<2x4x128x128xi32>
  %c = graph.pointwise gen_index(%s) {axis = 3 : i64, compute_data_type = i32} : (tensor<2x4x128x128xf32>) -> tensor<2x4x128x128xi32>
  %m = graph.pointwise cmp_ge(%r, %c) {compute_data_type = i1} : (tensor<2x4x128x128xi32>, tensor<2x4x128x128xi32>) -> tensor<2x4x128x128xi1>
  %y = graph.pointwise binary_select(%s, %fill, %m) : (tensor<2x4x128x128xf32>, tensor<1x1x1x1xf32>, tensor<2x4x128x128xi1>) -> tensor<2x4x128x128xf32>
  graph.output %y : tensor<2x4x128x128xf32>
}
