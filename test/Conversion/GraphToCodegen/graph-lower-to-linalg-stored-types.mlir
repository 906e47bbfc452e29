// RUN: graph-opt %s --graph-prepare --graph-fuse --graph-select-engines=engines=cudnn,codegen --graph-lower-to-linalg 2>/dev/null | FileCheck %s

// Batchnorm training's f32 Y of an f16 X, read only by the next group, is
// stored as f16 by its (cuDNN) group, so the relu group reads it as f16:
// its buffers are the group description's (describeGroups), not its
// operands' own types. The batchnorm group is left to another engine.
// CHECK-LABEL: func.func @bn_relu_group1(
// CHECK-SAME: %[[Y:[^:]+]]: tensor<2x4x3x3xf16>, %[[R:[^:]+]]: tensor<2x4x3x3xf16> {bufferization.writable = true}) -> tensor<2x4x3x3xf16>
// CHECK: linalg.generic {{.*}} ins(%[[Y]] : tensor<2x4x3x3xf16>) outs(%[[R]] : tensor<2x4x3x3xf16>)
// CHECK: arith.extf {{.*}} : f16 to f32
graph.graph @bn_relu(%x: tensor<2x4x3x3xf16, #graph.strides<[36, 9, 3, 1]>>, %g: tensor<1x4x1x1xf32>, %b: tensor<1x4x1x1xf32>,
                     %rm: tensor<1x4x1x1xf32>, %rv: tensor<1x4x1x1xf32>)
    -> (tensor<2x4x3x3xf16, #graph.strides<[36, 9, 3, 1]>>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>) attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-03 : f32 -> tensor<1x1x1x1xf32>
  %mom = graph.scalar 1.0e-01 : f32 -> tensor<1x1x1x1xf32>
  %y, %m, %iv, %nm, %nv = graph.batchnorm %x, scale %g, bias %b, epsilon %eps running_mean %rm running_var %rv momentum %mom : (tensor<2x4x3x3xf16, #graph.strides<[36, 9, 3, 1]>>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x4x3x3xf32, #graph.strides<[36, 9, 3, 1]>>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>)
  %r = graph.pointwise relu(%y) : (tensor<2x4x3x3xf32, #graph.strides<[36, 9, 3, 1]>>) -> tensor<2x4x3x3xf16, #graph.strides<[36, 9, 3, 1]>>
  graph.output %r, %nm, %nv : tensor<2x4x3x3xf16, #graph.strides<[36, 9, 3, 1]>>, tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>
}

// A stored f32 result whose only reader is a matmul of another group with a
// bf16 partner is stored as bf16 (tensorCoreStoredType, as the group
// descriptions store it); one also read in its own group (tanh, read by
// abs) stays f32, as does a graph output. The matmul groups are left to
// another engine (remarks on stderr).
// CHECK-LABEL: func.func @narrow_group0(
// CHECK-SAME: %[[IN:[^:]+]]: tensor<1x4x8xf32>, %[[A:[^:]+]]: tensor<1x4x8xbf16> {bufferization.writable = true}, %[[B:[^:]+]]: tensor<1x4x8xf32> {bufferization.writable = true}, %[[C:[^:]+]]: tensor<1x4x8xf32> {bufferization.writable = true}) -> (tensor<1x4x8xbf16>, tensor<1x4x8xf32>, tensor<1x4x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[IN]] : tensor<1x4x8xf32>) outs(%[[A]] : tensor<1x4x8xbf16>)
// CHECK: math.exp
// CHECK: arith.truncf {{.*}} : f32 to bf16
// CHECK: %[[T:.+]] = linalg.generic {{.*}} ins(%[[IN]] : tensor<1x4x8xf32>) outs(%[[B]] : tensor<1x4x8xf32>)
// CHECK: math.tanh
// CHECK: linalg.generic {{.*}} ins(%[[T]] : tensor<1x4x8xf32>) outs(%[[C]] : tensor<1x4x8xf32>)
// CHECK: math.absf
// CHECK-NOT: func.func
graph.graph @narrow(%x: tensor<4x8xf32>, %w: tensor<8x16xbf16>, %w2: tensor<8x16xf16>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x8xf32>) {
  %a = graph.pointwise exp(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = graph.matmul %a, %w : (tensor<4x8xf32>, tensor<8x16xbf16>) -> tensor<4x16xf32>
  %b = graph.pointwise tanh(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %y2 = graph.matmul %b, %w2 : (tensor<4x8xf32>, tensor<8x16xf16>) -> tensor<4x16xf32>
  %c = graph.pointwise abs(%b) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  graph.output %y, %y2, %c : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x8xf32>
}
