// RUN: graph-opt %s -split-input-file -verify-diagnostics

// Issue 13, class 1: dims near 2^62 must not wrap the element, byte, stride
// or span arithmetic. Every tensor's byte size fits in 63 bits; sums and
// products of dims are checked.

// 4x16 -> (2^62+16)x4: the count (2^64 + 64) wrapped to 64.
graph.graph @reshape_wraps(%x: tensor<4x16xf32>) {
  // expected-error @below {{reshape: result 0 ('tensor<4611686018427387920x4xf32>') is larger than 2^63 bytes (a tensor's byte size must fit in 63 bits)}}
  %y = graph.reshape %x : (tensor<4x16xf32>) -> tensor<4611686018427387920x4xf32>
  graph.output
}

// -----

// The same rule at the graph boundary, naming the input: 4x2^62x4 (whose
// row-major stride 4 * 2^62 wrapped to 0 in graph-infer-layout).
// expected-error @below {{'graph.graph' op @big_input: input 0 ('tensor<4x4611686018427387904x4xf32>') is larger than 2^63 bytes (a tensor's byte size must fit in 63 bits)}}
graph.graph @big_input(%x: tensor<4x4611686018427387904x4xf32>) {
  graph.output
}

// -----

// relu on 2^32 x 2^32 (2^64 elements), which wrote a .npy numpy could not
// load.
// expected-error @below {{'graph.graph' op @relu: input 0 ('tensor<4294967296x4294967296xf32>') is larger than 2^63 bytes}}
graph.graph @relu(%x: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  %y = graph.pointwise relu(%x) : (tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32>
  graph.output %y : tensor<4294967296x4294967296xf32>
}

// -----

// An output too large from inputs that fit.
// expected-error @below {{'graph.graph' op @add_out: output 0 ('tensor<4294967296x4294967296xf32>') is larger than 2^63 bytes}}
graph.graph @add_out(%a: tensor<4294967296x1xf32>, %b: tensor<1x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  %y = graph.pointwise add(%a, %b) : (tensor<4294967296x1xf32>, tensor<1x4294967296xf32>) -> tensor<4294967296x4294967296xf32>
  graph.output %y : tensor<4294967296x4294967296xf32>
}

// -----

// Inside the graph: a broadcast of two small inputs to 2^32 x 2^32.
graph.graph @add_2_64(%a: tensor<4294967296x1xf32>, %b: tensor<1x4294967296xf32>) {
  // expected-error @below {{pointwise "r": result 0 ('tensor<4294967296x4294967296xf32>') is larger than 2^63 bytes}}
  %y = graph.pointwise add(%a, %b) {name = "r"} : (tensor<4294967296x1xf32>, tensor<1x4294967296xf32>) -> tensor<4294967296x4294967296xf32>
  graph.output
}

// -----

// Two 1x2^62 i8 tensors fit; their concatenation along dim 1 (2^63) does
// not: the sum wrapped to INT64_MIN, which reads as a dynamic dim.
graph.graph @concat_wraps(%a: tensor<1x4611686018427387904xi8>, %b: tensor<1x4611686018427387904xi8>) {
  // expected-error @below {{concatenate: the inputs' extents along axis 1 add up to more than 2^63 - 1 (up to inputs[1])}}
  %c = graph.concatenate %a, %b {axis = 1 : i64} : (tensor<1x4611686018427387904xi8>, tensor<1x4611686018427387904xi8>) -> tensor<1x5xi8>
  graph.output
}

// -----

// Strides whose span does not fit, though the element count would.
// expected-error @below {{'graph.graph' op @strided_span: input 0 ('tensor<4x4xi8, #graph.strides<[4611686018427387904, 1]>>') is larger than 2^63 bytes}}
graph.graph @strided_span(%x: tensor<4x4xi8, #graph.strides<[4611686018427387904, 1]>>) {
  graph.output
}

// -----

// Padding near 2^63 overflows the output-size formula.
graph.graph @conv_padding(%x: tensor<1x1x8x8xf32>, %w: tensor<1x1x3x3xf32>) {
  // expected-error @below {{conv_fprop: the output's spatial dims overflow 64-bit arithmetic}}
  %y = graph.conv_fprop %x, %w {pre_padding = array<i64: 9223372036854775807, 0>, post_padding = array<i64: 1, 0>} : (tensor<1x1x8x8xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x8x6xf32>
  graph.output
}
