// RUN: %python %S/check.py reductions %s graph-run %t | FileCheck %s
// CHECK: [OK] reductions/sum_last:
// CHECK: [OK] reductions/max_mid:
// CHECK: [OK] reductions/avg_all:
// CHECK: [OK] reductions/norm2_first:
// CHECK: [OK] reductions/amax:
// CHECK: [OK] reductions/softmax:
graph.graph @reductions(%x: tensor<3x4x5xf32> {graph.name = "x"})
    -> (tensor<3x4x1xf32> {graph.name = "sum_last"}, tensor<3x1x5xf32> {graph.name = "max_mid"},
        tensor<1x1x1xf32> {graph.name = "avg_all"}, tensor<1x4x5xf32> {graph.name = "norm2_first"},
        tensor<1x4x1xf32> {graph.name = "amax"}, tensor<3x4x5xf32> {graph.name = "softmax"}) {
  %s = graph.reduction add %x : (tensor<3x4x5xf32>) -> tensor<3x4x1xf32>
  %m = graph.reduction max %x : (tensor<3x4x5xf32>) -> tensor<3x1x5xf32>
  %a = graph.reduction avg %x : (tensor<3x4x5xf32>) -> tensor<1x1x1xf32>
  %n = graph.reduction norm2 %x : (tensor<3x4x5xf32>) -> tensor<1x4x5xf32>
  %am = graph.reduction amax %x : (tensor<3x4x5xf32>) -> tensor<1x4x1xf32>
  %e = graph.pointwise exp(%x) : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %es = graph.reduction add %e : (tensor<3x4x5xf32>) -> tensor<3x4x1xf32>
  %sm = graph.pointwise div(%e, %es) : (tensor<3x4x5xf32>, tensor<3x4x1xf32>) -> tensor<3x4x5xf32>
  graph.output %s, %m, %a, %n, %am, %sm : tensor<3x4x1xf32>, tensor<3x1x5xf32>, tensor<1x1x1xf32>, tensor<1x4x5xf32>, tensor<1x4x1xf32>, tensor<3x4x5xf32>
}
