// RUN: graph-opt %s --graph-prepare --graph-fuse --graph-select-engines=engines=cudnn,codegen --graph-lower-to-linalg -verify-diagnostics | FileCheck %s

// The graph.reduction patterns (ReductionToLinalg.cpp): a last-axis add,
// max or min into f32 fills its output argument with the identity (0, +inf
// for min, -inf for max) and accumulates in one linalg.generic with a
// trailing reduction iterator; f16 input is extended; rank 2 is padded to 3.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROWS:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-LABEL: func.func @sums_group0(
// CHECK-SAME: %[[X:.+]]: tensor<1x4x8xf16>, %[[S:.+]]: tensor<1x4x1xf32> {bufferization.writable = true}) -> tensor<1x4x1xf32>
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[S]] : tensor<1x4x1xf32>)
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROWS]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<1x4x8xf16>) outs(%[[F]] : tensor<1x4x1xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[ACC]], %[[W]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
// CHECK: %[[OUT:.+]] = bufferization.materialize_in_destination %[[R]] in %[[S]]
// CHECK: return %[[OUT]]
// CHECK-LABEL: func.func @sums_group1(
// CHECK: %[[INF:.+]] = arith.constant 0x7F800000 : f32
// CHECK: linalg.fill ins(%[[INF]] : f32)
// CHECK: arith.minimumf
graph.graph @sums(%x: tensor<4x8xf16>) -> (tensor<4x1xf32>, tensor<4x1xf32>) {
  %s = graph.reduction add %x : (tensor<4x8xf16>) -> tensor<4x1xf32>
  %m = graph.reduction min %x : (tensor<4x8xf16>) -> tensor<4x1xf32>
  graph.output %s, %m : tensor<4x1xf32>, tensor<4x1xf32>
}

// A by-value scalar has no argument: the reduction reads its splat.
// CHECK-LABEL: func.func @scalar_max_group0(
// CHECK-SAME: %[[O:.+]]: tensor<1x1x1xf32> {bufferization.writable = true})
// CHECK: %[[C:.+]] = arith.constant dense<4.000000e+00> : tensor<1x1x1xf32>
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[F:.+]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%[[O]] : tensor<1x1x1xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[C]] : tensor<1x1x1xf32>) outs(%[[F]] : tensor<1x1x1xf32>)
// CHECK: arith.maximumf
graph.graph @scalar_max() -> tensor<1x1xf32> {
  %g = graph.scalar 4.0 : f32 -> tensor<1x1xf32>
  %r = graph.reduction max %g : (tensor<1x1xf32>) -> tensor<1x1xf32>
  graph.output %r : tensor<1x1xf32>
}

// What the patterns do not lower (a mul reduction, a reduction over another
// axis than the last) is left to another engine with a remark naming the
// op; no func is made for it.
// CHECK-NOT: func.func @product_group0
// CHECK-NOT: func.func @columns_group0
graph.graph @product(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  // expected-remark @below {{product/group0 is left to another engine: failed to legalize operation 'graph.reduction'}}
  %p = graph.reduction mul %x : (tensor<4x8xf32>) -> tensor<4x1xf32>
  graph.output %p : tensor<4x1xf32>
}

graph.graph @columns(%x: tensor<4x8xf32>) -> tensor<1x8xf32> {
  // expected-remark @below {{columns/group0 is left to another engine: failed to legalize operation 'graph.reduction'}}
  %c = graph.reduction add %x : (tensor<4x8xf32>) -> tensor<1x8xf32>
  graph.output %c : tensor<1x8xf32>
}
