// RUN: graph-opt %s -split-input-file --graph-specialize-shapes=shapes=4x64,64x32,1x32 -verify-diagnostics | FileCheck %s

// Inferred results (matmul, pointwise) and declared ones (reduction: the
// dim passes through) all bind; strides of the dynamic tensors are dropped,
// static ones keep theirs; the signature follows.
// CHECK-LABEL: graph.graph @mlp
// CHECK-SAME: %[[X:.+]]: tensor<4x64xf16> {graph.name = "x"}
// CHECK-SAME: tensor<64x32xf16, #graph.strides<[32, 1]>>
// CHECK-SAME: -> (tensor<4x32xf16> {graph.name = "y"}, tensor<4x1xf32> {graph.name = "s"})
// CHECK: %[[H:.+]] = matmul %[[X]], %{{.+}} : (tensor<4x64xf16>, tensor<64x32xf16, #graph.strides<[32, 1]>>) -> tensor<4x32xf32>
// CHECK: pointwise add(%[[H]], %{{.+}}) : (tensor<4x32xf32>, tensor<1x32xf16>) -> tensor<4x32xf16>
// CHECK: reduction add %[[H]] : (tensor<4x32xf32>) -> tensor<4x1xf32>
graph.graph @mlp(%x: tensor<?x64xf16> {graph.name = "x"},
                 %w: tensor<64x32xf16, #graph.strides<[32, 1]>> {graph.name = "w"},
                 %b: tensor<1x32xf16> {graph.name = "b"})
    -> (tensor<?x32xf16> {graph.name = "y"}, tensor<?x1xf32> {graph.name = "s"})
    attributes {compute_data_type = f32} {
  %h = graph.matmul %x, %w : (tensor<?x64xf16>, tensor<64x32xf16, #graph.strides<[32, 1]>>) -> tensor<?x32xf32>
  %hb = graph.pointwise add(%h, %b) : (tensor<?x32xf32>, tensor<1x32xf16>) -> tensor<?x32xf16>
  %s = graph.reduction add %h : (tensor<?x32xf32>) -> tensor<?x1xf32>
  graph.output %hb, %s : tensor<?x32xf16>, tensor<?x1xf32>
}

// -----

// A given shape that contradicts a fixed dim is the input's error.
// expected-error @below {{graph @fixed: input 0 (uid 7 "x") is declared ?x32 but the given shape is 4x64: dim 1 is fixed at 32 (only '?' dims bind)}}
graph.graph @fixed(%x: tensor<?x32xf16> {graph.name = "x", graph.uid = 7 : i64},
                   %w: tensor<64x32xf16> {graph.name = "w"},
                   %b: tensor<1x32xf16> {graph.name = "b"})
    -> (tensor<?x32xf16> {graph.name = "y"}) {
  %y = graph.pointwise add(%x, %b) : (tensor<?x32xf16>, tensor<1x32xf16>) -> tensor<?x32xf16>
  graph.output %y : tensor<?x32xf16>
}

// -----

// A binding the op's rules reject is the verifier's error on the op.
graph.graph @inner(%x: tensor<?x?xf16> {graph.name = "x"},
                   %w: tensor<64x32xf16> {graph.name = "w"},
                   %b: tensor<1x32xf16> {graph.name = "b"})
    -> (tensor<?x?xf16> {graph.name = "y"}) {
  // expected-error @below {{pointwise "bias": operand 1 dims 1x32 do not broadcast with 4x64}}
  %y = graph.pointwise add(%x, %b) {name = "bias"} : (tensor<?x?xf16>, tensor<1x32xf16>) -> tensor<?x?xf16>
  graph.output %y : tensor<?x?xf16>
}

// -----

// One shape per input.
// expected-error @below {{graph @count: 3 input shapes given for 1 inputs}}
graph.graph @count(%x: tensor<?x32xf16> {graph.name = "x"}) -> (tensor<?x32xf16>) {
  %y = graph.pointwise relu(%x) : (tensor<?x32xf16>) -> tensor<?x32xf16>
  graph.output %y : tensor<?x32xf16>
}
