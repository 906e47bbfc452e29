// RUN: %python %S/check.py conv %s graph-run %t | FileCheck %s
// CHECK: [OK] conv/y:
// CHECK: [OK] conv/y_plain:
graph.graph @conv(%x: tensor<2x3x9x9xf32> {graph.name = "x"},
                  %w: tensor<4x3x3x3xf32> {graph.name = "w"},
                  %x2: tensor<1x2x7x8xf32> {graph.name = "x2"},
                  %w2: tensor<3x2x2x3xf32> {graph.name = "w2"})
    -> (tensor<2x4x4x4xf32> {graph.name = "y"}, tensor<1x3x6x6xf32> {graph.name = "y_plain"}) {
  %y = graph.conv_fprop %x, %w {padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, dilation = array<i64: 2, 2>}
      : (tensor<2x3x9x9xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32>
  %y2 = graph.conv_fprop %x2, %w2 : (tensor<1x2x7x8xf32>, tensor<3x2x2x3xf32>) -> tensor<1x3x6x6xf32>
  graph.output %y, %y2 : tensor<2x4x4x4xf32>, tensor<1x3x6x6xf32>
}
