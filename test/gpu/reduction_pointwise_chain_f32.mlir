// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=8 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: a pointwise chain with a trailing reduction (add), and a max reduction.
// GPU-ARGS: --random-inputs=8 --check-against=cpu
graph.graph @chain(%x: tensor<64x256xf32> {graph.name = "X"},
                   %s: tensor<1x256xf32> {graph.name = "S"})
    -> (tensor<64x256xf32> {graph.name = "Y"}, tensor<64x1xf32> {graph.name = "sum"},
        tensor<1x256xf32> {graph.name = "max"})
    attributes {compute_data_type = f32} {
  %a = graph.pointwise mul(%x, %s) : (tensor<64x256xf32>, tensor<1x256xf32>) -> tensor<64x256xf32>
  %b = graph.pointwise tanh(%a) : (tensor<64x256xf32>) -> tensor<64x256xf32>
  %c = graph.pointwise add(%b, %x) : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>
  %sum = graph.reduction add %c : (tensor<64x256xf32>) -> tensor<64x1xf32>
  %mx = graph.reduction max %x : (tensor<64x256xf32>) -> tensor<1x256xf32>
  graph.output %c, %sum, %mx : tensor<64x256xf32>, tensor<64x1xf32>, tensor<1x256xf32>
}
