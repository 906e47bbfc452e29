// RUN: graph-opt %s --graph-prepare --graph-fuse --graph-select-engines=engines=cudnn,codegen --graph-lower-to-linalg | FileCheck %s

// A broadcast pointwise chain: one linalg.generic per op, the broadcast
// operand read through a constant-0 map, f16 extended to f32, the result
// truncated to bf16 and materialized in the output argument (so bufferization
// writes there even after canonicalization drops the unread init).
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[BCAST:.+]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-DAG: #[[ROWS:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-LABEL: func.func @chain_group0(
// CHECK-SAME: %[[X:.+]]: tensor<1x4x8xf16>, %[[S:.+]]: tensor<1x1x8xf32>, %[[Y:.+]]: tensor<1x4x8xbf16> {bufferization.writable = true}) -> tensor<1x4x8xbf16>
// CHECK: %[[M:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[BCAST]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[S]] : {{.*}})
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: arith.mulf
// CHECK: %[[T:.+]] = linalg.generic {{.*}} ins(%[[M]] : tensor<1x4x8xf32>) outs(%[[Y]] : tensor<1x4x8xbf16>)
// CHECK: math.tanh
// CHECK: arith.truncf {{.*}} : f32 to bf16
// CHECK: %[[OUT:.+]] = bufferization.materialize_in_destination %[[T]] in %[[Y]]
// CHECK: return %[[OUT]]

// A chain ending in a last-axis max reduction into a filled destination.
// CHECK-LABEL: func.func @chain_group1(
// CHECK-SAME: %[[Z:.+]]: tensor<1x4x8xf32>, %[[R:.+]]: tensor<1x4x1xf32> {bufferization.writable = true})
// CHECK: %[[E:.+]] = linalg.generic {{.*}} ins(%[[Z]]
// CHECK: math.exp
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[F:.+]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%[[R]] : tensor<1x4x1xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROWS]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[E]] : tensor<1x4x8xf32>) outs(%[[F]] : tensor<1x4x1xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: graph.graph
graph.graph @chain(%x: tensor<4x8xf16>, %s: tensor<1x8xf32>, %z: tensor<4x8xf32>)
    -> (tensor<4x8xbf16>, tensor<4x1xf32>) {
  %a = graph.pointwise mul(%x, %s) : (tensor<4x8xf16>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %b = graph.pointwise tanh(%a) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  %e = graph.pointwise exp(%z) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = graph.reduction max %e : (tensor<4x8xf32>) -> tensor<4x1xf32>
  graph.output %b, %m : tensor<4x8xbf16>, tensor<4x1xf32>
}

// A reduction of a by-value scalar reads the scalar as a splat constant
// (it has no buffer argument; this was a std::out_of_range abort).
// CHECK-LABEL: func.func @reduce_scalar_group0(
// CHECK-SAME: %[[OUT:.+]]: tensor<1x1x1xf32> {bufferization.writable = true})
// CHECK: %[[C:.+]] = arith.constant dense<4.000000e+00> : tensor<1x1x1xf32>
// CHECK: linalg.generic {{.*}} ins(%[[C]] : tensor<1x1x1xf32>)
// CHECK: arith.addf
graph.graph @reduce_scalar() -> (tensor<1x1xf32>) {
  %g = graph.scalar 4.0 : f32 -> tensor<1x1xf32>
  %s = graph.reduction add %g : (tensor<1x1xf32>) -> tensor<1x1xf32>
  graph.output %s : tensor<1x1xf32>
}
