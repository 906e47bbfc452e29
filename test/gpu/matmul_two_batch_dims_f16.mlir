// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=3 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: a matmul with two batch dims ([batch, heads]) and a bias + relu
// epilogue. cuDNN 9.19 offers no engine config for it as written; the
// group is retried with the batch dims merged into one (CudnnRelabel.cpp).
// GPU-ARGS: --random-inputs=3 --check-against=cpu
graph.graph @two_batch_dims(%a: tensor<2x4x128x64xf16> {graph.name = "A"},
                            %b: tensor<2x4x64x96xf16> {graph.name = "B"},
                            %bias: tensor<1x1x1x96xf16> {graph.name = "bias"})
    -> (tensor<2x4x128x96xf16> {graph.name = "Y"})
    attributes {compute_data_type = f32} {
  %c = graph.matmul %a, %b : (tensor<2x4x128x64xf16>, tensor<2x4x64x96xf16>) -> tensor<2x4x128x96xf32>
  %s = graph.pointwise add(%c, %bias) : (tensor<2x4x128x96xf32>, tensor<1x1x1x96xf16>) -> tensor<2x4x128x96xf32>
  %y = graph.pointwise relu(%s) : (tensor<2x4x128x96xf32>) -> tensor<2x4x128x96xf16>
  graph.output %y : tensor<2x4x128x96xf16>
}
