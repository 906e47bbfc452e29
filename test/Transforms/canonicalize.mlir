// RUN: graph-opt %s -split-input-file -canonicalize | FileCheck %s

// Canonicalizations of the graph dialect. A fold never changes what a graph
// output holds: an output stays produced by a node of the graph.

// CHECK-LABEL: graph.graph @identity_folded
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// CHECK-NOT: pointwise identity
// CHECK: %[[Y:.+]] = pointwise exp(%[[X]])
// CHECK: output %[[Y]]
graph.graph @identity_folded(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>) {
  %0 = graph.pointwise identity(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = graph.pointwise exp(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  graph.output %1 : tensor<4x8xf32>
}

// -----

// An identity that changes the element type is a conversion: kept.
// CHECK-LABEL: graph.graph @identity_cast_kept
// CHECK: %[[C:.+]] = pointwise identity(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf16>
// CHECK: pointwise exp(%[[C]])
graph.graph @identity_cast_kept(%x: tensor<4x8xf32>) -> (tensor<4x8xf16>) {
  %0 = graph.pointwise identity(%x) : (tensor<4x8xf32>) -> tensor<4x8xf16>
  %1 = graph.pointwise exp(%0) : (tensor<4x8xf16>) -> tensor<4x8xf16>
  graph.output %1 : tensor<4x8xf16>
}

// -----

// An identity that changes the strides is a layout copy: kept.
// CHECK-LABEL: graph.graph @identity_relayout_kept
// CHECK: pointwise identity(%{{.*}}) : (tensor<4x8xf32, #graph.strides<[8, 1]>>) -> tensor<4x8xf32, #graph.strides<[1, 4]>>
graph.graph @identity_relayout_kept(%x: tensor<4x8xf32, #graph.strides<[8, 1]>>)
    -> (tensor<4x8xf32, #graph.strides<[1, 4]>>) {
  %0 = graph.pointwise identity(%x) : (tensor<4x8xf32, #graph.strides<[8, 1]>>) -> tensor<4x8xf32, #graph.strides<[1, 4]>>
  %1 = graph.pointwise exp(%0) : (tensor<4x8xf32, #graph.strides<[1, 4]>>) -> tensor<4x8xf32, #graph.strides<[1, 4]>>
  graph.output %1 : tensor<4x8xf32, #graph.strides<[1, 4]>>
}

// -----

// A graph output copied from an input by an identity stays a node's
// result: folding would leave the output buffer unwritten.
// CHECK-LABEL: graph.graph @identity_output_of_input_kept
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK: %[[Y:.+]] = pointwise identity(%[[X]])
// CHECK: output %[[Y]]
graph.graph @identity_output_of_input_kept(%x: tensor<4xf32>) -> (tensor<4xf32>) {
  %0 = graph.pointwise identity(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.output %0 : tensor<4xf32>
}

// -----

// The same for a copy of a scalar and for a second output of one value:
// two output buffers stay two writes.
// CHECK-LABEL: graph.graph @identity_output_copies_kept
// CHECK: %[[S:.+]] = scalar
// CHECK: %[[E:.+]] = pointwise exp
// CHECK: %[[CS:.+]] = pointwise identity(%[[S]])
// CHECK: %[[CE:.+]] = pointwise identity(%[[E]])
// CHECK: output %[[CS]], %[[E]], %[[CE]]
graph.graph @identity_output_copies_kept(%x: tensor<1xf32>)
    -> (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) {
  %s = graph.scalar 1.0 : f32 -> tensor<1xf32>
  %e = graph.pointwise exp(%x) : (tensor<1xf32>) -> tensor<1xf32>
  %0 = graph.pointwise identity(%s) : (tensor<1xf32>) -> tensor<1xf32>
  %1 = graph.pointwise identity(%e) : (tensor<1xf32>) -> tensor<1xf32>
  graph.output %0, %e, %1 : tensor<1xf32>, tensor<1xf32>, tensor<1xf32>
}

// -----

// An output that is an identity of an intermediate becomes that
// intermediate: the output holds the same values, written by its node.
// CHECK-LABEL: graph.graph @identity_output_of_node_folded
// CHECK: %[[E:.+]] = pointwise exp
// CHECK-NOT: identity
// CHECK: output %[[E]]
graph.graph @identity_output_of_node_folded(%x: tensor<4xf32>) -> (tensor<4xf32>) {
  %e = graph.pointwise exp(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %0 = graph.pointwise identity(%e) : (tensor<4xf32>) -> tensor<4xf32>
  graph.output %0 : tensor<4xf32>
}

// -----

// An integer convolution's int32 result written through an identity keeps
// it: cuDNN's int8 engines take the conv with that epilogue and offer none
// for the bare conv writing int32 (the frontend's test_conv_int8).
// CHECK-LABEL: graph.graph @identity_after_int8_conv_kept
// CHECK: %[[C:.+]] = conv_fprop
// CHECK: %[[Y:.+]] = pointwise identity(%[[C]])
// CHECK: output %[[Y]]
graph.graph @identity_after_int8_conv_kept(%x: tensor<1x4x4x4xi8>, %w: tensor<2x4x1x1xi8>) -> (tensor<1x2x4x4xi32>) {
  %c = graph.conv_fprop %x, %w : (tensor<1x4x4x4xi8>, tensor<2x4x1x1xi8>) -> tensor<1x2x4x4xi32>
  %0 = graph.pointwise identity(%c) : (tensor<1x2x4x4xi32>) -> tensor<1x2x4x4xi32>
  graph.output %0 : tensor<1x2x4x4xi32>
}

// -----

// A lossless widening undone (f16 -> f32 -> f16) is the f16 value itself.
// CHECK-LABEL: graph.graph @identity_widen_narrow_folded
// CHECK-SAME: (%[[X:.+]]: tensor<4xf16>)
// CHECK-NOT: identity
// CHECK: %[[Y:.+]] = pointwise exp(%[[X]]) : (tensor<4xf16>)
graph.graph @identity_widen_narrow_folded(%x: tensor<4xf16>) -> (tensor<4xf16>) {
  %0 = graph.pointwise identity(%x) : (tensor<4xf16>) -> tensor<4xf32>
  %1 = graph.pointwise identity(%0) : (tensor<4xf32>) -> tensor<4xf16>
  %2 = graph.pointwise exp(%1) : (tensor<4xf16>) -> tensor<4xf16>
  graph.output %2 : tensor<4xf16>
}

// -----

// A narrowing undone (f32 -> f16 -> f32) rounds: both conversions stay.
// So does bf16 -> f16 -> bf16 (f16 lacks bf16's range).
// CHECK-LABEL: graph.graph @identity_narrow_widen_kept
// CHECK: pointwise identity(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf16>
// CHECK: pointwise identity(%{{.*}}) : (tensor<4xf16>) -> tensor<4xf32>
// CHECK: pointwise identity(%{{.*}}) : (tensor<4xbf16>) -> tensor<4xf16>
// CHECK: pointwise identity(%{{.*}}) : (tensor<4xf16>) -> tensor<4xbf16>
graph.graph @identity_narrow_widen_kept(%x: tensor<4xf32>, %b: tensor<4xbf16>)
    -> (tensor<4xf32>, tensor<4xbf16>) {
  %0 = graph.pointwise identity(%x) : (tensor<4xf32>) -> tensor<4xf16>
  %1 = graph.pointwise identity(%0) : (tensor<4xf16>) -> tensor<4xf32>
  %2 = graph.pointwise exp(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = graph.pointwise identity(%b) : (tensor<4xbf16>) -> tensor<4xf16>
  %4 = graph.pointwise identity(%3) : (tensor<4xf16>) -> tensor<4xbf16>
  %5 = graph.pointwise exp(%4) : (tensor<4xbf16>) -> tensor<4xbf16>
  graph.output %2, %5 : tensor<4xf32>, tensor<4xbf16>
}

// -----

// transpose(transpose(x, p1), p2) is transpose(x, p1 o p2).
// CHECK-LABEL: graph.graph @transpose_composed
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK: %[[T:.+]] = transpose %[[X]] {permutation = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
// CHECK-NOT: transpose
// CHECK: output %[[T]]
graph.graph @transpose_composed(%x: tensor<2x3x4xf32>) -> (tensor<3x4x2xf32>) {
  %0 = graph.transpose %x {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = graph.transpose %0 {permutation = array<i64: 2, 1, 0>} : (tensor<4x2x3xf32>) -> tensor<3x2x4xf32>
  %2 = graph.transpose %1 {permutation = array<i64: 0, 2, 1>} : (tensor<3x2x4xf32>) -> tensor<3x4x2xf32>
  graph.output %2 : tensor<3x4x2xf32>
}

// -----

// A transpose and its inverse cancel; an identity permutation is removed.
// CHECK-LABEL: graph.graph @transpose_cancels
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// CHECK-NOT: transpose
// CHECK: %[[R:.+]] = pointwise add(%[[X]], %[[X]])
// CHECK: output %[[R]]
graph.graph @transpose_cancels(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>) {
  %0 = graph.transpose %x {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %1 = graph.transpose %0 {permutation = array<i64: 1, 0>} : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %2 = graph.transpose %x {permutation = array<i64: 0, 1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = graph.pointwise add(%1, %2) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  graph.output %3 : tensor<4x8xf32>
}

// -----

// An identity permutation whose result is an output of the input is kept
// (the output buffer must be written); the inner transpose of a composed
// pair stays while it is an output itself.
// CHECK-LABEL: graph.graph @transpose_outputs_kept
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// CHECK: %[[A:.+]] = transpose %[[X]] {permutation = array<i64: 1, 0>}
// CHECK: %[[B:.+]] = transpose %[[X]] {permutation = array<i64: 0, 1>}
// CHECK: output %[[A]], %[[B]]
graph.graph @transpose_outputs_kept(%x: tensor<4x8xf32>) -> (tensor<8x4xf32>, tensor<4x8xf32>) {
  %0 = graph.transpose %x {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %1 = graph.transpose %0 {permutation = array<i64: 1, 0>} : (tensor<8x4xf32>) -> tensor<4x8xf32>
  graph.output %0, %1 : tensor<8x4xf32>, tensor<4x8xf32>
}

// -----

// reshape(reshape(x)) is one reshape of x; a reshape to the same type goes.
// CHECK-LABEL: graph.graph @reshape_composed
// CHECK-SAME: (%[[X:.+]]: tensor<4x6xf32>)
// CHECK: %[[R:.+]] = reshape %[[X]] : (tensor<4x6xf32>) -> tensor<2x12xf32>
// CHECK-NOT: reshape
// CHECK: pointwise exp(%[[R]])
// CHECK: pointwise exp(%[[X]])
graph.graph @reshape_composed(%x: tensor<4x6xf32>) -> (tensor<2x12xf32>, tensor<4x6xf32>) {
  %0 = graph.reshape %x : (tensor<4x6xf32>) -> tensor<24xf32>
  %1 = graph.reshape %0 : (tensor<24xf32>) -> tensor<2x12xf32>
  %2 = graph.pointwise exp(%1) : (tensor<2x12xf32>) -> tensor<2x12xf32>
  %3 = graph.reshape %x : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %4 = graph.pointwise exp(%3) : (tensor<4x6xf32>) -> tensor<4x6xf32>
  graph.output %2, %4 : tensor<2x12xf32>, tensor<4x6xf32>
}

// -----

// A reshape back to the input's type folds away entirely, unless it is what
// a graph output is made of.
// CHECK-LABEL: graph.graph @reshape_round_trip
// CHECK-SAME: (%[[X:.+]]: tensor<4x6xf32>)
// CHECK: %[[E:.+]] = pointwise exp(%[[X]])
// CHECK: %[[O:.+]] = reshape %[[X]] : (tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK: output %[[E]], %[[O]]
graph.graph @reshape_round_trip(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>) {
  %0 = graph.reshape %x : (tensor<4x6xf32>) -> tensor<24xf32>
  %1 = graph.reshape %0 : (tensor<24xf32>) -> tensor<4x6xf32>
  %2 = graph.pointwise exp(%1) : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %3 = graph.reshape %x : (tensor<4x6xf32>) -> tensor<4x6xf32>
  graph.output %2, %3 : tensor<4x6xf32>, tensor<4x6xf32>
}
