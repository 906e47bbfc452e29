// RUN: graph-opt %s --graph-prepare --graph-fuse --graph-select-engines=engines=cudnn,codegen --graph-lower-to-linalg -verify-diagnostics | FileCheck %s

// The graph.pointwise patterns (PointwiseToLinalg.cpp): one linalg.generic
// per op over the output's dims. A rank-4 group keeps rank 4 (only ranks
// below 3 are padded); the rank-1 operand is padded with leading unit dims
// and read through a broadcast map; the by-value scalar is an f32 constant
// in the body; relu's upper_clip is a constant; f16 is extended and the
// bf16 result truncated; a result read only in the group writes a
// tensor.empty, the returned one its output argument.
// CHECK-DAG: #[[ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ID4:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1, d2, d3) -> (0, 0, 0, d3)>
// CHECK-LABEL: func.func @scaled_relu_group0(
// CHECK-SAME: %[[X:.+]]: tensor<2x3x4x8xf16>, %[[B:.+]]: tensor<1x1x1x8xf32>, %[[Y:.+]]: tensor<2x3x4x8xbf16> {bufferization.writable = true}) -> tensor<2x3x4x8xbf16>
// CHECK: %[[E0:.+]] = tensor.empty() : tensor<2x3x4x8xf32>
// CHECK: %[[A:.+]] = linalg.generic {indexing_maps = [#[[ID4]], #[[ROW]], #[[ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[X]], %[[B]] : tensor<2x3x4x8xf16>, tensor<1x1x1x8xf32>) outs(%[[E0]] : tensor<2x3x4x8xf32>)
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: arith.addf
// CHECK: %[[E1:.+]] = tensor.empty() : tensor<2x3x4x8xf32>
// CHECK: %[[M:.+]] = linalg.generic {indexing_maps = [#[[ID4]], #[[ID4]]], {{.*}} ins(%[[A]] : tensor<2x3x4x8xf32>) outs(%[[E1]] : tensor<2x3x4x8xf32>)
// CHECK: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK: arith.mulf %{{.+}}, %[[HALF]] : f32
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[M]] : tensor<2x3x4x8xf32>) outs(%[[Y]] : tensor<2x3x4x8xbf16>)
// CHECK: arith.constant 6.000000e+00 : f32
// CHECK: arith.cmpf oge
// CHECK: arith.truncf {{.*}} : f32 to bf16
// CHECK: %[[OUT:.+]] = bufferization.materialize_in_destination %[[R]] in %[[Y]]
// CHECK: return %[[OUT]]
graph.graph @scaled_relu(%x: tensor<2x3x4x8xf16>, %b: tensor<8xf32>) -> tensor<2x3x4x8xbf16> {
  %s = graph.scalar 0.5 : f32 -> tensor<1x1x1x1xf32>
  %a = graph.pointwise add(%x, %b) : (tensor<2x3x4x8xf16>, tensor<8xf32>) -> tensor<2x3x4x8xf32>
  %m = graph.pointwise mul(%a, %s) : (tensor<2x3x4x8xf32>, tensor<1x1x1x1xf32>) -> tensor<2x3x4x8xf32>
  %r = graph.pointwise relu(%m) {upper_clip = 6.0} : (tensor<2x3x4x8xf32>) -> tensor<2x3x4x8xbf16>
  graph.output %r : tensor<2x3x4x8xbf16>
}

// Three operands in port order (in0, in1, in2 = the mask), rank 2 padded
// to 3.
// CHECK-LABEL: func.func @select_group0(
// CHECK-SAME: %[[A:.+]]: tensor<1x4x8xf32>, %[[B:.+]]: tensor<1x4x8xf32>, %[[M:.+]]: tensor<1x4x8xf32>, %[[O:.+]]: tensor<1x4x8xf32> {bufferization.writable = true})
// CHECK: linalg.generic {indexing_maps = [#[[ID3]], #[[ID3]], #[[ID3]], #[[ID3]]], {{.*}} ins(%[[A]], %[[B]], %[[M]] : {{.*}}) outs(%[[O]] : tensor<1x4x8xf32>)
// CHECK-NEXT: ^bb0(%[[IN0:.+]]: f32, %[[IN1:.+]]: f32, %[[MASK:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[C:.+]] = arith.cmpf une, %[[MASK]]
// CHECK: arith.select %[[C]], %[[IN0]], %[[IN1]] : f32
graph.graph @select(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %m: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = graph.pointwise binary_select(%x, %y, %m) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  graph.output %r : tensor<4x8xf32>
}

// gen_index reads coordinates, not scalars: no pattern lowers it, so the
// group is left to another engine with a remark naming the op, and no func
// is made for it.
// CHECK-NOT: func.func @index_group0
graph.graph @index(%c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-remark @below {{index/group0 is left to another engine: failed to legalize operation 'graph.pointwise'}}
  %g = graph.pointwise gen_index(%c) {axis = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  graph.output %g : tensor<4x4xf32>
}
