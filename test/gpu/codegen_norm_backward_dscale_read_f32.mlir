// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=5 --check-against=cpu --verbose-plans %s | FileCheck %s
// CHECK: plan: dscale_read/group0: codegen
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: an op reading an rmsnorm_backward's DScale in the same codegen
// group: the reader runs after the column-sum kernel that finishes DScale.
// GPU-ARGS: --random-inputs=5 --check-against=cpu
graph.graph @dscale_read(%dy: tensor<512x768xf32> {graph.name = "dY"}, %x: tensor<512x768xf32> {graph.name = "X"},
                         %s: tensor<1x768xf32> {graph.name = "scale"}, %iv: tensor<512x1xf32> {graph.name = "inv_variance"})
    -> (tensor<512x768xf32> {graph.name = "DX"}, tensor<1x768xf32> {graph.name = "DScale_times_scale"}) {
  %dx, %ds = graph.rmsnorm_backward %dy, %x, scale %s, inv_variance %iv {has_dbias = false} : (tensor<512x768xf32>, tensor<512x768xf32>, tensor<1x768xf32>, tensor<512x1xf32>) -> (tensor<512x768xf32>, tensor<1x768xf32>)
  %m = graph.pointwise mul(%ds, %s) : (tensor<1x768xf32>, tensor<1x768xf32>) -> tensor<1x768xf32>
  graph.output %dx, %m : tensor<512x768xf32>, tensor<1x768xf32>
}
