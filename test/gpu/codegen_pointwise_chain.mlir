// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=3 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected, so codegen_v1 runs both groups: a broadcast
// pointwise chain f16 x f32 -> bf16 as one kernel, and a chain ending in a
// last-axis add reduction.
// GPU-ARGS: --random-inputs=3 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_chain(%x: tensor<8x100x250xf16> {graph.name = "X"},
                           %s: tensor<1x1x250xf32> {graph.name = "S"},
                           %z: tensor<8x100x250xf32> {graph.name = "Z"})
    -> (tensor<8x100x250xbf16> {graph.name = "Y"}, tensor<8x100x1xf32> {graph.name = "sum"})
    attributes {compute_data_type = f32} {
  %a = graph.pointwise mul(%x, %s) : (tensor<8x100x250xf16>, tensor<1x1x250xf32>) -> tensor<8x100x250xf32>
  %b = graph.pointwise gelu(%a) : (tensor<8x100x250xf32>) -> tensor<8x100x250xf32>
  %c = graph.pointwise tanh(%b) : (tensor<8x100x250xf32>) -> tensor<8x100x250xbf16>
  %d = graph.pointwise sigmoid(%z) : (tensor<8x100x250xf32>) -> tensor<8x100x250xf32>
  %sum = graph.reduction add %d : (tensor<8x100x250xf32>) -> tensor<8x100x1xf32>
  graph.output %c, %sum : tensor<8x100x250xbf16>, tensor<8x100x1xf32>
}
