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

graph.graph @compute_type_not_float(%x: tensor<4x16xf32>) {
  // expected-error @below {{reduction "r": compute_data_type must be a float type, got 'i32'}}
  %0 = graph.reduction add %x {name = "r", compute_data_type = i32} : (tensor<4x16xf32>) -> tensor<4x1xf32>
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
  // expected-error @below {{block_scale_quantize "q": input must have rank >= 1}}
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
  // expected-error @below {{block_scale_quantize: Y must be an fp8, fp4 or i8 type but is 'bf16'}}
  %y, %s = graph.block_scale_quantize %x {block_size = 32 : i64} : (tensor<128x256xbf16>) -> (tensor<128x256xbf16>, tensor<128x8xf8E8M0FNU>)
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
// block_scale_dequantize
//===----------------------------------------------------------------------===//

// -----

graph.graph @bsdq_rank(%x: tensor<f8E4M3FN>, %s: tensor<f8E8M0FNU>) {
  // expected-error @below {{block_scale_dequantize "dq": input must have rank >= 1}}
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
// moe_grouped_matmul, moe_grouped_matmul_bwd
//===----------------------------------------------------------------------===//

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
