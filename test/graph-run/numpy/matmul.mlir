// RUN: %python %S/check.py matmul %s graph-run %t | FileCheck %s
// CHECK: [OK] matmul/c:
// CHECK: [OK] matmul/c_bias:
graph.graph @matmul(%a: tensor<2x3x4x5xf32> {graph.name = "a"},
                    %b: tensor<1x3x5x6xf32> {graph.name = "b"},
                    %bias: tensor<1x1x1x6xf32> {graph.name = "bias"})
    -> (tensor<2x3x4x6xf32> {graph.name = "c"}, tensor<2x3x4x6xf32> {graph.name = "c_bias"}) {
  %c = graph.matmul %a, %b : (tensor<2x3x4x5xf32>, tensor<1x3x5x6xf32>) -> tensor<2x3x4x6xf32>
  %cb = graph.pointwise add(%c, %bias) : (tensor<2x3x4x6xf32>, tensor<1x1x1x6xf32>) -> tensor<2x3x4x6xf32>
  graph.output %c, %cb : tensor<2x3x4x6xf32>, tensor<2x3x4x6xf32>
}
