// RUN: graph-opt %s -split-input-file --graph-prepare --graph-select-engines=engines=codegen --graph-generate-kernels | FileCheck %s
// RUN: graph-opt %s -split-input-file --graph-prepare --graph-select-engines=engines=codegen --graph-generate-kernels 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: graph-opt %s -split-input-file --graph-prepare --graph-select-engines=engines=codegen --graph-generate-kernels --graph-kernels-to-ptx | FileCheck %s --check-prefix=PTX

// Unusual groups for the direct kernel generator (codegen_v2): each one
// either lowers to kernels that pass the NVVM pipeline or is left to
// another engine with a remark that names the op and the rule. The groups
// are given by hand (no graph-fuse), so views, quantize, rope and gen_index
// share groups with the ops that read them.
// REMARK-NOT: error

// A reduction of a transposed view in the same group: the view's dims, not
// a tensor's, decide the row (was a map::at abort).
// CHECK-LABEL: gpu.module @red_of_view_group0
// CHECK-SAME: graph.launches = ["stage0 grid 16 block 32"]
// CHECK: gpu.func @stage0(%{{.*}}: memref<128xf32>, %{{.*}}: memref<16xf32>)
// PTX-LABEL: gpu.binary @red_of_view_group0
graph.graph @red_of_view(%x: tensor<8x16xf32>) -> tensor<16x1xf32> {
  %t = graph.transpose %x {permutation = array<i64: 1, 0>, graph.group = 0 : i64} : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %s = graph.reduction add %t {graph.group = 0 : i64} : (tensor<16x8xf32>) -> tensor<16x1xf32>
  graph.output %s : tensor<16x1xf32>
}

// -----

// rmsnorm of a transposed view.
// CHECK-LABEL: gpu.module @norm_of_view_group0
// CHECK-SAME: graph.launches = ["stage0 grid 8 block 32"]
// CHECK: gpu.shuffle xor
// PTX-LABEL: gpu.binary @norm_of_view_group0
graph.graph @norm_of_view(%x: tensor<16x8xf32>, %g: tensor<1x16xf32>) -> tensor<8x16xf32> {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %t = graph.transpose %x {permutation = array<i64: 1, 0>, graph.group = 0 : i64} : (tensor<16x8xf32>) -> tensor<8x16xf32>
  %y = graph.rmsnorm inference %t, scale %g, epsilon %eps {graph.group = 0 : i64} : (tensor<8x16xf32>, tensor<1x16xf32>, tensor<1x1xf32>) -> tensor<8x16xf32>
  graph.output %y : tensor<8x16xf32>
}

// -----

// Block-scale quantize of a transposed view.
// CHECK-LABEL: gpu.module @quant_of_view_group0
// CHECK: gpu.func @stage0(%{{.*}}: memref<128xf32>, %{{.*}}: memref<128xi8>, %{{.*}}: memref<4xi8>)
// PTX-LABEL: gpu.binary @quant_of_view_group0
graph.graph @quant_of_view(%x: tensor<32x4xf32>) -> (tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>) {
  %t = graph.transpose %x {permutation = array<i64: 1, 0>, graph.group = 0 : i64} : (tensor<32x4xf32>) -> tensor<4x32xf32>
  %y, %s = graph.block_scale_quantize %t {block_size = 32 : i64, graph.group = 0 : i64} : (tensor<4x32xf32>) -> (tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>)
  graph.output %y, %s : tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>
}

// -----

// genstats of a permuted view.
// CHECK-LABEL: gpu.module @genstats_of_view_group0
// CHECK-SAME: graph.launches = ["stage0 grid 3 block 256"]
// CHECK: gpu.func @stage0(%{{.*}}: memref<72xf32>, %{{.*}}: memref<3xf32>, %{{.*}}: memref<3xf32>)
// PTX-LABEL: gpu.binary @genstats_of_view_group0
graph.graph @genstats_of_view(%x: tensor<2x4x3x3xf32>) -> (tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>) {
  %t = graph.transpose %x {permutation = array<i64: 0, 2, 1, 3>, graph.group = 0 : i64} : (tensor<2x4x3x3xf32>) -> tensor<2x3x4x3xf32>
  %a, %b = graph.genstats %t {graph.group = 0 : i64} : (tensor<2x3x4x3xf32>) -> (tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>)
  graph.output %a, %b : tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>
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
  %a, %b = graph.genstats %x {graph.group = 0 : i64} : (tensor<2x4x3x3xf32>) -> (tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32>)
  %y, %s = graph.block_scale_quantize %q {block_size = 32 : i64, graph.group = 1 : i64} : (tensor<4x32xf32>) -> (tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>)
  graph.output %a, %y : tensor<1x4x1x1xf32>, tensor<4x32xf8E4M3FN>
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
  %y = graph.block_scale_dequantize %x, descale %s {block_size = 32 : i64, graph.group = 0 : i64} : (tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>) -> tensor<4x32xf32>
  %a = graph.reduction amax %y {graph.group = 0 : i64} : (tensor<4x32xf32>) -> tensor<4x1xf32>
  %ry = graph.rope %r, freqs %f {graph.group = 1 : i64} : (tensor<4x16xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  %b = graph.reduction add %ry {graph.group = 1 : i64} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %i = graph.pointwise gen_index(%r) {axis = 1 : i64, graph.group = 2 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %c = graph.reduction max %i {graph.group = 2 : i64} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  graph.output %a, %b, %c : tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>
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
  %s = graph.reduction add %x {graph.group = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = graph.reduction max %x {graph.group = 0 : i64} : (tensor<4x8xf32>) -> tensor<1x1xf32>
  %u = graph.reduction avg %x {graph.group = 0 : i64} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %y, %m, %iv = graph.layernorm training %n, scale %g, bias %bb, epsilon %eps {graph.group = 1 : i64} : (tensor<8x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>) -> (tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>)
  %mx = graph.reduction max %sx {graph.group = 2 : i64} : (tensor<16x1xf32>) -> tensor<16x1xf32>
  %d = graph.pointwise sub(%sx, %mx) {graph.group = 2 : i64} : (tensor<16x1xf32>, tensor<16x1xf32>) -> tensor<16x1xf32>
  %e = graph.pointwise exp(%d) {graph.group = 2 : i64} : (tensor<16x1xf32>) -> tensor<16x1xf32>
  %sm = graph.reduction add %e {graph.group = 2 : i64} : (tensor<16x1xf32>) -> tensor<16x1xf32>
  %p = graph.pointwise div(%e, %sm) {graph.group = 2 : i64} : (tensor<16x1xf32>, tensor<16x1xf32>) -> tensor<16x1xf32>
  graph.output %s, %t, %u, %y, %m, %iv, %p : tensor<4x8xf32>, tensor<1x1xf32>, tensor<1x8xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<16x1xf32>
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
  %t = graph.transpose %c {permutation = array<i64: 1, 0>, graph.group = 0 : i64} : (tensor<1x1xf32>) -> tensor<1x1xf32>
  %a = graph.pointwise add(%x, %t) {graph.group = 1 : i64} : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
  %f = graph.scalar 0.5 : f32 -> tensor<1x1xf32>
  %ry = graph.rope %r, freqs %f {graph.group = 2 : i64} : (tensor<2x2xf32>, tensor<1x1xf32>) -> tensor<2x2xf32>
  %d = graph.scalar 0.25 : f32 -> tensor<1x1xf32>
  %dq = graph.block_scale_dequantize %q, descale %d {block_size = 32 : i64, graph.group = 3 : i64} : (tensor<1x32xf8E4M3FN>, tensor<1x1xf32>) -> tensor<1x32xf32>
  %v = graph.scalar 3.0 : f32 -> tensor<1x1xf32>
  %qy, %qs = graph.block_scale_quantize %v {block_size = 1 : i64, graph.group = 4 : i64} : (tensor<1x1xf32>) -> (tensor<1x1xf8E4M3FN>, tensor<1x1xf32>)
  %g = graph.scalar 4.0 : f32 -> tensor<1x1xf32>
  %gs, %gq = graph.genstats %g {graph.group = 5 : i64} : (tensor<1x1xf32>) -> (tensor<1x1xf32>, tensor<1x1xf32>)
  %rs = graph.reduction add %g {graph.group = 6 : i64} : (tensor<1x1xf32>) -> tensor<1x1xf32>
  graph.output %a, %ry, %dq, %qy, %qs, %gs, %gq, %rs : tensor<1x1xf32>, tensor<2x2xf32>, tensor<1x32xf32>, tensor<1x1xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>
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
  %m = graph.reduction max %x {graph.group = 0 : i64} : (tensor<8x16xf32>) -> tensor<8x1xf32>
  %bb = graph.pointwise exp(%b) {graph.group = 0 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  %d = graph.pointwise sub(%x, %bb) {graph.group = 0 : i64} : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %e = graph.pointwise add(%c, %d) {graph.group = 0 : i64} : (tensor<2x8x16xf32>, tensor<8x16xf32>) -> tensor<2x8x16xf32>
  %f = graph.pointwise mul(%m, %m) {graph.group = 0 : i64} : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
  %pe = graph.pointwise exp(%p) {graph.group = 1 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %cat = graph.concatenate %pe, %q {axis = 1 : i64, graph.group = 1 : i64} : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
  %r = graph.reduction add %cat {graph.group = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %s = graph.slice %cat {start = array<i64: 1, 0>, limit = array<i64: 4, 8>, step = array<i64: 2, 1>, graph.group = 1 : i64} : (tensor<4x8xf32>) -> tensor<2x8xf32>
  %n = graph.pointwise neg(%cat) {graph.group = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  graph.output %d, %bb, %e, %f, %r, %s, %n : tensor<8x16xf32>, tensor<16xf32>, tensor<2x8x16xf32>, tensor<8x1xf32>, tensor<4x1xf32>, tensor<2x8xf32>, tensor<4x8xf32>
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
  %s = graph.slice %x {start = array<i64: 0, 0>, limit = array<i64: 4, 8>, step = array<i64: 1, 2>, graph.group = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  %r = graph.reshape %s {graph.group = 0 : i64} : (tensor<4x4xf32>) -> tensor<16xf32>
  graph.output %r : tensor<16xf32>
}

// -----

// A reshape no strides express (a transposed view flattened) gathers its
// source into packed scratch first, then reads that: two stages.
// CHECK-LABEL: gpu.module @reshape_of_transpose_group0 attributes {graph.launches = ["stage0 grid 1 block 256", "stage1 grid 1 block 256"]}
graph.graph @reshape_of_transpose(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %t = graph.transpose %x {permutation = array<i64: 1, 0>, graph.group = 0 : i64} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %r = graph.reshape %t {graph.group = 0 : i64} : (tensor<8x4xf32>) -> tensor<32xf32>
  %y = graph.pointwise add(%r, %r) {graph.group = 0 : i64} : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
  graph.output %y : tensor<32xf32>
}
