// RUN: graph-opt %s --graph-prepare --graph-fuse --graph-select-engines=engines=cudnn,codegen --graph-lower-to-linalg 2>/dev/null | FileCheck %s

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
