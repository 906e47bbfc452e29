// RUN: graph-opt %s -split-input-file --graph-fuse | FileCheck %s
// RUN: graph-opt %s -split-input-file --graph-fuse=row-fusion=false | FileCheck %s --check-prefix=NOFUSE
// RUN: graph-opt %s -split-input-file --graph-fuse=max-group-ops=2 | FileCheck %s --check-prefix=SMALL
// RUN: graph-opt %s -split-input-file --graph-fuse --graph-fuse | FileCheck %s
// RUN: graph-opt %s -split-input-file --graph-fuse | FileCheck %s --check-prefix=SINK
// RUN: graph-opt %s -split-input-file --graph-fuse --graph-fuse | FileCheck %s --check-prefix=TWICE

// A fused graph fused again is partitioned from its ops in schedule order:
// the same groups (last RUN line).

// A matmul takes its pointwise epilogue and one trailing reduction; an op
// reading the reduced group's tensor after the reduction opens a new group.
// Each group is a graph.group: operands are what it reads from outside
// (inputs, earlier groups' results), results what is read later or
// returned; values used only inside (the matmul's f32 result) stay inside.
// CHECK-LABEL: graph.graph @epilogue
// CHECK-SAME: (%[[X:[^:]*]]: {{[^,]*}}, %[[W:[^:]*]]: {{[^,]*}}, %[[B:[^:]*]]: {{[^,]*}}, %[[R:[^:]*]]:
// CHECK-NEXT: %[[G0:.*]]:2 = group 0 (%[[GX:.*]] = %[[X]] : tensor<8x64xf16>, %[[GW:.*]] = %[[W]] : tensor<64x32xf16>, %[[GB:.*]] = %[[B]] : tensor<1x32xf16>) -> (tensor<8x32xf16>, tensor<8x1xf32>) {
// CHECK-NEXT: %[[MM:.*]] = matmul %[[GX]], %[[GW]]
// CHECK-NEXT: %[[A:.*]] = pointwise add(%[[MM]], %[[GB]])
// CHECK-NEXT: %[[GE:.*]] = pointwise gelu(%[[A]])
// CHECK-NEXT: %[[S:.*]] = reduction add %[[GE]]
// CHECK-NEXT: yield %[[GE]], %[[S]] : tensor<8x32xf16>, tensor<8x1xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[G1:.*]] = group 1 (%[[GG:.*]] = %[[G0]]#0 : tensor<8x32xf16>, %[[GR:.*]] = %[[R]] : tensor<8x32xf16>) -> tensor<8x32xf16> {
// CHECK-NEXT: %[[Y:.*]] = pointwise add(%[[GG]], %[[GR]])
// CHECK-NEXT: yield %[[Y]]
// CHECK-NEXT: }
// CHECK-NEXT: output %[[G1]], %[[G0]]#1
// SMALL-LABEL: graph.graph @epilogue
// SMALL: group 0 ({{.*}}) -> tensor<8x32xf32> {
// SMALL-NEXT: matmul
// SMALL-NEXT: pointwise add
// SMALL-NEXT: yield
// SMALL: group 1 ({{.*}}) -> (tensor<8x32xf16>, tensor<8x1xf32>) {
// SMALL-NEXT: pointwise gelu
// SMALL-NEXT: reduction add
// SMALL-NEXT: yield
// SMALL: group 2 (
// SMALL-NEXT: pointwise add
graph.graph @epilogue(%x: tensor<8x64xf16>, %w: tensor<64x32xf16>, %b: tensor<1x32xf16>, %r: tensor<8x32xf16>) -> (tensor<8x32xf16>, tensor<8x1xf32>) {
  %mm = graph.matmul %x, %w : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf32>
  %a = graph.pointwise add(%mm, %b) : (tensor<8x32xf32>, tensor<1x32xf16>) -> tensor<8x32xf32>
  %g = graph.pointwise gelu(%a) : (tensor<8x32xf32>) -> tensor<8x32xf16>
  %s = graph.reduction add %g : (tensor<8x32xf16>) -> tensor<8x1xf32>
  %y = graph.pointwise add(%g, %r) : (tensor<8x32xf16>, tensor<8x32xf16>) -> tensor<8x32xf16>
  graph.output %y, %s : tensor<8x32xf16>, tensor<8x1xf32>
}

// -----

// A pointwise op of two groups' results joins the later group (joining the
// earlier one would make a cycle between the two groups): the product of a
// matmul's epilogue result and a second matmul is the second one's
// epilogue, like a SwiGLU's swish(g) * u.
// CHECK-LABEL: graph.graph @no_cycle
// CHECK-NEXT: %[[G0:.*]] = group 0 ({{.*}}) -> tensor<4x4xf32> {
// CHECK-NEXT: matmul
// CHECK-NEXT: pointwise swish
// CHECK-NEXT: yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[G1:.*]] = group 1 ({{.*}}, %[[M0:.*]] = %[[G0]] : tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT: %[[M1:.*]] = matmul
// CHECK-NEXT: pointwise mul(%[[M0]], %[[M1]])
// CHECK-NEXT: pointwise relu(%[[M1]])
// CHECK-NEXT: pointwise add(
// CHECK-NEXT: yield
// CHECK-NEXT: }
// CHECK-NEXT: output %[[G1]]
graph.graph @no_cycle(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m0 = graph.matmul %a, %b : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %s0 = graph.pointwise swish(%m0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %m1 = graph.matmul %b, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = graph.pointwise mul(%s0, %m1) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %q = graph.pointwise relu(%m1) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %o = graph.pointwise add(%p, %q) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  graph.output %o : tensor<4x4xf32>
}

// -----

// A sum of two matmuls' results opens its own group (not the second
// matmul's epilogue), and a norm's backward reading it chains on there
// (row fusion): two plain matmuls, then one memory-bound pass.
// CHECK-LABEL: graph.graph @sum_of_two_matmuls
// CHECK-NEXT: %[[G0:.*]] = group 0 ({{.*}}) -> tensor<8x16xf32> {
// CHECK-NEXT: matmul
// CHECK-NEXT: yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[G1:.*]] = group 1 ({{.*}}) -> tensor<8x16xf32> {
// CHECK-NEXT: matmul
// CHECK-NEXT: yield
// CHECK-NEXT: }
// CHECK-NEXT: group 2 ({{.*}}%[[G0]]{{.*}}%[[G1]]{{.*}}) -> {{.*}} {
// CHECK-NEXT: pointwise add(
// CHECK-NEXT: rmsnorm_backward
// CHECK-NEXT: yield
// CHECK-NEXT: }
graph.graph @sum_of_two_matmuls(%dg: tensor<8x32xbf16>, %wg: tensor<32x16xbf16>, %du: tensor<8x32xbf16>, %wu: tensor<32x16xbf16>, %h: tensor<8x16xbf16>, %gamma: tensor<1x16xf32>, %inv: tensor<8x1xf32>) -> (tensor<8x16xbf16>, tensor<1x16xf32>) {
  %a = graph.matmul %dg, %wg : (tensor<8x32xbf16>, tensor<32x16xbf16>) -> tensor<8x16xf32>
  %b = graph.matmul %du, %wu : (tensor<8x32xbf16>, tensor<32x16xbf16>) -> tensor<8x16xf32>
  %s = graph.pointwise add(%a, %b) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %dx, %dscale = graph.rmsnorm_backward %s, %h, scale %gamma, inv_variance %inv {has_dbias = false} : (tensor<8x16xf32>, tensor<8x16xbf16>, tensor<1x16xf32>, tensor<8x1xf32>) -> (tensor<8x16xbf16>, tensor<1x16xf32>)
  graph.output %dx, %dscale : tensor<8x16xbf16>, tensor<1x16xf32>
}

// -----

// The rule concerns a matmul's epilogue only: an op of two matmuls' results
// whose latest operand comes from a memory-bound group still joins that
// group.
// CHECK-LABEL: graph.graph @select_of_two_matmuls
// CHECK: group 2 ({{.*}}) -> tensor<4x4xf32> {
// CHECK-NEXT: pointwise cmp_gt
// CHECK-NEXT: pointwise binary_select
// CHECK-NEXT: yield
// CHECK-NOT: group 3
graph.graph @select_of_two_matmuls(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m0 = graph.matmul %a, %b : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %m1 = graph.matmul %b, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %mask = graph.pointwise cmp_gt(%x, %y) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xi1>
  %s = graph.pointwise binary_select(%m0, %m1, %mask) : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xi1>) -> tensor<4x4xf32>
  graph.output %s : tensor<4x4xf32>
}

// -----

// A norm's pointwise consumers join it (row fusion), scalars belong to no
// group (they stay in the graph body and are group operands), and a
// pointwise chain reading only inputs forms its own group.
// CHECK-LABEL: graph.graph @norm_and_chain
// CHECK-NEXT: %[[EPS:.*]] = scalar
// CHECK-NEXT: %[[G0:.*]] = group 0 ({{.*}}, %[[E:.*]] = %[[EPS]] : tensor<1x1xf32>) -> tensor<4x16xf32> {
// CHECK-NEXT: %[[Y:.*]] = layernorm inference {{.*}} epsilon %[[E]]
// CHECK-NEXT: pointwise relu(%[[Y]])
// CHECK-NEXT: yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[G1:.*]] = group 1 (%{{.*}} = %arg3 : tensor<4x16xf32>) -> tensor<4x16xf32> {
// CHECK-NEXT: pointwise sigmoid(
// CHECK-NEXT: pointwise mul(
// CHECK-NEXT: yield
// CHECK-NEXT: }
// CHECK-NEXT: output %[[G0]], %[[G1]]
graph.graph @norm_and_chain(%x: tensor<4x16xf32>, %g: tensor<1x16xf32>, %b: tensor<1x16xf32>, %z: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %y = graph.layernorm inference %x, scale %g, bias %b, epsilon %eps : (tensor<4x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x1xf32>) -> (tensor<4x16xf32>, none, none)
  %r = graph.pointwise relu(%y) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %s = graph.pointwise sigmoid(%z) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = graph.pointwise mul(%s, %z) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.output %r, %m : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// Row fusion: softmax (max, sub, exp, sum, div) is one group; a second
// norm opens its own group; residual add + rmsnorm + scale is one group.
// With row-fusion=false the reduction ends its group, as cuDNN wants.
// CHECK-LABEL: graph.graph @softmax_and_norms
// CHECK: %[[G0:.*]]:2 = group 0 ({{.*}}) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
// CHECK-NEXT: reduction max
// CHECK-NEXT: pointwise sub(
// CHECK-NEXT: pointwise exp(
// CHECK-NEXT: reduction add
// CHECK-NEXT: %[[P:.*]] = pointwise div(
// CHECK-NEXT: pointwise add(
// CHECK-NEXT: rmsnorm
// CHECK-NEXT: %[[O:.*]] = pointwise mul(
// CHECK-NEXT: yield %[[P]], %[[O]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[G1:.*]] = group 1 (%{{.*}} = %[[G0]]#1 : {{.*}}) -> tensor<8x64xf32> {
// CHECK-NEXT: rmsnorm
// CHECK-NEXT: yield
// CHECK-NEXT: }
// CHECK-NEXT: output %[[G0]]#0, %[[G0]]#1, %[[G1]]
// NOFUSE-LABEL: graph.graph @softmax_and_norms
// NOFUSE: group 0 (
// NOFUSE-NEXT: reduction max
// NOFUSE-NEXT: yield
// NOFUSE: group 1 (
// NOFUSE-NEXT: pointwise sub(
// NOFUSE-NEXT: pointwise exp(
// NOFUSE-NEXT: reduction add
// NOFUSE-NEXT: yield
// NOFUSE: group 2 (
// NOFUSE-NEXT: pointwise div(
graph.graph @softmax_and_norms(%x: tensor<8x64xf32>, %r: tensor<8x64xf32>, %g: tensor<1x64xf32>)
    -> (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %m = graph.reduction max %x : (tensor<8x64xf32>) -> tensor<8x1xf32>
  %d = graph.pointwise sub(%x, %m) : (tensor<8x64xf32>, tensor<8x1xf32>) -> tensor<8x64xf32>
  %e = graph.pointwise exp(%d) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %s = graph.reduction add %e : (tensor<8x64xf32>) -> tensor<8x1xf32>
  %p = graph.pointwise div(%e, %s) : (tensor<8x64xf32>, tensor<8x1xf32>) -> tensor<8x64xf32>
  %a = graph.pointwise add(%p, %r) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %n = graph.rmsnorm inference %a, scale %g, epsilon %eps : (tensor<8x64xf32>, tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<8x64xf32>
  %o = graph.pointwise mul(%n, %g) : (tensor<8x64xf32>, tensor<1x64xf32>) -> tensor<8x64xf32>
  %n2 = graph.rmsnorm inference %o, scale %g, epsilon %eps : (tensor<8x64xf32>, tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<8x64xf32>
  graph.output %p, %o, %n2 : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
}

// -----

// Batchnorm inference is a per-channel scale and shift: it joins the
// convolution's epilogue with the activation and the residual add.
// CHECK-LABEL: graph.graph @conv_bn_relu
// CHECK-NEXT: %[[G:.*]] = group 0 (
// CHECK-NEXT: conv_fprop
// CHECK-NEXT: batchnorm_inference
// CHECK-NEXT: pointwise add(
// CHECK-NEXT: pointwise relu(
// CHECK-NEXT: yield
// CHECK-NEXT: }
// CHECK-NEXT: output %[[G]]
graph.graph @conv_bn_relu(%x: tensor<2x8x4x4xf16>, %w: tensor<8x8x1x1xf16>, %m: tensor<1x8x1x1xf32>, %v: tensor<1x8x1x1xf32>) -> tensor<2x8x4x4xf16> {
  %c = graph.conv_fprop %x, %w {padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x8x4x4xf16>, tensor<8x8x1x1xf16>) -> tensor<2x8x4x4xf32>
  %b = graph.batchnorm_inference %c, mean %m, inv_variance %v, scale %v, bias %m : (tensor<2x8x4x4xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>) -> tensor<2x8x4x4xf32>
  %s = graph.pointwise add(%b, %x) : (tensor<2x8x4x4xf32>, tensor<2x8x4x4xf16>) -> tensor<2x8x4x4xf32>
  %y = graph.pointwise relu(%s) : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf16>
  graph.output %y : tensor<2x8x4x4xf16>
}

// -----

// The frontend's mixed-precision matmul: identity casts of graph inputs whose
// only use is a matmul operand join the matmul's group (cuDNN's mixed-input
// engines take them as one graph; an int8 cast alone has no engine). A cast
// read by anything else stays in its own group. M, N and K are multiples
// of 8 here (see @mixed_precision_matmul_unaligned).
// CHECK-LABEL: graph.graph @mixed_precision_matmul
// CHECK: group 0
// CHECK-NEXT: pointwise identity(%{{.*}}) {name = "castA"}
// CHECK-NEXT: pointwise identity(%{{.*}}) {name = "castB"}
// CHECK-NEXT: matmul
// CHECK: group 1
// CHECK-NEXT: pointwise identity(%{{.*}}) {name = "castShared"}
// CHECK: group 2
// CHECK-NEXT: matmul
// CHECK-NOT: group 3
graph.graph @mixed_precision_matmul(%a: tensor<2x8x16xf16>, %b: tensor<2x16x8xi8>, %c: tensor<2x16x8xi8>, %a2: tensor<2x8x16xbf16>)
    -> (tensor<2x8x8xbf16>, tensor<2x8x8xbf16>, tensor<2x16x8xbf16>) {
  %a16 = graph.pointwise identity(%a) {name = "castA"} : (tensor<2x8x16xf16>) -> tensor<2x8x16xbf16>
  %b16 = graph.pointwise identity(%b) {name = "castB"} : (tensor<2x16x8xi8>) -> tensor<2x16x8xbf16>
  %y = graph.matmul %a16, %b16 : (tensor<2x8x16xbf16>, tensor<2x16x8xbf16>) -> tensor<2x8x8xbf16>
  %c16 = graph.pointwise identity(%c) {name = "castShared"} : (tensor<2x16x8xi8>) -> tensor<2x16x8xbf16>
  %z = graph.matmul %a2, %c16 : (tensor<2x8x16xbf16>, tensor<2x16x8xbf16>) -> tensor<2x8x8xbf16>
  graph.output %y, %z, %c16 : tensor<2x8x8xbf16>, tensor<2x8x8xbf16>, tensor<2x16x8xbf16>
}

// -----

// At sizes that are not multiples of 8 (K = 9 here) the casts stay in their
// own groups: cuDNN's runtime-fusion engine reads a cast operand of such a
// matmul out of bounds (the frontend's unaligned matmul fuzzer on the H200),
// so the cast runs alone and the matmul reads its result from memory.
// CHECK-LABEL: graph.graph @mixed_precision_matmul_unaligned
// CHECK: group 0
// CHECK-NEXT: pointwise identity(%{{.*}}) {name = "castA"}
// CHECK-NEXT: yield
// CHECK: group 1
// CHECK-NEXT: pointwise identity(%{{.*}}) {name = "castB"}
// CHECK-NEXT: yield
// CHECK: group 2
// CHECK-NEXT: matmul
// CHECK-NOT: group 3
graph.graph @mixed_precision_matmul_unaligned(%a: tensor<2x8x9xbf16>, %b: tensor<2x9x8xi8>)
    -> tensor<2x8x8xf32> {
  %a32 = graph.pointwise identity(%a) {name = "castA"} : (tensor<2x8x9xbf16>) -> tensor<2x8x9xf32>
  %b32 = graph.pointwise identity(%b) {name = "castB"} : (tensor<2x9x8xi8>) -> tensor<2x9x8xf32>
  %y = graph.matmul %a32, %b32 : (tensor<2x8x9xf32>, tensor<2x9x8xf32>) -> tensor<2x8x8xf32>
  graph.output %y : tensor<2x8x8xf32>
}

// -----

// Philox dropout: the rng of an sdpa's (and sdpa_backward's) dropout_mask
// joins the attention's group, since cuDNN generates the mask inside the
// fused attention graph; the mask may also be a graph output (rng_dump).
// CHECK-LABEL: graph.graph @philox_dropout
// CHECK: group 0
// CHECK-NEXT: rng
// CHECK-NEXT: sdpa
// CHECK: group 1
// CHECK-NEXT: rng
// CHECK-NEXT: sdpa_backward
// CHECK-NOT: group 2
graph.graph @philox_dropout(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xbf16>,
                            %do: tensor<1x2x8x16xbf16>, %seed: tensor<1x1x1x1xi64>, %offset: tensor<1x1x1x1xi64>)
    -> (tensor<1x2x8x8xf32>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) {
  %keep = graph.rng %seed, %offset {bernoulli_probability = 0.75 : f64} : (tensor<1x1x1x1xi64>, tensor<1x1x1x1xi64>) -> tensor<1x2x8x8xf32>
  %o, %stats = graph.sdpa %q, %k, %v dropout_mask %keep {generate_stats, dropout_probability = 0.25 : f64}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x8xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>, none, none)
  %keep2 = graph.rng %seed, %offset {bernoulli_probability = 0.75 : f64} : (tensor<1x1x1x1xi64>, tensor<1x1x1x1xi64>) -> tensor<1x2x8x8xf32>
  %dq, %dk, %dv = graph.sdpa_backward %q, %k, %v, %o, %do, %stats dropout_mask %keep2 {dropout_probability = 0.25 : f64}
      : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>, tensor<1x2x8x8xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>)
  graph.output %keep, %dq, %dk, %dv : tensor<1x2x8x8xf32>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>
}

// -----

// A ragged output keeps verifying once grouped: its batch stride (H*D, as
// the frontend's chunked-prefill program declares it) addresses nothing, and
// the graph's output is now the group's result.
// CHECK-LABEL: graph.graph @ragged_thd_output
// CHECK: group 0
// CHECK: sdpa {{.*}} ragged_offset_O
graph.graph @ragged_thd_output(%q: tensor<2x2x8x16xbf16, #graph.strides<[32, 16, 32, 1]>>, %k: tensor<2x2x8x16xbf16>, %l: tensor<2x1x1x1xi32>, %off: tensor<3x1x1x1xi64>) -> tensor<2x2x8x16xbf16, #graph.strides<[32, 16, 32, 1]>> {
  %o = graph.sdpa %q, %k, %k seq_len_q %l seq_len_kv %l ragged_offset_q %off ragged_offset_O %off {use_padding_mask} : (tensor<2x2x8x16xbf16, #graph.strides<[32, 16, 32, 1]>>, tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>) -> (tensor<2x2x8x16xbf16, #graph.strides<[32, 16, 32, 1]>>, none, none, none)
  graph.output %o : tensor<2x2x8x16xbf16, #graph.strides<[32, 16, 32, 1]>>
}

// -----

// A matmul whose epilogue writes two results of the matmul's size that
// leave the group (an activation backward's two gradients) keeps the matmul
// alone; the epilogue is the next group and reads the matmul's result.
// CHECK-LABEL: graph.graph @two_gradients
// CHECK: %[[MMG:.*]] = group 0 ({{.*}}) -> tensor<8x32xf32> {
// CHECK-NEXT: matmul
// CHECK-NEXT: yield
// CHECK: %[[EPI:.*]]:2 = group 1 (%{{.*}} = %[[MMG]] : tensor<8x32xf32>, {{.*}}) -> (tensor<8x32xf16>, tensor<8x32xf16>) {
// CHECK-NEXT: pointwise mul
// CHECK-NEXT: pointwise mul
// CHECK-NEXT: pointwise swish_backward
// CHECK-NEXT: yield
// CHECK: group 2
// CHECK-NEXT: matmul
// CHECK-NOT: group 3
// CHECK: output
graph.graph @two_gradients(%dy: tensor<8x64xf16>, %w: tensor<64x32xf16>, %s: tensor<8x32xf32>,
                           %up: tensor<8x32xf16>, %gate: tensor<8x32xf16>, %v: tensor<32x16xf16>)
    -> (tensor<8x32xf16>, tensor<8x16xf32>) {
  %da = graph.matmul %dy, %w : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf32>
  %dup = graph.pointwise mul(%da, %s) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf16>
  %gin = graph.pointwise mul(%da, %up) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf32>
  %dgate = graph.pointwise swish_backward(%gin, %gate) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf16>
  %next = graph.matmul %dup, %v : (tensor<8x32xf16>, tensor<32x16xf16>) -> tensor<8x16xf32>
  graph.output %dgate, %next : tensor<8x32xf16>, tensor<8x16xf32>
}

// -----

// One result of the matmul's size leaving (the other stays inside) keeps
// the epilogue fused.
// CHECK-LABEL: graph.graph @one_gradient
// CHECK: group 0 ({{.*}}) -> tensor<8x32xf16> {
// CHECK-NEXT: matmul
// CHECK-NEXT: pointwise mul
// CHECK-NEXT: pointwise swish_backward
// CHECK-NEXT: yield
// CHECK-NOT: group 1
graph.graph @one_gradient(%dy: tensor<8x64xf16>, %w: tensor<64x32xf16>, %gate: tensor<8x32xf16>)
    -> tensor<8x32xf16> {
  %da = graph.matmul %dy, %w : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf32>
  %gin = graph.pointwise mul(%da, %gate) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf32>
  %dgate = graph.pointwise swish_backward(%gin, %gate) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf16>
  graph.output %dgate : tensor<8x32xf16>
}

// -----

// A pointwise op of graph inputs only (the swish recompute, a sibling of the
// forward's swish) whose one reading group is the pointwise epilogue moves
// there: computed where it is read, not written out as f32 and read back.
// The forward's swish * up, a group of graph inputs only, then merges into
// that epilogue too (it reads gate and up already): one pass over them. A
// second graph-fuse sees the merged ops after the matmul and groups them
// otherwise, a valid schedule too.
// CHECK-LABEL: graph.graph @recompute_sinks
// SINK-LABEL: graph.graph @recompute_sinks
// SINK: group 0 ({{.*}}) -> tensor<8x32xf32> {
// SINK-NEXT: matmul
// SINK-NEXT: yield
// SINK: group 1 ({{.*}}) -> (tensor<8x32xf16>, tensor<8x32xf16>, tensor<8x32xf16>) {
// SINK-NEXT: pointwise swish
// SINK-NEXT: pointwise mul
// SINK-NEXT: pointwise swish
// SINK-NEXT: pointwise mul
// SINK-NEXT: pointwise mul
// SINK-NEXT: pointwise swish_backward
// SINK-NEXT: yield
// SINK-NOT: group 2
// TWICE-LABEL: graph.graph @recompute_sinks
// TWICE: group 0 ({{.*}}) -> (tensor<8x32xf32>, tensor<8x32xf16>) {
// TWICE-NEXT: matmul
// TWICE-NEXT: pointwise mul
// TWICE-NEXT: pointwise swish_backward
// TWICE-NEXT: yield
// TWICE: group 1 ({{.*}}) -> (tensor<8x32xf16>, tensor<8x32xf16>) {
// TWICE-NEXT: pointwise swish
// TWICE-NEXT: pointwise mul
// TWICE-NEXT: pointwise swish
// TWICE-NEXT: pointwise mul
// TWICE-NEXT: yield
// TWICE-NOT: group 2
graph.graph @recompute_sinks(%dy: tensor<8x64xf16>, %w: tensor<64x32xf16>,
                             %gate: tensor<8x32xf16>, %up: tensor<8x32xf16>)
    -> (tensor<8x32xf16>, tensor<8x32xf16>, tensor<8x32xf16>) {
  %s0 = graph.pointwise swish(%gate) : (tensor<8x32xf16>) -> tensor<8x32xf32>
  %h = graph.pointwise mul(%s0, %up) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf16>
  %da = graph.matmul %dy, %w : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf32>
  %s1 = graph.pointwise swish(%gate) : (tensor<8x32xf16>) -> tensor<8x32xf32>
  %dup = graph.pointwise mul(%da, %s1) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf16>
  %gin = graph.pointwise mul(%da, %up) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf32>
  %dgate = graph.pointwise swish_backward(%gin, %gate) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf16>
  graph.output %h, %dup, %dgate : tensor<8x32xf16>, tensor<8x32xf16>, tensor<8x32xf16>
}

// -----

// The reading group does not read the op's input itself (only %other's
// reader): the op stays with its sibling, written out.
// CHECK-LABEL: graph.graph @recompute_stays
// SINK-LABEL: graph.graph @recompute_stays
// TWICE-LABEL: graph.graph @recompute_stays
// CHECK: group 0 ({{.*}}) -> (tensor<8x32xf16>, tensor<8x32xf32>) {
// CHECK-NEXT: pointwise swish
// CHECK-NEXT: pointwise mul
// CHECK-NEXT: pointwise swish
// CHECK-NEXT: yield
graph.graph @recompute_stays(%dy: tensor<8x64xf16>, %w: tensor<64x32xf16>,
                             %gate: tensor<8x32xf16>, %up: tensor<8x32xf16>)
    -> (tensor<8x32xf16>, tensor<8x32xf16>, tensor<8x32xf16>) {
  %s0 = graph.pointwise swish(%gate) : (tensor<8x32xf16>) -> tensor<8x32xf32>
  %h = graph.pointwise mul(%s0, %up) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf16>
  %da = graph.matmul %dy, %w : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf32>
  %s1 = graph.pointwise swish(%gate) : (tensor<8x32xf16>) -> tensor<8x32xf32>
  %dup = graph.pointwise mul(%da, %s1) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf16>
  %gin = graph.pointwise mul(%da, %up) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf16>
  graph.output %h, %dup, %gin : tensor<8x32xf16>, tensor<8x32xf16>, tensor<8x32xf16>
}

// -----

// The merge moves past the groups that read the merged group's result (a
// weight gradient of the recomputed activation): they run after it, the
// other groups keep their order.
// CHECK-LABEL: graph.graph @recompute_merges_past_reader
// SINK-LABEL: graph.graph @recompute_merges_past_reader
// SINK: group 0 ({{.*}}) -> tensor<8x32xf32> {
// SINK-NEXT: matmul
// SINK-NEXT: yield
// SINK: %[[M:.*]]:3 = group 1 ({{.*}}) -> (tensor<8x32xf16>, tensor<8x32xf16>, tensor<8x32xf16>) {
// SINK-NEXT: pointwise swish
// SINK-NEXT: pointwise mul
// SINK-NEXT: pointwise swish
// SINK-NEXT: pointwise mul
// SINK-NEXT: pointwise mul
// SINK-NEXT: pointwise swish_backward
// SINK-NEXT: yield
// SINK: group 2 ({{.*}} = %[[M]]#0 : tensor<8x32xf16>, {{.*}}) -> tensor<8x16xf32> {
// SINK-NEXT: matmul
// SINK: group 3 ({{.*}} = %[[M]]#1 :
// SINK: group 4 ({{.*}} = %[[M]]#2 :
graph.graph @recompute_merges_past_reader(%dy: tensor<8x64xf16>, %w: tensor<64x32xf16>,
                                          %gate: tensor<8x32xf16>, %up: tensor<8x32xf16>,
                                          %v: tensor<32x16xf16>)
    -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %s0 = graph.pointwise swish(%gate) : (tensor<8x32xf16>) -> tensor<8x32xf32>
  %act = graph.pointwise mul(%s0, %up) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf16>
  %r = graph.matmul %act, %v : (tensor<8x32xf16>, tensor<32x16xf16>) -> tensor<8x16xf32>
  %da = graph.matmul %dy, %w : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf32>
  %s1 = graph.pointwise swish(%gate) : (tensor<8x32xf16>) -> tensor<8x32xf32>
  %dup = graph.pointwise mul(%da, %s1) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf16>
  %gin = graph.pointwise mul(%da, %up) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf32>
  %dgate = graph.pointwise swish_backward(%gin, %gate) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf16>
  %p = graph.matmul %dup, %v : (tensor<8x32xf16>, tensor<32x16xf16>) -> tensor<8x16xf32>
  %q = graph.matmul %dgate, %v : (tensor<8x32xf16>, tensor<32x16xf16>) -> tensor<8x16xf32>
  graph.output %r, %p, %q : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// The merge would move the reader of the recomputed activation past a group
// that writes graph outputs (memory a caller may bind over an input the
// reader reads): everything stays as partitioned.
// CHECK-LABEL: graph.graph @recompute_kept_before_output
// SINK-LABEL: graph.graph @recompute_kept_before_output
// CHECK: group 0 ({{.*}}) -> tensor<8x32xf16> {
// CHECK-NEXT: pointwise swish
// CHECK-NEXT: pointwise mul
// CHECK-NEXT: yield
// CHECK: group 1 ({{.*}}) -> tensor<8x16xf32> {
// CHECK-NEXT: matmul
// CHECK: group 2 ({{.*}}) -> tensor<8x32xf32> {
// CHECK-NEXT: matmul
// CHECK: group 3 ({{.*}}) -> (tensor<8x32xf16>, tensor<8x32xf16>) {
// CHECK-NEXT: pointwise swish
// CHECK-NEXT: pointwise mul
// CHECK-NEXT: pointwise mul
// CHECK-NEXT: pointwise swish_backward
// CHECK-NEXT: yield
graph.graph @recompute_kept_before_output(%dy: tensor<8x64xf16>, %w: tensor<64x32xf16>,
                                          %gate: tensor<8x32xf16>, %up: tensor<8x32xf16>,
                                          %v: tensor<32x16xf16>)
    -> (tensor<8x16xf32>, tensor<8x32xf16>, tensor<8x32xf16>) {
  %s0 = graph.pointwise swish(%gate) : (tensor<8x32xf16>) -> tensor<8x32xf32>
  %act = graph.pointwise mul(%s0, %up) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf16>
  %r = graph.matmul %act, %v : (tensor<8x32xf16>, tensor<32x16xf16>) -> tensor<8x16xf32>
  %da = graph.matmul %dy, %w : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf32>
  %s1 = graph.pointwise swish(%gate) : (tensor<8x32xf16>) -> tensor<8x32xf32>
  %dup = graph.pointwise mul(%da, %s1) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf16>
  %gin = graph.pointwise mul(%da, %up) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf32>
  %dgate = graph.pointwise swish_backward(%gin, %gate) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf16>
  graph.output %r, %dup, %dgate : tensor<8x16xf32>, tensor<8x32xf16>, tensor<8x32xf16>
}

// -----

// The group after the recompute that reads it (its weight gradient) feeds
// the would-be target: moving it after the target would be a cycle, so
// nothing merges.
// CHECK-LABEL: graph.graph @recompute_kept_by_cycle
// CHECK: group 0 ({{.*}}) -> tensor<8x32xf16> {
// CHECK-NEXT: pointwise swish
// CHECK-NEXT: pointwise mul
// CHECK-NEXT: yield
// CHECK: %[[R:.*]] = group 1 ({{.*}}) -> tensor<8x32xf32> {
// CHECK-NEXT: matmul
// CHECK: group 2 ({{.*}}) -> tensor<8x32xf32> {
// CHECK-NEXT: matmul
// CHECK: group 3 ({{.*}} = %[[R]] : tensor<8x32xf32>) -> (tensor<8x32xf16>, tensor<8x32xf16>) {
// CHECK-NEXT: pointwise swish
// CHECK-NEXT: pointwise mul
graph.graph @recompute_kept_by_cycle(%dy: tensor<8x64xf16>, %w: tensor<64x32xf16>,
                                     %gate: tensor<8x32xf16>, %up: tensor<8x32xf16>,
                                     %v: tensor<32x16xf16>, %u: tensor<32x32xf16>)
    -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %s0 = graph.pointwise swish(%gate) : (tensor<8x32xf16>) -> tensor<8x32xf32>
  %act = graph.pointwise mul(%s0, %up) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf16>
  %r = graph.matmul %act, %u : (tensor<8x32xf16>, tensor<32x32xf16>) -> tensor<8x32xf32>
  %da = graph.matmul %dy, %w : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf32>
  %s1 = graph.pointwise swish(%gate) : (tensor<8x32xf16>) -> tensor<8x32xf32>
  %dup = graph.pointwise mul(%da, %s1) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf16>
  %gin = graph.pointwise mul(%da, %up) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf32>
  %dgate = graph.pointwise swish_backward(%gin, %gate) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf32>
  %z = graph.pointwise add(%dgate, %r) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  %p = graph.matmul %dup, %v : (tensor<8x32xf16>, tensor<32x16xf16>) -> tensor<8x16xf32>
  %zh = graph.pointwise identity(%z) : (tensor<8x32xf32>) -> tensor<8x32xf16>
  %q = graph.matmul %zh, %v : (tensor<8x32xf16>, tensor<32x16xf16>) -> tensor<8x16xf32>
  graph.output %p, %q : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// A group strictly between the recompute's reader and the target writes a
// graph output (here the matmul that the target's other reads come from):
// the reader may not move past it, so nothing merges.
// CHECK-LABEL: graph.graph @recompute_kept_before_inner_output
// CHECK: group 0 ({{.*}}) -> tensor<8x32xf16> {
// CHECK-NEXT: pointwise swish
// CHECK-NEXT: pointwise mul
// CHECK-NEXT: yield
// CHECK: group 1 ({{.*}}) -> tensor<8x16xf32> {
// CHECK-NEXT: matmul
// CHECK: group 2 ({{.*}}) -> tensor<8x32xf32> {
// CHECK-NEXT: matmul
// CHECK: group 3 ({{.*}}) -> (tensor<8x32xf16>, tensor<8x32xf16>) {
// CHECK-NEXT: pointwise swish
// CHECK-NEXT: pointwise mul
graph.graph @recompute_kept_before_inner_output(%dy: tensor<8x64xf16>, %w: tensor<64x32xf16>,
                                          %gate: tensor<8x32xf16>, %up: tensor<8x32xf16>,
                                          %v: tensor<32x16xf16>)
    -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x32xf32>) {
  %s0 = graph.pointwise swish(%gate) : (tensor<8x32xf16>) -> tensor<8x32xf32>
  %act = graph.pointwise mul(%s0, %up) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf16>
  %r = graph.matmul %act, %v : (tensor<8x32xf16>, tensor<32x16xf16>) -> tensor<8x16xf32>
  %da = graph.matmul %dy, %w : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf32>
  %s1 = graph.pointwise swish(%gate) : (tensor<8x32xf16>) -> tensor<8x32xf32>
  %dup = graph.pointwise mul(%da, %s1) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf16>
  %gin = graph.pointwise mul(%da, %up) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf32>
  %dgate = graph.pointwise swish_backward(%gin, %gate) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf16>
  %p = graph.matmul %dup, %v : (tensor<8x32xf16>, tensor<32x16xf16>) -> tensor<8x16xf32>
  %q = graph.matmul %dgate, %v : (tensor<8x32xf16>, tensor<32x16xf16>) -> tensor<8x16xf32>
  graph.output %r, %p, %q, %da : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x32xf32>
}

// -----

// The recompute sinks into the split epilogue even when it opened its own
// group first. A second graph-fuse sees it after the matmul (it was moved
// there) and groups otherwise, a valid schedule too: the matmul keeps the
// one gradient that leaves, the recompute and its product run alone.
// SINK-LABEL: graph.graph @sink_after_split
// SINK: group 0 ({{.*}}) -> tensor<8x32xf32> {
// SINK-NEXT: matmul
// SINK-NEXT: yield
// SINK: group 1 ({{.*}}) -> (tensor<8x32xf16>, tensor<8x32xf16>) {
// SINK-NEXT: pointwise swish
// SINK-NEXT: pointwise mul
// SINK-NEXT: pointwise mul
// SINK-NEXT: pointwise swish_backward
// SINK-NEXT: yield
// SINK-NOT: group 2
// TWICE-LABEL: graph.graph @sink_after_split
// TWICE: group 0 ({{.*}}) -> (tensor<8x32xf32>, tensor<8x32xf16>) {
// TWICE-NEXT: matmul
// TWICE-NEXT: pointwise mul
// TWICE-NEXT: pointwise swish_backward
// TWICE-NEXT: yield
// TWICE: group 1 ({{.*}}) -> tensor<8x32xf16> {
// TWICE-NEXT: pointwise swish
// TWICE-NEXT: pointwise mul
// TWICE-NEXT: yield
// TWICE-NOT: group 2
graph.graph @sink_after_split(%dy: tensor<8x64xf16>, %w: tensor<64x32xf16>,
                              %gate: tensor<8x32xf16>, %up: tensor<8x32xf16>)
    -> (tensor<8x32xf16>, tensor<8x32xf16>) {
  %s1 = graph.pointwise swish(%gate) : (tensor<8x32xf16>) -> tensor<8x32xf32>
  %da = graph.matmul %dy, %w : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf32>
  %dup = graph.pointwise mul(%da, %s1) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf16>
  %gin = graph.pointwise mul(%da, %up) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf32>
  %dgate = graph.pointwise swish_backward(%gin, %gate) : (tensor<8x32xf32>, tensor<8x32xf16>) -> tensor<8x32xf16>
  graph.output %dup, %dgate : tensor<8x32xf16>, tensor<8x32xf16>
}

