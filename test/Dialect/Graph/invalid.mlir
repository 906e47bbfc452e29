// RUN: graph-opt %s -split-input-file -verify-diagnostics

// Verifier rules of the graph container, uids, names, the strides encoding,
// scalar, matmul, pointwise, the convolutions, the norms and genstats, plus
// malformed text. One case per rule; every message names the op kind (and
// its label when it has one), the port or attribute, the rule and the values.

//===----------------------------------------------------------------------===//
// graph.graph: data types, uids, names, signature
//===----------------------------------------------------------------------===//

// expected-error @below {{'graph.graph' op @g: io_data_type must be a float or integer type, got 'index'}}
graph.graph @g(%x: tensor<4xf32>) attributes {io_data_type = index} {
  graph.output
}

// -----

// expected-error @below {{'graph.graph' op @g: intermediate_data_type must be a float or integer type, got 'none'}}
graph.graph @g(%x: tensor<4xf32>) attributes {intermediate_data_type = none} {
  graph.output
}

// -----

// expected-error @below {{'graph.graph' op @g: compute_data_type must be a float or integer type, got 'vector<4xf32>'}}
graph.graph @g(%x: tensor<4xf32>) attributes {compute_data_type = vector<4xf32>} {
  graph.output
}

// -----

// expected-error @below {{'graph.graph' op @g: input 0: graph.uid must be an i64 integer, got 1 : i32}}
graph.graph @g(%x: tensor<4xf32> {graph.uid = 1 : i32}) {
  graph.output
}

// -----

// expected-error @below {{'graph.graph' op @g: input 1: graph.uid must be an i64 integer, got "one"}}
graph.graph @g(%x: tensor<4xf32>, %y: tensor<4xf32> {graph.uid = "one"}) {
  graph.output
}

// -----

// expected-error @below {{'graph.graph' op @g: input 0: uid -1 is negative (uids must be >= 0)}}
graph.graph @g(%x: tensor<4xf32> {graph.uid = -1 : i64}) {
  graph.output
}

// -----

// uid 0 is a uid like any other: it must be unique too.
// expected-error @below {{'graph.graph' op @g: uid 0 is used by both input 0 and input 1 (uids must be unique in a graph)}}
graph.graph @g(%x: tensor<4xf32> {graph.uid = 0 : i64}, %y: tensor<4xf32> {graph.uid = 0 : i64}) {
  graph.output
}

// -----

// The two largest int64 values are reserved (hash-map keys): a scalar at
// 2^63 - 1 next to another uid was reported as a duplicate of a garbage
// owner, or crashed the verifier.
// expected-error @below {{'graph.graph' op @g: input 0: uid 9223372036854775806 is above the largest uid 9223372036854775805 (the two largest int64 values are reserved)}}
graph.graph @g(%x: tensor<4xf32> {graph.uid = 9223372036854775806 : i64}) {
  graph.output
}

// -----

graph.graph @g(%a: tensor<4xf32> {graph.uid = 1 : i64}) -> tensor<4xf32> {
  // expected-error @below {{scalar: uid 9223372036854775807 is above the largest uid 9223372036854775805 (the two largest int64 values are reserved)}}
  %s = graph.scalar 2.0 : f32 {uid = 9223372036854775807 : i64} -> tensor<1xf32>
  %0 = graph.pointwise mul(%a, %s) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  graph.output %0 : tensor<4xf32>
}

// -----

// expected-error @below {{'graph.graph' op @g: output 0: uid -3 is negative (uids must be >= 0)}}
graph.graph @g(%x: tensor<4xf32>) -> (tensor<4xf32> {graph.uid = -3 : i64}) {
  graph.output %x : tensor<4xf32>
}

// -----

// expected-error @below {{'graph.graph' op @g: input 0: graph.name must be a string, got 7 : i64}}
graph.graph @g(%x: tensor<4xf32> {graph.name = 7 : i64}) {
  graph.output
}

// -----

// expected-error @below {{'graph.graph' op @g: output 0: graph.name must be a string, got @y}}
graph.graph @g(%x: tensor<4xf32>) -> (tensor<4xf32> {graph.name = @y}) {
  graph.output %x : tensor<4xf32>
}

// -----

// expected-error @below {{'graph.graph' op @g: graph inputs must be ranked tensors, got 'tensor<*xf32>'}}
graph.graph @g(%x: tensor<*xf32>) {
  graph.output
}

// -----

// expected-error @below {{'graph.graph' op @g: graph outputs must be ranked tensors, got 'f32'}}
graph.graph @g(%x: tensor<4xf32>) -> f32 {
  graph.output
}

// -----

// expected-error @below {{'graph.graph' op @g: uid 1 is used by both input 0 "x" and input 1 (uids must be unique in a graph)}}
graph.graph @g(%x: tensor<4xf32> {graph.uid = 1 : i64, graph.name = "x"},
               %y: tensor<4xf32> {graph.uid = 1 : i64}) {
  graph.output
}

// -----

// expected-error @below {{'graph.graph' op @g: uid 2 is used by both input 0 and scalar "eps" (uids must be unique in a graph)}}
graph.graph @g(%x: tensor<4xf32> {graph.uid = 2 : i64}) {
  %eps = graph.scalar 1.0e-05 : f32 {uid = 2 : i64, name = "eps"} -> tensor<1xf32>
  graph.output
}

// -----

// expected-error @below {{'graph.graph' op @g: uid 1 is used by both input 0 "x" and output 0 "y" (uids must be unique in a graph)}}
graph.graph @g(%x: tensor<4xf32> {graph.uid = 1 : i64, graph.name = "x"})
    -> (tensor<4xf32> {graph.uid = 1 : i64, graph.name = "y"}) {
  %y = graph.pointwise neg(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.output %y : tensor<4xf32>
}

// -----

// expected-error @below {{'graph.graph' op @g: uid 5 is used by both output 0 and output 1 (uids must be unique in a graph)}}
graph.graph @g(%x: tensor<4xf32>) -> (tensor<4xf32> {graph.uid = 5 : i64}, tensor<4xf32> {graph.uid = 5 : i64}) {
  %y = graph.pointwise neg(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.output %x, %y : tensor<4xf32>, tensor<4xf32>
}

// -----

graph.graph @g(%x: tensor<4xf32>) {
  // expected-error @below {{scalar "eps": uid -2 is negative (uids must be >= 0)}}
  %eps = graph.scalar 1.0e-05 : f32 {uid = -2 : i64, name = "eps"} -> tensor<1xf32>
  graph.output
}

// -----

// expected-error @below {{'graph.graph' op entry block must have 1 arguments to match function signature}}
"graph.graph"() <{function_type = (tensor<4xf32>) -> (), sym_name = "g"}> ({
  "graph.output"() : () -> ()
}) : () -> ()

// -----

// expected-error @below {{'graph.graph' op type of entry block argument #0('tensor<8xf32>') must match the type of the corresponding argument in function signature('tensor<4xf32>')}}
"graph.graph"() <{function_type = (tensor<4xf32>) -> (), sym_name = "g"}> ({
^bb0(%x: tensor<8xf32>):
  "graph.output"() : () -> ()
}) : () -> ()

// -----

// expected-error @below {{'graph.graph' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
graph.graph @g(%x: tensor<4xf32>)

// -----

graph.graph @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'graph.output' op returns 0 values but graph @g declares 1 outputs}}
  graph.output
}

// -----

graph.graph @g(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @below {{'graph.output' op output 0 is 'tensor<4xf32>' but graph @g declares 'tensor<4xf16>'}}
  graph.output %x : tensor<4xf32>
}

// -----

// expected-error @below {{'graph.output' op expects parent op 'graph.graph'}}
graph.output

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @below {{'graph.matmul' op expects parent op to be one of 'graph.graph, graph.group'}}
  %c = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// #graph.strides encoding
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{tensor has 2 dims but 3 strides (rank of strides must equal rank of dims)}}
graph.graph @g(%x: tensor<4x8xf32, #graph.strides<[8, 1, 1]>>) {
  graph.output
}

// -----

// expected-error @+1 {{stride of dim 1 is 0 (strides must be positive)}}
graph.graph @g(%x: tensor<4x8xf32, #graph.strides<[8, 0]>>) {
  graph.output
}

// -----

// expected-error @+1 {{stride of dim 0 is -8 (strides must be positive)}}
graph.graph @g(%x: tensor<4x8xf32, #graph.strides<[-8, 1]>>) {
  graph.output
}

// -----

// Overlapping strides are legal on inputs (they are only read: see
// ops.mlir @overlapping_input) but not on what the graph writes: an output...
// expected-error @+1 {{'graph.graph' op @g: output 0 "y" (uid 2) is written through overlapping strides: strides overlap: dim 0 has stride 8 but the dims with smaller strides span 16 elements (only inputs may overlap)}}
graph.graph @g(%x: tensor<4x8xf32, #graph.strides<[8, 2]>>)
    -> (tensor<4x8xf32, #graph.strides<[8, 2]>> {graph.name = "y", graph.uid = 2 : i64}) {
  %y = graph.pointwise relu(%x) : (tensor<4x8xf32, #graph.strides<[8, 2]>>) -> tensor<4x8xf32, #graph.strides<[8, 2]>>
  graph.output %y : tensor<4x8xf32, #graph.strides<[8, 2]>>
}

// -----

// Without a ragged offset the same batch stride writes two positions to one
// address (the ragged case is in ops.mlir @sdpa_ragged_thd_batch_stride).
// expected-error @+1 {{output 0 (uid 9) is written through overlapping strides: strides overlap: dim 2 has stride 32 but the dims with smaller strides span 64 elements}}
graph.graph @g(%q: tensor<2x2x8x16xbf16, #graph.strides<[32, 16, 32, 1]>>, %k: tensor<2x2x8x16xbf16>) -> (tensor<2x2x8x16xbf16, #graph.strides<[32, 16, 32, 1]>> {graph.uid = 9 : i64}) {
  %o = graph.sdpa %q, %k, %k : (tensor<2x2x8x16xbf16, #graph.strides<[32, 16, 32, 1]>>, tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>) -> (tensor<2x2x8x16xbf16, #graph.strides<[32, 16, 32, 1]>>, none, none, none)
  graph.output %o : tensor<2x2x8x16xbf16, #graph.strides<[32, 16, 32, 1]>>
}

// -----

// ... and a value the graph keeps.
graph.graph @g(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{pointwise "act": result 0 is written through overlapping strides: strides overlap: dim 1 has stride 2 but the dims with smaller strides span 4 elements (only inputs may overlap)}}
  %t = graph.pointwise relu(%x) {name = "act"} : (tensor<4x8xf32>) -> tensor<4x8xf32, #graph.strides<[1, 2]>>
  %y = graph.pointwise exp(%t) : (tensor<4x8xf32, #graph.strides<[1, 2]>>) -> tensor<4x8xf32>
  graph.output %y : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// scalar and the rules every node shares
//===----------------------------------------------------------------------===//

// -----

graph.graph @g() {
  // expected-error @below {{scalar "eps": a pass-by-value scalar holds one element but the result dims are 2x1}}
  %eps = graph.scalar 1.0e-05 : f32 {name = "eps"} -> tensor<2x1xf32>
  graph.output
}

// -----

graph.graph @g() {
  // expected-error @below {{scalar: value must be a float or integer attribute, got dense<1.000000e+00> : tensor<1xf32>}}
  %eps = graph.scalar dense<1.0> : tensor<1xf32> -> tensor<1xf32>
  graph.output
}

// -----

graph.graph @g() {
  // expected-error @below {{scalar: value has type 'f64' but the result holds 'f32'}}
  %eps = graph.scalar 1.0e-05 : f64 -> tensor<1x1xf32>
  graph.output
}

// -----

graph.graph @g(%a: tensor<0x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @below {{matmul: operand 0 has dim 0 = 0 (dims must be positive)}}
  %c = graph.matmul %a, %b : (tensor<0x8xf32>, tensor<8x4xf32>) -> tensor<0x4xf32>
  graph.output
}

// -----

graph.graph @g(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @below {{matmul "mm": result 0 has dim 1 = 0 (dims must be positive)}}
  %c = graph.matmul %a, %b {name = "mm"} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x0xf32>
  graph.output
}

// -----

graph.graph @g(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @below {{matmul: compute_data_type must be a float type, got 'i32'}}
  %c = graph.matmul %a, %b {compute_data_type = i32} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  graph.output
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

// -----

graph.graph @g(%a: tensor<8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @below {{matmul: A must have rank >= 2 ([..., M, K]) but has dims 8}}
  %c = graph.matmul %a, %b : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  graph.output
}

// -----

graph.graph @g(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @below {{matmul: B must have rank >= 2 ([..., K, N]) but has dims 8}}
  %c = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  graph.output
}

// -----

graph.graph @g(%a: tensor<2x4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @below {{matmul: A has rank 3 but B has rank 2 (ranks must match)}}
  %c = graph.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x4xf32>) -> tensor<2x4x4xf32>
  graph.output
}

// -----

graph.graph @g(%a: tensor<4x128xf16>, %b: tensor<64x32xf16>) {
  // expected-error @below {{matmul "mm1": K of A is 128 but K of B is 64}}
  %c = graph.matmul %a, %b {name = "mm1"} : (tensor<4x128xf16>, tensor<64x32xf16>) -> tensor<4x32xf16>
  graph.output
}

// -----

graph.graph @g(%a: tensor<3x4x8xf32>, %b: tensor<2x8x4xf32>) {
  // expected-error @below {{matmul: batch dim 0 of A is 3 but of B is 2 (batch dims must match or be 1)}}
  %c = graph.matmul %a, %b : (tensor<3x4x8xf32>, tensor<2x8x4xf32>) -> tensor<3x4x4xf32>
  graph.output
}

// -----

graph.graph @g(%a: tensor<1x4x8xf32>, %b: tensor<2x8x16xf32>) {
  // expected-error @below {{matmul: C dims are 1x4x16 but must be 2x4x16 ([batch..., M of A, N of B])}}
  %c = graph.matmul %a, %b : (tensor<1x4x8xf32>, tensor<2x8x16xf32>) -> tensor<1x4x16xf32>
  graph.output
}

//===----------------------------------------------------------------------===//
// pointwise
//===----------------------------------------------------------------------===//

// -----

graph.graph @g(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise: mode add takes 2 operands but got 1}}
  %y = graph.pointwise add(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise "act": mode relu takes 1 operand but got 2}}
  %y = graph.pointwise relu(%x, %x) {name = "act"} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x16xf32>, %m: tensor<4x16xi1>) {
  // expected-error @below {{pointwise: mode binary_select takes 3 operands but got 2}}
  %y = graph.pointwise binary_select(%x, %m) : (tensor<4x16xf32>, tensor<4x16xi1>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise: attribute negative_slope does not apply to mode sigmoid (only to relu, leaky_relu, relu_backward, leaky_relu_backward)}}
  %y = graph.pointwise sigmoid(%x) {negative_slope = 0.1 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise: attribute lower_clip does not apply to mode leaky_relu (only to relu, relu_backward)}}
  %y = graph.pointwise leaky_relu(%x) {negative_slope = 0.1 : f64, lower_clip = 0.0 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise: attribute upper_clip does not apply to mode gelu (only to relu, relu_backward)}}
  %y = graph.pointwise gelu(%x) {upper_clip = 6.0 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise: attribute swish_beta does not apply to mode elu (only to swish, swish_backward)}}
  %y = graph.pointwise elu(%x) {swish_beta = 1.0 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise: attribute elu_alpha does not apply to mode swish (only to elu, elu_backward)}}
  %y = graph.pointwise swish(%x) {elu_alpha = 1.0 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise: attribute softplus_beta does not apply to mode tanh_backward (only to softplus, softplus_backward)}}
  %y = graph.pointwise tanh_backward(%x, %x) {softplus_beta = 1.0 : f64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise: attribute axis does not apply to mode add (only to gen_index)}}
  %y = graph.pointwise add(%x, %x) {axis = 0 : i64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise: mode leaky_relu requires negative_slope}}
  %y = graph.pointwise leaky_relu(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise: mode leaky_relu_backward requires negative_slope}}
  %y = graph.pointwise leaky_relu_backward(%x, %x) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise: lower_clip 6.000000e+00 is above upper_clip 0.000000e+00}}
  %y = graph.pointwise relu(%x) {lower_clip = 6.0 : f64, upper_clip = 0.0 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise: softplus_beta must be nonzero}}
  %y = graph.pointwise softplus(%x) {softplus_beta = 0.0 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise: mode gen_index requires axis}}
  %y = graph.pointwise gen_index(%x) : (tensor<4x16xf32>) -> tensor<4x16xi32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise: axis 2 is out of range for a rank-2 result}}
  %y = graph.pointwise gen_index(%x) {axis = 2 : i64} : (tensor<4x16xf32>) -> tensor<4x16xi32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise: axis -1 is out of range for a rank-2 result}}
  %y = graph.pointwise gen_index(%x) {axis = -1 : i64} : (tensor<4x16xf32>) -> tensor<4x16xi32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x16xf32>, %b: tensor<3x16xf32>) {
  // expected-error @below {{pointwise: operand 1 dims 3x16 do not broadcast with 4x16 (numpy broadcasting: each dim equal or 1)}}
  %y = graph.pointwise add(%x, %b) : (tensor<4x16xf32>, tensor<3x16xf32>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x1xf32>, %b: tensor<1x16xf32>) {
  // expected-error @below {{pointwise: result dims are 4x1 but must be 4x16 (the broadcast of the operands)}}
  %y = graph.pointwise mul(%x, %b) : (tensor<4x1xf32>, tensor<1x16xf32>) -> tensor<4x1xf32>
  graph.output
}

//===----------------------------------------------------------------------===//
// conv_fprop, conv_dgrad, conv_wgrad
//===----------------------------------------------------------------------===//

// -----

graph.graph @g(%x: tensor<8x64x56x56xf16>, %w: tensor<64x64x3x3xf16>) {
  // expected-error @below {{conv_fprop: padding has 3 entries but the convolution has 2 spatial dims}}
  %y = graph.conv_fprop %x, %w {padding = array<i64: 1, 1, 1>} : (tensor<8x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<8x64x56x56xf16>
  graph.output
}

// -----

graph.graph @g(%x: tensor<8x64x56x56xf16>, %w: tensor<64x64x3x3xf16>) {
  // expected-error @below {{conv_fprop: pre_padding[1] is -1 but must be >= 0}}
  %y = graph.conv_fprop %x, %w {pre_padding = array<i64: 1, -1>, post_padding = array<i64: 1, 1>} : (tensor<8x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<8x64x56x56xf16>
  graph.output
}

// -----

graph.graph @g(%x: tensor<8x64x56x56xf16>, %w: tensor<64x64x3x3xf16>) {
  // expected-error @below {{conv_fprop: post_padding has 1 entries but the convolution has 2 spatial dims}}
  %y = graph.conv_fprop %x, %w {pre_padding = array<i64: 1, 1>, post_padding = array<i64: 1>} : (tensor<8x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<8x64x56x56xf16>
  graph.output
}

// -----

graph.graph @g(%x: tensor<8x64x56x56xf16>, %w: tensor<64x64x3x3xf16>) {
  // expected-error @below {{conv_fprop "c1": stride[0] is 0 but must be >= 1}}
  %y = graph.conv_fprop %x, %w {stride = array<i64: 0, 1>, name = "c1"} : (tensor<8x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<8x64x54x54xf16>
  graph.output
}

// -----

graph.graph @g(%x: tensor<8x64x56x56xf16>, %w: tensor<64x64x3x3xf16>) {
  // expected-error @below {{conv_fprop: dilation[1] is 0 but must be >= 1}}
  %y = graph.conv_fprop %x, %w {dilation = array<i64: 1, 0>} : (tensor<8x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<8x64x54x54xf16>
  graph.output
}

// -----

graph.graph @g(%x: tensor<8x64x56x56xf16>, %w: tensor<64x64x3x3xf16>) {
  // expected-error @below {{conv_fprop: padding sets pre and post padding at once; give either padding or pre_padding/post_padding}}
  %y = graph.conv_fprop %x, %w {padding = array<i64: 1, 1>, pre_padding = array<i64: 1, 1>} : (tensor<8x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<8x64x56x56xf16>
  graph.output
}

// -----

graph.graph @g(%x: tensor<8x64x56xf16>, %w: tensor<64x64x3xf16>) {
  // expected-error @below {{conv_fprop: image must have rank 4 or 5 (2-D or 3-D convolution) but has dims 8x64x56}}
  %y = graph.conv_fprop %x, %w {padding = array<i64: 1, 1>} : (tensor<8x64x56xf16>, tensor<64x64x3xf16>) -> tensor<8x64x56xf16>
  graph.output
}

// -----

graph.graph @g(%x: tensor<8x64x56x56xf16>, %w: tensor<64x64x3x3x3xf16>) {
  // expected-error @below {{conv_fprop: weight has rank 5 but image has rank 4 (ranks must match)}}
  %y = graph.conv_fprop %x, %w : (tensor<8x64x56x56xf16>, tensor<64x64x3x3x3xf16>) -> tensor<8x64x54x54xf16>
  graph.output
}

// -----

graph.graph @g(%x: tensor<8x64x56x56xf16>, %w: tensor<64x64x3x3xf16>) {
  // expected-error @below {{conv_fprop: Y has rank 3 but image has rank 4 (ranks must match)}}
  %y = graph.conv_fprop %x, %w : (tensor<8x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<8x64x54xf16>
  graph.output
}

// -----

graph.graph @g(%x: tensor<8x64x56x56xf16>, %w: tensor<64x64x3x3xf16>) {
  // expected-error @below {{conv_fprop: batch of image is 8 but batch of Y is 4}}
  %y = graph.conv_fprop %x, %w : (tensor<8x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<4x64x54x54xf16>
  graph.output
}

// -----

graph.graph @g(%x: tensor<8x64x56x56xf16>, %w: tensor<128x64x3x3xf16>) {
  // expected-error @below {{conv_fprop: output channels of weight are 128 but Y has 64}}
  %y = graph.conv_fprop %x, %w : (tensor<8x64x56x56xf16>, tensor<128x64x3x3xf16>) -> tensor<8x64x54x54xf16>
  graph.output
}

// -----

graph.graph @g(%x: tensor<8x64x56x56xf16>, %w: tensor<64x48x3x3xf16>) {
  // expected-error @below {{conv_fprop: input channels of image (64) are not a multiple of the channels per group of weight (48)}}
  %y = graph.conv_fprop %x, %w : (tensor<8x64x56x56xf16>, tensor<64x48x3x3xf16>) -> tensor<8x64x54x54xf16>
  graph.output
}

// -----

graph.graph @g(%x: tensor<8x64x56x56xf16>, %w: tensor<30x16x3x3xf16>) {
  // expected-error @below {{conv_fprop: output channels 30 are not divisible by the 4 groups implied by channels 64 / 16}}
  %y = graph.conv_fprop %x, %w : (tensor<8x64x56x56xf16>, tensor<30x16x3x3xf16>) -> tensor<8x30x54x54xf16>
  graph.output
}

// -----

graph.graph @g(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x5x5xf32>) {
  // expected-error @below {{conv_fprop: spatial dim 0 of the output would be 0 (window larger than the padded input)}}
  %y = graph.conv_fprop %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x5x5xf32>) -> tensor<1x4x1x1xf32>
  graph.output
}

// -----

// A window one wider than the input with stride 2: (1 - 2) / 2 + 1 rounds to
// an output of 1 in truncating division; no window fits, so there is none.
graph.graph @g(%x: tensor<1x1x1x1xf32>, %w: tensor<1x1x2x1xf32>) {
  // expected-error @below {{conv_fprop: spatial dim 0 of the output would be 0 (window larger than the padded input)}}
  %y = graph.conv_fprop %x, %w {stride = array<i64: 2, 1>} : (tensor<1x1x1x1xf32>, tensor<1x1x2x1xf32>) -> tensor<1x1x1x1xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<8x64x56x56xf16>, %w: tensor<64x64x3x3xf16>) {
  // expected-error @below {{conv_fprop: spatial dim 1 of Y is 56 but (in + pre + post - ((window - 1) * dilation + 1)) / stride + 1 gives 28}}
  %y = graph.conv_fprop %x, %w {padding = array<i64: 1, 1>, stride = array<i64: 1, 2>} : (tensor<8x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<8x64x56x56xf16>
  graph.output
}

// -----

graph.graph @g(%dy: tensor<8x64x56x56xf16>, %w: tensor<64x64x3x3xf16>) {
  // expected-error @below {{conv_dgrad: DX must have rank 4 or 5 (2-D or 3-D convolution) but has dims 8x64x56}}
  %dx = graph.conv_dgrad %dy, %w {stride = array<i64: 1, 1>} : (tensor<8x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<8x64x56xf16>
  graph.output
}

// -----

graph.graph @g(%dy: tensor<8x64x28x28xf16>, %w: tensor<64x64x3x3xf16>) {
  // expected-error @below {{conv_dgrad "bwd": spatial dim 0 of loss is 28 but (in + pre + post - ((window - 1) * dilation + 1)) / stride + 1 gives 56}}
  %dx = graph.conv_dgrad %dy, %w {padding = array<i64: 1, 1>, name = "bwd"} : (tensor<8x64x28x28xf16>, tensor<64x64x3x3xf16>) -> tensor<8x64x56x56xf16>
  graph.output
}

// -----

graph.graph @g(%dy: tensor<8x32x56x56xf16>, %w: tensor<64x64x3x3xf16>) {
  // expected-error @below {{conv_dgrad: output channels of filter are 64 but loss has 32}}
  %dx = graph.conv_dgrad %dy, %w {padding = array<i64: 1, 1>} : (tensor<8x32x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<8x64x56x56xf16>
  graph.output
}

// -----

graph.graph @g(%x: tensor<8x64x56x56xf16>, %dy: tensor<8x64x56x56xf16>) {
  // expected-error @below {{conv_wgrad: DW has rank 3 but image has rank 4 (ranks must match)}}
  %dw = graph.conv_wgrad %x, %dy : (tensor<8x64x56x56xf16>, tensor<8x64x56x56xf16>) -> tensor<64x64x3xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<8x64x56x56xf16>, %dy: tensor<4x64x56x56xf16>) {
  // expected-error @below {{conv_wgrad: batch of image is 8 but batch of loss is 4}}
  %dw = graph.conv_wgrad %x, %dy {padding = array<i64: 1, 1>} : (tensor<8x64x56x56xf16>, tensor<4x64x56x56xf16>) -> tensor<64x64x3x3xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x8x16x16x16xbf16>, %dy: tensor<2x16x16x16x16xbf16>) {
  // expected-error @below {{conv_wgrad: spatial dim 2 of loss is 16 but (in + pre + post - ((window - 1) * dilation + 1)) / stride + 1 gives 14}}
  %dw = graph.conv_wgrad %x, %dy {pre_padding = array<i64: 1, 1, 0>, post_padding = array<i64: 1, 1, 0>} : (tensor<2x8x16x16x16xbf16>, tensor<2x16x16x16x16xbf16>) -> tensor<16x8x3x3x3xf32>
  graph.output
}

//===----------------------------------------------------------------------===//
// Norms
//===----------------------------------------------------------------------===//

// -----

graph.graph @g(%x: tensor<128xf32>, %s: tensor<128xf32>, %e: tensor<1xf32>) {
  // expected-error @below {{layernorm: input must have rank >= 2 ([N, C, ...]) but has dims 128}}
  %y = graph.layernorm inference %x, scale %s, bias %s, epsilon %e : (tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<1xf32>) -> (tensor<128xf32>, none, none)
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x128xf32>, %s: tensor<1x64xf32>, %b: tensor<1x64xf32>, %e: tensor<1x1xf32>) {
  // expected-error @below {{layernorm "ln": scale dims are 1x64 but dim 1 is 64, neither 1 nor the input's 128 (input dims 4x128; each dim 1 or the input's; the dims where scale is not 1 are the normalized ones)}}
  %y = graph.layernorm inference %x, scale %s, bias %b, epsilon %e {name = "ln"} : (tensor<4x128xf32>, tensor<1x64xf32>, tensor<1x64xf32>, tensor<1x1xf32>) -> (tensor<4x128xf32>, none, none)
  graph.output
}

// -----

// The frontend's program: x [16, 128, 768], scale [1, 1, 768] normalizes
// over the last dim only, so a mean per (sample, position).
graph.graph @g(%x: tensor<16x128x768xbf16>, %s: tensor<1x1x768xbf16>, %e: tensor<1x1x1xf32>) {
  // expected-error @below {{layernorm "LN": mean dims are 16x1x1 but must be 16x128x1 (input dims with the normalized dims, where scale is not 1, set to 1)}}
  %y, %m, %v = graph.layernorm training %x, scale %s, bias %s, epsilon %e {name = "LN"} : (tensor<16x128x768xbf16>, tensor<1x1x768xbf16>, tensor<1x1x768xbf16>, tensor<1x1x1xf32>) -> (tensor<16x128x768xbf16>, tensor<16x1x1xf32>, tensor<16x1x1xf32>)
  graph.output
}

// -----

graph.graph @g(%x: tensor<16x128x64xf32>, %s: tensor<1x128x1xf32>, %b: tensor<1x1x64xf32>, %e: tensor<1x1x1xf32>) {
  // expected-error @below {{layernorm: bias dims are 1x1x64 but must be 1x128x1 (like scale: one value per normalized element)}}
  %y = graph.layernorm inference %x, scale %s, bias %b, epsilon %e : (tensor<16x128x64xf32>, tensor<1x128x1xf32>, tensor<1x1x64xf32>, tensor<1x1x1xf32>) -> (tensor<16x128x64xf32>, none, none)
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x128xf32>, %s: tensor<1x1xf32>, %e: tensor<1x1xf32>) {
  // expected-error @below {{layernorm: scale dims are 1x1 but at least one dim must be the input's (input dims 4x128; the dims where scale is not 1 are the normalized ones, and this scale normalizes none)}}
  %y = graph.layernorm inference %x, scale %s, bias %s, epsilon %e : (tensor<4x128xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>) -> (tensor<4x128xf32>, none, none)
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x128xf32>, %s: tensor<1x128xf32>, %b: tensor<1x64xf32>, %e: tensor<1x1xf32>) {
  // expected-error @below {{layernorm: bias dims are 1x64 but must be 1x128 (like scale: one value per normalized element)}}
  %y = graph.layernorm inference %x, scale %s, bias %b, epsilon %e : (tensor<4x128xf32>, tensor<1x128xf32>, tensor<1x64xf32>, tensor<1x1xf32>) -> (tensor<4x128xf32>, none, none)
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x128xf32>, %s: tensor<1x128xf32>, %e: tensor<1x2xf32>) {
  // expected-error @below {{layernorm: epsilon must hold one element but has dims 1x2}}
  %y = graph.layernorm inference %x, scale %s, bias %s, epsilon %e : (tensor<4x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>, tensor<1x2xf32>) -> (tensor<4x128xf32>, none, none)
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x128xf32>, %s: tensor<1x128xf32>, %e: tensor<1x1xf32>) {
  // expected-error @below {{layernorm: Y dims are 4x64 but must be 4x128 (like input)}}
  %y = graph.layernorm inference %x, scale %s, bias %s, epsilon %e : (tensor<4x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>, tensor<1x1xf32>) -> (tensor<4x64xf32>, none, none)
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x128xf32>, %s: tensor<1x128xf32>, %e: tensor<1x1xf32>) {
  // expected-error @below {{layernorm: the training phase produces mean but the op has no such result}}
  %y = graph.layernorm training %x, scale %s, bias %s, epsilon %e : (tensor<4x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>, tensor<1x1xf32>) -> (tensor<4x128xf32>, none, none)
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x128xf32>, %s: tensor<1x128xf32>, %e: tensor<1x1xf32>) {
  // expected-error @below {{layernorm: the training phase produces inv_var but the op has no such result}}
  %y, %m = graph.layernorm training %x, scale %s, bias %s, epsilon %e : (tensor<4x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>, tensor<1x1xf32>) -> (tensor<4x128xf32>, tensor<4x1xf32>, none)
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x128xf32>, %s: tensor<1x128xf32>, %e: tensor<1x1xf32>) {
  // expected-error @below {{layernorm: the inference phase produces no mean (statistics exist only in training)}}
  %y, %m, %v = graph.layernorm inference %x, scale %s, bias %s, epsilon %e : (tensor<4x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>, tensor<1x1xf32>) -> (tensor<4x128xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x128xf32>, %s: tensor<1x128xf32>, %e: tensor<1x1xf32>) {
  // expected-error @below {{layernorm: mean dims are 1x128 but must be 4x1 (input dims with the normalized dims, where scale is not 1, set to 1)}}
  %y, %m, %v = graph.layernorm training %x, scale %s, bias %s, epsilon %e : (tensor<4x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>, tensor<1x1xf32>) -> (tensor<4x128xf32>, tensor<1x128xf32>, tensor<4x1xf32>)
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x128xf32>, %s: tensor<1x128xf32>, %e: tensor<1x1xf32>) {
  // expected-error @below {{layernorm: inv_var dims are 4x128 but must be 4x1 (input dims with the normalized dims, where scale is not 1, set to 1)}}
  %y, %m, %v = graph.layernorm training %x, scale %s, bias %s, epsilon %e : (tensor<4x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>, tensor<1x1xf32>) -> (tensor<4x128xf32>, tensor<4x1xf32>, tensor<4x128xf32>)
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x128xf32>, %s: tensor<2x128xf32>, %b: tensor<4x128xf32>, %e: tensor<1x1xf32>) {
  // expected-error @below {{adalayernorm: scale dims are 2x128 but must be 4x128 (input dims: one value per sample and element)}}
  %y = graph.adalayernorm inference %x, scale %s, bias %b, epsilon %e : (tensor<4x128xf32>, tensor<2x128xf32>, tensor<4x128xf32>, tensor<1x1xf32>) -> (tensor<4x128xf32>, none, none)
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x16x8x8xf32>, %s: tensor<1x16x8x8xf32>, %e: tensor<1x1x1x1xf32>) {
  // expected-error @below {{instancenorm: scale dims are 1x16x8x8 but must be 1x16x1x1 ([1, C, 1, ...]: one value per channel)}}
  %y = graph.instancenorm inference %x, scale %s, bias %s, epsilon %e : (tensor<2x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x16x8x8xf32>, none, none)
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x16x8x8xf32>, %s: tensor<1x16x1x1xf32>, %e: tensor<1x1x1x1xf32>) {
  // expected-error @below {{instancenorm: mean dims are 2x1x1x1 but must be 2x16x1x1 ([N, C, 1, ...]: one value per sample and channel)}}
  %y, %m, %v = graph.instancenorm training %x, scale %s, bias %s, epsilon %e : (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<2x1x1x1xf32>, tensor<2x16x1x1xf32>)
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x64xf32>, %s: tensor<1x64xf32>, %e: tensor<1x1xf32>) {
  // expected-error @below {{rmsnorm: the training phase produces inv_var but the op has no such result}}
  %y = graph.rmsnorm training %x, scale %s, epsilon %e : (tensor<4x64xf32>, tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<4x64xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x64xf32>, %s: tensor<1x64xf32>, %e: tensor<1x1xf32>) {
  // expected-error @below {{rmsnorm: the inference phase produces no inv_var (statistics exist only in training)}}
  %y, %v = graph.rmsnorm inference %x, scale %s, epsilon %e : (tensor<4x64xf32>, tensor<1x64xf32>, tensor<1x1xf32>) -> (tensor<4x64xf32>, tensor<4x1xf32>)
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x64xf32>, %s: tensor<1x64xf32>, %e: tensor<1x1xf32>) {
  // expected-error @below {{rmsnorm: inv_var dims are 1x1 but must be 4x1 (input dims with the normalized dims, where scale is not 1, set to 1)}}
  %y, %v = graph.rmsnorm training %x, scale %s, epsilon %e : (tensor<4x64xf32>, tensor<1x64xf32>, tensor<1x1xf32>) -> (tensor<4x64xf32>, tensor<1x1xf32>)
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x64xf32>, %s: tensor<1x64xf32>, %b: tensor<64xf32>, %e: tensor<1x1xf32>) {
  // expected-error @below {{rmsnorm: bias dims are 64 but must be 1x64 (like scale: one value per normalized element)}}
  %y = graph.rmsnorm inference %x, scale %s, bias %b, epsilon %e : (tensor<4x64xf32>, tensor<1x64xf32>, tensor<64xf32>, tensor<1x1xf32>) -> tensor<4x64xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x64xf32>, %s: tensor<64xf32>, %e: tensor<1x1xf32>) {
  // expected-error @below {{rmsnorm "rms": scale dims are 64 but must have the input's rank 2 (input dims 4x64; each dim 1 or the input's; the dims where scale is not 1 are the normalized ones)}}
  %y = graph.rmsnorm inference %x, scale %s, epsilon %e {name = "rms"} : (tensor<4x64xf32>, tensor<64xf32>, tensor<1x1xf32>) -> tensor<4x64xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x8x32xf32>, %s: tensor<1x8x16xf32>, %e: tensor<1x1x1xf32>) {
  // expected-error @below {{rmsnorm: scale dims are 1x8x16 but dim 2 is 16, neither 1 nor the input's 32 (input dims 2x8x32; each dim 1 or the input's; the dims where scale is not 1 are the normalized ones)}}
  %y = graph.rmsnorm inference %x, scale %s, epsilon %e : (tensor<2x8x32xf32>, tensor<1x8x16xf32>, tensor<1x1x1xf32>) -> tensor<2x8x32xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x8x32xf32>, %s: tensor<1x1x32xf32>, %e: tensor<1x1x1xf32>) {
  // expected-error @below {{rmsnorm: inv_var dims are 2x1x1 but must be 2x8x1 (input dims with the normalized dims, where scale is not 1, set to 1)}}
  %y, %v = graph.rmsnorm training %x, scale %s, epsilon %e : (tensor<2x8x32xf32>, tensor<1x1x32xf32>, tensor<1x1x1xf32>) -> (tensor<2x8x32xf32>, tensor<2x1x1xf32>)
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x16x8x8xf32>, %s: tensor<1x8x1x1xf32>, %e: tensor<1x1x1x1xf32>) {
  // expected-error @below {{batchnorm: scale dims are 1x8x1x1 but must be 1x16x1x1 ([1, C, 1, ...]: one value per channel)}}
  %y, %m, %v = graph.batchnorm %x, scale %s, bias %s, epsilon %e : (tensor<2x16x8x8xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, none, none)
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x16x8x8xf32>, %s: tensor<1x16x1x1xf32>, %e: tensor<1x1x1x1xf32>) {
  // expected-error @below {{batchnorm: mean dims are 2x16x1x1 but must be 1x16x1x1 ([1, C, 1, ...]: one value per channel)}}
  %y, %m, %v = graph.batchnorm %x, scale %s, bias %s, epsilon %e : (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<2x16x1x1xf32>, tensor<1x16x1x1xf32>, none, none)
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x16x8x8xf32>, %s: tensor<1x16x1x1xf32>, %e: tensor<1x1x1x1xf32>, %rm: tensor<16xf32>) {
  // expected-error @below {{batchnorm: in_running_mean dims are 16 but must be 1x16x1x1 ([1, C, 1, ...]: one value per channel)}}
  %y, %m, %v, %nm, %nv = graph.batchnorm %x, scale %s, bias %s, epsilon %e running_mean %rm running_var %s momentum %e : (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>, tensor<16xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x16x8x8xf32>, %s: tensor<1x16x1x1xf32>, %e: tensor<1x1x1x1xf32>) {
  // expected-error @below {{batchnorm "bn": in_running_mean and in_running_var come together (running statistics are updated as a pair)}}
  %y, %m, %v, %nm, %nv = graph.batchnorm %x, scale %s, bias %s, epsilon %e running_mean %s momentum %e {name = "bn"} : (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x16x8x8xf32>, %s: tensor<1x16x1x1xf32>, %e: tensor<1x1x1x1xf32>) {
  // expected-error @below {{batchnorm: next_running_mean/next_running_var are produced exactly when in_running_mean/in_running_var are given}}
  %y, %m, %v = graph.batchnorm %x, scale %s, bias %s, epsilon %e running_mean %s running_var %s momentum %e : (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, none, none)
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x16x8x8xf32>, %s: tensor<1x16x1x1xf32>, %e: tensor<1x1x1x1xf32>) {
  // expected-error @below {{batchnorm: next_running_mean/next_running_var are produced exactly when in_running_mean/in_running_var are given}}
  %y, %m, %v, %nm, %nv = graph.batchnorm %x, scale %s, bias %s, epsilon %e : (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x16x8x8xf32>, %s: tensor<1x16x1x1xf32>, %e: tensor<1x1x1x1xf32>) {
  // expected-error @below {{batchnorm: updating running statistics requires momentum}}
  %y, %m, %v, %nm, %nv = graph.batchnorm %x, scale %s, bias %s, epsilon %e running_mean %s running_var %s : (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x16x8x8xf32>, %s: tensor<1x16x1x1xf32>, %e: tensor<1x1x1x1xf32>) {
  // expected-error @below {{batchnorm: momentum is given without in_running_mean/in_running_var (it only weighs the running statistics update)}}
  %y, %m, %v = graph.batchnorm %x, scale %s, bias %s, epsilon %e momentum %e : (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, none, none)
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x16x8x8xf32>, %s: tensor<1x16x1x1xf32>, %e: tensor<1x1x1x1xf32>) {
  // expected-error @below {{batchnorm: momentum must hold one element but has dims 1x16x1x1}}
  %y, %m, %v, %nm, %nv = graph.batchnorm %x, scale %s, bias %s, epsilon %e running_mean %s running_var %s momentum %s : (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x16x8x8xf32>, %s: tensor<1x16x1x1xf32>, %m: tensor<16xf32>) {
  // expected-error @below {{batchnorm_inference: mean dims are 16 but must be 1x16x1x1 ([1, C, 1, ...]: one value per channel)}}
  %y = graph.batchnorm_inference %x, mean %m, inv_variance %s, scale %s, bias %s : (tensor<2x16x8x8xf32>, tensor<16xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>) -> tensor<2x16x8x8xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x16x8x8xf32>, %s: tensor<1x16x1x1xf32>) {
  // expected-error @below {{batchnorm_inference: Y dims are 2x16x4x4 but must be 2x16x8x8 (like input)}}
  %y = graph.batchnorm_inference %x, mean %s, inv_variance %s, scale %s, bias %s : (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>) -> tensor<2x16x4x4xf32>
  graph.output
}

// -----

graph.graph @g(%dy: tensor<4x64xf32>, %x: tensor<4x128xf32>, %s: tensor<1x128xf32>, %m: tensor<4x1xf32>) {
  // expected-error @below {{layernorm_backward: grad dims are 4x64 but must be 4x128 (like input)}}
  %dx, %ds, %db = graph.layernorm_backward %dy, %x, scale %s, mean %m, inv_variance %m : (tensor<4x64xf32>, tensor<4x128xf32>, tensor<1x128xf32>, tensor<4x1xf32>, tensor<4x1xf32>) -> (tensor<4x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>)
  graph.output
}

// -----

graph.graph @g(%dy: tensor<4x128xf32>, %s: tensor<1x128xf32>, %m: tensor<4x1xf32>) {
  // expected-error @below {{layernorm_backward: DX dims are 4x1 but must be 4x128 (like input)}}
  %dx, %ds, %db = graph.layernorm_backward %dy, %dy, scale %s, mean %m, inv_variance %m : (tensor<4x128xf32>, tensor<4x128xf32>, tensor<1x128xf32>, tensor<4x1xf32>, tensor<4x1xf32>) -> (tensor<4x1xf32>, tensor<1x128xf32>, tensor<1x128xf32>)
  graph.output
}

// -----

graph.graph @g(%dy: tensor<4x128xf32>, %s: tensor<1x128xf32>, %m: tensor<4x1xf32>) {
  // expected-error @below {{layernorm_backward: DScale dims are 4x128 but must be 1x128 (like scale)}}
  %dx, %ds, %db = graph.layernorm_backward %dy, %dy, scale %s, mean %m, inv_variance %m : (tensor<4x128xf32>, tensor<4x128xf32>, tensor<1x128xf32>, tensor<4x1xf32>, tensor<4x1xf32>) -> (tensor<4x128xf32>, tensor<4x128xf32>, tensor<1x128xf32>)
  graph.output
}

// -----

graph.graph @g(%dy: tensor<4x128xf32>, %s: tensor<1x128xf32>, %m: tensor<4x1xf32>) {
  // expected-error @below {{layernorm_backward: DBias dims are 1x64 but must be 1x128 (like scale)}}
  %dx, %ds, %db = graph.layernorm_backward %dy, %dy, scale %s, mean %m, inv_variance %m : (tensor<4x128xf32>, tensor<4x128xf32>, tensor<1x128xf32>, tensor<4x1xf32>, tensor<4x1xf32>) -> (tensor<4x128xf32>, tensor<1x128xf32>, tensor<1x64xf32>)
  graph.output
}

// -----

graph.graph @g(%dy: tensor<4x128xf32>, %s: tensor<1x128xf32>, %m: tensor<4x1xf32>, %iv: tensor<1x1xf32>) {
  // expected-error @below {{layernorm_backward: inv_variance dims are 1x1 but must be 4x1 (input dims with the normalized dims, where scale is not 1, set to 1)}}
  %dx, %ds, %db = graph.layernorm_backward %dy, %dy, scale %s, mean %m, inv_variance %iv : (tensor<4x128xf32>, tensor<4x128xf32>, tensor<1x128xf32>, tensor<4x1xf32>, tensor<1x1xf32>) -> (tensor<4x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>)
  graph.output
}

// -----

graph.graph @g(%dy: tensor<4x128xf32>, %s: tensor<1x128xf32>, %m: tensor<4x128xf32>, %iv: tensor<4x1xf32>) {
  // expected-error @below {{layernorm_backward: mean dims are 4x128 but must be 4x1 (input dims with the normalized dims, where scale is not 1, set to 1)}}
  %dx, %ds, %db = graph.layernorm_backward %dy, %dy, scale %s, mean %m, inv_variance %iv : (tensor<4x128xf32>, tensor<4x128xf32>, tensor<1x128xf32>, tensor<4x128xf32>, tensor<4x1xf32>) -> (tensor<4x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>)
  graph.output
}

// -----

graph.graph @g(%dy: tensor<4x128xf32>, %s: tensor<2x128xf32>, %m: tensor<4x1xf32>) {
  // expected-error @below {{adalayernorm_backward: scale dims are 2x128 but must be 4x128 (input dims: one value per sample and element)}}
  %dx, %ds, %db = graph.adalayernorm_backward %dy, %dy, scale %s, mean %m, inv_variance %m : (tensor<4x128xf32>, tensor<4x128xf32>, tensor<2x128xf32>, tensor<4x1xf32>, tensor<4x1xf32>) -> (tensor<4x128xf32>, tensor<2x128xf32>, tensor<2x128xf32>)
  graph.output
}

// -----

graph.graph @g(%dy: tensor<2x16x8x8xf32>, %s: tensor<1x16x1x1xf32>, %m: tensor<1x16x1x1xf32>) {
  // expected-error @below {{instancenorm_backward: inv_variance dims are 1x16x1x1 but must be 2x16x1x1 ([N, C, 1, ...]: one value per sample and channel)}}
  %dx, %ds, %db = graph.instancenorm_backward %dy, %dy, scale %s, mean %m, inv_variance %m : (tensor<2x16x8x8xf32>, tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
  graph.output
}

// -----

graph.graph @g(%dy: tensor<2x8x32xf32>, %s: tensor<1x1x32xf32>, %iv: tensor<2x1x1xf32>) {
  // expected-error @below {{rmsnorm_backward "rb": inv_variance dims are 2x1x1 but must be 2x8x1 (input dims with the normalized dims, where scale is not 1, set to 1)}}
  %dx, %ds = graph.rmsnorm_backward %dy, %dy, scale %s, inv_variance %iv {has_dbias = false, name = "rb"} : (tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<1x1x32xf32>, tensor<2x1x1xf32>) -> (tensor<2x8x32xf32>, tensor<1x1x32xf32>)
  graph.output
}

// -----

graph.graph @g(%dy: tensor<2x8x32xf32>, %s: tensor<1x3x32xf32>, %m: tensor<2x8x1xf32>) {
  // expected-error @below {{layernorm_backward: scale dims are 1x3x32 but dim 1 is 3, neither 1 nor the input's 8 (input dims 2x8x32; each dim 1 or the input's; the dims where scale is not 1 are the normalized ones)}}
  %dx, %ds, %db = graph.layernorm_backward %dy, %dy, scale %s, mean %m, inv_variance %m : (tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<1x3x32xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>) -> (tensor<2x8x32xf32>, tensor<1x3x32xf32>, tensor<1x3x32xf32>)
  graph.output
}

// -----

graph.graph @g(%dy: tensor<4x64xf32>, %s: tensor<1x64xf32>, %iv: tensor<4x1xf32>) {
  // expected-error @below {{rmsnorm_backward: has_dbias is true but there is no DBias result}}
  %dx, %ds = graph.rmsnorm_backward %dy, %dy, scale %s, inv_variance %iv : (tensor<4x64xf32>, tensor<4x64xf32>, tensor<1x64xf32>, tensor<4x1xf32>) -> (tensor<4x64xf32>, tensor<1x64xf32>)
  graph.output
}

// -----

graph.graph @g(%dy: tensor<4x64xf32>, %s: tensor<1x64xf32>, %iv: tensor<4x1xf32>) {
  // expected-error @below {{rmsnorm_backward "rms_bwd": has_dbias is false but there is a DBias result}}
  %dx, %ds, %db = graph.rmsnorm_backward %dy, %dy, scale %s, inv_variance %iv {has_dbias = false, name = "rms_bwd"} : (tensor<4x64xf32>, tensor<4x64xf32>, tensor<1x64xf32>, tensor<4x1xf32>) -> (tensor<4x64xf32>, tensor<1x64xf32>, tensor<1x64xf32>)
  graph.output
}

// -----

graph.graph @g(%dy: tensor<2x16x8x8xf32>, %s: tensor<1x16x1x1xf32>, %m: tensor<2x16x1x1xf32>) {
  // expected-error @below {{batchnorm_backward: inv_variance dims are 2x16x1x1 but must be 1x16x1x1 ([1, C, 1, ...]: one value per channel)}}
  %dx, %ds, %db = graph.batchnorm_backward %dy, %dy, scale %s, mean %s, inv_variance %m : (tensor<2x16x8x8xf32>, tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<2x16x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
  graph.output
}

// -----

graph.graph @g(%dy: tensor<2x16x8x8xf32>, %s: tensor<1x16x1x1xf32>, %m: tensor<2x16x1x1xf32>) {
  // expected-error @below {{batchnorm_backward: mean dims are 2x16x1x1 but must be 1x16x1x1 ([1, C, 1, ...]: one value per channel)}}
  %dx, %ds, %db = graph.batchnorm_backward %dy, %dy, scale %s, mean %m, inv_variance %s : (tensor<2x16x8x8xf32>, tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<2x16x1x1xf32>, tensor<1x16x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
  graph.output
}

//===----------------------------------------------------------------------===//
// genstats
//===----------------------------------------------------------------------===//

// -----

graph.graph @g(%x: tensor<16xf32>) {
  // expected-error @below {{genstats: input must have rank >= 2 ([N, C, ...]) but has dims 16}}
  %s, %sq = graph.genstats %x : (tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>)
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x16x8x8xf16>) {
  // expected-error @below {{genstats "stats": SUM dims are 2x16x1x1 but must be 1x16x1x1 ([1, C, 1, ...]: one value per channel)}}
  %s, %sq = graph.genstats %x {name = "stats"} : (tensor<2x16x8x8xf16>) -> (tensor<2x16x1x1xf32>, tensor<1x16x1x1xf32>)
  graph.output
}

// -----

graph.graph @g(%x: tensor<2x16x8x8xf16>) {
  // expected-error @below {{genstats: SQ_SUM dims are 1x16x8x8 but must be 1x16x1x1 ([1, C, 1, ...]: one value per channel)}}
  %s, %sq = graph.genstats %x : (tensor<2x16x8x8xf16>) -> (tensor<1x16x1x1xf32>, tensor<1x16x8x8xf32>)
  graph.output
}

//===----------------------------------------------------------------------===//
// Malformed text: located parse errors, never a crash
//===----------------------------------------------------------------------===//

// -----

graph.graph @g(%x: tensor<4xf32>) {
  // expected-error @below {{custom op 'graph.frobnicate' is unknown}}
  %y = graph.frobnicate %x : tensor<4xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4xf32>) {
  // expected-error @below {{unregistered operation 'graph.frobnicate' found in dialect ('graph') that does not allow unknown operations}}
  %y = "graph.frobnicate"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown pointwise_mode 'frobnicate'; expected one of: abs, ceil, cos,}}
  %y = graph.pointwise frobnicate(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x8xf32>, %s: tensor<1x8xf32>, %e: tensor<1x1xf32>) {
  // expected-error @+1 {{unknown phase 'train'; expected one of: training, inference}}
  %y = graph.layernorm train %x, scale %s, bias %s, epsilon %e : (tensor<4x8xf32>, tensor<1x8xf32>, tensor<1x8xf32>, tensor<1x1xf32>) -> (tensor<4x8xf32>, none, none)
  graph.output
}

// -----

graph.graph @g(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @below {{attribute 'padding' failed to satisfy constraint: 64-bit float attribute}}
  %c = graph.matmul %a, %b {padding = 1 : i64} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  graph.output
}

// -----

graph.graph @g(%x: tensor<8x64x56x56xf16>, %w: tensor<64x64x3x3xf16>) {
  // expected-error @below {{attribute 'stride' failed to satisfy constraint: i64 dense array attribute}}
  %y = graph.conv_fprop %x, %w {stride = [1, 1]} : (tensor<8x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<8x64x54x54xf16>
  graph.output
}

// -----

graph.graph @g(%x: tensor<4xf32>) {
  // expected-error @below {{attribute 'name' failed to satisfy constraint: string attribute}}
  %y = graph.pointwise neg(%x) {name = 3 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  graph.output
}

// -----

graph.graph @g(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{custom op 'graph.matmul' number of operands and types do not match: got 2 operands and 3 types}}
  %c = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  graph.output
}

// -----

graph.graph @g(%a: tensor<4x8xf32>) {
  // expected-error @below {{'graph.matmul' op expected 2 operands, but found 1}}
  %c = "graph.matmul"(%a) : (tensor<4x8xf32>) -> tensor<4x4xf32>
  graph.output
}

// -----

graph.graph @g(%a: tensor<4x8xf32>) {
  // expected-error @below {{'graph.pointwise' op requires attribute 'mode'}}
  %c = "graph.pointwise"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  graph.output
}

// -----

graph.graph @g(%a: tensor<4x8xf32>) {
  // expected-error @below {{'graph.pointwise' op result #0 must be ranked tensor of any type values, but got 'f32'}}
  %c = "graph.pointwise"(%a) <{mode = #graph<pointwise_mode neg>}> : (tensor<4x8xf32>) -> f32
  graph.output
}

// -----

graph.graph @g(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expected a reduction_mode keyword; one of: add, mul, min, max, amax, avg, norm1, norm2, mul_no_zeros}}
  %y = graph.reduction %x : (tensor<4x8xf32>) -> tensor<4x1xf32>
  graph.output
}

// -----

// expected-error @below {{'graph.graph' op @g: input 0 ('tensor<1x2xf32>'): graph.by_value needs a one-element tensor (cuDNN takes it as a scalar)}}
graph.graph @g(%x: tensor<1x2xf32> {graph.by_value}) {
  graph.output
}

// -----

// expected-error @below {{'graph.graph' op @g: input 0: graph.by_value is a unit attribute, got true}}
graph.graph @g(%x: tensor<1xf32> {graph.by_value = true}) {
  graph.output
}

// -----

// expected-error @below {{'graph.graph' op @g: output 0: graph.by_value marks inputs only (an output is written to device memory)}}
graph.graph @g(%x: tensor<1xf32>) -> (tensor<1xf32> {graph.by_value}) {
  graph.output %x : tensor<1xf32>
}

// -----

// expected-error @below {{'graph.graph' op @g: input 1 "one" ('tensor<2xf32>'): graph.by_value needs a one-element tensor (cuDNN takes it as a scalar)}}
graph.graph @g(%x: tensor<4xf32>, %y: tensor<2xf32> {graph.by_value, graph.name = "one"}) {
  graph.output
}
