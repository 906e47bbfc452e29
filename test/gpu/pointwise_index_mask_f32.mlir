// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=3 --check-against=cpu --verbose-plans %s | FileCheck %s
// CHECK: plan: causal_mask/group0:
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: the frontend's score_mod causal mask as a graph of its own:
// gen_index computing in i32 and cmp_ge in booleans (the frontend's INT32 and
// BOOLEAN compute types), a pass-by-value fill. The values are compared as
// numbers on every engine.
// GPU-ARGS: --random-inputs=3 --check-against=cpu
graph.graph @causal_mask(%s: tensor<2x4x128x256xf32> {graph.name = "S"},
                         %fill: tensor<1x1x1x1xf32> {graph.by_value, graph.name = "fill"})
    -> (tensor<2x4x128x256xf32> {graph.name = "Y"})
    attributes {compute_data_type = f32} {
  %r = graph.pointwise gen_index(%s) {axis = 2 : i64, compute_data_type = i32} : (tensor<2x4x128x256xf32>) -> tensor<2x4x128x256xi32>
  %c = graph.pointwise gen_index(%s) {axis = 3 : i64, compute_data_type = i32} : (tensor<2x4x128x256xf32>) -> tensor<2x4x128x256xi32>
  %m = graph.pointwise cmp_ge(%r, %c) {compute_data_type = i1} : (tensor<2x4x128x256xi32>, tensor<2x4x128x256xi32>) -> tensor<2x4x128x256xi1>
  %y = graph.pointwise binary_select(%s, %fill, %m) : (tensor<2x4x128x256xf32>, tensor<1x1x1x1xf32>, tensor<2x4x128x256xi1>) -> tensor<2x4x128x256xf32>
  graph.output %y : tensor<2x4x128x256xf32>
}
