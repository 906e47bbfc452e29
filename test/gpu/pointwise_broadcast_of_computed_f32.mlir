// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=6 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: a pointwise group that broadcasts a value it computed itself
// (softplus of a [64, 1] column, then max with [64, 64]). cuDNN 9.19 builds
// such a plan and computes wrong numbers; the runtime declines it for cuDNN
// and the generated kernels run it.
// GPU-ARGS: --random-inputs=6 --check-against=cpu
graph.graph @broadcast_computed(%c: tensor<64x1xf32> {graph.name = "col"}, %x: tensor<64x64xf32> {graph.name = "X"})
    -> (tensor<64x64xf32> {graph.name = "Y"}) attributes {compute_data_type = f32} {
  %s = graph.pointwise softplus(%c) : (tensor<64x1xf32>) -> tensor<64x1xf32>
  %m = graph.pointwise max(%x, %s) : (tensor<64x64xf32>, tensor<64x1xf32>) -> tensor<64x64xf32>
  %y = graph.pointwise sigmoid(%m) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  graph.output %y : tensor<64x64xf32>
}
