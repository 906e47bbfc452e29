// RUN: graph-opt %s -split-input-file --graph-prepare --graph-fuse --graph-select-engines=engines=codegen --graph-generate-kernels | FileCheck %s
// RUN: graph-opt %s -split-input-file --graph-prepare --graph-fuse --graph-select-engines=engines=codegen --graph-generate-kernels=plan=codegen_v2_t128_i4 | FileCheck %s --check-prefix=KNOBS
// RUN: graph-opt %s -split-input-file --graph-prepare --graph-fuse --graph-select-engines=engines=codegen --graph-generate-kernels=plan=codegen_v2_t256_i2_p | FileCheck %s --check-prefix=PREFETCH

// A bf16 pointwise chain with a broadcast bias: one kernel, runs of 8
// elements (16 bytes), two runs per thread, 256 threads.
// CHECK-LABEL: gpu.module @chain_group0
// CHECK-SAME: graph.launches = ["stage0 grid 32 block 256"]
// CHECK: gpu.func @stage0(%{{.*}}: memref<131072xbf16>, %{{.*}}: memref<1024xbf16>, %{{.*}}: memref<131072xbf16>) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<131072xbf16>, vector<8xbf16>
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<1024xbf16>, vector<8xbf16>
// CHECK: math.erf
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<131072xbf16>, vector<8xbf16>
// KNOBS-LABEL: gpu.module @chain_group0
// KNOBS-SAME: graph.launches = ["stage0 grid 32 block 128"]
graph.graph @chain(%x: tensor<128x1024xbf16>, %b: tensor<1x1024xbf16>) -> tensor<128x1024xbf16> {
  %a = graph.pointwise add(%x, %b) : (tensor<128x1024xbf16>, tensor<1x1024xbf16>) -> tensor<128x1024xf32>
  %g = graph.pointwise gelu(%a) : (tensor<128x1024xf32>) -> tensor<128x1024xbf16>
  graph.output %g : tensor<128x1024xbf16>
}

// -----

// rmsnorm training: a row stage. A block per row (grid-stride loop over
// rows), a block reduction (warp shuffles, then 32 shared floats across
// warps), inv_var stored by thread 0. With `_p` the next row's loads are
// issued before this row's reduction (loop-carried).
// CHECK-LABEL: gpu.module @rms_group0
// CHECK-SAME: graph.launches = ["stage0 grid 64 block 256"]
// CHECK: gpu.func @stage0
// CHECK-SAME: workgroup(%{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for
// CHECK: vector.load {{.*}} : memref<262144xbf16>, vector<8xbf16>
// CHECK: gpu.shuffle xor
// PREFETCH-LABEL: gpu.module @rms_group0
// PREFETCH: vector.load {{.*}} : memref<262144xbf16>, vector<8xbf16>
// PREFETCH: scf.for {{.*}} iter_args
// PREFETCH: scf.if
// PREFETCH: vector.load {{.*}} : memref<262144xbf16>, vector<8xbf16>
// PREFETCH: gpu.shuffle xor
// CHECK: gpu.barrier
// CHECK: math.sqrt
// CHECK: vector.store {{.*}} : memref<262144xbf16>, vector<8xbf16>
// CHECK: memref.store {{.*}} : memref<64xf32>
graph.graph @rms(%x: tensor<64x4096xbf16>, %w: tensor<1x4096xbf16>)
    -> (tensor<64x4096xbf16>, tensor<64x1xf32>) {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %y, %iv = graph.rmsnorm training %x, scale %w, epsilon %eps : (tensor<64x4096xbf16>, tensor<1x4096xbf16>, tensor<1x1xf32>) -> (tensor<64x4096xbf16>, tensor<64x1xf32>)
  graph.output %y, %iv : tensor<64x4096xbf16>, tensor<64x1xf32>
}

// -----

// layernorm backward: DX in the row kernel, DScale and DBias through
// per-block partials (scratch) and one finishing kernel each.
// CHECK-LABEL: gpu.module @lnb_group0
// CHECK-SAME: graph.launches = ["stage0 grid 32 block 64", "stage0_colsum0 grid 8 block 256", "stage0_colsum1 grid 8 block 256"]
// CHECK: gpu.func @stage0
// CHECK: vector.load {{.*}} : memref<256xf32>, vector<4xf32>
// CHECK: scf.for {{.*}} iter_args
// CHECK: gpu.func @stage0_colsum0
// CHECK-SAME: workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>)
graph.graph @lnb(%dy: tensor<32x256xf32>, %x: tensor<32x256xf32>, %g: tensor<1x256xf32>,
                 %m: tensor<32x1xf32>, %iv: tensor<32x1xf32>)
    -> (tensor<32x256xf32>, tensor<1x256xf32>, tensor<1x256xf32>) {
  %dx, %dg, %db = graph.layernorm_backward %dy, %x, scale %g, mean %m, inv_variance %iv : (tensor<32x256xf32>, tensor<32x256xf32>, tensor<1x256xf32>, tensor<32x1xf32>, tensor<32x1xf32>) -> (tensor<32x256xf32>, tensor<1x256xf32>, tensor<1x256xf32>)
  graph.output %dx, %dg, %db : tensor<32x256xf32>, tensor<1x256xf32>, tensor<1x256xf32>
}

// -----

// Softmax is one group and one kernel: two block reductions (max, sum).
// CHECK-LABEL: gpu.module @softmax_group0
// CHECK-SAME: graph.launches = ["stage0 grid 16 block 256"]
// CHECK-COUNT-2: gpu.barrier
// CHECK: math.exp
// An f32 result keeps the exact division.
// CHECK-NOT: arith.cmpf uge
graph.graph @softmax(%x: tensor<16x1000xf32>) -> tensor<16x1000xf32> {
  %m = graph.reduction max %x : (tensor<16x1000xf32>) -> tensor<16x1xf32>
  %d = graph.pointwise sub(%x, %m) : (tensor<16x1000xf32>, tensor<16x1xf32>) -> tensor<16x1000xf32>
  %e = graph.pointwise exp(%d) : (tensor<16x1000xf32>) -> tensor<16x1000xf32>
  %s = graph.reduction add %e : (tensor<16x1000xf32>) -> tensor<16x1xf32>
  %p = graph.pointwise div(%e, %s) : (tensor<16x1000xf32>, tensor<16x1xf32>) -> tensor<16x1000xf32>
  graph.output %p : tensor<16x1000xf32>
}

// -----

// A transpose is a gather copy (no vector loads of the strided input); a
// reduction over the leading axis is a reduce stage (one block per output
// element).
// CHECK-LABEL: gpu.module @moves_group0
// CHECK: gpu.func @stage0(%{{.*}}: memref<1536xf32>, %{{.*}}: memref<1536xf32>)
// CHECK-NOT: vector.load
// CHECK: gpu.return
// CHECK-LABEL: gpu.module @moves_group2
// CHECK-SAME: graph.launches = ["stage0 grid 48 block 256"]
// CHECK: scf.for
// CHECK: gpu.shuffle xor
graph.graph @moves(%x: tensor<32x48xf32>) -> (tensor<48x32xf32>, tensor<1x48xf32>) {
  %t = graph.transpose %x {permutation = array<i64: 1, 0>} : (tensor<32x48xf32>) -> tensor<48x32xf32>
  %e = graph.pointwise exp(%t) : (tensor<48x32xf32>) -> tensor<48x32xf32>
  %s = graph.reduction add %x : (tensor<32x48xf32>) -> tensor<1x48xf32>
  graph.output %e, %s : tensor<48x32xf32>, tensor<1x48xf32>
}

// -----

// MX quantize: a thread per 32-element block, amax, an e8m0 power-of-two
// scale, e4m3 values through the software codec (RNE via roundeven, bit
// fields assembled in i32) stored as bytes.
// CHECK-LABEL: gpu.module @mx_group0
// CHECK: gpu.func @stage0(%{{.*}}: memref<8192xbf16>, %{{.*}}: memref<8192xi8>, %{{.*}}: memref<256xi8>)
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<8192xbf16>, vector<8xbf16>
// CHECK: math.ctlz
// CHECK: math.roundeven
// CHECK: vector.store {{.*}} {alignment = 8 : i64} : memref<8192xi8>, vector<8xi8>
graph.graph @mx(%x: tensor<32x256xbf16>) -> (tensor<32x256xf8E4M3FN>, tensor<32x8xf8E8M0FNU>) {
  %y, %s = graph.block_scale_quantize %x {block_size = 32 : i64} : (tensor<32x256xbf16>) -> (tensor<32x256xf8E4M3FN>, tensor<32x8xf8E8M0FNU>)
  graph.output %y, %s : tensor<32x256xf8E4M3FN>, tensor<32x8xf8E8M0FNU>
}

// -----

// A bf16 softmax divides by the row's sum through one reciprocal (a few f32
// ulps cannot show in 8 significant bits), except below 2^-125 where the
// reciprocal would overflow. A row of 8 lanes asks ptxas for 64 registers
// (8 blocks of 128 threads per SM).
// CHECK-LABEL: gpu.module @softmax_bf16_group0
// CHECK: gpu.func @stage0
// CHECK-SAME: nvvm.minctasm = 8
// CHECK: %[[NORMAL:.*]] = arith.cmpf uge, %{{.*}}, %{{.*}} : f32
// CHECK: scf.if %[[NORMAL]] -> (f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: %[[R:.*]] = arith.divf %{{.*}}, %[[SUM:.*]] : f32
// CHECK-COUNT-8: arith.mulf %{{.*}}, %[[R]] : f32
// CHECK: } else {
// CHECK-COUNT-8: arith.divf %{{.*}}, %[[SUM]] : f32
graph.graph @softmax_bf16(%x: tensor<16x1024xbf16>) -> tensor<16x1024xbf16> {
  %m = graph.reduction max %x : (tensor<16x1024xbf16>) -> tensor<16x1xf32>
  %d = graph.pointwise sub(%x, %m) : (tensor<16x1024xbf16>, tensor<16x1xf32>) -> tensor<16x1024xf32>
  %e = graph.pointwise exp(%d) : (tensor<16x1024xf32>) -> tensor<16x1024xf32>
  %s = graph.reduction add %e : (tensor<16x1024xf32>) -> tensor<16x1xf32>
  %p = graph.pointwise div(%e, %s) : (tensor<16x1024xf32>, tensor<16x1xf32>) -> tensor<16x1024xbf16>
  graph.output %p : tensor<16x1024xbf16>
}

// -----

// tanh rounded to bf16 is the hardware's tanh.approx.f32 (relative error
// below an eighth of a bf16 ulp); an f32 result keeps libdevice's tanh. The
// two siblings read one input and share a kernel: per 4-lane item, four
// approximations for the bf16 result, then four libdevice calls.
// CHECK-LABEL: gpu.module @tanh_out_group0
// CHECK-COUNT-4: nvvm.inline_ptx "tanh.approx.f32 $0, $1;"
// CHECK-NOT: nvvm.inline_ptx
// CHECK-COUNT-4: math.tanh
// CHECK-NOT: math.tanh
// CHECK-COUNT-4: nvvm.inline_ptx "tanh.approx.f32 $0, $1;"
// CHECK-NOT: nvvm.inline_ptx
// CHECK-COUNT-4: math.tanh
// CHECK-NOT: gpu.module @tanh_out_group1
graph.graph @tanh_out(%x: tensor<64x64xbf16>) -> (tensor<64x64xbf16>, tensor<64x64xf32>) {
  %a = graph.pointwise tanh(%x) : (tensor<64x64xbf16>) -> tensor<64x64xbf16>
  %b = graph.pointwise tanh(%x) : (tensor<64x64xbf16>) -> tensor<64x64xf32>
  graph.output %a, %b : tensor<64x64xbf16>, tensor<64x64xf32>
}

// -----

// A layernorm over 4096 bf16 columns reloads scale and bias in every row,
// after the row's reductions, from an opaque zero that keeps LLVM from
// hoisting them out of the loop (held, they would cost 64 registers per
// thread). Short per-column inputs (the backward norm above, 4 lanes) are
// loaded once before the loop instead.
// CHECK-LABEL: gpu.module @ln_group0
// CHECK: scf.for
// CHECK: vector.load {{.*}} : memref<262144xbf16>, vector<8xbf16>
// CHECK: gpu.shuffle xor
// CHECK: gpu.shuffle xor
// CHECK: nvvm.inline_ptx "mov.b32 $0, 0;"
// CHECK: vector.load {{.*}} : memref<4096xbf16>, vector<8xbf16>
// CHECK: vector.store {{.*}} : memref<262144xbf16>, vector<8xbf16>
graph.graph @ln(%x: tensor<64x4096xbf16>, %w: tensor<1x4096xbf16>, %b: tensor<1x4096xbf16>)
    -> tensor<64x4096xbf16> {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %y = graph.layernorm inference %x, scale %w, bias %b, epsilon %eps : (tensor<64x4096xbf16>, tensor<1x4096xbf16>, tensor<1x4096xbf16>, tensor<1x1xf32>) -> (tensor<64x4096xbf16>, none, none)
  graph.output %y : tensor<64x4096xbf16>
}

// -----

// rope over runs of 8 bf16 lanes, each inside one half of a 128-wide row:
// x and its partner half load as 16-byte vectors, the eight angles as one
// vector<8xf32> (asked 16-byte alignment, not 32: a caller's buffer needs
// no more than the frontend promises), one sincos per lane.
// CHECK-LABEL: gpu.module @rope_runs_group0
// CHECK: gpu.func @stage0
// CHECK-COUNT-2: vector.load {{.*}} {alignment = 16 : i64} : memref<65536xbf16>, vector<8xbf16>
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<4096xf32>, vector<8xf32>
// CHECK-NOT: math.cos
// CHECK: math.sincos
// CHECK-NOT: math.cos
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<65536xbf16>, vector<8xbf16>
graph.graph @rope_runs(%x: tensor<2x4x64x128xbf16>, %f: tensor<1x1x64x64xf32>) -> tensor<2x4x64x128xbf16> {
  %y = graph.rope %x, freqs %f : (tensor<2x4x64x128xbf16>, tensor<1x1x64x64xf32>) -> tensor<2x4x64x128xbf16>
  graph.output %y : tensor<2x4x64x128xbf16>
}

// -----

// A head dim of 6 (runs of 2 f32 lanes cross the halves) keeps the
// per-element path: scalar loads, a cosine and a sine per element.
// CHECK-LABEL: gpu.module @rope_elements_group0
// CHECK: gpu.func @stage0
// CHECK-NOT: vector.load
// CHECK-NOT: math.sincos
// CHECK: math.cos
// CHECK: math.sin
// CHECK: gpu.return
graph.graph @rope_elements(%x: tensor<2x3x10x6xf32>, %f: tensor<1x1x10x3xf32>) -> tensor<2x3x10x6xf32> {
  %y = graph.rope %x, freqs %f : (tensor<2x3x10x6xf32>, tensor<1x1x10x3xf32>) -> tensor<2x3x10x6xf32>
  graph.output %y : tensor<2x3x10x6xf32>
}
