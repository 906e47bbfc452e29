// RUN: graph-opt %s --graph-prepare --graph-widen-norm-gradients | FileCheck %s

// A batch norm backward on f32 activations asked for an f16 input
// gradient writes DX in f32, and an identity op rounds it to f16 for its
// readers; the per-channel gradients are untouched.
// CHECK-LABEL: graph.graph @bn_backward
// CHECK: %[[DX:.+]], %[[DS:.+]], %[[DB:.+]] = batchnorm_backward {{.*}} -> (tensor<2x8x4x4xf32, {{.*}}>, tensor<1x8x1x1xf32, {{.*}}>, tensor<1x8x1x1xf32, {{.*}}>)
// CHECK-NEXT: %[[C:.+]] = pointwise identity(%[[DX]]) {name = "bn.dx_cast"} : ({{.*}}) -> tensor<2x8x4x4xf16
// CHECK: output %[[C]], %[[DS]], %[[DB]]
graph.graph @bn_backward(%dy: tensor<2x8x4x4xf32>, %x: tensor<2x8x4x4xf32>, %g: tensor<1x8x1x1xf32>,
                         %m: tensor<1x8x1x1xf32>, %v: tensor<1x8x1x1xf32>)
    -> (tensor<2x8x4x4xf16>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>) attributes {compute_data_type = f32} {
  %dx, %ds, %db = graph.batchnorm_backward %dy, %x, scale %g, mean %m, inv_variance %v {name = "bn"}
      : (tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>) -> (tensor<2x8x4x4xf16>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>)
  graph.output %dx, %ds, %db : tensor<2x8x4x4xf16>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>
}

// Types that agree are left alone.
// CHECK-LABEL: graph.graph @same_types
// CHECK-NOT: identity
graph.graph @same_types(%dy: tensor<4x8xbf16>, %x: tensor<4x8xbf16>, %g: tensor<1x8xf32>, %v: tensor<4x1xf32>)
    -> (tensor<4x8xbf16>, tensor<1x8xf32>) attributes {compute_data_type = f32} {
  %dx, %ds = graph.rmsnorm_backward %dy, %x, scale %g, inv_variance %v {has_dbias = false}
      : (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<1x8xf32>, tensor<4x1xf32>) -> (tensor<4x8xbf16>, tensor<1x8xf32>)
  graph.output %dx, %ds : tensor<4x8xbf16>, tensor<1x8xf32>
}
