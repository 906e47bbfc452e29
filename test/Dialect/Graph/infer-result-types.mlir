// RUN: graph-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// Ops whose result the operands determine may omit `-> type`: the shape comes
// from InferTypeOpInterface, the element type from the first operand. The
// printed form always spells the type out.

// CHECK-LABEL: graph.graph @inferred
// CHECK: matmul %{{.*}}, %{{.*}} : (tensor<8x4x16xf16>, tensor<1x16x32xf16>) -> tensor<8x4x32xf16>
// CHECK: transpose %{{.*}} {permutation = array<i64: 0, 2, 1>} : (tensor<8x4x32xf16>) -> tensor<8x32x4xf16>
// CHECK: slice %{{.*}} {{{.*}}} : (tensor<8x32x4xf16>) -> tensor<8x16x2xf16>
// CHECK: concatenate %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<8x16x2xf16>, tensor<8x16x2xf16>) -> tensor<8x32x2xf16>
// CHECK: conv_fprop %{{.*}}, %{{.*}} {{{.*}}} : (tensor<2x8x16x16xf16>, tensor<4x8x3x3xf16>) -> tensor<2x4x8x8xf16>
graph.graph @inferred(%a: tensor<8x4x16xf16>, %b: tensor<1x16x32xf16>,
                      %x: tensor<2x8x16x16xf16>, %w: tensor<4x8x3x3xf16>)
    -> (tensor<8x32x2xf16>, tensor<2x4x8x8xf16>) {
  %c = graph.matmul %a, %b : (tensor<8x4x16xf16>, tensor<1x16x32xf16>)
  %t = graph.transpose %c {permutation = array<i64: 0, 2, 1>} : (tensor<8x4x32xf16>)
  %s = graph.slice %t {start = array<i64: 0, 0, 0>, limit = array<i64: 8, 32, 4>, step = array<i64: 1, 2, 2>} : (tensor<8x32x4xf16>)
  %k = graph.concatenate %s, %s {axis = 1 : i64} : (tensor<8x16x2xf16>, tensor<8x16x2xf16>)
  %y = graph.conv_fprop %x, %w {padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x8x16x16xf16>, tensor<4x8x3x3xf16>)
  graph.output %k, %y : tensor<8x32x2xf16>, tensor<2x4x8x8xf16>
}

// -----

// Pointwise results are the numpy broadcast of the operands.
// CHECK-LABEL: graph.graph @pointwise
// CHECK: pointwise add(%{{.*}}, %{{.*}}) {name = "bias"} : (tensor<4x1x8xf32>, tensor<3x1xf32>) -> tensor<4x3x8xf32>
// CHECK: pointwise relu(%{{.*}}) {upper_clip = 6.000000e+00 : f64} : (tensor<4x3x8xf32>) -> tensor<4x3x8xf32>
graph.graph @pointwise(%a: tensor<4x1x8xf32>, %b: tensor<3x1xf32>) -> tensor<4x3x8xf32> {
  %s = graph.pointwise add(%a, %b) {name = "bias"} : (tensor<4x1x8xf32>, tensor<3x1xf32>)
  %r = graph.pointwise relu(%s) {upper_clip = 6.0 : f64} : (tensor<4x3x8xf32>)
  graph.output %r : tensor<4x3x8xf32>
}

// -----

// A written result type may choose another element type and a layout.
// CHECK-LABEL: graph.graph @explicit
// CHECK: matmul {{.*}} -> tensor<4x8xf32, #graph.strides<[8, 1]>>
graph.graph @explicit(%a: tensor<4x16xf16>, %b: tensor<16x8xf16>) -> tensor<4x8xf32, #graph.strides<[8, 1]>> {
  %c = graph.matmul %a, %b : (tensor<4x16xf16>, tensor<16x8xf16>) -> tensor<4x8xf32, #graph.strides<[8, 1]>>
  graph.output %c : tensor<4x8xf32, #graph.strides<[8, 1]>>
}

// -----

// Inconsistent operands still get the verifier's message, not an inference
// failure.
graph.graph @bad_k(%a: tensor<4x16xf16>, %b: tensor<8x8xf16>) -> tensor<4x8xf16> {
  // expected-error @below {{matmul: K of A is 16 but K of B is 8}}
  %c = graph.matmul %a, %b : (tensor<4x16xf16>, tensor<8x8xf16>)
  graph.output %c : tensor<4x8xf16>
}

// -----

graph.graph @no_inputs() -> tensor<4xf16> {
  // expected-error @below {{cannot infer the result type of graph.concatenate; write it after '->'}}
  %c = graph.concatenate {axis = 0 : i64} : ()
  graph.output %c : tensor<4xf16>
}
