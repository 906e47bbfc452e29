// RUN: %python %S/check.py norms %s graph-run %t | FileCheck %s
// CHECK: [OK] norms/ln:
// CHECK: [OK] norms/rms:
// CHECK: [OK] norms/bn:
// CHECK: [OK] norms/bn_train:
// CHECK: [OK] norms/bn_mean:
// CHECK: [OK] norms/bn_inv_var:
graph.graph @norms(%x: tensor<4x16xf32> {graph.name = "x"},
                   %g: tensor<1x16xf32> {graph.name = "gamma"},
                   %b: tensor<1x16xf32> {graph.name = "beta"},
                   %xb: tensor<2x3x4x4xf32> {graph.name = "xb"},
                   %bm: tensor<1x3x1x1xf32> {graph.name = "bn_mean"},
                   %biv: tensor<1x3x1x1xf32> {graph.name = "bn_inv_var"},
                   %bg: tensor<1x3x1x1xf32> {graph.name = "bn_gamma"},
                   %bb: tensor<1x3x1x1xf32> {graph.name = "bn_beta"})
    -> (tensor<4x16xf32> {graph.name = "ln"}, tensor<4x16xf32> {graph.name = "rms"},
        tensor<2x3x4x4xf32> {graph.name = "bn"}, tensor<2x3x4x4xf32> {graph.name = "bn_train"},
        tensor<1x3x1x1xf32> {graph.name = "bn_mean"}, tensor<1x3x1x1xf32> {graph.name = "bn_inv_var"}) {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %eps4 = graph.scalar 1.0e-05 : f32 -> tensor<1x1x1x1xf32>
  %ln = graph.layernorm inference %x, scale %g, bias %b, epsilon %eps
      : (tensor<4x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x1xf32>) -> (tensor<4x16xf32>, none, none)
  %rms = graph.rmsnorm inference %x, scale %g, epsilon %eps
      : (tensor<4x16xf32>, tensor<1x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %bn = graph.batchnorm_inference %xb, mean %bm, inv_variance %biv, scale %bg, bias %bb
      : (tensor<2x3x4x4xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>) -> tensor<2x3x4x4xf32>
  %bt, %tm, %tiv = graph.batchnorm %xb, scale %bg, bias %bb, epsilon %eps4
      : (tensor<2x3x4x4xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>, tensor<1x1x1x1xf32>)
        -> (tensor<2x3x4x4xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>, none, none)
  graph.output %ln, %rms, %bn, %bt, %tm, %tiv : tensor<4x16xf32>, tensor<4x16xf32>, tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>
}
