// RUN: graph-opt %s -split-input-file --graph-prepare --graph-fuse --graph-select-engines --graph-lower-to-executable | FileCheck %s

// Batchnorm training's f32 Y of an f16 X, read only by the next group (the
// relu + compare the fuser keeps apart), is stored as f16: cuDNN 9.19 plans
// no f16-in f32-out batchnorm training (the frontend's BN + relu + mask).
// CHECK-LABEL: exec.program @bn_relu_mask
// CHECK: exec.cudnn_group "bn_relu_mask/group0" {{.*}} outputs = [#exec.tensor<uid = [[Y:[0-9]+]], dtype = f16, dims = [2, 4, 3, 3]
// CHECK: exec.kernel_group "bn_relu_mask/group1"
// CHECK: exec.kernel_launch {{.*}}#exec.arg<uid = [[Y]], access = read>
graph.graph @bn_relu_mask(%x: tensor<2x4x3x3xf16>, %g: tensor<1x4x1x1xf32>, %b: tensor<1x4x1x1xf32>,
                          %rm: tensor<1x4x1x1xf32>, %rv: tensor<1x4x1x1xf32>, %c: tensor<2x4x3x3xf16>)
    -> (tensor<2x4x3x3xf16>, tensor<2x4x3x3xi1>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>) attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-03 : f32 -> tensor<1x1x1x1xf32>
  %mom = graph.scalar 1.0e-01 : f32 -> tensor<1x1x1x1xf32>
  %y, %m, %iv, %nm, %nv = graph.batchnorm %x, scale %g, bias %b, epsilon %eps running_mean %rm running_var %rv momentum %mom : (tensor<2x4x3x3xf16>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x4x3x3xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>)
  %r = graph.pointwise relu(%y) : (tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf16>
  %k = graph.pointwise cmp_gt(%r, %c) : (tensor<2x4x3x3xf16>, tensor<2x4x3x3xf16>) -> tensor<2x4x3x3xi1>
  graph.output %r, %k, %nm, %nv : tensor<2x4x3x3xf16>, tensor<2x4x3x3xi1>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>
}

// -----

// The same Y as a graph output keeps its own type (the caller reads it).
// CHECK-LABEL: exec.program @bn_y_out
// CHECK: exec.cudnn_group "bn_y_out/group0" {{.*}} outputs = [#exec.tensor<uid = {{[0-9]+}}, dtype = f32, dims = [2, 4, 3, 3]
graph.graph @bn_y_out(%x: tensor<2x4x3x3xf16>, %g: tensor<1x4x1x1xf32>, %b: tensor<1x4x1x1xf32>,
                      %rm: tensor<1x4x1x1xf32>, %rv: tensor<1x4x1x1xf32>)
    -> (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf16>) attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-03 : f32 -> tensor<1x1x1x1xf32>
  %mom = graph.scalar 1.0e-01 : f32 -> tensor<1x1x1x1xf32>
  %y, %m, %iv, %nm, %nv = graph.batchnorm %x, scale %g, bias %b, epsilon %eps running_mean %rm running_var %rv momentum %mom : (tensor<2x4x3x3xf16>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x4x3x3xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>)
  %r = graph.pointwise relu(%y) : (tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf16>
  graph.output %y, %r : tensor<2x4x3x3xf32>, tensor<2x4x3x3xf16>
}
