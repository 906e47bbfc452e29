// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=4 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: convolution data and filter gradients (3x3, pad 1, stride 1).
// GPU-ARGS: --random-inputs=4 --check-against=cpu
graph.graph @conv_grads(%dy: tensor<4x32x28x28xf16> {graph.name = "dY"},
                        %w: tensor<32x16x3x3xf16> {graph.name = "W"},
                        %x: tensor<4x16x28x28xf16> {graph.name = "X"})
    -> (tensor<4x16x28x28xf16> {graph.name = "dX"}, tensor<32x16x3x3xf32> {graph.name = "dW"})
    attributes {compute_data_type = f32} {
  %dx = graph.conv_dgrad %dy, %w {padding = array<i64: 1, 1>} : (tensor<4x32x28x28xf16>, tensor<32x16x3x3xf16>) -> tensor<4x16x28x28xf16>
  %dw = graph.conv_wgrad %x, %dy {padding = array<i64: 1, 1>} : (tensor<4x16x28x28xf16>, tensor<4x32x28x28xf16>) -> tensor<32x16x3x3xf32>
  graph.output %dx, %dw : tensor<4x16x28x28xf16>, tensor<32x16x3x3xf32>
}
