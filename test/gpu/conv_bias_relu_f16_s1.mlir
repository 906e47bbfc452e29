// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=3 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: conv_fprop fp16 (channels-last after graph-infer-layout) 3x3 pad 1 stride 1 + bias + relu.
// GPU-ARGS: --random-inputs=3 --check-against=cpu
graph.graph @conv_bias_relu(%x: tensor<4x64x56x56xf16> {graph.name = "X"},
                            %w: tensor<64x64x3x3xf16> {graph.name = "W"},
                            %bias: tensor<1x64x1x1xf16> {graph.name = "bias"})
    -> (tensor<4x64x56x56xf16> {graph.name = "Y"})
    attributes {compute_data_type = f32} {
  %c = graph.conv_fprop %x, %w {padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<4x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<4x64x56x56xf32>
  %d = graph.pointwise add(%c, %bias) : (tensor<4x64x56x56xf32>, tensor<1x64x1x1xf16>) -> tensor<4x64x56x56xf32>
  %y = graph.pointwise relu(%d) : (tensor<4x64x56x56xf32>) -> tensor<4x64x56x56xf16>
  graph.output %y : tensor<4x64x56x56xf16>
}
