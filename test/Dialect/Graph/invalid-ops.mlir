// RUN: graph-opt %s -split-input-file -verify-diagnostics

// Verifier rules of the reduction, structural, rope, quantization, MoE,
// attention and linear-attention ops: one case per rule.

//===----------------------------------------------------------------------===//
// Shared node rules (checked here on a reduction)
//===----------------------------------------------------------------------===//

graph.graph @dim_not_positive(%x: tensor<4x0xf32>) {
  // expected-error @below {{reduction "r": operand 0 has dim 1 = 0 (dims must be positive)}}
  %0 = graph.reduction add %x {name = "r"} : (tensor<4x0xf32>) -> tensor<4x1xf32>
  graph.output
}

// -----

graph.graph @attribute_nan(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise "lr": attribute 'negative_slope' is NaN}}
  %0 = graph.pointwise leaky_relu(%x) {name = "lr", negative_slope = 0x7FF8000000000000 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @compute_type_not_float(%x: tensor<4x16xf32>) {
  // expected-error @below {{reduction "r": compute_data_type must be a float type, got 'i32'}}
  %0 = graph.reduction add %x {name = "r", compute_data_type = i32} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  graph.output
}

// -----

graph.graph @compute_type_bool_not_logical(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise "p": compute_data_type must be a float type (or i32 for this mode), got 'i1'}}
  %0 = graph.pointwise add(%x, %x) {name = "p", compute_data_type = i1} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @compute_type_i64_comparison(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise "c": compute_data_type must be a float type (or i1, i32 for this mode), got 'i64'}}
  %0 = graph.pointwise cmp_lt(%x, %x) {name = "c", compute_data_type = i64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xi1>
  graph.output
}

// -----

graph.graph @compute_type_i1_gen_index(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise "g": compute_data_type must be a float type (or i32 for this mode), got 'i1'}}
  %0 = graph.pointwise gen_index(%x) {name = "g", axis = 1 : i64, compute_data_type = i1} : (tensor<4x16xf32>) -> tensor<4x16xi32>
  graph.output
}

//===----------------------------------------------------------------------===//
// reduction
//===----------------------------------------------------------------------===//

// -----

graph.graph @reduction_rank(%x: tensor<4x16xf32>) {
  // expected-error @below {{reduction "sum": output has rank 1 but input has rank 2 (reduced dims are kept as 1)}}
  %0 = graph.reduction add %x {name = "sum"} : (tensor<4x16xf32>) -> tensor<4xf32>
  graph.output
}

// -----

graph.graph @reduction_dim(%x: tensor<4x16xf32>) {
  // expected-error @below {{reduction: output dim 1 is 8 but input dim 1 is 16 (each output dim equals the input's or is 1)}}
  %0 = graph.reduction max %x : (tensor<4x16xf32>) -> tensor<4x8xf32>
  graph.output
}

// -----

graph.graph @reduction_group_offset(%x: tensor<4x16xf32>, %off: tensor<3xf32>) {
  // expected-error @below {{reduction: group_offset must hold integers (group boundaries along dim 0) but is 'f32'}}
  %0 = graph.reduction add %x group_offset %off : (tensor<4x16xf32>, tensor<3xf32>) -> tensor<4x1xf32>
  graph.output
}

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

// -----

graph.graph @reshape_element_type(%x: tensor<4x16xf32>) {
  // expected-error @below {{reshape "flat": output has element type 'f16' but must keep input's 'f32'}}
  %0 = graph.reshape %x {name = "flat"} : (tensor<4x16xf32>) -> tensor<64xf16>
  graph.output
}

// -----

graph.graph @reshape_count(%x: tensor<4x16xf32>) {
  // expected-error @below {{reshape: input has 64 elements (4x16) but output has 63 (63); a reshape keeps the element count}}
  %0 = graph.reshape %x : (tensor<4x16xf32>) -> tensor<63xf32>
  graph.output
}

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

// -----

graph.graph @slice_element_type(%x: tensor<4x16xf32>) {
  // expected-error @below {{slice "s": output has element type 'bf16' but must keep input's 'f32'}}
  %0 = graph.slice %x {name = "s", start = array<i64: 0, 0>, limit = array<i64: 4, 8>} : (tensor<4x16xf32>) -> tensor<4x8xbf16>
  graph.output
}

// -----

graph.graph @slice_start_entries(%x: tensor<4x16xf32>) {
  // expected-error @below {{slice: start has 1 entries but input has rank 2}}
  %0 = graph.slice %x {start = array<i64: 0>, limit = array<i64: 4, 8>} : (tensor<4x16xf32>) -> tensor<4x8xf32>
  graph.output
}

// -----

graph.graph @slice_limit_entries(%x: tensor<4x16xf32>) {
  // expected-error @below {{slice: limit has 3 entries but input has rank 2}}
  %0 = graph.slice %x {start = array<i64: 0, 0>, limit = array<i64: 4, 8, 1>} : (tensor<4x16xf32>) -> tensor<4x8xf32>
  graph.output
}

// -----

graph.graph @slice_step_entries(%x: tensor<4x16xf32>) {
  // expected-error @below {{slice: step has 1 entries but input has rank 2}}
  %0 = graph.slice %x {start = array<i64: 0, 0>, limit = array<i64: 4, 8>, step = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4x8xf32>
  graph.output
}

// -----

graph.graph @slice_step_positive(%x: tensor<4x16xf32>) {
  // expected-error @below {{slice: step[1] is 0 but must be >= 1}}
  %0 = graph.slice %x {start = array<i64: 0, 0>, limit = array<i64: 4, 8>, step = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<4x8xf32>
  graph.output
}

// -----

graph.graph @slice_start_after_limit(%x: tensor<4x16xf32>) {
  // expected-error @below {{slice: dim 0: slice [3, 2) is out of bounds for extent 4 (need 0 <= start <= limit <= extent)}}
  %0 = graph.slice %x {start = array<i64: 3, 0>, limit = array<i64: 2, 8>} : (tensor<4x16xf32>) -> tensor<1x8xf32>
  graph.output
}

// -----

graph.graph @slice_negative_start(%x: tensor<?x16xf32>) {
  // expected-error @below {{slice: dim 0: slice [-1, 2) is out of bounds for extent ? (need 0 <= start <= limit <= extent)}}
  %0 = graph.slice %x {start = array<i64: -1, 0>, limit = array<i64: 2, 8>} : (tensor<?x16xf32>) -> tensor<3x8xf32>
  graph.output
}

// -----

graph.graph @slice_limit_past_extent(%x: tensor<4x16xf32>) {
  // expected-error @below {{slice: dim 1: slice [8, 17) is out of bounds for extent 16 (need 0 <= start <= limit <= extent)}}
  %0 = graph.slice %x {start = array<i64: 0, 8>, limit = array<i64: 4, 17>} : (tensor<4x16xf32>) -> tensor<4x9xf32>
  graph.output
}

// -----

graph.graph @slice_result_dims(%x: tensor<4x16xf32>) {
  // expected-error @below {{slice: output dims are 4x8 but must be 4x4 (ceil((limit - start) / step) per dim)}}
  %0 = graph.slice %x {start = array<i64: 0, 4>, limit = array<i64: 4, 12>, step = array<i64: 1, 2>} : (tensor<4x16xf32>) -> tensor<4x8xf32>
  graph.output
}

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

// -----

graph.graph @transpose_element_type(%x: tensor<4x16xf32>) {
  // expected-error @below {{transpose "t": output has element type 'f16' but must keep input's 'f32'}}
  %0 = graph.transpose %x {name = "t", permutation = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<16x4xf16>
  graph.output
}

// -----

graph.graph @transpose_entries(%x: tensor<4x16xf32>) {
  // expected-error @below {{transpose: permutation has 1 entries but input has rank 2}}
  %0 = graph.transpose %x {permutation = array<i64: 0>} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}

// -----

graph.graph @transpose_repeated(%x: tensor<4x16xf32>) {
  // expected-error @below {{transpose: permutation entry 1 is 0 (a permutation holds each of 0..1 once)}}
  %0 = graph.transpose %x {permutation = array<i64: 0, 0>} : (tensor<4x16xf32>) -> tensor<4x4xf32>
  graph.output
}

// -----

graph.graph @transpose_out_of_range(%x: tensor<4x16xf32>) {
  // expected-error @below {{transpose: permutation entry 0 is 2 (a permutation holds each of 0..1 once)}}
  %0 = graph.transpose %x {permutation = array<i64: 2, 0>} : (tensor<4x16xf32>) -> tensor<4x4xf32>
  graph.output
}

// -----

graph.graph @transpose_result_dims(%x: tensor<4x16xf32>) {
  // expected-error @below {{transpose: output dims are 4x16 but must be 16x4 (output dim i is input dim permutation[i])}}
  %0 = graph.transpose %x {permutation = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}

//===----------------------------------------------------------------------===//
// concatenate
//===----------------------------------------------------------------------===//

// -----

graph.graph @concat_no_inputs() {
  // expected-error @below {{concatenate "cat": needs at least one input}}
  %0 = graph.concatenate {name = "cat", axis = 0 : i64} : () -> tensor<4xf32>
  graph.output
}

// -----

graph.graph @concat_axis(%a: tensor<4x8xf32>, %b: tensor<4x4xf32>) {
  // expected-error @below {{concatenate: axis 2 is out of range for rank 2}}
  %0 = graph.concatenate %a, %b {axis = 2 : i64} : (tensor<4x8xf32>, tensor<4x4xf32>) -> tensor<4x12xf32>
  graph.output
}

// -----

graph.graph @concat_negative_axis(%a: tensor<4x8xf32>, %b: tensor<4x4xf32>) {
  // expected-error @below {{concatenate: axis -1 is out of range for rank 2}}
  %0 = graph.concatenate %a, %b {axis = -1 : i64} : (tensor<4x8xf32>, tensor<4x4xf32>) -> tensor<4x12xf32>
  graph.output
}

// -----

graph.graph @concat_input_rank(%a: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // expected-error @below {{concatenate: inputs[1] has rank 1 but the output has rank 2}}
  %0 = graph.concatenate %a, %b {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x12xf32>
  graph.output
}

// -----

graph.graph @concat_element_type(%a: tensor<4x8xf32>, %b: tensor<4x4xf16>) {
  // expected-error @below {{concatenate: inputs[1] has element type 'f16' but must keep output's 'f32'}}
  %0 = graph.concatenate %a, %b {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x4xf16>) -> tensor<4x12xf32>
  graph.output
}

// -----

graph.graph @concat_other_dim(%a: tensor<4x8xf32>, %b: tensor<3x4xf32>) {
  // expected-error @below {{concatenate: inputs[1] dim 0 is 3 but the output's is 4 (only the axis dim may differ)}}
  %0 = graph.concatenate %a, %b {axis = 1 : i64} : (tensor<4x8xf32>, tensor<3x4xf32>) -> tensor<4x12xf32>
  graph.output
}

// -----

graph.graph @concat_axis_sum(%a: tensor<4x8xf32>, %b: tensor<4x4xf32>) {
  // expected-error @below {{concatenate: output dim 1 is 13 but the inputs' extents along the axis add up to 12}}
  %0 = graph.concatenate %a, %b {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x4xf32>) -> tensor<4x13xf32>
  graph.output
}

// -----

graph.graph @concat_in_place_index(%a: tensor<4x8xf32>, %b: tensor<4x4xf32>) {
  // expected-error @below {{concatenate: in_place_index 2 is not an input index (0..1)}}
  %0 = graph.concatenate %a, %b {axis = 1 : i64, in_place_index = 2 : i64} : (tensor<4x8xf32>, tensor<4x4xf32>) -> tensor<4x12xf32>
  graph.output
}

// -----

graph.graph @concat_negative_in_place_index(%a: tensor<4x8xf32>, %b: tensor<4x4xf32>) {
  // expected-error @below {{concatenate: in_place_index -1 is not an input index (0..1)}}
  %0 = graph.concatenate %a, %b {axis = 1 : i64, in_place_index = -1 : i64} : (tensor<4x8xf32>, tensor<4x4xf32>) -> tensor<4x12xf32>
  graph.output
}

//===----------------------------------------------------------------------===//
// rope, rope_backward
//===----------------------------------------------------------------------===//

// -----

graph.graph @rope_rank(%x: tensor<64xbf16>, %f: tensor<32xf32>) {
  // expected-error @below {{rope "rope": input must have rank >= 2 ([..., S, D]) but has dims 64}}
  %0 = graph.rope %x, freqs %f {name = "rope"} : (tensor<64xbf16>, tensor<32xf32>) -> tensor<64xbf16>
  graph.output
}

// -----

graph.graph @rope_scale_infinite(%x: tensor<2x128x64xbf16>, %f: tensor<128x32xf32>) {
  // expected-error @below {{rope: output_scale must be finite but is INF}}
  %0 = graph.rope %x, freqs %f {output_scale = 0x7FF0000000000000 : f64} : (tensor<2x128x64xbf16>, tensor<128x32xf32>) -> tensor<2x128x64xbf16>
  graph.output
}

// -----

graph.graph @rope_dim_odd(%x: tensor<2x128x64xbf16>, %f: tensor<128x32xf32>) {
  // expected-error @below {{rope: rope_dim 3 must be even and in (0, 64] (the last dim of input)}}
  %0 = graph.rope %x, freqs %f {rope_dim = 3 : i64} : (tensor<2x128x64xbf16>, tensor<128x32xf32>) -> tensor<2x128x64xbf16>
  graph.output
}

// -----

graph.graph @rope_dim_too_large(%x: tensor<2x128x64xbf16>, %f: tensor<128x32xf32>) {
  // expected-error @below {{rope: rope_dim 128 must be even and in (0, 64] (the last dim of input)}}
  %0 = graph.rope %x, freqs %f {rope_dim = 128 : i64} : (tensor<2x128x64xbf16>, tensor<128x32xf32>) -> tensor<2x128x64xbf16>
  graph.output
}

// -----

graph.graph @rope_dim_negative_dynamic(%x: tensor<2x128x?xbf16>, %f: tensor<128x32xf32>) {
  // expected-error @below {{rope: rope_dim -2 must be even and in (0, ?] (the last dim of input)}}
  %0 = graph.rope %x, freqs %f {rope_dim = -2 : i64} : (tensor<2x128x?xbf16>, tensor<128x32xf32>) -> tensor<2x128x?xbf16>
  graph.output
}

// -----

graph.graph @rope_freqs_last_dim(%x: tensor<2x128x64xbf16>, %f: tensor<128x16xf32>) {
  // expected-error @below {{rope: freqs last dim must be rope_dim / 2 = 32 but freqs dims are 128x16}}
  %0 = graph.rope %x, freqs %f : (tensor<2x128x64xbf16>, tensor<128x16xf32>) -> tensor<2x128x64xbf16>
  graph.output
}

// -----

graph.graph @rope_freqs_partial(%x: tensor<2x128x64xbf16>, %f: tensor<128x32xf32>) {
  // expected-error @below {{rope: freqs last dim must be rope_dim / 2 = 16 but freqs dims are 128x32}}
  %0 = graph.rope %x, freqs %f {rope_dim = 32 : i64} : (tensor<2x128x64xbf16>, tensor<128x32xf32>) -> tensor<2x128x64xbf16>
  graph.output
}

// -----

// rope rotates real values: integer or boolean data would be truncated.
graph.graph @rope_integer_input(%x: tensor<2x8x16xi32>, %f: tensor<8x8xf32>) {
  // expected-error @below {{rope: input must have a floating-point element type but has 'i32'}}
  %0 = graph.rope %x, freqs %f : (tensor<2x8x16xi32>, tensor<8x8xf32>) -> tensor<2x8x16xi32>
  graph.output
}

// -----

graph.graph @rope_bool_output(%x: tensor<2x8x16xf32>, %f: tensor<8x8xf32>) {
  // expected-error @below {{rope: output must have a floating-point element type but has 'i1'}}
  %0 = graph.rope %x, freqs %f : (tensor<2x8x16xf32>, tensor<8x8xf32>) -> tensor<2x8x16xi1>
  graph.output
}

// -----

graph.graph @rope_backward_integer_freqs(%dy: tensor<2x8x16xf16>, %f: tensor<8x8xi32>) {
  // expected-error @below {{rope_backward: freqs must have a floating-point element type but has 'i32'}}
  %0 = graph.rope_backward %dy, freqs %f : (tensor<2x8x16xf16>, tensor<8x8xi32>) -> tensor<2x8x16xf16>
  graph.output
}

// -----

graph.graph @rope_freqs_broadcast(%x: tensor<2x8x128x64xbf16>, %f: tensor<3x128x32xf32>) {
  // expected-error @below {{rope: freqs dims 3x128x32 do not broadcast to 2x8x128x32}}
  %0 = graph.rope %x, freqs %f : (tensor<2x8x128x64xbf16>, tensor<3x128x32xf32>) -> tensor<2x8x128x64xbf16>
  graph.output
}

// -----

graph.graph @rope_output(%x: tensor<2x128x64xbf16>, %f: tensor<128x32xf32>) {
  // expected-error @below {{rope: output dims are 2x128x32 but must be 2x128x64 (like input)}}
  %0 = graph.rope %x, freqs %f : (tensor<2x128x64xbf16>, tensor<128x32xf32>) -> tensor<2x128x32xbf16>
  graph.output
}

// -----

// A dynamic head dim leaves rope_dim undecided; nothing to report.
graph.graph @rope_dynamic_head_dim(%x: tensor<2x128x?xbf16>, %f: tensor<128x?xf32>) {
  %0 = graph.rope %x, freqs %f : (tensor<2x128x?xbf16>, tensor<128x?xf32>) -> tensor<2x128x?xbf16>
  graph.output
}

// -----

graph.graph @rope_backward_rank(%dy: tensor<64xbf16>, %f: tensor<32xf32>) {
  // expected-error @below {{rope_backward "drope": dY must have rank >= 2 ([..., S, D]) but has dims 64}}
  %0 = graph.rope_backward %dy, freqs %f {name = "drope"} : (tensor<64xbf16>, tensor<32xf32>) -> tensor<64xbf16>
  graph.output
}

// -----

graph.graph @rope_backward_dim(%dy: tensor<2x128x64xbf16>, %f: tensor<128x32xf32>) {
  // expected-error @below {{rope_backward: rope_dim 0 must be even and in (0, 64] (the last dim of dY)}}
  %0 = graph.rope_backward %dy, freqs %f {rope_dim = 0 : i64} : (tensor<2x128x64xbf16>, tensor<128x32xf32>) -> tensor<2x128x64xbf16>
  graph.output
}

// -----

graph.graph @rope_backward_freqs(%dy: tensor<2x128x64xbf16>, %f: tensor<128x64xf32>) {
  // expected-error @below {{rope_backward: freqs last dim must be rope_dim / 2 = 32 but freqs dims are 128x64}}
  %0 = graph.rope_backward %dy, freqs %f : (tensor<2x128x64xbf16>, tensor<128x64xf32>) -> tensor<2x128x64xbf16>
  graph.output
}

// -----

graph.graph @rope_backward_broadcast(%dy: tensor<2x128x64xbf16>, %f: tensor<64x32xf32>) {
  // expected-error @below {{rope_backward: freqs dims 64x32 do not broadcast to 2x128x32}}
  %0 = graph.rope_backward %dy, freqs %f : (tensor<2x128x64xbf16>, tensor<64x32xf32>) -> tensor<2x128x64xbf16>
  graph.output
}

// -----

graph.graph @rope_backward_output(%dy: tensor<2x128x64xbf16>, %f: tensor<128x32xf32>) {
  // expected-error @below {{rope_backward: output dims are 1x128x64 but must be 2x128x64 (like dY)}}
  %0 = graph.rope_backward %dy, freqs %f : (tensor<2x128x64xbf16>, tensor<128x32xf32>) -> tensor<1x128x64xbf16>
  graph.output
}

//===----------------------------------------------------------------------===//
// block_scale_quantize
//===----------------------------------------------------------------------===//

// -----

graph.graph @bsq_rank(%x: tensor<bf16>) {
  // expected-error @below {{block_scale_quantize "q": input must have rank >= 1 (blocks run along a dim) but has rank 0}}
  %y, %s = graph.block_scale_quantize %x {name = "q", block_size = 32 : i64} : (tensor<bf16>) -> (tensor<f8E4M3FN>, tensor<f8E8M0FNU>)
  graph.output
}

// -----

graph.graph @bsq_axis(%x: tensor<128x256xbf16>) {
  // expected-error @below {{block_scale_quantize: axis 2 is out of range for rank 2}}
  %y, %s = graph.block_scale_quantize %x {block_size = 32 : i64, axis = 2 : i64} : (tensor<128x256xbf16>) -> (tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>)
  graph.output
}

// -----

graph.graph @bsq_negative_axis(%x: tensor<128x256xbf16>) {
  // expected-error @below {{block_scale_quantize: axis -3 is out of range for rank 2}}
  %y, %s = graph.block_scale_quantize %x {block_size = 32 : i64, axis = -3 : i64} : (tensor<128x256xbf16>) -> (tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>)
  graph.output
}

// -----

graph.graph @bsq_block_size(%x: tensor<128x256xbf16>) {
  // expected-error @below {{block_scale_quantize: block_size 0 must be positive}}
  %y, %s = graph.block_scale_quantize %x {block_size = 0 : i64} : (tensor<128x256xbf16>) -> (tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>)
  graph.output
}

// -----

graph.graph @bsq_divide(%x: tensor<128x48xbf16>) {
  // expected-error @below {{block_scale_quantize: block_size 32 does not divide dim 1 of input (48)}}
  %y, %s = graph.block_scale_quantize %x {block_size = 32 : i64} : (tensor<128x48xbf16>) -> (tensor<128x48xf8E4M3FN>, tensor<128x1xf8E8M0FNU>)
  graph.output
}

// -----

graph.graph @bsq_y_type(%x: tensor<128x256xbf16>) {
  // expected-error @below {{block_scale_quantize: Y must be an fp8 or fp4 type (f8E4M3FN, f8E5M2 or f4E2M1FN) but is 'bf16'}}
  %y, %s = graph.block_scale_quantize %x {block_size = 32 : i64} : (tensor<128x256xbf16>) -> (tensor<128x256xbf16>, tensor<128x8xf8E8M0FNU>)
  graph.output
}

// -----

// Quantizing to integers is not a block-scale format cuDNN produces.
graph.graph @bsq_y_int8(%x: tensor<128x256xbf16>) {
  // expected-error @below {{block_scale_quantize: Y must be an fp8 or fp4 type (f8E4M3FN, f8E5M2 or f4E2M1FN) but is 'i8'}}
  %y, %s = graph.block_scale_quantize %x {block_size = 32 : i64} : (tensor<128x256xbf16>) -> (tensor<128x256xi8>, tensor<128x8xf8E8M0FNU>)
  graph.output
}

// -----

graph.graph @bsq_y_dims(%x: tensor<128x256xbf16>) {
  // expected-error @below {{block_scale_quantize: Y dims are 128x128 but must be 128x256 (like input)}}
  %y, %s = graph.block_scale_quantize %x {block_size = 32 : i64} : (tensor<128x256xbf16>) -> (tensor<128x128xf8E4M3FN>, tensor<128x8xf8E8M0FNU>)
  graph.output
}

// -----

graph.graph @bsq_scale_dims(%x: tensor<128x256xbf16>) {
  // expected-error @below {{block_scale_quantize: scale dims are 128x8 but must be 4x256 (input dims with the block axis divided by block_size)}}
  %y, %s = graph.block_scale_quantize %x {block_size = 32 : i64, axis = 0 : i64} : (tensor<128x256xbf16>) -> (tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>)
  graph.output
}

// -----

// `transpose` changes the strides cuDNN picks, not the dims of scale.
graph.graph @bsq_transpose_keeps_dims(%x: tensor<128x256xbf16>) {
  // expected-error @below {{block_scale_quantize: scale dims are 8x128 but must be 128x8 (input dims with the block axis divided by block_size)}}
  %y, %s = graph.block_scale_quantize %x {block_size = 32 : i64, transpose} : (tensor<128x256xbf16>) -> (tensor<128x256xf8E4M3FN>, tensor<8x128xf8E8M0FNU>)
  graph.output
}

//===----------------------------------------------------------------------===//
// paged_cache_load
//===----------------------------------------------------------------------===//

// -----

graph.graph @paged_rank(%c: tensor<32x4x64xf16>, %t: tensor<4x1x8x1xi32>) {
  // expected-error @below {{paged_cache_load "gather": container must have rank 4 but has 3 (dims 32x4x64)}}
  %0 = graph.paged_cache_load %c, %t {name = "gather", max_seq_len = 64 : i64} : (tensor<32x4x64xf16>, tensor<4x1x8x1xi32>) -> tensor<4x4x64x64xf16>
  graph.output
}

// -----

graph.graph @paged_table_pages(%c: tensor<32x4x8x64xf16>, %t: tensor<4x1x4x1xi32>) {
  // expected-error @below {{paged_cache_load: page_table dims are 4x1x4x1 but must be 4x1x8x1 ([B, 1, ceil(max_seq_len / page_size), 1]: the pages of each batch)}}
  %0 = graph.paged_cache_load %c, %t {max_seq_len = 60 : i64} : (tensor<32x4x8x64xf16>, tensor<4x1x4x1xi32>) -> tensor<4x4x60x64xf16>
  graph.output
}

// -----

graph.graph @paged_table_type(%c: tensor<32x4x8x64xf16>, %t: tensor<4x1x8x1xi64>) {
  // expected-error @below {{paged_cache_load: page_table must hold i32 page numbers (cuDNN's page tables) but is 'i64'}}
  %0 = graph.paged_cache_load %c, %t {max_seq_len = 64 : i64} : (tensor<32x4x8x64xf16>, tensor<4x1x8x1xi64>) -> tensor<4x4x64x64xf16>
  graph.output
}

// -----

graph.graph @paged_length(%c: tensor<32x4x8x64xf16>, %t: tensor<4x1x8x1xi32>) {
  // expected-error @below {{paged_cache_load: page_table needs max_seq_len > 0 (the sequence length of the K/V the pages make)}}
  %0 = graph.paged_cache_load %c, %t {max_seq_len = 0 : i64} : (tensor<32x4x8x64xf16>, tensor<4x1x8x1xi32>) -> tensor<4x4x1x64xf16>
  graph.output
}

// -----

graph.graph @paged_seq_len(%c: tensor<32x4x8x64xf16>, %t: tensor<4x1x8x1xi32>, %l: tensor<1x1x1x1xi32>) {
  // expected-error @below {{paged_cache_load: seq_len dims are 1x1x1x1 but must be 4x1x1x1 ([B, 1, 1, 1]: one length per batch)}}
  %0 = graph.paged_cache_load %c, %t seq_len %l {max_seq_len = 64 : i64} : (tensor<32x4x8x64xf16>, tensor<4x1x8x1xi32>, tensor<1x1x1x1xi32>) -> tensor<4x4x64x64xf16>
  graph.output
}

// -----

graph.graph @paged_seq_len_type(%c: tensor<32x4x8x64xf16>, %t: tensor<4x1x8x1xi32>, %l: tensor<4x1x1x1xi64>) {
  // expected-error @below {{paged_cache_load: seq_len must hold i32 lengths (as cuDNN's PAGED_CACHE_LOAD reads them) but is 'i64'}}
  %0 = graph.paged_cache_load %c, %t seq_len %l {max_seq_len = 64 : i64} : (tensor<32x4x8x64xf16>, tensor<4x1x8x1xi32>, tensor<4x1x1x1xi64>) -> tensor<4x4x64x64xf16>
  graph.output
}

// -----

graph.graph @paged_result_dims(%c: tensor<32x4x8x64xf16>, %t: tensor<4x1x8x1xi32>) {
  // expected-error @below {{paged_cache_load: Y dims are 4x4x64x32 but must be 4x4x64x64 ([B, H, max_seq_len, D])}}
  %0 = graph.paged_cache_load %c, %t {max_seq_len = 64 : i64} : (tensor<32x4x8x64xf16>, tensor<4x1x8x1xi32>) -> tensor<4x4x64x32xf16>
  graph.output
}

// -----

graph.graph @paged_result_type(%c: tensor<32x4x8x64xf16>, %t: tensor<4x1x8x1xi32>) {
  // expected-error @below {{paged_cache_load: Y must have the container's element type 'f16' but is 'f32' (the pages are copied, not converted)}}
  %0 = graph.paged_cache_load %c, %t {max_seq_len = 64 : i64} : (tensor<32x4x8x64xf16>, tensor<4x1x8x1xi32>) -> tensor<4x4x64x64xf32>
  graph.output
}

//===----------------------------------------------------------------------===//
// block_scale_dequantize
//===----------------------------------------------------------------------===//

// -----

graph.graph @bsdq_rank(%x: tensor<f8E4M3FN>, %s: tensor<f8E8M0FNU>) {
  // expected-error @below {{block_scale_dequantize "dq": input must have rank >= 1 (blocks run along a dim) but has rank 0}}
  %0 = graph.block_scale_dequantize %x, descale %s {name = "dq", block_size = 32 : i64} : (tensor<f8E4M3FN>, tensor<f8E8M0FNU>) -> tensor<f32>
  graph.output
}

// -----

graph.graph @bsdq_block_size(%x: tensor<128x256xf8E4M3FN>, %s: tensor<128x8xf8E8M0FNU>) {
  // expected-error @below {{block_scale_dequantize: block_size -32 must be positive}}
  %0 = graph.block_scale_dequantize %x, descale %s {block_size = -32 : i64} : (tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>) -> tensor<128x256xf32>
  graph.output
}

// -----

graph.graph @bsdq_divide(%x: tensor<128x48xf8E4M3FN>, %s: tensor<128x1xf8E8M0FNU>) {
  // expected-error @below {{block_scale_dequantize: block_size 32 does not divide the last dim of input (48)}}
  %0 = graph.block_scale_dequantize %x, descale %s {block_size = 32 : i64} : (tensor<128x48xf8E4M3FN>, tensor<128x1xf8E8M0FNU>) -> tensor<128x48xf32>
  graph.output
}

// -----

graph.graph @bsdq_descale(%x: tensor<128x256xf8E4M3FN>, %s: tensor<128x16xf8E8M0FNU>) {
  // expected-error @below {{block_scale_dequantize: descale dims are 128x16 but must be 128x8 (input dims with the last divided by block_size)}}
  %0 = graph.block_scale_dequantize %x, descale %s {block_size = 32 : i64} : (tensor<128x256xf8E4M3FN>, tensor<128x16xf8E8M0FNU>) -> tensor<128x256xf32>
  graph.output
}

// -----

graph.graph @bsdq_output(%x: tensor<128x256xf8E4M3FN>, %s: tensor<128x8xf8E8M0FNU>) {
  // expected-error @below {{block_scale_dequantize: output dims are 256x128 but must be 128x256 (like input)}}
  %0 = graph.block_scale_dequantize %x, descale %s {block_size = 32 : i64} : (tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>) -> tensor<256x128xf32>
  graph.output
}

//===----------------------------------------------------------------------===//
// moe_grouped_matmul, moe_grouped_matmul_bwd, moe_scatter_rows,
// moe_gather_rows
//===----------------------------------------------------------------------===//

// -----

graph.graph @gather_rows_rank(%x: tensor<32x16xbf16>, %i: tensor<64x1x1xi32>) {
  // expected-error @below {{moe_gather_rows "route": input must be [1, T, K] (the tokens of a moe_grouped_matmul) but has dims 32x16}}
  %0 = graph.moe_gather_rows %x, %i {name = "route"} : (tensor<32x16xbf16>, tensor<64x1x1xi32>) -> tensor<1x64x16xbf16>
  graph.output
}

// -----

graph.graph @gather_rows_index_type(%x: tensor<1x32x16xbf16>, %i: tensor<64x1x1xi64>) {
  // expected-error @below {{moe_gather_rows: token_index must hold i32 but holds 'i64'}}
  %0 = graph.moe_gather_rows %x, %i : (tensor<1x32x16xbf16>, tensor<64x1x1xi64>) -> tensor<1x64x16xbf16>
  graph.output
}

// -----

graph.graph @gather_rows_count(%x: tensor<1x32x16xbf16>, %i: tensor<64x1x1xi32>) {
  // expected-error @below {{moe_gather_rows: output}}
  %0 = graph.moe_gather_rows %x, %i : (tensor<1x32x16xbf16>, tensor<64x1x1xi32>) -> tensor<1x32x16xbf16>
  graph.output
}

// -----

graph.graph @gather_rows_converts(%x: tensor<1x32x16xbf16>, %i: tensor<64x1x1xi32>) {
  // expected-error @below {{moe_gather_rows: output must have the input's element type 'bf16' but is 'f32' (the rows are copied, not converted)}}
  %0 = graph.moe_gather_rows %x, %i : (tensor<1x32x16xbf16>, tensor<64x1x1xi32>) -> tensor<1x64x16xf32>
  graph.output
}

// -----

graph.graph @scatter_rows_rank(%x: tensor<64x16xbf16>, %i: tensor<64x1x1xi32>, %k: tensor<64x1x1xi32>, %o: tensor<4x1x1xi32>) {
  // expected-error @below {{moe_scatter_rows "route": input must be [1, M, N] (the rows of a moe_grouped_matmul) but has dims 64x16}}
  %0 = graph.moe_scatter_rows %x, %i, %k, offsets %o {name = "route", top_k = 2 : i64} : (tensor<64x16xbf16>, tensor<64x1x1xi32>, tensor<64x1x1xi32>, tensor<4x1x1xi32>) -> tensor<64x16xbf16>
  graph.output
}

// -----

graph.graph @scatter_rows_count(%x: tensor<1x64x16xbf16>, %i: tensor<32x1x1xi32>, %k: tensor<64x1x1xi32>, %o: tensor<4x1x1xi32>) {
  // expected-error @below {{moe_scatter_rows: token_index has 32 elements but input has 64 rows (one destination per row)}}
  %0 = graph.moe_scatter_rows %x, %i, %k, offsets %o {top_k = 2 : i64} : (tensor<1x64x16xbf16>, tensor<32x1x1xi32>, tensor<64x1x1xi32>, tensor<4x1x1xi32>) -> tensor<1x64x16xbf16>
  graph.output
}

// -----

graph.graph @scatter_rows_ks_type(%x: tensor<1x64x16xbf16>, %i: tensor<64x1x1xi32>, %k: tensor<64x1x1xf32>, %o: tensor<4x1x1xi32>) {
  // expected-error @below {{moe_scatter_rows: token_ks must hold i32 but holds 'f32'}}
  %0 = graph.moe_scatter_rows %x, %i, %k, offsets %o {top_k = 2 : i64} : (tensor<1x64x16xbf16>, tensor<64x1x1xi32>, tensor<64x1x1xf32>, tensor<4x1x1xi32>) -> tensor<1x64x16xbf16>
  graph.output
}

// -----

graph.graph @scatter_rows_converts(%x: tensor<1x64x16xbf16>, %i: tensor<64x1x1xi32>, %k: tensor<64x1x1xi32>, %o: tensor<4x1x1xi32>) {
  // expected-error @below {{moe_scatter_rows: output must have the input's element type 'bf16' but is 'f32' (the rows are copied, not converted)}}
  %0 = graph.moe_scatter_rows %x, %i, %k, offsets %o {top_k = 2 : i64} : (tensor<1x64x16xbf16>, tensor<64x1x1xi32>, tensor<64x1x1xi32>, tensor<4x1x1xi32>) -> tensor<1x64x16xf32>
  graph.output
}

// -----

graph.graph @scatter_rows_bounded(%x: tensor<1x64x16xbf16>, %i: tensor<64x1x1xi32>, %k: tensor<64x1x1xi32>, %o: tensor<1x1x1xi32>) {
  // expected-error @below {{moe_scatter_rows: first_token_offset has 1 elements but needs a start and an end (bounded)}}
  %0 = graph.moe_scatter_rows %x, %i, %k, offsets %o {top_k = 2 : i64, bounded} : (tensor<1x64x16xbf16>, tensor<64x1x1xi32>, tensor<64x1x1xi32>, tensor<1x1x1xi32>) -> tensor<1x64x16xbf16>
  graph.output
}

// -----

graph.graph @scatter_rows_top_k(%x: tensor<1x64x16xbf16>, %i: tensor<64x1x1xi32>, %k: tensor<64x1x1xi32>, %o: tensor<4x1x1xi32>) {
  // expected-error @below {{moe_scatter_rows: top_k 0 must be >= 1}}
  %0 = graph.moe_scatter_rows %x, %i, %k, offsets %o {top_k = 0 : i64} : (tensor<1x64x16xbf16>, tensor<64x1x1xi32>, tensor<64x1x1xi32>, tensor<4x1x1xi32>) -> tensor<1x64x16xbf16>
  graph.output
}

// -----

graph.graph @moe_token_rank(%t: tensor<32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<4x1x1xi32>) {
  // expected-error @below {{moe_grouped_matmul "moe": token must have rank >= 2 ([..., T, H]) but has dims 32}}
  %0 = graph.moe_grouped_matmul %t, %w, offsets %off {name = "moe"} : (tensor<32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>) -> tensor<16xbf16>
  graph.output
}

// -----

graph.graph @moe_weight_rank(%t: tensor<1x64x32xbf16>, %w: tensor<32x16xbf16>, %off: tensor<4x1x1xi32>) {
  // expected-error @below {{moe_grouped_matmul: weight must be [E, H, N] but has dims 32x16}}
  %0 = graph.moe_grouped_matmul %t, %w, offsets %off : (tensor<1x64x32xbf16>, tensor<32x16xbf16>, tensor<4x1x1xi32>) -> tensor<1x64x16xbf16>
  graph.output
}

// -----

graph.graph @moe_hidden(%t: tensor<1x64x32xbf16>, %w: tensor<4x16x16xbf16>, %off: tensor<4x1x1xi32>) {
  // expected-error @below {{moe_grouped_matmul: H of token is 32 but H of weight is 16}}
  %0 = graph.moe_grouped_matmul %t, %w, offsets %off : (tensor<1x64x32xbf16>, tensor<4x16x16xbf16>, tensor<4x1x1xi32>) -> tensor<1x64x16xbf16>
  graph.output
}

// -----

graph.graph @moe_offsets_count(%t: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<3x1x1xi32>) {
  // expected-error @below {{moe_grouped_matmul: first_token_offset has 3 elements but weight has 4 experts (one offset per expert, or E + 1 boundaries)}}
  %0 = graph.moe_grouped_matmul %t, %w, offsets %off : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<3x1x1xi32>) -> tensor<1x64x16xbf16>
  graph.output
}

// -----

graph.graph @moe_offsets_type(%t: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<4x1x1xf32>) {
  // expected-error @below {{moe_grouped_matmul: first_token_offset must hold integers but is 'f32'}}
  %0 = graph.moe_grouped_matmul %t, %w, offsets %off : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xf32>) -> tensor<1x64x16xbf16>
  graph.output
}

// -----

graph.graph @moe_gather_needs_index(%t: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<4x1x1xi32>) {
  // expected-error @below {{moe_grouped_matmul: mode gather requires token_index}}
  %0 = graph.moe_grouped_matmul %t, %w, offsets %off {mode = #graph.moe_mode<gather>} : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>) -> tensor<1x64x16xbf16>
  graph.output
}

// -----

graph.graph @moe_top_k(%t: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<4x1x1xi32>, %idx: tensor<64x1xi32>) {
  // expected-error @below {{moe_grouped_matmul: top_k -1 must be >= 1}}
  %0 = graph.moe_grouped_matmul %t, %w, offsets %off token_index %idx {mode = #graph.moe_mode<gather>, top_k = -1 : i64} : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>, tensor<64x1xi32>) -> tensor<1x64x16xbf16>
  graph.output
}

// -----

graph.graph @moe_scatter_needs_ks(%t: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<4x1x1xi32>, %idx: tensor<64xi32>) {
  // expected-error @below {{moe_grouped_matmul: mode scatter requires token_ks (each routed row's slot among its token's top_k)}}
  %0 = graph.moe_grouped_matmul %t, %w, offsets %off token_index %idx {mode = #graph.moe_mode<scatter>, top_k = 2 : i64}
      : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>, tensor<64xi32>) -> tensor<1x128x16xbf16>
  graph.output
}

// -----

graph.graph @moe_scatter_needs_top_k(%t: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<4x1x1xi32>, %idx: tensor<64xi32>, %ks: tensor<64xi32>) {
  // expected-error @below {{moe_grouped_matmul: mode scatter requires top_k}}
  %0 = graph.moe_grouped_matmul %t, %w, offsets %off token_index %idx token_ks %ks {mode = #graph.moe_mode<scatter>}
      : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>, tensor<64xi32>, tensor<64xi32>) -> tensor<1x128x16xbf16>
  graph.output
}

// -----

// Without routing, token_index would be silently ignored.
graph.graph @moe_index_without_mode(%t: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<4x1x1xi32>, %idx: tensor<64xi32>) {
  // expected-error @below {{moe_grouped_matmul: token_index does not apply to mode none (token_index routes rows in gather and scatter, token_ks in scatter)}}
  %0 = graph.moe_grouped_matmul %t, %w, offsets %off token_index %idx
      : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>, tensor<64xi32>) -> tensor<1x64x16xbf16>
  graph.output
}

// -----

graph.graph @moe_gather_ks(%t: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<4x1x1xi32>, %idx: tensor<64xi32>, %ks: tensor<64xi32>) {
  // expected-error @below {{moe_grouped_matmul: token_ks does not apply to mode gather (token_index routes rows in gather and scatter, token_ks in scatter)}}
  %0 = graph.moe_grouped_matmul %t, %w, offsets %off token_index %idx token_ks %ks {mode = #graph.moe_mode<gather>}
      : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>, tensor<64xi32>, tensor<64xi32>) -> tensor<1x64x16xbf16>
  graph.output
}

// -----

graph.graph @moe_scatter_rows(%t: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<4x1x1xi32>, %idx: tensor<32xi32>, %ks: tensor<64xi32>) {
  // expected-error @below {{moe_grouped_matmul: token_index has 32 elements but token has 64 rows (scatter routes each row once)}}
  %0 = graph.moe_grouped_matmul %t, %w, offsets %off token_index %idx token_ks %ks {mode = #graph.moe_mode<scatter>, top_k = 2 : i64}
      : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>, tensor<32xi32>, tensor<64xi32>) -> tensor<1x128x16xbf16>
  graph.output
}

// -----

graph.graph @moe_top_k_experts(%t: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<4x1x1xi32>, %idx: tensor<64xi32>, %ks: tensor<64xi32>) {
  // expected-error @below {{moe_grouped_matmul: top_k 5 exceeds the 4 experts of weight}}
  %0 = graph.moe_grouped_matmul %t, %w, offsets %off token_index %idx token_ks %ks {mode = #graph.moe_mode<scatter>, top_k = 5 : i64}
      : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>, tensor<64xi32>, tensor<64xi32>) -> tensor<1x320x16xbf16>
  graph.output
}

// -----

// A gather produces one row per routed row: token_index's count, not T.
graph.graph @moe_gather_rows(%t: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<4x1x1xi32>, %idx: tensor<96xi32>) {
  // expected-error @below {{moe_grouped_matmul: output dims are 1x64x16 but must be 1x96x16 (token dims with T replaced by the token_index count and H by N of weight)}}
  %0 = graph.moe_grouped_matmul %t, %w, offsets %off token_index %idx {mode = #graph.moe_mode<gather>}
      : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>, tensor<96xi32>) -> tensor<1x64x16xbf16>
  graph.output
}

// -----

graph.graph @moe_scatter_output(%t: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<4x1x1xi32>, %idx: tensor<64xi32>, %ks: tensor<64xi32>) {
  // expected-error @below {{moe_grouped_matmul: output dims are 1x128x32 but must be 1x?x16 (token dims with scattered rows and H replaced by N of weight)}}
  %0 = graph.moe_grouped_matmul %t, %w, offsets %off token_index %idx token_ks %ks {mode = #graph.moe_mode<scatter>, top_k = 2 : i64}
      : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>, tensor<64xi32>, tensor<64xi32>) -> tensor<1x128x32xbf16>
  graph.output
}

// -----

graph.graph @moe_output(%t: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<4x1x1xi32>) {
  // expected-error @below {{moe_grouped_matmul: output dims are 1x64x32 but must be 1x64x16 (token dims with H replaced by N of weight)}}
  %0 = graph.moe_grouped_matmul %t, %w, offsets %off : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>) -> tensor<1x64x32xbf16>
  graph.output
}

// -----

graph.graph @moe_bwd_ranks(%dy: tensor<64x16xbf16>, %t: tensor<1x64x32xbf16>, %off: tensor<4x1x1xi32>) {
  // expected-error @below {{moe_grouped_matmul_bwd "dmoe": token and doutput must be [..., T, H] and [..., T, N] but are 1x64x32 and 64x16}}
  %0 = graph.moe_grouped_matmul_bwd %dy, %t, offsets %off {name = "dmoe"} : (tensor<64x16xbf16>, tensor<1x64x32xbf16>, tensor<4x1x1xi32>) -> tensor<4x32x16xf32>
  graph.output
}

// -----

graph.graph @moe_bwd_tokens(%dy: tensor<1x48x16xbf16>, %t: tensor<1x64x32xbf16>, %off: tensor<4x1x1xi32>) {
  // expected-error @below {{moe_grouped_matmul_bwd: T of doutput is 48 but T of token is 64}}
  %0 = graph.moe_grouped_matmul_bwd %dy, %t, offsets %off : (tensor<1x48x16xbf16>, tensor<1x64x32xbf16>, tensor<4x1x1xi32>) -> tensor<4x32x16xf32>
  graph.output
}

// -----

graph.graph @moe_bwd_dweight(%dy: tensor<1x64x16xbf16>, %t: tensor<1x64x32xbf16>, %off: tensor<4x1x1xi32>) {
  // expected-error @below {{moe_grouped_matmul_bwd: dweight dims are 4x16x32 but must be 4x32x16 ([E, H of token, N of doutput])}}
  %0 = graph.moe_grouped_matmul_bwd %dy, %t, offsets %off : (tensor<1x64x16xbf16>, tensor<1x64x32xbf16>, tensor<4x1x1xi32>) -> tensor<4x16x32xf32>
  graph.output
}

// -----

graph.graph @moe_bwd_offsets_count(%dy: tensor<1x64x16xbf16>, %t: tensor<1x64x32xbf16>, %off: tensor<6x1x1xi32>) {
  // expected-error @below {{moe_grouped_matmul_bwd: first_token_offset has 6 elements but dweight has 4 experts (one offset per expert, or E + 1 boundaries)}}
  %0 = graph.moe_grouped_matmul_bwd %dy, %t, offsets %off : (tensor<1x64x16xbf16>, tensor<1x64x32xbf16>, tensor<6x1x1xi32>) -> tensor<4x32x16xf32>
  graph.output
}

// -----

graph.graph @moe_bwd_offsets_type(%dy: tensor<1x64x16xbf16>, %t: tensor<1x64x32xbf16>, %off: tensor<4x1x1xf16>) {
  // expected-error @below {{moe_grouped_matmul_bwd: first_token_offset must hold integers but is 'f16'}}
  %0 = graph.moe_grouped_matmul_bwd %dy, %t, offsets %off : (tensor<1x64x16xbf16>, tensor<1x64x32xbf16>, tensor<4x1x1xf16>) -> tensor<4x32x16xf32>
  graph.output
}

// -----

// E + 1 boundaries are as valid for the backward as for the forward.
graph.graph @moe_bwd_boundaries(%dy: tensor<1x64x16xbf16>, %t: tensor<1x64x32xbf16>, %off: tensor<5xi32>) {
  %0 = graph.moe_grouped_matmul_bwd %dy, %t, offsets %off : (tensor<1x64x16xbf16>, tensor<1x64x32xbf16>, tensor<5xi32>) -> tensor<4x32x16xf32>
  graph.output
}

//===----------------------------------------------------------------------===//
// sdpa, sdpa_backward, sdpa_fp8, sdpa_fp8_backward, sdpa_mxfp8,
// sdpa_mxfp8_backward
//===----------------------------------------------------------------------===//

// -----

graph.graph @sdpa_rank(%q: tensor<2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>) {
  // expected-error @below {{sdpa "attn": q must have rank 4 but has 3 (dims 2x8x16)}}
  %o = graph.sdpa %q, %k, %v {name = "attn"}
      : (tensor<2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_batch(%q: tensor<1x2x8x16xbf16>, %k: tensor<2x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>) {
  // expected-error @below {{sdpa: batch of q, k, v are 1, 2, 1 (must match)}}
  %o = graph.sdpa %q, %k, %v
      : (tensor<1x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_gqa_k(%q: tensor<1x3x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>) {
  // expected-error @below {{sdpa: heads of q (3) are not a multiple of heads of k (2) (GQA/MQA share each kv head among a whole group of q heads)}}
  %o = graph.sdpa %q, %k, %v
      : (tensor<1x3x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> (tensor<1x3x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_gqa_v(%q: tensor<1x4x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x3x8x16xbf16>) {
  // expected-error @below {{sdpa: heads of q (4) are not a multiple of heads of v (3) (GQA/MQA share each kv head among a whole group of q heads)}}
  %o = graph.sdpa %q, %k, %v
      : (tensor<1x4x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x3x8x16xbf16>) -> (tensor<1x4x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_head_dim(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x8xbf16>, %v: tensor<1x2x8x16xbf16>) {
  // expected-error @below {{sdpa: head dim of q is 16 but head dim of k is 8}}
  %o = graph.sdpa %q, %k, %v
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x8xbf16>, tensor<1x2x8x16xbf16>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_kv_seq(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x4x16xbf16>) {
  // expected-error @below {{sdpa: sequence length of k is 8 but of v is 4}}
  %o = graph.sdpa %q, %k, %v
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x4x16xbf16>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_padding_head_dim(%q: tensor<1x2x8x264xbf16>, %k: tensor<1x2x8x264xbf16>, %v: tensor<1x2x8x16xbf16>, %l: tensor<1x1x1x1xi32>) {
  // expected-error @below {{sdpa: head dim of q is 264: above 256 the padding mask is not run by the engines}}
  %o = graph.sdpa %q, %k, %v seq_len_q %l seq_len_kv %l {use_padding_mask}
      : (tensor<1x2x8x264xbf16>, tensor<1x2x8x264xbf16>, tensor<1x2x8x16xbf16>, tensor<1x1x1x1xi32>, tensor<1x1x1x1xi32>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_unit_stride(%q: tensor<1x2x8x16xbf16, #graph.strides<[512, 256, 32, 2]>>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>) {
  // expected-error @below {{sdpa: q must have unit stride in its last (head) dim but has 2}}
  %o = graph.sdpa %q, %k, %v
      : (tensor<1x2x8x16xbf16, #graph.strides<[512, 256, 32, 2]>>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_scale_twice(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %s: tensor<1x1x1x1xf32>) {
  // expected-error @below {{sdpa: the attention scale is given twice (as the attn_scale tensor and as attn_scale_value); give it once}}
  %o = graph.sdpa %q, %k, %v attn_scale %s {attn_scale_value = 1.250000e-01}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x1x1x1xf32>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_scale_one_element(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %s: tensor<1x2x1x1xf32>) {
  // expected-error @below {{sdpa: attn_scale must hold one element but has dims 1x2x1x1}}
  %o = graph.sdpa %q, %k, %v attn_scale %s
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x1x1xf32>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_causal_twice(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>) {
  // expected-error @below {{sdpa: use_causal_mask and use_causal_mask_bottom_right exclude each other}}
  %o = graph.sdpa %q, %k, %v {use_causal_mask, use_causal_mask_bottom_right}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_padding_needs_lengths(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %lq: tensor<1x1x1x1xi32>) {
  // expected-error @below {{sdpa: use_padding_mask requires seq_len_q and seq_len_kv but seq_len_kv is missing}}
  %o = graph.sdpa %q, %k, %v seq_len_q %lq {use_padding_mask}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x1x1x1xi32>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

// A lone sequence length without use_padding_mask is reported too.
graph.graph @sdpa_lengths_need_padding(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %lkv: tensor<1x1x1x1xi32>) {
  // expected-error @below {{sdpa: seq_len_kv is given without use_padding_mask}}
  %o = graph.sdpa %q, %k, %v seq_len_kv %lkv
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x1x1x1xi32>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_lengths_dims(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %lq: tensor<2x1x1x1xi32>, %lkv: tensor<1x1x1x1xi32>) {
  // expected-error @below {{sdpa: seq_len_q dims are 2x1x1x1 but must be 1x1x1x1 ([B, 1, 1, 1]: one length per batch)}}
  %o = graph.sdpa %q, %k, %v seq_len_q %lq seq_len_kv %lkv {use_padding_mask}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<2x1x1x1xi32>, tensor<1x1x1x1xi32>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_lengths_integers(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %lq: tensor<1x1x1x1xi32>, %lkv: tensor<1x1x1x1xf32>) {
  // expected-error @below {{sdpa: seq_len_kv must hold integers but is 'f32'}}
  %o = graph.sdpa %q, %k, %v seq_len_q %lq seq_len_kv %lkv {use_padding_mask}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x1x1x1xi32>, tensor<1x1x1x1xf32>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_bias_broadcast(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %b: tensor<1x2x8x4xbf16>) {
  // expected-error @below {{sdpa: bias dims 1x2x8x4 do not broadcast to the scores 1x2x8x8 ([B, H, Sq, Skv])}}
  %o = graph.sdpa %q, %k, %v bias %b
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x4xbf16>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_bias_rank(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %b: tensor<8x8xbf16>) {
  // expected-error @below {{sdpa: bias dims 8x8 do not broadcast to the scores 1x2x8x8 ([B, H, Sq, Skv])}}
  %o = graph.sdpa %q, %k, %v bias %b
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<8x8xbf16>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_band_negative(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>) {
  // expected-error @below {{sdpa: diagonal_band_right_bound is -1 but must be >= 0}}
  %o = graph.sdpa %q, %k, %v {diagonal_band_right_bound = -1 : i64}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_window_twice(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>) {
  // expected-error @below {{sdpa: sliding_window_length and diagonal_band_left_bound set the same bound; give one}}
  %o = graph.sdpa %q, %k, %v {sliding_window_length = 4 : i64, diagonal_band_left_bound = 4 : i64}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_dropout_range(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>) {
  // expected-error @below {{sdpa: dropout_probability 1.000000e+00 must be in [0, 1)}}
  %o = graph.sdpa %q, %k, %v {dropout_probability = 1.000000e+00}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_dropout_mask_needs_p(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %m: tensor<1x2x8x8xi1>) {
  // expected-error @below {{sdpa: dropout_mask needs dropout_probability (the kept values are scaled by 1/(1-p))}}
  %o = graph.sdpa %q, %k, %v dropout_mask %m
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x8xi1>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_dropout_mask_dims(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %m: tensor<1x1x8x8xi1>) {
  // expected-error @below {{sdpa: dropout_mask dims are 1x1x8x8 but must be 1x2x8x8 ([B, H, Sq, Skv])}}
  %o = graph.sdpa %q, %k, %v dropout_mask %m {dropout_probability = 1.000000e-01}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x1x8x8xi1>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_half_inputs(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>) {
  // expected-error @below {{sdpa: q must be f16 or bf16 (cuDNN's fused attention) but is 'f32'}}
  %o = graph.sdpa %q, %k, %v
      : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_o_dims(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>) {
  // expected-error @below {{sdpa: O dims are 1x2x8x8 but must be 1x2x8x16 ([B, Hq, Sq, Dv])}}
  %o = graph.sdpa %q, %k, %v
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> (tensor<1x2x8x8xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_stats_flag(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>) {
  // expected-error @below {{sdpa: generate_stats is set but there is no Stats result}}
  %o = graph.sdpa %q, %k, %v {generate_stats}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_stats_result(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>) {
  // expected-error @below {{sdpa: a Stats result needs generate_stats}}
  %o:2 = graph.sdpa %q, %k, %v
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>, none, none)
  graph.output
}

// -----

graph.graph @sdpa_stats_dims(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>) {
  // expected-error @below {{sdpa: Stats dims are 1x2x1x8 but must be 1x2x8x1 ([B, Hq, Sq, 1])}}
  %o:2 = graph.sdpa %q, %k, %v {generate_stats}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x1x8xf32>, none, none)
  graph.output
}

// -----

graph.graph @sdpa_score_max_dims(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>) {
  // expected-error @below {{sdpa: score_max dims are 1x2x8x8 but must be 1x2x8x1 ([B, Hq, Sq, 1])}}
  %o:2 = graph.sdpa %q, %k, %v
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> (tensor<1x2x8x16xbf16>, none, tensor<1x2x8x8xf32>, none)
  graph.output
}

// -----

graph.graph @sdpa_bwd_o(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %o: tensor<1x2x8x8xbf16>, %dO: tensor<1x2x8x16xbf16>, %stats: tensor<1x2x8x1xf32>) {
  // expected-error @below {{sdpa_backward "attn_bwd": o dims are 1x2x8x8 but must be 1x2x8x16 ([B, Hq, Sq, Dv])}}
  %d:3 = graph.sdpa_backward %q, %k, %v, %o, %dO, %stats {name = "attn_bwd"}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x8xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>)
  graph.output
}

// -----

graph.graph @sdpa_bwd_do(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %dO: tensor<1x2x4x16xbf16>, %stats: tensor<1x2x8x1xf32>) {
  // expected-error @below {{sdpa_backward: dO dims are 1x2x4x16 but must be 1x2x8x16 (like o)}}
  %d:3 = graph.sdpa_backward %q, %k, %v, %o, %dO, %stats
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x4x16xbf16>, tensor<1x2x8x1xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>)
  graph.output
}

// -----

graph.graph @sdpa_bwd_stats(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %dO: tensor<1x2x8x16xbf16>, %stats: tensor<1x2x8x16xf32>) {
  // expected-error @below {{sdpa_backward: stats dims are 1x2x8x16 but must be 1x2x8x1 ([B, Hq, Sq, 1])}}
  %d:3 = graph.sdpa_backward %q, %k, %v, %o, %dO, %stats
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>)
  graph.output
}

// -----

graph.graph @sdpa_bwd_dq(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %dO: tensor<1x2x8x16xbf16>, %stats: tensor<1x2x8x1xf32>) {
  // expected-error @below {{sdpa_backward: dQ dims are 1x2x8x8 but must be 1x2x8x16 (like q)}}
  %d:3 = graph.sdpa_backward %q, %k, %v, %o, %dO, %stats
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>) -> (tensor<1x2x8x8xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>)
  graph.output
}

// -----

graph.graph @sdpa_bwd_dk(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %dO: tensor<1x2x8x16xbf16>, %stats: tensor<1x2x8x1xf32>) {
  // expected-error @below {{sdpa_backward: dK dims are 1x1x8x16 but must be 1x2x8x16 (like k)}}
  %d:3 = graph.sdpa_backward %q, %k, %v, %o, %dO, %stats
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x2x8x16xbf16>)
  graph.output
}

// -----

graph.graph @sdpa_bwd_dv(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %dO: tensor<1x2x8x16xbf16>, %stats: tensor<1x2x8x1xf32>) {
  // expected-error @below {{sdpa_backward: dV dims are 1x2x16x8 but must be 1x2x8x16 (like v)}}
  %d:3 = graph.sdpa_backward %q, %k, %v, %o, %dO, %stats
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x16x8xbf16>)
  graph.output
}

// -----

graph.graph @sdpa_bwd_dbias_needs_bias(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %dO: tensor<1x2x8x16xbf16>, %stats: tensor<1x2x8x1xf32>) {
  // expected-error @below {{sdpa_backward: dBias needs a bias operand}}
  %d:4 = graph.sdpa_backward %q, %k, %v, %o, %dO, %stats
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x8xbf16>)
  graph.output
}

// -----

graph.graph @sdpa_bwd_dbias_dims(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %dO: tensor<1x2x8x16xbf16>, %stats: tensor<1x2x8x1xf32>, %b: tensor<1x1x8x8xbf16>) {
  // expected-error @below {{sdpa_backward: dBias dims are 1x2x8x8 but must be 1x1x8x8 (like bias)}}
  %d:4 = graph.sdpa_backward %q, %k, %v, %o, %dO, %stats bias %b
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>, tensor<1x1x8x8xbf16>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x8xbf16>)
  graph.output
}

// -----

graph.graph @sdpa_bwd_half(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xbf16>, %dO: tensor<1x2x8x16xbf16>, %stats: tensor<1x2x8x1xf32>) {
  // expected-error @below {{sdpa_backward: v must be f16 or bf16 (cuDNN's fused attention) but is 'f32'}}
  %d:3 = graph.sdpa_backward %q, %k, %v, %o, %dO, %stats
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>)
  graph.output
}

// -----

graph.graph @sdpa_bwd_unit_stride(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %dO: tensor<1x2x8x16xbf16, #graph.strides<[256, 128, 1, 8]>>, %stats: tensor<1x2x8x1xf32>) {
  // expected-error @below {{sdpa_backward: dO must have unit stride in its last (head) dim but has 8}}
  %d:3 = graph.sdpa_backward %q, %k, %v, %o, %dO, %stats
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16, #graph.strides<[256, 128, 1, 8]>>, tensor<1x2x8x1xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>)
  graph.output
}

// -----

// The options are those of the forward, checked alike.
graph.graph @sdpa_bwd_options(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>, %o: tensor<1x2x8x16xbf16>, %dO: tensor<1x2x8x16xbf16>, %stats: tensor<1x2x8x1xf32>) {
  // expected-error @below {{sdpa_backward: use_causal_mask and use_causal_mask_bottom_right exclude each other}}
  %d:3 = graph.sdpa_backward %q, %k, %v, %o, %dO, %stats {use_causal_mask, use_causal_mask_bottom_right}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>)
  graph.output
}

// -----

graph.graph @fp8_q(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xf8E4M3FN>, %v: tensor<1x2x8x16xf8E4M3FN>, %d0: tensor<1x1x1x1xf32>, %d1: tensor<1x1x1x1xf32>, %d2: tensor<1x1x1x1xf32>, %d3: tensor<1x1x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %s1: tensor<1x1x1x1xf32>) {
  // expected-error @below {{sdpa_fp8 "f8": q must be an fp8 type (f8E4M3FN or f8E5M2) but is 'bf16'}}
  %r:3 = graph.sdpa_fp8 %q, %k, %v descale(%d0, %d1, %d2, %d3) scale(%s0, %s1) {name = "f8"}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @fp8_o(%q: tensor<1x2x8x16xf8E4M3FN>, %k: tensor<1x2x8x16xf8E4M3FN>, %v: tensor<1x2x8x16xf8E4M3FN>, %d0: tensor<1x1x1x1xf32>, %d1: tensor<1x1x1x1xf32>, %d2: tensor<1x1x1x1xf32>, %d3: tensor<1x1x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %s1: tensor<1x1x1x1xf32>) {
  // An f16/bf16 O is fine (cuDNN's fp8 attention writes either); f32 is not.
  %ok:3 = graph.sdpa_fp8 %q, %k, %v descale(%d0, %d1, %d2, %d3) scale(%s0, %s1)
      : (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  // expected-error @below {{sdpa_fp8: O must be fp8 (f8E4M3FN or f8E5M2), f16 or bf16 but is 'f32'}}
  %r:3 = graph.sdpa_fp8 %q, %k, %v descale(%d0, %d1, %d2, %d3) scale(%s0, %s1)
      : (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @fp8_descale(%q: tensor<1x2x8x16xf8E4M3FN>, %k: tensor<1x2x8x16xf8E4M3FN>, %v: tensor<1x2x8x16xf8E4M3FN>, %d0: tensor<1x1x1x1xf32>, %d1: tensor<1x1x1x1xf32>, %d2: tensor<1x1x1x1xf32>, %d3: tensor<1x2x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %s1: tensor<1x1x1x1xf32>) {
  // expected-error @below {{sdpa_fp8: descale_s must hold one element but has dims 1x2x1x1}}
  %r:3 = graph.sdpa_fp8 %q, %k, %v descale(%d0, %d1, %d2, %d3) scale(%s0, %s1)
      : (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x2x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @fp8_scale(%q: tensor<1x2x8x16xf8E4M3FN>, %k: tensor<1x2x8x16xf8E4M3FN>, %v: tensor<1x2x8x16xf8E4M3FN>, %d0: tensor<1x1x1x1xf32>, %d1: tensor<1x1x1x1xf32>, %d2: tensor<1x1x1x1xf32>, %d3: tensor<1x1x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %s1: tensor<2xf32>) {
  // expected-error @below {{sdpa_fp8: scale_o must hold one element but has dims 2}}
  %r:3 = graph.sdpa_fp8 %q, %k, %v descale(%d0, %d1, %d2, %d3) scale(%s0, %s1)
      : (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<2xf32>) -> (tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @fp8_amax_dims(%q: tensor<1x2x8x16xf8E4M3FN>, %k: tensor<1x2x8x16xf8E4M3FN>, %v: tensor<1x2x8x16xf8E4M3FN>, %d0: tensor<1x1x1x1xf32>, %d1: tensor<1x1x1x1xf32>, %d2: tensor<1x1x1x1xf32>, %d3: tensor<1x1x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %s1: tensor<1x1x1x1xf32>) {
  // expected-error @below {{sdpa_fp8: Amax_S dims are 1x1x1 but must be 1x1x1x1 ([1, 1, 1, 1])}}
  %r:3 = graph.sdpa_fp8 %q, %k, %v descale(%d0, %d1, %d2, %d3) scale(%s0, %s1)
      : (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @fp8_amax_type(%q: tensor<1x2x8x16xf8E4M3FN>, %k: tensor<1x2x8x16xf8E4M3FN>, %v: tensor<1x2x8x16xf8E4M3FN>, %d0: tensor<1x1x1x1xf32>, %d1: tensor<1x1x1x1xf32>, %d2: tensor<1x1x1x1xf32>, %d3: tensor<1x1x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %s1: tensor<1x1x1x1xf32>) {
  // expected-error @below {{sdpa_fp8: Amax_O must be f32 but is 'bf16'}}
  %r:3 = graph.sdpa_fp8 %q, %k, %v descale(%d0, %d1, %d2, %d3) scale(%s0, %s1)
      : (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xbf16>)
  graph.output
}

// -----

graph.graph @fp8_stats(%q: tensor<1x2x8x16xf8E4M3FN>, %k: tensor<1x2x8x16xf8E4M3FN>, %v: tensor<1x2x8x16xf8E4M3FN>, %d0: tensor<1x1x1x1xf32>, %d1: tensor<1x1x1x1xf32>, %d2: tensor<1x1x1x1xf32>, %d3: tensor<1x1x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %s1: tensor<1x1x1x1xf32>) {
  // expected-error @below {{sdpa_fp8: Stats dims are 1x2x8x16 but must be 1x2x8x1 ([B, Hq, Sq, 1])}}
  %r:4 = graph.sdpa_fp8 %q, %k, %v descale(%d0, %d1, %d2, %d3) scale(%s0, %s1) {generate_stats}
      : (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @fp8_options(%q: tensor<1x2x8x16xf8E4M3FN>, %k: tensor<1x2x8x16xf8E4M3FN>, %v: tensor<1x2x8x16xf8E4M3FN>, %d0: tensor<1x1x1x1xf32>, %d1: tensor<1x1x1x1xf32>, %d2: tensor<1x1x1x1xf32>, %d3: tensor<1x1x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %s1: tensor<1x1x1x1xf32>) {
  // expected-error @below {{sdpa_fp8: dropout_probability -5.000000e-01 must be in [0, 1)}}
  %r:3 = graph.sdpa_fp8 %q, %k, %v descale(%d0, %d1, %d2, %d3) scale(%s0, %s1) {dropout_probability = -5.000000e-01}
      : (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @fp8_qkv(%q: tensor<1x2x8x16xf8E4M3FN>, %k: tensor<1x2x8x32xf8E4M3FN>, %v: tensor<1x2x8x16xf8E4M3FN>, %d0: tensor<1x1x1x1xf32>, %d1: tensor<1x1x1x1xf32>, %d2: tensor<1x1x1x1xf32>, %d3: tensor<1x1x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %s1: tensor<1x1x1x1xf32>) {
  // expected-error @below {{sdpa_fp8: head dim of q is 16 but head dim of k is 32}}
  %r:3 = graph.sdpa_fp8 %q, %k, %v descale(%d0, %d1, %d2, %d3) scale(%s0, %s1)
      : (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x32xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @fp8_bwd_o(%q: tensor<1x2x8x16xf8E4M3FN>, %k: tensor<1x2x8x16xf8E4M3FN>, %v: tensor<1x2x8x16xf8E4M3FN>, %o: tensor<1x2x8x16xf16>, %dO: tensor<1x2x8x16xf8E5M2>, %stats: tensor<1x2x8x1xf32>, %d0: tensor<1x1x1x1xf32>, %d1: tensor<1x1x1x1xf32>, %d2: tensor<1x1x1x1xf32>, %d3: tensor<1x1x1x1xf32>, %d4: tensor<1x1x1x1xf32>, %d5: tensor<1x1x1x1xf32>, %d6: tensor<1x1x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %s1: tensor<1x1x1x1xf32>, %s2: tensor<1x1x1x1xf32>, %s3: tensor<1x1x1x1xf32>, %s4: tensor<1x1x1x1xf32>) {
  // expected-error @below {{sdpa_fp8_backward "f8_bwd": o must be an fp8 type (f8E4M3FN or f8E5M2) but is 'f16'}}
  %r:7 = graph.sdpa_fp8_backward %q, %k, %v, %o, %dO, %stats descale(%d0, %d1, %d2, %d3, %d4, %d5, %d6) scale(%s0, %s1, %s2, %s3, %s4) {name = "f8_bwd"}
      : (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf8E5M2>, tensor<1x2x8x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @fp8_bwd_descale(%q: tensor<1x2x8x16xf8E4M3FN>, %k: tensor<1x2x8x16xf8E4M3FN>, %v: tensor<1x2x8x16xf8E4M3FN>, %o: tensor<1x2x8x16xf8E4M3FN>, %dO: tensor<1x2x8x16xf8E5M2>, %stats: tensor<1x2x8x1xf32>, %d0: tensor<1x1x1x1xf32>, %d1: tensor<1x1x1x1xf32>, %d2: tensor<1x1x1x1xf32>, %d3: tensor<1x1x1x1xf32>, %d4: tensor<1x1x1x1xf32>, %d5: tensor<1x1x1x1xf32>, %d6: tensor<2x1x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %s1: tensor<1x1x1x1xf32>, %s2: tensor<1x1x1x1xf32>, %s3: tensor<1x1x1x1xf32>, %s4: tensor<1x1x1x1xf32>) {
  // expected-error @below {{sdpa_fp8_backward: descale_dP must hold one element but has dims 2x1x1x1}}
  %r:7 = graph.sdpa_fp8_backward %q, %k, %v, %o, %dO, %stats descale(%d0, %d1, %d2, %d3, %d4, %d5, %d6) scale(%s0, %s1, %s2, %s3, %s4)
      : (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E5M2>, tensor<1x2x8x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<2x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @fp8_bwd_scale(%q: tensor<1x2x8x16xf8E4M3FN>, %k: tensor<1x2x8x16xf8E4M3FN>, %v: tensor<1x2x8x16xf8E4M3FN>, %o: tensor<1x2x8x16xf8E4M3FN>, %dO: tensor<1x2x8x16xf8E5M2>, %stats: tensor<1x2x8x1xf32>, %d0: tensor<1x1x1x1xf32>, %d1: tensor<1x1x1x1xf32>, %d2: tensor<1x1x1x1xf32>, %d3: tensor<1x1x1x1xf32>, %d4: tensor<1x1x1x1xf32>, %d5: tensor<1x1x1x1xf32>, %d6: tensor<1x1x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %s1: tensor<1x1x1x2xf32>, %s2: tensor<1x1x1x1xf32>, %s3: tensor<1x1x1x1xf32>, %s4: tensor<1x1x1x1xf32>) {
  // expected-error @below {{sdpa_fp8_backward: scale_dQ must hold one element but has dims 1x1x1x2}}
  %r:7 = graph.sdpa_fp8_backward %q, %k, %v, %o, %dO, %stats descale(%d0, %d1, %d2, %d3, %d4, %d5, %d6) scale(%s0, %s1, %s2, %s3, %s4)
      : (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E5M2>, tensor<1x2x8x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x2xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @fp8_bwd_amax(%q: tensor<1x2x8x16xf8E4M3FN>, %k: tensor<1x2x8x16xf8E4M3FN>, %v: tensor<1x2x8x16xf8E4M3FN>, %o: tensor<1x2x8x16xf8E4M3FN>, %dO: tensor<1x2x8x16xf8E5M2>, %stats: tensor<1x2x8x1xf32>, %d0: tensor<1x1x1x1xf32>, %d1: tensor<1x1x1x1xf32>, %d2: tensor<1x1x1x1xf32>, %d3: tensor<1x1x1x1xf32>, %d4: tensor<1x1x1x1xf32>, %d5: tensor<1x1x1x1xf32>, %d6: tensor<1x1x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %s1: tensor<1x1x1x1xf32>, %s2: tensor<1x1x1x1xf32>, %s3: tensor<1x1x1x1xf32>, %s4: tensor<1x1x1x1xf32>) {
  // expected-error @below {{sdpa_fp8_backward: amax_dP must be f32 but is 'f16'}}
  %r:7 = graph.sdpa_fp8_backward %q, %k, %v, %o, %dO, %stats descale(%d0, %d1, %d2, %d3, %d4, %d5, %d6) scale(%s0, %s1, %s2, %s3, %s4)
      : (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E5M2>, tensor<1x2x8x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf16>)
  graph.output
}

// -----

graph.graph @fp8_bwd_shapes(%q: tensor<1x2x8x16xf8E4M3FN>, %k: tensor<1x2x8x16xf8E4M3FN>, %v: tensor<1x2x8x16xf8E4M3FN>, %o: tensor<1x2x8x16xf8E4M3FN>, %dO: tensor<1x2x8x16xf8E5M2>, %stats: tensor<1x2x8x2xf32>, %d0: tensor<1x1x1x1xf32>, %d1: tensor<1x1x1x1xf32>, %d2: tensor<1x1x1x1xf32>, %d3: tensor<1x1x1x1xf32>, %d4: tensor<1x1x1x1xf32>, %d5: tensor<1x1x1x1xf32>, %d6: tensor<1x1x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %s1: tensor<1x1x1x1xf32>, %s2: tensor<1x1x1x1xf32>, %s3: tensor<1x1x1x1xf32>, %s4: tensor<1x1x1x1xf32>) {
  // expected-error @below {{sdpa_fp8_backward: stats dims are 1x2x8x2 but must be 1x2x8x1 ([B, Hq, Sq, 1])}}
  %r:7 = graph.sdpa_fp8_backward %q, %k, %v, %o, %dO, %stats descale(%d0, %d1, %d2, %d3, %d4, %d5, %d6) scale(%s0, %s1, %s2, %s3, %s4)
      : (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E5M2>, tensor<1x2x8x2xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @fp8_bwd_options(%q: tensor<1x2x8x16xf8E4M3FN>, %k: tensor<1x2x8x16xf8E4M3FN>, %v: tensor<1x2x8x16xf8E4M3FN>, %o: tensor<1x2x8x16xf8E4M3FN>, %dO: tensor<1x2x8x16xf8E5M2>, %stats: tensor<1x2x8x1xf32>, %d0: tensor<1x1x1x1xf32>, %d1: tensor<1x1x1x1xf32>, %d2: tensor<1x1x1x1xf32>, %d3: tensor<1x1x1x1xf32>, %d4: tensor<1x1x1x1xf32>, %d5: tensor<1x1x1x1xf32>, %d6: tensor<1x1x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %s1: tensor<1x1x1x1xf32>, %s2: tensor<1x1x1x1xf32>, %s3: tensor<1x1x1x1xf32>, %s4: tensor<1x1x1x1xf32>) {
  // expected-error @below {{sdpa_fp8_backward: diagonal_band_left_bound is -2 but must be >= 0}}
  %r:7 = graph.sdpa_fp8_backward %q, %k, %v, %o, %dO, %stats descale(%d0, %d1, %d2, %d3, %d4, %d5, %d6) scale(%s0, %s1, %s2, %s3, %s4) {diagonal_band_left_bound = -2 : i64}
      : (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E5M2>, tensor<1x2x8x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_fp8(%q: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xbf16>, %dq: tensor<1x1x64x2xf8E8M0FNU>, %dk: tensor<1x1x64x2xf8E8M0FNU>, %dv: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8 "mx": v must be an fp8 type (f8E4M3FN or f8E5M2) but is 'bf16'}}
  %r:2 = graph.sdpa_mxfp8 %q, %k, %v descale(%dq, %dk, %dv) {name = "mx"}
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_descale_q(%q: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %dq: tensor<1x1x64x1xf8E8M0FNU>, %dk: tensor<1x1x64x2xf8E8M0FNU>, %dv: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8: descale_q dims are 1x1x64x1 but must be 1x1x64x2 (one scale per block of 32 along the head dim of q)}}
  %r:2 = graph.sdpa_mxfp8 %q, %k, %v descale(%dq, %dk, %dv)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x1xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

// P @ V contracts the sequence dim: v's blocks run along it.
graph.graph @mx_descale_v(%q: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %dq: tensor<1x1x64x2xf8E8M0FNU>, %dk: tensor<1x1x64x2xf8E8M0FNU>, %dv: tensor<1x1x64x2xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8: descale_v dims are 1x1x64x2 but must be 1x1x2x64 (one scale per block of 32 along the sequence dim of v)}}
  %r:2 = graph.sdpa_mxfp8 %q, %k, %v descale(%dq, %dk, %dv)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_amax(%q: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %dq: tensor<1x1x64x2xf8E8M0FNU>, %dk: tensor<1x1x64x2xf8E8M0FNU>, %dv: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8: Amax_O dims are 1 but must be 1x1x1x1 ([1, 1, 1, 1])}}
  %r:2 = graph.sdpa_mxfp8 %q, %k, %v descale(%dq, %dk, %dv)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1xf32>)
  graph.output
}

// -----

graph.graph @mx_stats(%q: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %dq: tensor<1x1x64x2xf8E8M0FNU>, %dk: tensor<1x1x64x2xf8E8M0FNU>, %dv: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8: a Stats result needs generate_stats}}
  %r:3 = graph.sdpa_mxfp8 %q, %k, %v descale(%dq, %dk, %dv)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_options(%q: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %dq: tensor<1x1x64x2xf8E8M0FNU>, %dk: tensor<1x1x64x2xf8E8M0FNU>, %dv: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8: use_padding_mask requires seq_len_q and seq_len_kv but seq_len_q is missing}}
  %r:2 = graph.sdpa_mxfp8 %q, %k, %v descale(%dq, %dk, %dv) {use_padding_mask}
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_bwd_o(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x32x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x64xf8E5M2>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward "mx_bwd": o_f16 dims are 1x1x32x64 but must be 1x1x64x64 ([B, Hq, Sq, Dv])}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6) {name = "mx_bwd"}
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x32x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x1xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_bwd_do_f16(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x32xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x64xf8E5M2>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: dO_f16 dims are 1x1x64x32 but must be 1x1x64x64 (like o_f16)}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x32xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x1xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_bwd_do(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x32xf8E5M2>, %dOT: tensor<1x1x64x64xf8E5M2>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: dO dims are 1x1x64x32 but must be 1x1x64x64 (like o_f16)}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x32xf8E5M2>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x1xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_bwd_stats(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x64xf8E5M2>, %stats: tensor<1x1x64x64xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: stats dims are 1x1x64x64 but must be 1x1x64x1 ([B, Hq, Sq, 1])}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_bwd_dq(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x64xf8E5M2>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: dQ dims are 1x1x64x32 but must be 1x1x64x64 (like q)}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x1xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x32xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_bwd_dk(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x64xf8E5M2>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: dK dims are 1x1x32x64 but must be 1x1x64x64 (like k)}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x1xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x32x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_bwd_dv(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x64xf8E5M2>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: dV dims are 1x2x64x64 but must be 1x1x64x64 (like v)}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x1xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

// The transposed copies have the logical dims of the originals.
graph.graph @mx_bwd_q_t(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x32xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x64xf8E5M2>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: q_T dims are 1x1x64x32 but must be 1x1x64x64 (like q: the same values quantized along the sequence dim)}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x32xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x1xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_bwd_k_t(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x32x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x64xf8E5M2>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: k_T dims are 1x1x32x64 but must be 1x1x64x64 (like k: the same values quantized along the sequence dim)}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x32x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x1xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_bwd_do_t(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x32xf8E5M2>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: dO_T dims are 1x1x64x32 but must be 1x1x64x64 (like dO: the same values quantized along the sequence dim)}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x32xf8E5M2>, tensor<1x1x64x1xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_bwd_fp8(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x64xbf16>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: dO_T must be an fp8 type (f8E4M3FN or f8E5M2) but is 'bf16'}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xbf16>, tensor<1x1x64x1xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_bwd_descale_q(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x64xf8E5M2>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x2x64xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: descale_q dims are 1x1x2x64 but must be 1x1x64x2 (one scale per block of 32 along the head dim of q)}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x1xf32>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_bwd_descale_q_t(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x64xf8E5M2>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x64x2xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: descale_q_T dims are 1x1x64x2 but must be 1x1x2x64 (one scale per block of 32 along the sequence dim of q_T)}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x1xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_bwd_descale_k_t(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x64xf8E5M2>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x64x2xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: descale_k_T dims are 1x1x64x2 but must be 1x1x2x64 (one scale per block of 32 along the sequence dim of k_T)}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x1xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_bwd_descale_v(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x64xf8E5M2>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x64x2xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: descale_v dims are 1x1x64x2 but must be 1x1x2x64 (one scale per block of 32 along the sequence dim of v)}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x1xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_bwd_descale_do(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x64xf8E5M2>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x2x64xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: descale_dO dims are 1x1x2x64 but must be 1x1x64x2 (one scale per block of 32 along the head dim of dO)}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x1xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_bwd_descale_do_t(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x64xf8E5M2>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x64x2xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: descale_dO_T dims are 1x1x64x2 but must be 1x1x2x64 (one scale per block of 32 along the sequence dim of dO_T)}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x1xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @mx_bwd_amax(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<1x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x64xf8E5M2>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: amax_dV must be f32 but is 'bf16'}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x1xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xbf16>)
  graph.output
}

// -----

graph.graph @mx_bwd_qkv(%q: tensor<1x1x64x64xf8E4M3FN>, %qT: tensor<1x1x64x64xf8E4M3FN>, %k: tensor<1x1x64x64xf8E4M3FN>, %kT: tensor<1x1x64x64xf8E4M3FN>, %v: tensor<2x1x64x64xf8E4M3FN>, %of: tensor<1x1x64x64xbf16>, %dOf: tensor<1x1x64x64xbf16>, %dO: tensor<1x1x64x64xf8E5M2>, %dOT: tensor<1x1x64x64xf8E5M2>, %stats: tensor<1x1x64x1xf32>, %s0: tensor<1x1x64x2xf8E8M0FNU>, %s1: tensor<1x1x2x64xf8E8M0FNU>, %s2: tensor<1x1x64x2xf8E8M0FNU>, %s3: tensor<1x1x2x64xf8E8M0FNU>, %s4: tensor<1x1x2x64xf8E8M0FNU>, %s5: tensor<1x1x64x2xf8E8M0FNU>, %s6: tensor<1x1x2x64xf8E8M0FNU>) {
  // expected-error @below {{sdpa_mxfp8_backward: batch of q, k, v are 1, 1, 2 (must match)}}
  %r:6 = graph.sdpa_mxfp8_backward %q, %qT, %k, %kT, %v, %of, %dOf, %dO, %dOT, %stats descale(%s0, %s1, %s2, %s3, %s4, %s5, %s6)
      : (tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<1x1x64x64xf8E4M3FN>, tensor<2x1x64x64xf8E4M3FN>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x64xf8E5M2>, tensor<1x1x64x1xf32>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>, tensor<1x1x64x2xf8E8M0FNU>, tensor<1x1x2x64xf8E8M0FNU>) -> (tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x64x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

//===----------------------------------------------------------------------===//
// gdn, kda, gdn2 and their backwards
//===----------------------------------------------------------------------===//

// -----

graph.graph @gdn_rank(%q: tensor<8x8xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>) {
  // expected-error @below {{gdn "gdn": q must have rank 3 but has 2 (dims 8x8)}}
  %r = graph.gdn %q, %k, %v, %g, %beta {name = "gdn"}
      : (tensor<8x8xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>) -> (tensor<8x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn_tokens(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<4x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>) {
  // expected-error @below {{gdn: tokens of q (8) and v (4) differ}}
  %r = graph.gdn %q, %k, %v, %g, %beta
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<4x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>) -> (tensor<8x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn_key_dim(%q: tensor<8x2x4xf32>, %k: tensor<8x2x8xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>) {
  // expected-error @below {{gdn: key dim of q is 4 but key dim of k is 8}}
  %r = graph.gdn %q, %k, %v, %g, %beta
      : (tensor<8x2x4xf32>, tensor<8x2x8xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>) -> (tensor<8x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn_heads(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x3x4xf32>, %g: tensor<8x3xf32>, %beta: tensor<8x3xf32>) {
  // expected-error @below {{gdn: heads of q (2) do not divide the state's 3 heads (the max of q and v heads)}}
  %r = graph.gdn %q, %k, %v, %g, %beta
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x3x4xf32>, tensor<8x3xf32>, tensor<8x3xf32>) -> (tensor<8x3x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn_gate(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2x4xf32>, %beta: tensor<8x2xf32>) {
  // expected-error @below {{gdn: g dims are 8x2x4 but must be [T, heads] with T = 8}}
  %r = graph.gdn %q, %k, %v, %g, %beta
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>) -> (tensor<8x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn_beta_heads(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x4xf32>) {
  // expected-error @below {{gdn: heads of beta (4) do not divide the state's 2 heads (the max of q and v heads)}}
  %r = graph.gdn %q, %k, %v, %g, %beta
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x4xf32>) -> (tensor<8x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn_cu_seqlens_type(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>, %cu: tensor<3xf32>) {
  // expected-error @below {{gdn: cu_seqlens must be a rank-1 integer tensor ([N + 1] boundaries) but is 'tensor<3xf32>'}}
  %r = graph.gdn %q, %k, %v, %g, %beta cu_seqlens %cu
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<3xf32>) -> (tensor<8x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn_cu_seqlens_count(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>, %cu: tensor<1xi32>) {
  // expected-error @below {{gdn: cu_seqlens has 1 entries; it needs N + 1 >= 2 sequence boundaries}}
  %r = graph.gdn %q, %k, %v, %g, %beta cu_seqlens %cu
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<1xi32>) -> (tensor<8x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn_initial_state(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>, %cu: tensor<3xi32>, %s: tensor<1x2x4x4xf32>) {
  // expected-error @below {{gdn: initial_state dims are 1x2x4x4 but must be 2x2x4x4 ([N, H, K, V])}}
  %r = graph.gdn %q, %k, %v, %g, %beta cu_seqlens %cu initial_state %s
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<3xi32>, tensor<1x2x4x4xf32>) -> (tensor<8x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn_output(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>) {
  // expected-error @below {{gdn: O dims are 8x1x4 but must be 8x2x4 ([T, H, V])}}
  %r = graph.gdn %q, %k, %v, %g, %beta
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>) -> (tensor<8x1x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn_final_flag(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>) {
  // expected-error @below {{gdn: output_final_state is set but there is no final_state result}}
  %r = graph.gdn %q, %k, %v, %g, %beta {output_final_state}
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>) -> (tensor<8x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn_final_result(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>) {
  // expected-error @below {{gdn: a final_state result needs output_final_state}}
  %r:2 = graph.gdn %q, %k, %v, %g, %beta
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>) -> (tensor<8x2x4xf32>, tensor<1x2x4x4xf32>, none)
  graph.output
}

// -----

graph.graph @gdn_final_dims(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>) {
  // expected-error @below {{gdn: final_state dims are 1x2x4x8 but must be 1x2x4x4 ([N, H, K, V])}}
  %r:2 = graph.gdn %q, %k, %v, %g, %beta {output_final_state}
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>) -> (tensor<8x2x4xf32>, tensor<1x2x4x8xf32>, none)
  graph.output
}

// -----

graph.graph @gdn_checkpoint_negative(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>) {
  // expected-error @below {{gdn: checkpoint_every_n_tokens -4 must be >= 0}}
  %r = graph.gdn %q, %k, %v, %g, %beta {checkpoint_every_n_tokens = -4 : i64}
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>) -> (tensor<8x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn_checkpoints_flag(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>) {
  // expected-error @below {{gdn: checkpoint_every_n_tokens is 4 but there is no state_checkpoints result}}
  %r = graph.gdn %q, %k, %v, %g, %beta {checkpoint_every_n_tokens = 4 : i64}
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>) -> (tensor<8x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn_checkpoints_result(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>) {
  // expected-error @below {{gdn: a state_checkpoints result needs checkpoint_every_n_tokens > 0}}
  %r:2 = graph.gdn %q, %k, %v, %g, %beta
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>) -> (tensor<8x2x4xf32>, none, tensor<2x1x2x4x4xf32>)
  graph.output
}

// -----

// kda gates every key channel: g is [T, H, K].
graph.graph @kda_gate(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>) {
  // expected-error @below {{kda "kda": g dims are 8x2 but must be [T, heads, 4] with T = 8}}
  %r = graph.kda %q, %k, %v, %g, %beta {name = "kda"}
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>) -> (tensor<8x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @kda_beta(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2x4xf32>, %beta: tensor<8x2x4xf32>) {
  // expected-error @below {{kda: beta dims are 8x2x4 but must be [T, heads] with T = 8}}
  %r = graph.kda %q, %k, %v, %g, %beta
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> (tensor<8x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @kda_common(%q: tensor<8x2x4xf32>, %k: tensor<6x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2x4xf32>, %beta: tensor<8x2xf32>) {
  // expected-error @below {{kda: tokens of q (8) and k (6) differ}}
  %r = graph.kda %q, %k, %v, %g, %beta
      : (tensor<8x2x4xf32>, tensor<6x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>) -> (tensor<8x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn2_write_gate(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2x4xf32>, %beta: tensor<8x2x4xf32>, %w: tensor<8x2x8xf32>) {
  // expected-error @below {{gdn2 "gdn2": w dims are 8x2x8 but must be [T, heads, 4] with T = 8}}
  %r = graph.gdn2 %q, %k, %v, %g, %beta, %w {name = "gdn2"}
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x8xf32>) -> (tensor<8x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn2_beta(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2x4xf32>, %beta: tensor<8x2xf32>, %w: tensor<8x2x4xf32>) {
  // expected-error @below {{gdn2: beta dims are 8x2 but must be [T, heads, 4] with T = 8}}
  %r = graph.gdn2 %q, %k, %v, %g, %beta, %w
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2x4xf32>) -> (tensor<8x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn2_final(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2x4xf32>, %beta: tensor<8x2x4xf32>, %w: tensor<8x2x4xf32>) {
  // expected-error @below {{gdn2: output_final_state is set but there is no final_state result}}
  %r = graph.gdn2 %q, %k, %v, %g, %beta, %w {output_final_state}
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> (tensor<8x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn_bwd_do(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>, %dO: tensor<8x2x8xf32>) {
  // expected-error @below {{gdn_bwd "gdn_bwd": dO dims are 8x2x8 but must be 8x2x4 ([T, H, V])}}
  %d:5 = graph.gdn_bwd %q, %k, %v, %g, %beta dO %dO {name = "gdn_bwd"}
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2x8xf32>) -> (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>)
  graph.output
}

// -----

// The backward checks the states against [N, H, K, V] as the forward does.
graph.graph @gdn_bwd_initial_state(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>, %cu: tensor<3xi32>, %dO: tensor<8x2x4xf32>, %s: tensor<1x2x4x4xf32>) {
  // expected-error @below {{gdn_bwd: initial_state dims are 1x2x4x4 but must be 2x2x4x4 ([N, H, K, V])}}
  %d:6 = graph.gdn_bwd %q, %k, %v, %g, %beta cu_seqlens %cu dO %dO initial_state %s
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<3xi32>, tensor<8x2x4xf32>, tensor<1x2x4x4xf32>) -> (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<1x2x4x4xf32>)
  graph.output
}

// -----

graph.graph @gdn_bwd_d_final_state(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>, %dO: tensor<8x2x4xf32>, %dfs: tensor<1x4x4x4xf32>) {
  // expected-error @below {{gdn_bwd: d_final_state dims are 1x4x4x4 but must be 1x2x4x4 ([N, H, K, V])}}
  %d:5 = graph.gdn_bwd %q, %k, %v, %g, %beta dO %dO d_final_state %dfs
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2x4xf32>, tensor<1x4x4x4xf32>) -> (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>)
  graph.output
}

// -----

graph.graph @gdn_bwd_grad(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>, %dO: tensor<8x2x4xf32>) {
  // expected-error @below {{gdn_bwd: dG dims are 8x1 but must be 8x2 (like its input)}}
  %d:5 = graph.gdn_bwd %q, %k, %v, %g, %beta dO %dO
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2x4xf32>) -> (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x1xf32>, tensor<8x2xf32>)
  graph.output
}

// -----

graph.graph @gdn_bwd_d_initial_exists(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>, %dO: tensor<8x2x4xf32>, %s: tensor<1x2x4x4xf32>) {
  // expected-error @below {{gdn_bwd: initial_state is given but there is no d_initial_state result}}
  %d:5 = graph.gdn_bwd %q, %k, %v, %g, %beta dO %dO initial_state %s
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2x4xf32>, tensor<1x2x4x4xf32>) -> (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>)
  graph.output
}

// -----

graph.graph @gdn_bwd_d_initial_dims(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>, %dO: tensor<8x2x4xf32>, %s: tensor<1x2x4x4xf32>) {
  // expected-error @below {{gdn_bwd: d_initial_state dims are 1x2x4x2 but must be 1x2x4x4 (like initial_state)}}
  %d:6 = graph.gdn_bwd %q, %k, %v, %g, %beta dO %dO initial_state %s
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2x4xf32>, tensor<1x2x4x4xf32>) -> (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<1x2x4x2xf32>)
  graph.output
}

// -----

graph.graph @gdn_bwd_cu_seqlens(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>, %cu: tensor<2x2xi32>, %dO: tensor<8x2x4xf32>) {
  // expected-error @below {{gdn_bwd: cu_seqlens must be a rank-1 integer tensor ([N + 1] boundaries) but is 'tensor<2x2xi32>'}}
  %d:5 = graph.gdn_bwd %q, %k, %v, %g, %beta cu_seqlens %cu dO %dO
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<2x2xi32>, tensor<8x2x4xf32>) -> (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>)
  graph.output
}

// -----

graph.graph @kda_bwd_gate(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>, %dO: tensor<8x2x4xf32>) {
  // expected-error @below {{kda_bwd "kda_bwd": g dims are 8x2 but must be [T, heads, 4] with T = 8}}
  %d:5 = graph.kda_bwd %q, %k, %v, %g, %beta dO %dO {name = "kda_bwd"}
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2x4xf32>) -> (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>)
  graph.output
}

// -----

graph.graph @kda_bwd_grad(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2x4xf32>, %beta: tensor<8x2xf32>, %dO: tensor<8x2x4xf32>) {
  // expected-error @below {{kda_bwd: dK dims are 8x2x2 but must be 8x2x4 (like its input)}}
  %d:5 = graph.kda_bwd %q, %k, %v, %g, %beta dO %dO
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2x4xf32>) -> (tensor<8x2x4xf32>, tensor<8x2x2xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>)
  graph.output
}

// -----

graph.graph @gdn2_bwd_write_gate(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2x4xf32>, %beta: tensor<8x2x4xf32>, %w: tensor<4x2x4xf32>, %dO: tensor<8x2x4xf32>) {
  // expected-error @below {{gdn2_bwd "gdn2_bwd": w dims are 4x2x4 but must be [T, heads, 4] with T = 8}}
  %d:6 = graph.gdn2_bwd %q, %k, %v, %g, %beta, %w dO %dO {name = "gdn2_bwd"}
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<4x2x4xf32>, tensor<8x2x4xf32>) -> (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<4x2x4xf32>)
  graph.output
}

// -----

graph.graph @gdn2_bwd_dw(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2x4xf32>, %beta: tensor<8x2x4xf32>, %w: tensor<8x2x4xf32>, %dO: tensor<8x2x4xf32>) {
  // expected-error @below {{gdn2_bwd: dW dims are 8x2x2 but must be 8x2x4 (like w)}}
  %d:6 = graph.gdn2_bwd %q, %k, %v, %g, %beta, %w dO %dO
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>) -> (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x2xf32>)
  graph.output
}

// -----

// A dynamic q batch must not hide a k/v mismatch; the dynamic dim prints
// as '?', never as its sentinel value.
graph.graph @sdpa_batch_dynamic(%q: tensor<?x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<2x2x8x16xbf16>) {
  // expected-error @below {{sdpa: batch of q, k, v are ?, 1, 2 (must match)}}
  %o = graph.sdpa %q, %k, %v : (tensor<?x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<2x2x8x16xbf16>)
      -> (tensor<?x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @gdn_gate_dynamic_tokens(%q: tensor<?x2x4xf32>, %k: tensor<?x2x4xf32>, %v: tensor<?x2x4xf32>, %g: tensor<?x2x4xf32>, %beta: tensor<?x2xf32>) {
  // expected-error @below {{gdn: g dims are ?x2x4 but must be [T, heads] with T = ?}}
  %o = graph.gdn %q, %k, %v, %g, %beta : (tensor<?x2x4xf32>, tensor<?x2x4xf32>, tensor<?x2x4xf32>, tensor<?x2x4xf32>, tensor<?x2xf32>)
      -> (tensor<?x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn_tokens_dynamic_q(%q: tensor<?x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<6x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>) {
  // expected-error @below {{gdn: tokens of k (8) and v (6) differ}}
  %o = graph.gdn %q, %k, %v, %g, %beta : (tensor<?x2x4xf32>, tensor<8x2x4xf32>, tensor<6x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>)
      -> (tensor<?x2x4xf32>, none, none)
  graph.output
}

// -----

graph.graph @gdn_bwd_d_initial_needs_state(%q: tensor<8x2x4xf32>, %k: tensor<8x2x4xf32>, %v: tensor<8x2x4xf32>, %g: tensor<8x2xf32>, %beta: tensor<8x2xf32>, %dO: tensor<8x2x4xf32>) {
  // expected-error @below {{gdn_bwd: a d_initial_state result needs an initial_state operand}}
  %d:6 = graph.gdn_bwd %q, %k, %v, %g, %beta dO %dO
      : (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2x4xf32>)
      -> (tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x2xf32>, tensor<8x2xf32>, tensor<1x2x4x4xf32>)
  graph.output
}

// -----

graph.graph @rng_seed_elements(%s: tensor<2x1x1x1xi64>, %o: tensor<1x1x1x1xi64>) {
  // expected-error @below {{rng: seed must hold one element but has dims 2x1x1x1}}
  %m = graph.rng %s, %o {bernoulli_probability = 0.9 : f64} : (tensor<2x1x1x1xi64>, tensor<1x1x1x1xi64>) -> tensor<1x2x8x8xf32>
  graph.output
}

// -----

graph.graph @rng_seed_type(%s: tensor<1x1x1x1xf32>, %o: tensor<1x1x1x1xi64>) {
  // expected-error @below {{rng: seed must be i64 or i32 (cuDNN's Philox seed and offset) but is 'f32'}}
  %m = graph.rng %s, %o {bernoulli_probability = 0.9 : f64} : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xi64>) -> tensor<1x2x8x8xf32>
  graph.output
}

// -----

graph.graph @rng_probability(%s: tensor<1x1x1x1xi64>, %o: tensor<1x1x1x1xi64>) {
  // expected-error @below {{rng: bernoulli_probability must be in [0, 1] but is 1.5}}
  %m = graph.rng %s, %o {bernoulli_probability = 1.5 : f64} : (tensor<1x1x1x1xi64>, tensor<1x1x1x1xi64>) -> tensor<1x2x8x8xf32>
  graph.output
}

// -----

graph.graph @rng_mask_type(%s: tensor<1x1x1x1xi64>, %o: tensor<1x1x1x1xi64>) {
  // expected-error @below {{rng: Y must be a float tensor (the 0/1 keep mask) but is 'i32'}}
  %m = graph.rng %s, %o {bernoulli_probability = 0.5 : f64} : (tensor<1x1x1x1xi64>, tensor<1x1x1x1xi64>) -> tensor<1x2x8x8xi32>
  graph.output
}

// -----

// Paged K/V caches: the table needs the logical sequence length.
graph.graph @sdpa_paged_no_max_seq(%q: tensor<2x2x8x16xbf16>, %k: tensor<4x2x8x16xbf16>, %v: tensor<2x2x16x16xbf16>, %lq: tensor<2x1x1x1xi32>, %lkv: tensor<2x1x1x1xi32>, %t: tensor<2x1x2x1xi32>) {
  // expected-error @below {{sdpa: page_table_k needs paged_attention_max_seq_len_kv > 0 (the sequence length of the K/V the pages make)}}
  %o = graph.sdpa %q, %k, %v seq_len_q %lq seq_len_kv %lkv page_table_k %t {use_padding_mask} : (tensor<2x2x8x16xbf16>, tensor<4x2x8x16xbf16>, tensor<2x2x16x16xbf16>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<2x1x2x1xi32>) -> (tensor<2x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_paged_table_dims(%q: tensor<2x2x8x16xbf16>, %k: tensor<4x2x8x16xbf16>, %v: tensor<2x2x16x16xbf16>, %lq: tensor<2x1x1x1xi32>, %lkv: tensor<2x1x1x1xi32>, %t: tensor<2x1x3x1xi32>) {
  // expected-error @below {{sdpa: page_table_k dims are 2x1x3x1 but must be 2x1x2x1 ([B, 1, ceil(paged_attention_max_seq_len_kv / page_size), 1]: the pages of each batch)}}
  %o = graph.sdpa %q, %k, %v seq_len_q %lq seq_len_kv %lkv page_table_k %t {use_padding_mask, paged_attention_max_seq_len_kv = 16 : i64} : (tensor<2x2x8x16xbf16>, tensor<4x2x8x16xbf16>, tensor<2x2x16x16xbf16>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<2x1x3x1xi32>) -> (tensor<2x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_paged_needs_padding(%q: tensor<2x2x8x16xbf16>, %k: tensor<4x2x8x16xbf16>, %v: tensor<2x2x16x16xbf16>, %t: tensor<2x1x2x1xi32>) {
  // expected-error @below {{sdpa: a paged K/V cache needs use_padding_mask (seq_len_kv says how many positions of each batch's pages are valid)}}
  %o = graph.sdpa %q, %k, %v page_table_k %t {paged_attention_max_seq_len_kv = 16 : i64} : (tensor<2x2x8x16xbf16>, tensor<4x2x8x16xbf16>, tensor<2x2x16x16xbf16>, tensor<2x1x2x1xi32>) -> (tensor<2x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

// sdpa_fp8 reads paged K/V caches under graph.sdpa's rules.
graph.graph @sdpa_fp8_paged(%q: tensor<2x2x8x16xf8E4M3FN>, %k: tensor<4x2x8x16xf8E4M3FN>, %v: tensor<2x2x16x16xf8E4M3FN>, %lq: tensor<2x1x1x1xi32>, %lkv: tensor<2x1x1x1xi32>, %t: tensor<2x1x2x1xi32>, %d0: tensor<1x1x1x1xf32>, %d1: tensor<1x1x1x1xf32>, %d2: tensor<1x1x1x1xf32>, %d3: tensor<1x1x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %s1: tensor<1x1x1x1xf32>) {
  %ok:3 = graph.sdpa_fp8 %q, %k, %v descale(%d0, %d1, %d2, %d3) scale(%s0, %s1) seq_len_q %lq seq_len_kv %lkv page_table_k %t {use_padding_mask, paged_attention_max_seq_len_kv = 16 : i64}
      : (tensor<2x2x8x16xf8E4M3FN>, tensor<4x2x8x16xf8E4M3FN>, tensor<2x2x16x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<2x1x2x1xi32>) -> (tensor<2x2x8x16xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  // expected-error @below {{sdpa_fp8: a paged K/V cache needs use_padding_mask (seq_len_kv says how many positions of each batch's pages are valid)}}
  %r:3 = graph.sdpa_fp8 %q, %k, %v descale(%d0, %d1, %d2, %d3) scale(%s0, %s1) page_table_k %t {paged_attention_max_seq_len_kv = 16 : i64}
      : (tensor<2x2x8x16xf8E4M3FN>, tensor<4x2x8x16xf8E4M3FN>, tensor<2x2x16x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<2x1x2x1xi32>) -> (tensor<2x2x8x16xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

// ... and ragged q/k/v/O under its rules: a paged cache's pages are not ragged.
graph.graph @sdpa_fp8_paged_ragged(%q: tensor<2x2x8x16xf8E4M3FN>, %k: tensor<4x2x8x16xf8E4M3FN>, %v: tensor<2x2x16x16xf8E4M3FN>, %lq: tensor<2x1x1x1xi32>, %lkv: tensor<2x1x1x1xi32>, %t: tensor<2x1x2x1xi32>, %off: tensor<3x1x1x1xi32>, %d0: tensor<1x1x1x1xf32>, %d1: tensor<1x1x1x1xf32>, %d2: tensor<1x1x1x1xf32>, %d3: tensor<1x1x1x1xf32>, %s0: tensor<1x1x1x1xf32>, %s1: tensor<1x1x1x1xf32>) {
  // expected-error @below {{sdpa_fp8: ragged_offset_k with page_table_k: a paged cache's pages are not ragged}}
  %r:3 = graph.sdpa_fp8 %q, %k, %v descale(%d0, %d1, %d2, %d3) scale(%s0, %s1) seq_len_q %lq seq_len_kv %lkv page_table_k %t ragged_offset_q %off ragged_offset_k %off {use_padding_mask, paged_attention_max_seq_len_kv = 16 : i64}
      : (tensor<2x2x8x16xf8E4M3FN>, tensor<4x2x8x16xf8E4M3FN>, tensor<2x2x16x16xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<2x1x2x1xi32>, tensor<3x1x1x1xi32>, tensor<3x1x1x1xi32>) -> (tensor<2x2x8x16xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output
}

// -----

graph.graph @sdpa_max_seq_without_table(%q: tensor<2x2x8x16xbf16>, %k: tensor<2x2x16x16xbf16>, %v: tensor<2x2x16x16xbf16>) {
  // expected-error @below {{sdpa: paged_attention_max_seq_len_kv is given without page_table_k or page_table_v}}
  %o = graph.sdpa %q, %k, %v {paged_attention_max_seq_len_kv = 16 : i64} : (tensor<2x2x8x16xbf16>, tensor<2x2x16x16xbf16>, tensor<2x2x16x16xbf16>) -> (tensor<2x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_paged_table_i64(%q: tensor<2x2x8x16xbf16>, %k: tensor<4x2x8x16xbf16>, %v: tensor<2x2x16x16xbf16>, %lq: tensor<2x1x1x1xi32>, %lkv: tensor<2x1x1x1xi32>, %t: tensor<2x1x2x1xi64>) {
  // expected-error @below {{sdpa: page_table_k must hold i32 page numbers (cuDNN's page tables) but is 'i64'}}
  %o = graph.sdpa %q, %k, %v seq_len_q %lq seq_len_kv %lkv page_table_k %t {use_padding_mask, paged_attention_max_seq_len_kv = 16 : i64} : (tensor<2x2x8x16xbf16>, tensor<4x2x8x16xbf16>, tensor<2x2x16x16xbf16>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<2x1x2x1xi64>) -> (tensor<2x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

// Ragged (packed) attention tensors: offsets [B + 1, 1, 1, 1], integers,
// under the padding mask.
graph.graph @sdpa_ragged_needs_padding(%q: tensor<2x2x8x16xbf16>, %k: tensor<2x2x8x16xbf16>, %off: tensor<3x1x1x1xi64>) {
  // expected-error @below {{sdpa: ragged_offset_q needs use_padding_mask (seq_len_q/seq_len_kv say how many positions each batch of a ragged tensor packs)}}
  %o = graph.sdpa %q, %k, %k ragged_offset_q %off : (tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<3x1x1x1xi64>) -> (tensor<2x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_ragged_offset_dims(%q: tensor<2x2x8x16xbf16>, %l: tensor<2x1x1x1xi32>, %off: tensor<2x1x1x1xi64>) {
  // expected-error @below {{sdpa: ragged_offset_O dims are 2x1x1x1 but must be 3x1x1x1 ([B + 1, 1, 1, 1]: where each batch starts)}}
  %o = graph.sdpa %q, %q, %q seq_len_q %l seq_len_kv %l ragged_offset_O %off {use_padding_mask} : (tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi64>) -> (tensor<2x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_backward_ragged_offset_type(%q: tensor<2x2x8x16xbf16>, %st: tensor<2x2x8x1xf32>, %l: tensor<2x1x1x1xi32>, %off: tensor<3x1x1x1xf32>) {
  // expected-error @below {{sdpa_backward: ragged_offset_dK must hold i32 or i64 element offsets but is 'f32'}}
  %dq, %dk, %dv = graph.sdpa_backward %q, %q, %q, %q, %q, %st seq_len_q %l seq_len_kv %l ragged_offset_dK %off {use_padding_mask} : (tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x2x8x1xf32>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<3x1x1x1xf32>) -> (tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>)
  graph.output
}

// -----

graph.graph @sdpa_ragged_paged(%q: tensor<2x2x8x16xbf16>, %k: tensor<4x2x8x16xbf16>, %l: tensor<2x1x1x1xi32>, %t: tensor<2x1x2x1xi32>, %off: tensor<3x1x1x1xi64>) {
  // expected-error @below {{sdpa: ragged_offset_k with page_table_k: a paged cache's pages are not ragged}}
  %o = graph.sdpa %q, %k, %k seq_len_q %l seq_len_kv %l page_table_k %t page_table_v %t ragged_offset_k %off ragged_offset_v %off {use_padding_mask, paged_attention_max_seq_len_kv = 16 : i64} : (tensor<2x2x8x16xbf16>, tensor<4x2x8x16xbf16>, tensor<4x2x8x16xbf16>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<2x1x2x1xi32>, tensor<2x1x2x1xi32>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>) -> (tensor<2x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_ragged_alias(%q: tensor<2x2x8x16xbf16>, %l: tensor<2x1x1x1xi32>, %off: tensor<3x1x1x1xi64>) {
  // expected-error @below {{sdpa: q and k are the same tensor but their ragged offsets differ (ragged_offset_q, ragged_offset_k absent): a tensor has one layout}}
  %o = graph.sdpa %q, %q, %q seq_len_q %l seq_len_kv %l ragged_offset_q %off {use_padding_mask} : (tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<3x1x1x1xi64>) -> (tensor<2x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_sink_dims(%q: tensor<1x2x8x16xbf16>, %sink: tensor<1x3x1x1xf32>) {
  // expected-error @below {{sdpa: sink_token dims are 1x3x1x1 but must be 1x2x1x1 ([1, Hq, 1, 1]: one logit per query head)}}
  %o = graph.sdpa %q, %q, %q sink_token %sink : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x3x1x1xf32>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_sink_type(%q: tensor<1x2x8x16xbf16>, %sink: tensor<1x2x1x1xbf16>) {
  // expected-error @below {{sdpa: sink_token must hold f32 but holds 'bf16'}}
  %o = graph.sdpa %q, %q, %q sink_token %sink : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x1x1xbf16>) -> (tensor<1x2x8x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_sink_decode(%q: tensor<1x2x1x16xbf16>, %k: tensor<1x2x8x16xbf16>, %sink: tensor<1x2x1x1xf32>) {
  // expected-error @below {{sdpa: sink_token with one query position (decode) is not supported}}
  %o = graph.sdpa %q, %k, %k sink_token %sink : (tensor<1x2x1x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x1x1xf32>) -> (tensor<1x2x1x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_bwd_sink_needs_dsink(%q: tensor<1x2x8x16xbf16>, %st: tensor<1x2x8x1xf32>, %sink: tensor<1x2x1x1xf32>) {
  // expected-error @below {{sdpa_backward has 4 or 5 results (dQ, dK, dV, [dBias], dSink_token), got 3}}
  %d:3 = graph.sdpa_backward %q, %q, %q, %q, %q, %st sink_token %sink : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>, tensor<1x2x1x1xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>)
  graph.output
}

// -----

graph.graph @sdpa_bwd_dsink_dims(%q: tensor<1x2x8x16xbf16>, %st: tensor<1x2x8x1xf32>, %sink: tensor<1x2x1x1xf32>) {
  // expected-error @below {{sdpa_backward: dSink_token dims are 1x4x1x1 but must be 1x2x1x1 ([1, Hq, 1, 1])}}
  %d:4 = graph.sdpa_backward %q, %q, %q, %q, %q, %st sink_token %sink : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>, tensor<1x2x1x1xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x4x1x1xf32>)
  graph.output
}

// -----

graph.graph @sdpa_block_mask_dims(%q: tensor<1x2x200x16xbf16>, %k: tensor<1x2x300x16xbf16>, %m: tensor<1x2x2x3xui8>) {
  // expected-error @below {{sdpa: block_mask dims are 1x2x2x3 but must be 1x2x2x1 ([B, Hq, ceil(Sq / 128), ceil(ceil(Skv / 128) / 8)]: one bit per 128 x 128 tile)}}
  %o = graph.sdpa %q, %k, %k block_mask %m : (tensor<1x2x200x16xbf16>, tensor<1x2x300x16xbf16>, tensor<1x2x300x16xbf16>, tensor<1x2x2x3xui8>) -> (tensor<1x2x200x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @sdpa_block_mask_type(%q: tensor<1x2x200x16xbf16>, %m: tensor<1x2x2x1xi8>) {
  // expected-error @below {{sdpa: block_mask must hold ui8 (bit-packed tiles) but holds 'i8'}}
  %o = graph.sdpa %q, %q, %q block_mask %m : (tensor<1x2x200x16xbf16>, tensor<1x2x200x16xbf16>, tensor<1x2x200x16xbf16>, tensor<1x2x2x1xi8>) -> (tensor<1x2x200x16xbf16>, none, none, none)
  graph.output
}

// -----

graph.graph @compute_type_i32_div(%x: tensor<4x16xf32>) {
  // expected-error @below {{pointwise "d": compute_data_type must be a float type (i1 only for logical and comparison modes, i32 only for those and the modes exact on integers), got 'i32'}}
  %0 = graph.pointwise div(%x, %x) {name = "d", compute_data_type = i32} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output
}
