// RUN: graph-opt %s -split-input-file --graph-fuse | FileCheck %s
// RUN: graph-opt %s -split-input-file --graph-fuse=row-fusion=false | FileCheck %s --check-prefix=NOFUSE
// RUN: graph-opt %s -split-input-file --graph-fuse=max-group-ops=2 | FileCheck %s --check-prefix=SMALL

// A matmul takes its pointwise epilogue and one trailing reduction; an op
// reading the reduced group's tensor after the reduction opens a new group.
// CHECK-LABEL: graph.graph @epilogue
// CHECK: matmul {{.*}}graph.group = 0
// CHECK-NEXT: pointwise add{{.*}}graph.group = 0
// CHECK-NEXT: pointwise gelu{{.*}}graph.group = 0
// CHECK-NEXT: reduction add{{.*}}graph.group = 0
// CHECK-NEXT: pointwise add{{.*}}graph.group = 1
// SMALL-LABEL: graph.graph @epilogue
// SMALL: matmul {{.*}}graph.group = 0
// SMALL-NEXT: pointwise add{{.*}}graph.group = 0
// SMALL-NEXT: pointwise gelu{{.*}}graph.group = 1
// SMALL-NEXT: reduction add{{.*}}graph.group = 1
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
// earlier one would make a cycle between the two groups): the product of
// two matmuls is the second one's epilogue, like a SwiGLU's swish(g) * u.
// CHECK-LABEL: graph.graph @no_cycle
// CHECK: matmul {{.*}}graph.group = 0
// CHECK-NEXT: matmul {{.*}}graph.group = 1
// CHECK-NEXT: pointwise mul({{.*}}graph.group = 1
// CHECK-NEXT: pointwise relu({{.*}}graph.group = 1
// CHECK-NEXT: pointwise add({{.*}}graph.group = 1
graph.graph @no_cycle(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m0 = graph.matmul %a, %b : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %m1 = graph.matmul %b, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = graph.pointwise mul(%m0, %m1) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %q = graph.pointwise relu(%m1) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %o = graph.pointwise add(%p, %q) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  graph.output %o : tensor<4x4xf32>
}

// -----

// A norm's pointwise consumers join it (row fusion), scalars belong to no
// group, and a pointwise chain reading only inputs forms its own group.
// CHECK-LABEL: graph.graph @norm_and_chain
// CHECK: scalar
// CHECK-NOT: graph.group
// CHECK-SAME: -> tensor<1x1xf32>
// CHECK-NEXT: layernorm {{.*}}graph.group = 0
// CHECK-NEXT: pointwise relu({{.*}}graph.group = 0
// CHECK-NEXT: pointwise sigmoid({{.*}}graph.group = 1
// CHECK-NEXT: pointwise mul({{.*}}graph.group = 1
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
// CHECK: reduction max {{.*}}graph.group = 0
// CHECK-NEXT: pointwise sub({{.*}}graph.group = 0
// CHECK-NEXT: pointwise exp({{.*}}graph.group = 0
// CHECK-NEXT: reduction add {{.*}}graph.group = 0
// CHECK-NEXT: pointwise div({{.*}}graph.group = 0
// CHECK-NEXT: pointwise add({{.*}}graph.group = 0
// CHECK-NEXT: rmsnorm {{.*}}graph.group = 0
// CHECK-NEXT: pointwise mul({{.*}}graph.group = 0
// CHECK-NEXT: rmsnorm {{.*}}graph.group = 1
// NOFUSE-LABEL: graph.graph @softmax_and_norms
// NOFUSE: reduction max {{.*}}graph.group = 0
// NOFUSE-NEXT: pointwise sub({{.*}}graph.group = 1
// NOFUSE-NEXT: pointwise exp({{.*}}graph.group = 1
// NOFUSE-NEXT: reduction add {{.*}}graph.group = 1
// NOFUSE-NEXT: pointwise div({{.*}}graph.group = 2
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
// CHECK: conv_fprop {{.*}}graph.group = 0
// CHECK-NEXT: batchnorm_inference {{.*}}graph.group = 0
// CHECK-NEXT: pointwise add({{.*}}graph.group = 0
// CHECK-NEXT: pointwise relu({{.*}}graph.group = 0
graph.graph @conv_bn_relu(%x: tensor<2x8x4x4xf16>, %w: tensor<8x8x1x1xf16>, %m: tensor<1x8x1x1xf32>, %v: tensor<1x8x1x1xf32>) -> tensor<2x8x4x4xf16> {
  %c = graph.conv_fprop %x, %w {padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x8x4x4xf16>, tensor<8x8x1x1xf16>) -> tensor<2x8x4x4xf32>
  %b = graph.batchnorm_inference %c, mean %m, inv_variance %v, scale %v, bias %m : (tensor<2x8x4x4xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>) -> tensor<2x8x4x4xf32>
  %s = graph.pointwise add(%b, %x) : (tensor<2x8x4x4xf32>, tensor<2x8x4x4xf16>) -> tensor<2x8x4x4xf32>
  %y = graph.pointwise relu(%s) : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf16>
  graph.output %y : tensor<2x8x4x4xf16>
}
