// RUN: graph-opt %s -split-input-file --graph-prepare --graph-select-engines=engines=codegen --graph-generate-kernels | FileCheck %s
// RUN: graph-opt %s -split-input-file --graph-prepare --graph-select-engines=engines=codegen --graph-generate-kernels 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: graph-opt %s -split-input-file --graph-prepare --graph-select-engines=engines=codegen --graph-generate-kernels --graph-kernels-to-ptx | FileCheck %s --check-prefix=PTX

// Unusual groups for the direct kernel generator (codegen_v2): each one
// either lowers to kernels that pass the NVVM pipeline or is left to
// another engine with a remark that names the op and the rule. The groups
// are given by hand as graph.group regions (no graph-fuse; graph-prepare
// decides the layouts through the group boundaries), so views, quantize,
// rope and gen_index share groups with the ops that read them.
// REMARK-NOT: error

// A reduction of a transposed view in the same group: the view's dims, not
// a tensor's, decide the row (was a map::at abort).
// CHECK-LABEL: gpu.module @red_of_view_group0
// CHECK-SAME: graph.launches = ["stage0 grid 16 block 32"]
// CHECK: gpu.func @stage0(%{{.*}}: memref<128xf32>, %{{.*}}: memref<16xf32>)
// PTX-LABEL: gpu.binary @red_of_view_group0
graph.graph @red_of_view(%x: tensor<8x16xf32>) -> tensor<16x1xf32> {
  %grp0 = graph.group 0 (%g0_x = %x : tensor<8x16xf32>) -> tensor<16x1xf32> {
    %t = graph.transpose %g0_x {permutation = array<i64: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %s = graph.reduction add %t : (tensor<16x8xf32>) -> tensor<16x1xf32>
    graph.yield %s : tensor<16x1xf32>
  }
  graph.output %grp0 : tensor<16x1xf32>
}

// -----

// rmsnorm of a transposed view.
// CHECK-LABEL: gpu.module @norm_of_view_group0
// CHECK-SAME: graph.launches = ["stage0 grid 8 block 32"]
// CHECK: gpu.shuffle xor
// PTX-LABEL: gpu.binary @norm_of_view_group0
graph.graph @norm_of_view(%x: tensor<16x8xf32>, %g: tensor<1x16xf32>) -> tensor<8x16xf32> {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %grp0 = graph.group 0 (%g0_x = %x : tensor<16x8xf32>, %g0_g = %g : tensor<1x16xf32>, %g0_eps = %eps : tensor<1x1xf32>) -> tensor<8x16xf32> {
    %t = graph.transpose %g0_x {permutation = array<i64: 1, 0>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %y = graph.rmsnorm inference %t, scale %g0_g, epsilon %g0_eps : (tensor<8x16xf32>, tensor<1x16xf32>, tensor<1x1xf32>) -> tensor<8x16xf32>
    graph.yield %y : tensor<8x16xf32>
  }
  graph.output %grp0 : tensor<8x16xf32>
}

// -----

// Block-scale quantize of a transposed view.
// CHECK-LABEL: gpu.module @quant_of_view_group0
// CHECK: gpu.func @stage0(%{{.*}}: memref<128xf32>, %{{.*}}: memref<128xi8>, %{{.*}}: memref<4xi8>)
// PTX-LABEL: gpu.binary @quant_of_view_group0
graph.graph @quant_of_view(%x: tensor<32x4xf32>) -> (tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>) {
  %grp0:2 = graph.group 0 (%g0_x = %x : tensor<32x4xf32>) -> (tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>) {
    %t = graph.transpose %g0_x {permutation = array<i64: 1, 0>} : (tensor<32x4xf32>) -> tensor<4x32xf32>
    %y, %s = graph.block_scale_quantize %t {block_size = 32 : i64} : (tensor<4x32xf32>) -> (tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>)
    graph.yield %y, %s : tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>
  }
  graph.output %grp0#0, %grp0#1 : tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>
}

// -----

// genstats of a permuted view.
// CHECK-LABEL: gpu.module @genstats_of_view_group0
// CHECK-SAME: graph.launches = ["stage0 grid 3 block 256"]
// CHECK: gpu.func @stage0(%{{.*}}: memref<72xf32>, %{{.*}}: memref<3xf32>, %{{.*}}: memref<3xf32>)
// PTX-LABEL: gpu.binary @genstats_of_view_group0
graph.graph @genstats_of_view(%x: tensor<2x4x3x3xf32>) -> (tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>) {
  %grp0:2 = graph.group 0 (%g0_x = %x : tensor<2x4x3x3xf32>) -> (tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>) {
    %t = graph.transpose %g0_x {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x4x3x3xf32>) -> tensor<2x3x4x3xf32>
    %a, %b = graph.genstats %t : (tensor<2x3x4x3xf32>) -> (tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>)
    graph.yield %a, %b : tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>
  }
  graph.output %grp0#0, %grp0#1 : tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>
}

// -----

// genstats and quantize with an output nothing reads: the kernel still
// writes it, to scratch (was a map::at abort).
// CHECK-LABEL: gpu.module @unread_outputs_group0
// CHECK-SAME: graph.launches = ["stage0 grid 4 block 256"]
// CHECK: gpu.func @stage0(%{{.*}}: memref<72xf32>, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>)
// CHECK-LABEL: gpu.module @unread_outputs_group1
// CHECK: gpu.func @stage0(%{{.*}}: memref<128xf32>, %{{.*}}: memref<128xi8>, %{{.*}}: memref<4xi8>)
// PTX-LABEL: gpu.binary @unread_outputs_group0
// PTX-LABEL: gpu.binary @unread_outputs_group1
graph.graph @unread_outputs(%x: tensor<2x4x3x3xf32>, %q: tensor<4x32xf32>) -> (tensor<1x4x1x1xf32>, tensor<4x32xf8E4M3FN>) {
  %grp0 = graph.group 0 (%g0_x = %x : tensor<2x4x3x3xf32>) -> tensor<1x4x1x1xf32> {
    %a, %b = graph.genstats %g0_x : (tensor<2x4x3x3xf32>) -> (tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>)
    graph.yield %a : tensor<1x4x1x1xf32>
  }
  %grp1 = graph.group 1 (%g1_q = %q : tensor<4x32xf32>) -> tensor<4x32xf8E4M3FN> {
    %y, %s = graph.block_scale_quantize %g1_q {block_size = 32 : i64} : (tensor<4x32xf32>) -> (tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>)
    graph.yield %y : tensor<4x32xf8E4M3FN>
  }
  graph.output %grp0, %grp1 : tensor<1x4x1x1xf32>, tensor<4x32xf8E4M3FN>
}

// -----

// Dequantize, rope and gen_index address by the pointwise stage's linear
// index: a reduction after them starts a row stage of its own instead of
// turning theirs into one (was a map::at abort; gen_index lost its lanes).
// CHECK-LABEL: gpu.module @linear_then_reduce_group0
// CHECK-SAME: graph.launches = ["stage0 grid 1 block 256", "stage1 grid 4 block 32"]
// CHECK-LABEL: gpu.module @linear_then_reduce_group1
// CHECK-SAME: graph.launches = ["stage0 grid 1 block 256", "stage1 grid 4 block 32"]
// CHECK-LABEL: gpu.module @linear_then_reduce_group2
// CHECK-SAME: graph.launches = ["stage0 grid 1 block 256", "stage1 grid 4 block 32"]
// PTX-LABEL: gpu.binary @linear_then_reduce_group0
// PTX-LABEL: gpu.binary @linear_then_reduce_group1
// PTX-LABEL: gpu.binary @linear_then_reduce_group2
graph.graph @linear_then_reduce(%x: tensor<4x32xf8E4M3FN>, %s: tensor<4x1xf8E8M0FNU>,
                                %r: tensor<4x16xf32>, %f: tensor<4x8xf32>)
    -> (tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>) {
  %grp0 = graph.group 0 (%g0_x = %x : tensor<4x32xf8E4M3FN>, %g0_s = %s : tensor<4x1xf8E8M0FNU>) -> tensor<4x1xf32> {
    %y = graph.block_scale_dequantize %g0_x, descale %g0_s {block_size = 32 : i64} : (tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>) -> tensor<4x32xf32>
    %a = graph.reduction amax %y : (tensor<4x32xf32>) -> tensor<4x1xf32>
    graph.yield %a : tensor<4x1xf32>
  }
  %grp1 = graph.group 1 (%g1_r = %r : tensor<4x16xf32>, %g1_f = %f : tensor<4x8xf32>) -> tensor<4x1xf32> {
    %ry = graph.rope %g1_r, freqs %g1_f : (tensor<4x16xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
    %b = graph.reduction add %ry : (tensor<4x16xf32>) -> tensor<4x1xf32>
    graph.yield %b : tensor<4x1xf32>
  }
  %grp2 = graph.group 2 (%g2_r = %r : tensor<4x16xf32>) -> tensor<4x1xf32> {
    %i = graph.pointwise gen_index(%g2_r) {axis = 1 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %c = graph.reduction max %i : (tensor<4x16xf32>) -> tensor<4x1xf32>
    graph.yield %c : tensor<4x1xf32>
  }
  graph.output %grp0, %grp1, %grp2 : tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>
}

// -----

// Reductions that reduce nothing or everything, a layernorm over rows of
// one element and softmax over rows of length 1: rows of one element run
// with runs of one (the innermost non-unit dim is a row dim; was "reduce
// values that vary along the row").
// CHECK-LABEL: gpu.module @rows_of_one_group0
// CHECK-SAME: graph.launches = ["stage0 grid 32 block 32", "stage1 grid 1 block 32", "stage2 grid 8 block 256"]
// CHECK-LABEL: gpu.module @rows_of_one_group1
// CHECK-SAME: graph.launches = ["stage0 grid 8 block 32"]
// CHECK-LABEL: gpu.module @rows_of_one_group2
// CHECK-SAME: graph.launches = ["stage0 grid 16 block 32"]
// PTX-LABEL: gpu.binary @rows_of_one_group0
// PTX-LABEL: gpu.binary @rows_of_one_group1
// PTX-LABEL: gpu.binary @rows_of_one_group2
graph.graph @rows_of_one(%x: tensor<4x8xf32>, %n: tensor<8x1xf32>, %g: tensor<1x1xf32>, %bb: tensor<1x1xf32>, %sx: tensor<16x1xf32>)
    -> (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1x8xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<16x1xf32>) {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %grp0:3 = graph.group 0 (%g0_x = %x : tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1x8xf32>) {
    %s = graph.reduction add %g0_x : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %t = graph.reduction max %g0_x : (tensor<4x8xf32>) -> tensor<1x1xf32>
    %u = graph.reduction avg %g0_x : (tensor<4x8xf32>) -> tensor<1x8xf32>
    graph.yield %s, %t, %u : tensor<4x8xf32>, tensor<1x1xf32>, tensor<1x8xf32>
  }
  %grp1:3 = graph.group 1 (%g1_n = %n : tensor<8x1xf32>, %g1_g = %g : tensor<1x1xf32>, %g1_bb = %bb : tensor<1x1xf32>, %g1_eps = %eps : tensor<1x1xf32>) -> (tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>) {
    %y, %m, %iv = graph.layernorm training %g1_n, scale %g1_g, bias %g1_bb, epsilon %g1_eps : (tensor<8x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>) -> (tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
    graph.yield %y, %m, %iv : tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>
  }
  %grp2 = graph.group 2 (%g2_sx = %sx : tensor<16x1xf32>) -> tensor<16x1xf32> {
    %mx = graph.reduction max %g2_sx : (tensor<16x1xf32>) -> tensor<16x1xf32>
    %d = graph.pointwise sub(%g2_sx, %mx) : (tensor<16x1xf32>, tensor<16x1xf32>) -> tensor<16x1xf32>
    %e = graph.pointwise exp(%d) : (tensor<16x1xf32>) -> tensor<16x1xf32>
    %sm = graph.reduction add %e : (tensor<16x1xf32>) -> tensor<16x1xf32>
    %p = graph.pointwise div(%e, %sm) : (tensor<16x1xf32>, tensor<16x1xf32>) -> tensor<16x1xf32>
    graph.yield %p : tensor<16x1xf32>
  }
  graph.output %grp0#0, %grp0#1, %grp0#2, %grp1#0, %grp1#1, %grp1#2, %grp2 : tensor<4x8xf32>, tensor<1x1xf32>, tensor<1x8xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<16x1xf32>
}

// -----

// Ops that address their input's elements read it from a buffer: a
// by-value scalar there is declined (was a map::at abort), while a pointwise
// op or a reduction over rows takes it as a value.
// REMARK: remark: scalars_in_memory/group0 is left to another engine: transpose: generated kernels read input from memory, but uid 4 is a by-value scalar
// REMARK: remark: scalars_in_memory/group2 is left to another engine: rope: generated kernels read freqs from memory, but uid 5 is a by-value scalar
// REMARK: remark: scalars_in_memory/group3 is left to another engine: block_scale_dequantize: generated kernels read descale from memory, but uid 6 is a by-value scalar
// REMARK: remark: scalars_in_memory/group4 is left to another engine: block_scale_quantize: generated kernels read input from memory, but uid 7 is a by-value scalar
// REMARK: remark: scalars_in_memory/group5 is left to another engine: genstats: generated kernels read input from memory, but uid 8 is a by-value scalar
// CHECK-LABEL: gpu.module @scalars_in_memory_group1
// CHECK-SAME: graph.launches = ["stage0 grid 1 block 256"]
// CHECK-LABEL: gpu.module @scalars_in_memory_group6
// CHECK-SAME: graph.launches = ["stage0 grid 1 block 32"]
// PTX-LABEL: gpu.binary @scalars_in_memory_group1
// PTX-LABEL: gpu.binary @scalars_in_memory_group6
graph.graph @scalars_in_memory(%x: tensor<1x1xf32>, %r: tensor<2x2xf32>, %q: tensor<1x32xf8E4M3FN>)
    -> (tensor<1x1xf32>, tensor<2x2xf32>, tensor<1x32xf32>, tensor<1x1xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>) {
  %c = graph.scalar 2.0 : f32 -> tensor<1x1xf32>
  %f = graph.scalar 0.5 : f32 -> tensor<1x1xf32>
  %d = graph.scalar 0.25 : f32 -> tensor<1x1xf32>
  %v = graph.scalar 3.0 : f32 -> tensor<1x1xf32>
  %g = graph.scalar 4.0 : f32 -> tensor<1x1xf32>
  %grp0 = graph.group 0 (%g0_c = %c : tensor<1x1xf32>) -> tensor<1x1xf32> {
    %t = graph.transpose %g0_c {permutation = array<i64: 1, 0>} : (tensor<1x1xf32>) -> tensor<1x1xf32>
    graph.yield %t : tensor<1x1xf32>
  }
  %grp1 = graph.group 1 (%g1_x = %x : tensor<1x1xf32>, %g1_grp0 = %grp0 : tensor<1x1xf32>) -> tensor<1x1xf32> {
    %a = graph.pointwise add(%g1_x, %g1_grp0) : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
    graph.yield %a : tensor<1x1xf32>
  }
  %grp2 = graph.group 2 (%g2_r = %r : tensor<2x2xf32>, %g2_f = %f : tensor<1x1xf32>) -> tensor<2x2xf32> {
    %ry = graph.rope %g2_r, freqs %g2_f : (tensor<2x2xf32>, tensor<1x1xf32>) -> tensor<2x2xf32>
    graph.yield %ry : tensor<2x2xf32>
  }
  %grp3 = graph.group 3 (%g3_q = %q : tensor<1x32xf8E4M3FN>, %g3_d = %d : tensor<1x1xf32>) -> tensor<1x32xf32> {
    %dq = graph.block_scale_dequantize %g3_q, descale %g3_d {block_size = 32 : i64} : (tensor<1x32xf8E4M3FN>, tensor<1x1xf32>) -> tensor<1x32xf32>
    graph.yield %dq : tensor<1x32xf32>
  }
  %grp4:2 = graph.group 4 (%g4_v = %v : tensor<1x1xf32>) -> (tensor<1x1xf8E4M3FN>, tensor<1x1xf32>) {
    %qy, %qs = graph.block_scale_quantize %g4_v {block_size = 1 : i64} : (tensor<1x1xf32>) -> (tensor<1x1xf8E4M3FN>, tensor<1x1xf32>)
    graph.yield %qy, %qs : tensor<1x1xf8E4M3FN>, tensor<1x1xf32>
  }
  %grp5:2 = graph.group 5 (%g5_g = %g : tensor<1x1xf32>) -> (tensor<1x1xf32>, tensor<1x1xf32>) {
    %gs, %gq = graph.genstats %g5_g : (tensor<1x1xf32>) -> (tensor<1x1xf32>, tensor<1x1xf32>)
    graph.yield %gs, %gq : tensor<1x1xf32>, tensor<1x1xf32>
  }
  %grp6 = graph.group 6 (%g6_g = %g : tensor<1x1xf32>) -> tensor<1x1xf32> {
    %rs = graph.reduction add %g6_g : (tensor<1x1xf32>) -> tensor<1x1xf32>
    graph.yield %rs : tensor<1x1xf32>
  }
  graph.output %grp1, %grp2, %grp3, %grp4#0, %grp4#1, %grp5#0, %grp5#1, %grp6 : tensor<1x1xf32>, tensor<2x2xf32>, tensor<1x32xf32>, tensor<1x1xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>
}

// -----

// One group of mixed shapes and ranks: a row stage (max over rows), a
// rank-1 column value, a rank-3 broadcast add, a per-row product; and a
// concatenate of a computed value read by a reduction, a stepped slice and
// a pointwise op.
// CHECK-LABEL: gpu.module @mixed_shapes_group0
// CHECK-SAME: graph.launches = ["stage0 grid 8 block 32", "stage1 grid 1 block 256", "stage2 grid 1 block 256"]
// CHECK-LABEL: gpu.module @mixed_shapes_group1
// CHECK-SAME: graph.launches = ["stage0 grid 1 block 256", "stage1 grid 1 block 256", "stage2 grid 1 block 256", "stage3 grid 4 block 32", "stage4 grid 1 block 256", "stage5 grid 1 block 256"]
// PTX-LABEL: gpu.binary @mixed_shapes_group0
// PTX-LABEL: gpu.binary @mixed_shapes_group1
graph.graph @mixed_shapes(%x: tensor<8x16xf32>, %b: tensor<16xf32>, %c: tensor<2x8x16xf32>, %p: tensor<4x3xf32>, %q: tensor<4x5xf32>)
    -> (tensor<8x16xf32>, tensor<16xf32>, tensor<2x8x16xf32>, tensor<8x1xf32>, tensor<4x1xf32>, tensor<2x8xf32>, tensor<4x8xf32>) {
  %grp0:4 = graph.group 0 (%g0_x = %x : tensor<8x16xf32>, %g0_b = %b : tensor<16xf32>, %g0_c = %c : tensor<2x8x16xf32>) -> (tensor<16xf32>, tensor<8x16xf32>, tensor<2x8x16xf32>, tensor<8x1xf32>) {
    %m = graph.reduction max %g0_x : (tensor<8x16xf32>) -> tensor<8x1xf32>
    %bb = graph.pointwise exp(%g0_b) : (tensor<16xf32>) -> tensor<16xf32>
    %d = graph.pointwise sub(%g0_x, %bb) : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
    %e = graph.pointwise add(%g0_c, %d) : (tensor<2x8x16xf32>, tensor<8x16xf32>) -> tensor<2x8x16xf32>
    %f = graph.pointwise mul(%m, %m) : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    graph.yield %bb, %d, %e, %f : tensor<16xf32>, tensor<8x16xf32>, tensor<2x8x16xf32>, tensor<8x1xf32>
  }
  %grp1:3 = graph.group 1 (%g1_p = %p : tensor<4x3xf32>, %g1_q = %q : tensor<4x5xf32>) -> (tensor<4x1xf32>, tensor<2x8xf32>, tensor<4x8xf32>) {
    %pe = graph.pointwise exp(%g1_p) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %cat = graph.concatenate %pe, %g1_q {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
    %r = graph.reduction add %cat : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %s = graph.slice %cat {start = array<i64: 1, 0>, limit = array<i64: 4, 8>, step = array<i64: 2, 1>} : (tensor<4x8xf32>) -> tensor<2x8xf32>
    %n = graph.pointwise neg(%cat) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    graph.yield %r, %s, %n : tensor<4x1xf32>, tensor<2x8xf32>, tensor<4x8xf32>
  }
  graph.output %grp0#1, %grp0#0, %grp0#2, %grp0#3, %grp1#0, %grp1#1, %grp1#2 : tensor<8x16xf32>, tensor<16xf32>, tensor<2x8x16xf32>, tensor<8x1xf32>, tensor<4x1xf32>, tensor<2x8xf32>, tensor<4x8xf32>
}

// -----

// A reshape of a stepped slice whose rows stay evenly spaced (strides
// [8, 2] over [4, 4]) is a view: element k of the result is x[2k], read in
// one copy stage.
// CHECK-LABEL: gpu.module @reshape_of_slice_group0 attributes {graph.launches = ["stage0 grid 1 block 256"]}
// CHECK: %[[K2:.+]] = arith.muli %{{.+}}, %c2 : index
// CHECK-NEXT: %[[AT:.+]] = arith.addi %{{.+}}, %[[K2]] : index
// CHECK-NEXT: memref.load %arg0[%[[AT]]] : memref<32xf32>
graph.graph @reshape_of_slice(%x: tensor<4x8xf32>) -> tensor<16xf32> {
  %grp0 = graph.group 0 (%g0_x = %x : tensor<4x8xf32>) -> tensor<16xf32> {
    %s = graph.slice %g0_x {start = array<i64: 0, 0>, limit = array<i64: 4, 8>, step = array<i64: 1, 2>} : (tensor<4x8xf32>) -> tensor<4x4xf32>
    %r = graph.reshape %s : (tensor<4x4xf32>) -> tensor<16xf32>
    graph.yield %r : tensor<16xf32>
  }
  graph.output %grp0 : tensor<16xf32>
}

// -----

// A reshape no strides express (a transposed view flattened) gathers its
// source into packed scratch first, then reads that: two stages.
// CHECK-LABEL: gpu.module @reshape_of_transpose_group0 attributes {graph.launches = ["stage0 grid 1 block 256", "stage1 grid 1 block 256"]}
graph.graph @reshape_of_transpose(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %grp0 = graph.group 0 (%g0_x = %x : tensor<4x8xf32>) -> tensor<32xf32> {
    %t = graph.transpose %g0_x {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %r = graph.reshape %t : (tensor<8x4xf32>) -> tensor<32xf32>
    %y = graph.pointwise add(%r, %r) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
    graph.yield %y : tensor<32xf32>
  }
  graph.output %grp0 : tensor<32xf32>
}


// -----

// Layer and RMS norm normalize over the dims where scale is not 1 (cuDNN's
// rule). x [4, 8, 32] with scale [1, 1, 32] has 32 rows of 32 (statistics
// [4, 8, 1]), forward and backward, DScale/DBias summed over all 32 rows;
// a scale over the whole input is one row. Normalized dims that are not a
// trailing run (scale [1, 8, 1]: dim 1 but not dim 2) are left to another
// engine, named.
// CHECK-LABEL: gpu.module @norm_dims_group0
// CHECK-SAME: graph.launches = ["stage0 grid 32 block 32"]
// CHECK-LABEL: gpu.module @norm_dims_group1
// CHECK-SAME: graph.launches = ["stage0 grid 32 block 32", "stage0_colsum0 grid 1 block 256", "stage0_colsum1 grid 1 block 256"]
// CHECK-LABEL: gpu.module @norm_dims_group2
// CHECK-SAME: graph.launches = ["stage0 grid 32 block 32"]
// CHECK-NOT: gpu.module @norm_dims_group3
// CHECK-LABEL: gpu.module @norm_dims_group4
// CHECK-SAME: graph.launches = ["stage0 grid 1 block 32"]
// REMARK: remark: norm_dims/group3 is left to another engine: rmsnorm "mid": generated kernels normalize a trailing run of dims only, but scale 1x8x1x1 normalizes dims {1} of the input 4x8x32x1 but not dim 2 after them
// PTX-LABEL: gpu.binary @norm_dims_group0
// PTX-LABEL: gpu.binary @norm_dims_group1
// PTX-LABEL: gpu.binary @norm_dims_group2
// PTX-LABEL: gpu.binary @norm_dims_group4
graph.graph @norm_dims(%x: tensor<4x8x32xf32>, %g: tensor<1x1x32xf32>, %b: tensor<1x1x32xf32>, %dy: tensor<4x8x32xf32>,
                       %gm: tensor<1x8x1xf32>, %w: tensor<4x16xf32>)
    -> (tensor<4x8x32xf32>, tensor<4x8x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>, tensor<4x8x32xf32>, tensor<4x8x1xf32>, tensor<4x8x32xf32>, tensor<4x16xf32>, tensor<1x1xf32>) {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1x1xf32>
  %eps2 = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %grp0:3 = graph.group 0 (%g0_x = %x : tensor<4x8x32xf32>, %g0_g = %g : tensor<1x1x32xf32>, %g0_b = %b : tensor<1x1x32xf32>, %g0_eps = %eps : tensor<1x1x1xf32>) -> (tensor<4x8x32xf32>, tensor<4x8x1xf32>, tensor<4x8x1xf32>) {
    %y, %m, %iv = graph.layernorm training %g0_x, scale %g0_g, bias %g0_b, epsilon %g0_eps {name = "LN"} : (tensor<4x8x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>, tensor<1x1x1xf32>) -> (tensor<4x8x32xf32>, tensor<4x8x1xf32>, tensor<4x8x1xf32>)
    graph.yield %y, %m, %iv : tensor<4x8x32xf32>, tensor<4x8x1xf32>, tensor<4x8x1xf32>
  }
  %grp1:3 = graph.group 1 (%g1_dy = %dy : tensor<4x8x32xf32>, %g1_x = %x : tensor<4x8x32xf32>, %g1_g = %g : tensor<1x1x32xf32>, %g1_m = %grp0#1 : tensor<4x8x1xf32>, %g1_iv = %grp0#2 : tensor<4x8x1xf32>) -> (tensor<4x8x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>) {
    %dx, %ds, %db = graph.layernorm_backward %g1_dy, %g1_x, scale %g1_g, mean %g1_m, inv_variance %g1_iv : (tensor<4x8x32xf32>, tensor<4x8x32xf32>, tensor<1x1x32xf32>, tensor<4x8x1xf32>, tensor<4x8x1xf32>) -> (tensor<4x8x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>)
    graph.yield %dx, %ds, %db : tensor<4x8x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>
  }
  %grp2:2 = graph.group 2 (%g2_x = %x : tensor<4x8x32xf32>, %g2_g = %g : tensor<1x1x32xf32>, %g2_eps = %eps : tensor<1x1x1xf32>) -> (tensor<4x8x32xf32>, tensor<4x8x1xf32>) {
    %r, %riv = graph.rmsnorm training %g2_x, scale %g2_g, epsilon %g2_eps : (tensor<4x8x32xf32>, tensor<1x1x32xf32>, tensor<1x1x1xf32>) -> (tensor<4x8x32xf32>, tensor<4x8x1xf32>)
    graph.yield %r, %riv : tensor<4x8x32xf32>, tensor<4x8x1xf32>
  }
  %grp3 = graph.group 3 (%g3_x = %x : tensor<4x8x32xf32>, %g3_gm = %gm : tensor<1x8x1xf32>, %g3_eps = %eps : tensor<1x1x1xf32>) -> tensor<4x8x32xf32> {
    %mid = graph.rmsnorm inference %g3_x, scale %g3_gm, epsilon %g3_eps {name = "mid"} : (tensor<4x8x32xf32>, tensor<1x8x1xf32>, tensor<1x1x1xf32>) -> tensor<4x8x32xf32>
    graph.yield %mid : tensor<4x8x32xf32>
  }
  %grp4:2 = graph.group 4 (%g4_w = %w : tensor<4x16xf32>, %g4_eps = %eps2 : tensor<1x1xf32>) -> (tensor<4x16xf32>, tensor<1x1xf32>) {
    %wy, %wm, %wiv = graph.layernorm training %g4_w, scale %g4_w, bias %g4_w, epsilon %g4_eps : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<1x1xf32>) -> (tensor<4x16xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
    graph.yield %wy, %wm : tensor<4x16xf32>, tensor<1x1xf32>
  }
  graph.output %grp0#0, %grp1#0, %grp1#1, %grp1#2, %grp2#0, %grp2#1, %grp3, %grp4#0, %grp4#1 : tensor<4x8x32xf32>, tensor<4x8x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>, tensor<4x8x32xf32>, tensor<4x8x1xf32>, tensor<4x8x32xf32>, tensor<4x16xf32>, tensor<1x1xf32>
}

// -----

// An op reading a backward norm's DScale in the same group: DScale is
// summed over every row after the row loop (the colsum kernel), so its
// reader runs in a stage of its own after it (it crashed the kernel
// generator when it joined the row stage).
// CHECK-LABEL: gpu.module @dscale_read_group0
// CHECK-SAME: graph.launches = ["stage0 grid 4 block 32", "stage0_colsum0 grid 2 block 256", "stage1 grid 1 block 256"]
// PTX-LABEL: gpu.binary @dscale_read_group0
graph.graph @dscale_read(%dy: tensor<4x64xf32>, %x: tensor<4x64xf32>, %s: tensor<1x64xf32>, %iv: tensor<4x1xf32>) -> (tensor<4x64xf32>, tensor<1x64xf32>) {
  %grp:2 = graph.group 0 (%g_dy = %dy : tensor<4x64xf32>, %g_x = %x : tensor<4x64xf32>, %g_s = %s : tensor<1x64xf32>, %g_iv = %iv : tensor<4x1xf32>) -> (tensor<4x64xf32>, tensor<1x64xf32>) {
    %dx, %ds = graph.rmsnorm_backward %g_dy, %g_x, scale %g_s, inv_variance %g_iv {has_dbias = false} : (tensor<4x64xf32>, tensor<4x64xf32>, tensor<1x64xf32>, tensor<4x1xf32>) -> (tensor<4x64xf32>, tensor<1x64xf32>)
    %m = graph.pointwise mul(%ds, %g_s) : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x64xf32>
    graph.yield %dx, %m : tensor<4x64xf32>, tensor<1x64xf32>
  }
  graph.output %grp#0, %grp#1 : tensor<4x64xf32>, tensor<1x64xf32>
}

// -----

// A backward norm whose DScale/DBias nobody reads (no buffer): it is not
// summed (the generator threw std::out_of_range on it).
// CHECK-LABEL: gpu.module @dead_column_sums_group0
// CHECK-SAME: graph.launches = ["stage0 grid 4 block 32"]
// PTX-LABEL: gpu.binary @dead_column_sums_group0
graph.graph @dead_column_sums(%dy: tensor<4x128xf32>, %x: tensor<4x128xf32>, %g: tensor<1x128xf32>, %m: tensor<4x1xf32>, %iv: tensor<4x1xf32>) -> tensor<4x128xf32> {
  %grp = graph.group 0 (%g_dy = %dy : tensor<4x128xf32>, %g_x = %x : tensor<4x128xf32>, %g_g = %g : tensor<1x128xf32>, %g_m = %m : tensor<4x1xf32>, %g_iv = %iv : tensor<4x1xf32>) -> tensor<4x128xf32> {
    %dx, %ds, %db = graph.layernorm_backward %g_dy, %g_x, scale %g_g, mean %g_m, inv_variance %g_iv : (tensor<4x128xf32>, tensor<4x128xf32>, tensor<1x128xf32>, tensor<4x1xf32>, tensor<4x1xf32>) -> (tensor<4x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>)
    graph.yield %dx : tensor<4x128xf32>
  }
  graph.output %grp : tensor<4x128xf32>
}

// -----

// A row stage holds a row in one block's registers (at most 65536
// elements). A longer suffix reduction is a reduce stage (one block per
// output, threads striding over the row); a norm over a longer row is left
// to another engine, named. (A 4 x 2^40 reduction unrolled 2^28 runs per
// thread and never finished.)
// CHECK-LABEL: gpu.module @long_rows_group0
// CHECK-SAME: graph.launches = ["stage0 grid 4 block 256"]
// CHECK-LABEL: gpu.module @long_rows_group1
// CHECK-SAME: graph.launches = ["stage0 grid 4 block 256"]
// CHECK-NOT: gpu.module @long_rows_group2
// REMARK: remark: long_rows/group2 is left to another engine: layernorm "ln": rows of 131072 elements are longer than a generated row kernel holds (65536)
// PTX-LABEL: gpu.binary @long_rows_group0
// PTX-LABEL: gpu.binary @long_rows_group1
graph.graph @long_rows(%x: tensor<4x131072xf32>, %h: tensor<4x1099511627776xf32>, %g: tensor<1x131072xf32>)
    -> (tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x131072xf32>) {
  %r = graph.group 0 (%g_x = %x : tensor<4x131072xf32>) -> tensor<4x1xf32> {
    %s = graph.reduction add %g_x : (tensor<4x131072xf32>) -> tensor<4x1xf32>
    graph.yield %s : tensor<4x1xf32>
  }
  %p = graph.group 1 (%g_h = %h : tensor<4x1099511627776xf32>) -> tensor<4x1xf32> {
    %s = graph.reduction mul %g_h : (tensor<4x1099511627776xf32>) -> tensor<4x1xf32>
    graph.yield %s : tensor<4x1xf32>
  }
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %n = graph.group 2 (%g_x = %x : tensor<4x131072xf32>, %g_g = %g : tensor<1x131072xf32>, %g_e = %eps : tensor<1x1xf32>) -> tensor<4x131072xf32> {
    %y = graph.layernorm inference %g_x, scale %g_g, bias %g_g, epsilon %g_e {name = "ln"} : (tensor<4x131072xf32>, tensor<1x131072xf32>, tensor<1x131072xf32>, tensor<1x1xf32>) -> (tensor<4x131072xf32>, none, none)
    graph.yield %y : tensor<4x131072xf32>
  }
  graph.output %r, %p, %n : tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x131072xf32>
}

// -----

// A paged cache gathered in the pointwise stage of the op that reads it:
// one kernel reads the page table and seq_len once per run of the head dim
// (a 16-byte vector of f16 when the container's rows allow it), selects
// zero past a batch's length or for a page outside the container, and the
// scaled result is stored. An fp8 container's pages are read one by one
// (its rows start at odd offsets) and widened.
// CHECK-LABEL: gpu.module @paged_gather_group0
// CHECK-SAME: graph.launches = ["stage0 grid 2 block 256"]
// CHECK: gpu.func @stage0(%[[C:.*]]: memref<16384xf16>, %[[T:.*]]: memref<16xi32>, %[[L:.*]]: memref<2xi32>, %[[S:.*]]: memref<1xf32>, %[[Y:.*]]: memref<7680xf16>)
// CHECK: memref.load %[[T]]
// CHECK: arith.cmpi slt, %{{.*}}, %c32_i32 : i32
// CHECK: memref.load %[[L]]
// CHECK: vector.load %[[C]][%{{.*}}] {alignment = 16 : i64} : memref<16384xf16>, vector<8xf16>
// CHECK: arith.select
// CHECK: vector.store {{.*}} %[[Y]]
// CHECK-LABEL: gpu.module @paged_gather_group1
// CHECK: gpu.func @stage0(%[[C8:.*]]: memref<1350xi8>, %[[T8:.*]]: memref<6xi32>, %{{.*}}: memref<810xf32>)
// CHECK-NOT: vector.load %[[C8]]
// CHECK: memref.load %[[C8]]
// An f32 container in a stage whose fp8 store takes runs of 16: the run is
// read as four 16-byte vectors.
// CHECK-LABEL: gpu.module @paged_gather_group2
// CHECK: gpu.func @stage0(%[[C32:.*]]: memref<256xf32>,
// CHECK-COUNT-4: vector.load %[[C32]][%{{.*}}] {alignment = 16 : i64} : memref<256xf32>, vector<4xf32>
// CHECK-NOT: vector<{{8|16}}xf32>
// PTX-LABEL: gpu.binary @paged_gather_group0
// PTX-LABEL: gpu.binary @paged_gather_group1
// PTX-LABEL: gpu.binary @paged_gather_group2
graph.graph @paged_gather(%c: tensor<32x4x2x64xf16>, %t: tensor<2x1x8x1xi32>, %l: tensor<2x1x1x1xi32>,
                          %s: tensor<1x1x1x1xf32>, %c8: tensor<10x3x5x9xf8E4M3FN>, %t8: tensor<2x1x3x1xi32>,
                          %c32: tensor<4x2x2x16xf32>, %t32: tensor<2x1x2x1xi32>)
    -> (tensor<2x4x15x64xf16>, tensor<2x3x15x9xf32>, tensor<2x2x4x16xf8E4M3FN>) {
  %grp0 = graph.group 0 (%g0_c = %c : tensor<32x4x2x64xf16>, %g0_t = %t : tensor<2x1x8x1xi32>, %g0_l = %l : tensor<2x1x1x1xi32>, %g0_s = %s : tensor<1x1x1x1xf32>) -> tensor<2x4x15x64xf16> {
    %k = graph.paged_cache_load %g0_c, %g0_t seq_len %g0_l {max_seq_len = 15 : i64} : (tensor<32x4x2x64xf16>, tensor<2x1x8x1xi32>, tensor<2x1x1x1xi32>) -> tensor<2x4x15x64xf16>
    %y = graph.pointwise mul(%k, %g0_s) : (tensor<2x4x15x64xf16>, tensor<1x1x1x1xf32>) -> tensor<2x4x15x64xf16>
    graph.yield %y : tensor<2x4x15x64xf16>
  }
  %grp1 = graph.group 1 (%g1_c = %c8 : tensor<10x3x5x9xf8E4M3FN>, %g1_t = %t8 : tensor<2x1x3x1xi32>) -> tensor<2x3x15x9xf32> {
    %k8 = graph.paged_cache_load %g1_c, %g1_t {max_seq_len = 15 : i64} : (tensor<10x3x5x9xf8E4M3FN>, tensor<2x1x3x1xi32>) -> tensor<2x3x15x9xf8E4M3FN>
    %w = graph.pointwise identity(%k8) : (tensor<2x3x15x9xf8E4M3FN>) -> tensor<2x3x15x9xf32>
    graph.yield %w : tensor<2x3x15x9xf32>
  }
  %grp2 = graph.group 2 (%g2_c = %c32 : tensor<4x2x2x16xf32>, %g2_t = %t32 : tensor<2x1x2x1xi32>) -> tensor<2x2x4x16xf8E4M3FN> {
    %k32 = graph.paged_cache_load %g2_c, %g2_t {max_seq_len = 4 : i64} : (tensor<4x2x2x16xf32>, tensor<2x1x2x1xi32>) -> tensor<2x2x4x16xf32>
    %n = graph.pointwise identity(%k32) : (tensor<2x2x4x16xf32>) -> tensor<2x2x4x16xf8E4M3FN>
    graph.yield %n : tensor<2x2x4x16xf8E4M3FN>
  }
  graph.output %grp0, %grp1, %grp2 : tensor<2x4x15x64xf16>, tensor<2x3x15x9xf32>, tensor<2x2x4x16xf8E4M3FN>
}
