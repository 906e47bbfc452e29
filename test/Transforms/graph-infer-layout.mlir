// RUN: graph-opt %s --graph-infer-layout | FileCheck %s
// RUN: graph-opt %s --graph-infer-layout --graph-infer-layout | FileCheck %s

// Deciding strides is idempotent (second RUN line): nothing is left to
// decide and decided strides are never rewritten.

// 2-D f16 convolution: image, filter and output channels-last (NHWC, KRSC),
// and the graph's signature follows its body.
// CHECK-LABEL: graph.graph @conv2d_f16
// CHECK-SAME: (%{{.*}}: tensor<8x64x56x56xf16, #graph.strides<[200704, 1, 3584, 64]>>,
// CHECK-SAME:  %{{.*}}: tensor<64x64x3x3xf16, #graph.strides<[576, 1, 192, 64]>>)
// CHECK-SAME: -> tensor<8x64x56x56xf16, #graph.strides<[200704, 1, 3584, 64]>>
// CHECK: conv_fprop {{.*}} -> tensor<8x64x56x56xf16, #graph.strides<[200704, 1, 3584, 64]>>
// CHECK: output %{{.*}} : tensor<8x64x56x56xf16, #graph.strides<[200704, 1, 3584, 64]>>
graph.graph @conv2d_f16(%x: tensor<8x64x56x56xf16>, %w: tensor<64x64x3x3xf16>)
    -> (tensor<8x64x56x56xf16>) {
  %y = graph.conv_fprop %x, %w {padding = array<i64: 1, 1>}
      : (tensor<8x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<8x64x56x56xf16>
  graph.output %y : tensor<8x64x56x56xf16>
}

// 3-D bf16 convolution: NDHWC.
// CHECK-LABEL: graph.graph @conv3d_bf16
// CHECK-SAME: (%{{.*}}: tensor<2x8x4x6x6xbf16, #graph.strides<[1152, 1, 288, 48, 8]>>,
// CHECK-SAME:  %{{.*}}: tensor<16x8x3x3x3xbf16, #graph.strides<[216, 1, 72, 24, 8]>>)
// CHECK-SAME: -> tensor<2x16x4x6x6xbf16, #graph.strides<[2304, 1, 576, 96, 16]>>
graph.graph @conv3d_bf16(%x: tensor<2x8x4x6x6xbf16>, %w: tensor<16x8x3x3x3xbf16>)
    -> (tensor<2x16x4x6x6xbf16>) {
  %y = graph.conv_fprop %x, %w {padding = array<i64: 1, 1, 1>}
      : (tensor<2x8x4x6x6xbf16>, tensor<16x8x3x3x3xbf16>) -> tensor<2x16x4x6x6xbf16>
  graph.output %y : tensor<2x16x4x6x6xbf16>
}

// fp8 data gradient: the loss, the filter and DX channels-last.
// CHECK-LABEL: graph.graph @dgrad_fp8
// CHECK-SAME: (%{{.*}}: tensor<2x16x4x4xf8E4M3FN, #graph.strides<[256, 1, 64, 16]>>,
// CHECK-SAME:  %{{.*}}: tensor<16x8x3x3xf8E4M3FN, #graph.strides<[72, 1, 24, 8]>>)
// CHECK-SAME: -> tensor<2x8x4x4xf8E4M3FN, #graph.strides<[128, 1, 32, 8]>>
graph.graph @dgrad_fp8(%dy: tensor<2x16x4x4xf8E4M3FN>, %w: tensor<16x8x3x3xf8E4M3FN>)
    -> (tensor<2x8x4x4xf8E4M3FN>) {
  %dx = graph.conv_dgrad %dy, %w {padding = array<i64: 1, 1>}
      : (tensor<2x16x4x4xf8E4M3FN>, tensor<16x8x3x3xf8E4M3FN>) -> tensor<2x8x4x4xf8E4M3FN>
  graph.output %dx : tensor<2x8x4x4xf8E4M3FN>
}

// 3-D fp8 (e5m2) convolution with an f32 result: NDHWC throughout.
// CHECK-LABEL: graph.graph @conv3d_fp8
// CHECK-SAME: (%{{.*}}: tensor<1x4x2x3x3xf8E5M2, #graph.strides<[72, 1, 36, 12, 4]>>,
// CHECK-SAME:  %{{.*}}: tensor<8x4x1x1x1xf8E5M2, #graph.strides<[4, 1, 4, 4, 4]>>)
// CHECK-SAME: -> tensor<1x8x2x3x3xf32, #graph.strides<[144, 1, 72, 24, 8]>>
graph.graph @conv3d_fp8(%x: tensor<1x4x2x3x3xf8E5M2>, %w: tensor<8x4x1x1x1xf8E5M2>)
    -> (tensor<1x8x2x3x3xf32>) {
  %y = graph.conv_fprop %x, %w
      : (tensor<1x4x2x3x3xf8E5M2>, tensor<8x4x1x1x1xf8E5M2>) -> tensor<1x8x2x3x3xf32>
  graph.output %y : tensor<1x8x2x3x3xf32>
}

// A bf16 weight gradient is a bf16 convolution: its f32 DW is laid out
// channels-last like the rest of the node (KRSC), not row-major.
// CHECK-LABEL: graph.graph @wgrad_bf16_f32_result
// CHECK-SAME: -> tensor<16x8x3x3xf32, #graph.strides<[72, 1, 24, 8]>>
graph.graph @wgrad_bf16_f32_result(%x: tensor<2x8x4x4xbf16>, %dy: tensor<2x16x4x4xbf16>)
    -> (tensor<16x8x3x3xf32>) {
  %dw = graph.conv_wgrad %x, %dy {padding = array<i64: 1, 1>}
      : (tensor<2x8x4x4xbf16>, tensor<2x16x4x4xbf16>) -> tensor<16x8x3x3xf32>
  graph.output %dw : tensor<16x8x3x3xf32>
}

// An f32 convolution's inputs stay row-major (NCHW); its result is
// channels-last, as the frontend infers every convolution result.
// CHECK-LABEL: graph.graph @conv2d_f32
// CHECK-SAME: (%{{.*}}: tensor<2x8x4x4xf32, #graph.strides<[128, 16, 4, 1]>>,
// CHECK-SAME:  %{{.*}}: tensor<16x8x3x3xf32, #graph.strides<[72, 9, 3, 1]>>)
// CHECK-SAME: -> tensor<2x16x4x4xf32, #graph.strides<[256, 1, 64, 16]>>
graph.graph @conv2d_f32(%x: tensor<2x8x4x4xf32>, %w: tensor<16x8x3x3xf32>)
    -> (tensor<2x16x4x4xf32>) {
  %y = graph.conv_fprop %x, %w {padding = array<i64: 1, 1>}
      : (tensor<2x8x4x4xf32>, tensor<16x8x3x3xf32>) -> tensor<2x16x4x4xf32>
  graph.output %y : tensor<2x16x4x4xf32>
}

// User strides are never rewritten, even on a half-precision convolution:
// the NCHW image keeps its strides, the undecided filter goes channels-last.
// CHECK-LABEL: graph.graph @user_strides_kept
// CHECK-SAME: (%{{.*}}: tensor<2x8x4x4xf16, #graph.strides<[128, 16, 4, 1]>>,
// CHECK-SAME:  %{{.*}}: tensor<16x8x3x3xf16, #graph.strides<[72, 1, 24, 8]>>)
// CHECK-SAME: -> tensor<2x16x4x4xf16, #graph.strides<[256, 1, 64, 16]>>
// CHECK: conv_fprop %{{.*}}, %{{.*}} {{.*}} : (tensor<2x8x4x4xf16, #graph.strides<[128, 16, 4, 1]>>,
graph.graph @user_strides_kept(%x: tensor<2x8x4x4xf16, #graph.strides<[128, 16, 4, 1]>>,
                               %w: tensor<16x8x3x3xf16>)
    -> (tensor<2x16x4x4xf16>) {
  %y = graph.conv_fprop %x, %w {padding = array<i64: 1, 1>}
      : (tensor<2x8x4x4xf16, #graph.strides<[128, 16, 4, 1]>>, tensor<16x8x3x3xf16>) -> tensor<2x16x4x4xf16>
  graph.output %y : tensor<2x16x4x4xf16>
}

// A pointwise result follows the stride order of its last operand of the
// same shape (the frontend's rule): here a user-strided transposed
// (column-major) input. The broadcast bias has another shape; the unary
// result follows the binary one; of two same-shape operands the second wins.
// CHECK-LABEL: graph.graph @pointwise_follows_operand
// CHECK-SAME: (%{{.*}}: tensor<1x8xf32, #graph.strides<[8, 1]>>,
// CHECK-SAME:  %{{.*}}: tensor<4x8xf32, #graph.strides<[1, 4]>>,
// CHECK-SAME:  %{{.*}}: tensor<4x8xf32, #graph.strides<[8, 1]>>)
// CHECK-SAME: -> (tensor<4x8xf32, #graph.strides<[1, 4]>>, tensor<4x8xf32, #graph.strides<[1, 4]>>, tensor<4x8xf32, #graph.strides<[8, 1]>>)
// CHECK: %[[SUM:.+]] = pointwise add({{.*}}) : {{.*}} -> tensor<4x8xf32, #graph.strides<[1, 4]>>
// CHECK: %[[ACT:.+]] = pointwise relu(%[[SUM]]) : {{.*}} -> tensor<4x8xf32, #graph.strides<[1, 4]>>
// CHECK: %[[ROW:.+]] = pointwise mul({{.*}}) : {{.*}} -> tensor<4x8xf32, #graph.strides<[8, 1]>>
// CHECK: output %[[SUM]], %[[ACT]], %[[ROW]]
graph.graph @pointwise_follows_operand(%b: tensor<1x8xf32>,
                                       %xt: tensor<4x8xf32, #graph.strides<[1, 4]>>,
                                       %y: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = graph.pointwise add(%b, %xt) : (tensor<1x8xf32>, tensor<4x8xf32, #graph.strides<[1, 4]>>) -> tensor<4x8xf32>
  %1 = graph.pointwise relu(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = graph.pointwise mul(%xt, %y) : (tensor<4x8xf32, #graph.strides<[1, 4]>>, tensor<4x8xf32>) -> tensor<4x8xf32>
  graph.output %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// Row-major by default, for results of other nodes and for scalars alike.
// CHECK-LABEL: graph.graph @row_major_default
// CHECK-SAME: (%{{.*}}: tensor<2x4x8xf16, #graph.strides<[32, 8, 1]>>,
// CHECK-SAME:  %{{.*}}: tensor<2x8x16xf16, #graph.strides<[128, 16, 1]>>)
// CHECK-SAME: -> tensor<2x4x16xf32, #graph.strides<[64, 16, 1]>>
// CHECK: scalar {{.*}} -> tensor<1x1x1xf32, #graph.strides<[1, 1, 1]>>
// CHECK: matmul {{.*}} -> tensor<2x4x16xf32, #graph.strides<[64, 16, 1]>>
graph.graph @row_major_default(%a: tensor<2x4x8xf16>, %b: tensor<2x8x16xf16>)
    -> (tensor<2x4x16xf32>) {
  %s = graph.scalar 2.0 : f32 -> tensor<1x1x1xf32>
  %0 = graph.matmul %a, %b : (tensor<2x4x8xf16>, tensor<2x8x16xf16>) -> tensor<2x4x16xf32>
  %1 = graph.pointwise mul(%0, %s) : (tensor<2x4x16xf32>, tensor<1x1x1xf32>) -> tensor<2x4x16xf32>
  graph.output %1 : tensor<2x4x16xf32>
}

// A reduction's graph output is channels-last from rank 3 on, whatever its
// input's layout (the frontend's rule); a virtual one stays row-major. A
// backward norm's DX follows X's order (row-major here; the frontend would
// make it channels-last).
// CHECK-LABEL: graph.graph @reduction_outputs
// CHECK-SAME: -> (tensor<2x3x4x1xf32, #graph.strides<[12, 1, 3, 3]>>, tensor<2x4x1xf32, #graph.strides<[4, 1, 4]>>,
// CHECK-SAME:     tensor<4x128xf32, #graph.strides<[128, 1]>>, tensor<2x3x4x5xf32, #graph.strides<[60, 20, 5, 1]>>)
// CHECK: reduction add {{.*}} -> tensor<2x3x4x1xf32, #graph.strides<[12, 1, 3, 3]>>
// CHECK: reduction add {{.*}} -> tensor<2x3x4x1xf32, #graph.strides<[12, 4, 1, 1]>>
// CHECK: instancenorm_backward {{.*}} -> (tensor<2x3x4x5xf32, #graph.strides<[60, 20, 5, 1]>>
graph.graph @reduction_outputs(%x: tensor<2x3x4x5xf32>, %m: tensor<2x4x8xf32>,
    %dy: tensor<4x128xf32>, %x2: tensor<4x128xf32>, %s: tensor<1x128xf32>, %mean: tensor<4x1xf32>,
    %ins: tensor<1x3x1x1xf32>, %imean: tensor<2x3x1x1xf32>)
    -> (tensor<2x3x4x1xf32>, tensor<2x4x1xf32>, tensor<4x128xf32>, tensor<2x3x4x5xf32>) {
  %r = graph.reduction add %x : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x1xf32>
  %v = graph.reduction add %x : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x1xf32>
  %e = graph.pointwise exp(%v) : (tensor<2x3x4x1xf32>) -> tensor<2x3x4x1xf32>
  %q = graph.reduction add %m : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %dx, %ds, %db = graph.layernorm_backward %dy, %x2, scale %s, mean %mean, inv_variance %mean : (tensor<4x128xf32>, tensor<4x128xf32>, tensor<1x128xf32>, tensor<4x1xf32>, tensor<4x1xf32>) -> (tensor<4x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>)
  %idx, %ids, %idb = graph.instancenorm_backward %x, %x, scale %ins, mean %imean, inv_variance %imean : (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<1x3x1x1xf32>, tensor<2x3x1x1xf32>, tensor<2x3x1x1xf32>) -> (tensor<2x3x4x5xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>)
  graph.output %r, %q, %dx, %idx : tensor<2x3x4x1xf32>, tensor<2x4x1xf32>, tensor<4x128xf32>, tensor<2x3x4x5xf32>
}

// Tensors with dynamic dims are left undecided (no encoding); the static
// ones around them are decided.
// CHECK-LABEL: graph.graph @dynamic_dims
// CHECK-SAME: (%{{.*}}: tensor<?x8xf32>,
// CHECK-SAME:  %{{.*}}: tensor<1x8xf32, #graph.strides<[8, 1]>>)
// CHECK-SAME: -> tensor<?x8xf32>
// CHECK: pointwise add({{.*}}) : (tensor<?x8xf32>, tensor<1x8xf32, #graph.strides<[8, 1]>>) -> tensor<?x8xf32>
graph.graph @dynamic_dims(%x: tensor<?x8xf32>, %b: tensor<1x8xf32>) -> (tensor<?x8xf32>) {
  %0 = graph.pointwise add(%x, %b) : (tensor<?x8xf32>, tensor<1x8xf32>) -> tensor<?x8xf32>
  graph.output %0 : tensor<?x8xf32>
}

// f16 batch norms run channels-last like convolutions; their per-channel
// tensors and an f32 batchnorm of the same shape stay as they are.
// CHECK-LABEL: graph.graph @batchnorm_channels_last
// CHECK-SAME: (%{{.*}}: tensor<2x8x4x4xf16, #graph.strides<[128, 1, 32, 8]>>,
// CHECK: batchnorm_inference {{.*}} -> tensor<2x8x4x4xf16, #graph.strides<[128, 1, 32, 8]>>
// CHECK: batchnorm_inference {{.*}} -> tensor<2x8x4x4xf32, #graph.strides<[128, 16, 4, 1]>>
graph.graph @batchnorm_channels_last(%x: tensor<2x8x4x4xf16>, %xf: tensor<2x8x4x4xf32>,
    %m: tensor<1x8x1x1xf32>, %v: tensor<1x8x1x1xf32>, %g: tensor<1x8x1x1xf32>, %b: tensor<1x8x1x1xf32>)
    -> (tensor<2x8x4x4xf16>, tensor<2x8x4x4xf32>) {
  %y = graph.batchnorm_inference %x, mean %m, inv_variance %v, scale %g, bias %b : (tensor<2x8x4x4xf16>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>) -> tensor<2x8x4x4xf16>
  %yf = graph.batchnorm_inference %xf, mean %m, inv_variance %v, scale %g, bias %b : (tensor<2x8x4x4xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>) -> tensor<2x8x4x4xf32>
  graph.output %y, %yf : tensor<2x8x4x4xf16>, tensor<2x8x4x4xf32>
}

// A convolution output is channels-last in every dtype, as the frontend
// infers it: an f32 image the caller gave channels-last strides gives a
// channels-last output (a row-major one would refuse the caller's
// channels-last buffer). The undecided f32 filter stays row-major.
// CHECK-LABEL: graph.graph @conv2d_f32_channels_last
// CHECK-SAME: (%{{.*}}: tensor<2x8x4x4xf32, #graph.strides<[128, 1, 32, 8]>>,
// CHECK-SAME:  %{{.*}}: tensor<16x8x3x3xf32, #graph.strides<[72, 9, 3, 1]>>)
// CHECK-SAME: -> tensor<2x16x4x4xf32, #graph.strides<[256, 1, 64, 16]>>
graph.graph @conv2d_f32_channels_last(%x: tensor<2x8x4x4xf32, #graph.strides<[128, 1, 32, 8]>>,
                                      %w: tensor<16x8x3x3xf32>)
    -> (tensor<2x16x4x4xf32>) {
  %y = graph.conv_fprop %x, %w {padding = array<i64: 1, 1>}
      : (tensor<2x8x4x4xf32, #graph.strides<[128, 1, 32, 8]>>, tensor<16x8x3x3xf32>) -> tensor<2x16x4x4xf32>
  graph.output %y : tensor<2x16x4x4xf32>
}

// A pointwise result takes the strides of its first operand of the same
// dims (the broadcast scale before it does not count), as the frontend
// infers them. A graph output keeps them as they are where they are a legal
// output: a [4, 8] slice of a [4, 16] buffer gives [16, 1] (an in-place
// write into the slice lands in it), also through a virtual tensor between
// them, which is itself packed ([8, 1]). An overlapping transposed view
// [1, 2] is no legal output: packed in its order, [1, 4]. With no operand of
// the output's dims (both broadcast), the first operand's order decides:
// here a column [4, 1] with a transposed stride order gives [1, 4].
// CHECK-LABEL: graph.graph @pointwise_stride_order
// CHECK-SAME: -> (tensor<4x8xf32, #graph.strides<[16, 1]>>, tensor<4x8xf32, #graph.strides<[1, 4]>>, tensor<4x8xf32, #graph.strides<[1, 4]>>, tensor<4x8xf32, #graph.strides<[16, 1]>>)
// CHECK: pointwise mul({{.*}}) : {{.*}} -> tensor<4x8xf32, #graph.strides<[16, 1]>>
// CHECK: pointwise neg({{.*}}) : {{.*}} -> tensor<4x8xf32, #graph.strides<[1, 4]>>
// CHECK: pointwise add({{.*}}) : {{.*}} -> tensor<4x8xf32, #graph.strides<[1, 4]>>
// CHECK: pointwise mul({{.*}}) : {{.*}} -> tensor<4x8xf32, #graph.strides<[8, 1]>>
// CHECK: pointwise abs({{.*}}) : {{.*}} -> tensor<4x8xf32, #graph.strides<[16, 1]>>
graph.graph @pointwise_stride_order(%s: tensor<1x1xf32>,
                                    %x: tensor<4x8xf32, #graph.strides<[16, 1]>>,
                                    %e: tensor<4x8xf32, #graph.strides<[1, 2]>>,
                                    %col: tensor<4x1xf32, #graph.strides<[1, 4]>>,
                                    %row: tensor<1x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = graph.pointwise mul(%s, %x) : (tensor<1x1xf32>, tensor<4x8xf32, #graph.strides<[16, 1]>>) -> tensor<4x8xf32>
  %1 = graph.pointwise neg(%e) : (tensor<4x8xf32, #graph.strides<[1, 2]>>) -> tensor<4x8xf32>
  %2 = graph.pointwise add(%col, %row) : (tensor<4x1xf32, #graph.strides<[1, 4]>>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %3 = graph.pointwise mul(%x, %s) : (tensor<4x8xf32, #graph.strides<[16, 1]>>, tensor<1x1xf32>) -> tensor<4x8xf32>
  %4 = graph.pointwise abs(%3) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  graph.output %0, %1, %2, %4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// A norm's Y follows its input's dim order (cuDNN's norm engines take x and
// y of one layout): the f32 channels-last conv output a batch norm reads
// gives a channels-last Y, not a row-major one.
// CHECK-LABEL: graph.graph @norm_follows_input
// CHECK: conv_fprop {{.*}} -> tensor<2x8x4x4xf32, #graph.strides<[128, 1, 32, 8]>>
// CHECK: batchnorm {{.*}} -> (tensor<2x8x4x4xf32, #graph.strides<[128, 1, 32, 8]>>
graph.graph @norm_follows_input(%x: tensor<2x8x4x4xf32, #graph.strides<[128, 1, 32, 8]>>,
                                %w: tensor<8x8x1x1xf32>, %g: tensor<1x8x1x1xf32>)
    -> (tensor<2x8x4x4xf32>) {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1x1x1xf32>
  %c = graph.conv_fprop %x, %w {padding = array<i64: 0, 0>}
      : (tensor<2x8x4x4xf32, #graph.strides<[128, 1, 32, 8]>>, tensor<8x8x1x1xf32>) -> tensor<2x8x4x4xf32>
  %y, %m, %v = graph.batchnorm %c, scale %g, bias %g, epsilon %eps
      : (tensor<2x8x4x4xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x8x4x4xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, none, none)
  graph.output %y : tensor<2x8x4x4xf32>
}

// moe_grouped_matmul_bwd's dWeight [experts, K, N] is column-major per
// expert, as the frontend infers it.
// CHECK-LABEL: graph.graph @moe_dweight_column_major
// CHECK: moe_grouped_matmul_bwd {{.*}} -> tensor<4x32x16xf32, #graph.strides<[512, 1, 32]>>
graph.graph @moe_dweight_column_major(%dy: tensor<1x64x16xbf16>, %t: tensor<1x64x32xbf16>, %off: tensor<4x1x1xi32>) -> tensor<4x32x16xf32> {
  %0 = graph.moe_grouped_matmul_bwd %dy, %t, offsets %off : (tensor<1x64x16xbf16>, tensor<1x64x32xbf16>, tensor<4x1x1xi32>) -> tensor<4x32x16xf32>
  graph.output %0 : tensor<4x32x16xf32>
}

// One input channel: a channels-last image's strides tie ([N,1,H,W] as
// [HW,1,W,1]), yet the output is channels-last as the caller's buffer is; so
// are the f32 dgrad and wgrad results.
// CHECK-LABEL: graph.graph @conv_f32_one_channel
// CHECK-SAME: -> (tensor<2x5x6x6xf32, #graph.strides<[180, 1, 30, 5]>>, tensor<2x5x6x6xf32, #graph.strides<[180, 1, 30, 5]>>, tensor<5x5x3x3xf32, #graph.strides<[45, 1, 15, 5]>>)
graph.graph @conv_f32_one_channel(%x: tensor<2x1x6x6xf32, #graph.strides<[36, 1, 6, 1]>>,
                                  %w: tensor<5x1x3x3xf32, #graph.strides<[9, 1, 3, 1]>>,
                                  %dy: tensor<2x5x6x6xf32>, %w2: tensor<5x5x3x3xf32>,
                                  %x2: tensor<2x5x6x6xf32>)
    -> (tensor<2x5x6x6xf32>, tensor<2x5x6x6xf32>, tensor<5x5x3x3xf32>) {
  %y = graph.conv_fprop %x, %w {padding = array<i64: 1, 1>}
      : (tensor<2x1x6x6xf32, #graph.strides<[36, 1, 6, 1]>>, tensor<5x1x3x3xf32, #graph.strides<[9, 1, 3, 1]>>) -> tensor<2x5x6x6xf32>
  %dx = graph.conv_dgrad %dy, %w2 {padding = array<i64: 1, 1>}
      : (tensor<2x5x6x6xf32>, tensor<5x5x3x3xf32>) -> tensor<2x5x6x6xf32>
  %dw = graph.conv_wgrad %x2, %dy {padding = array<i64: 1, 1>}
      : (tensor<2x5x6x6xf32>, tensor<2x5x6x6xf32>) -> tensor<5x5x3x3xf32>
  graph.output %y, %dx, %dw : tensor<2x5x6x6xf32>, tensor<2x5x6x6xf32>, tensor<5x5x3x3xf32>
}

// A concatenation follows its first input's dim order, packed.
// CHECK-LABEL: graph.graph @concatenate_follows_first_input
// CHECK: concatenate {{.*}} -> tensor<4x8xf16, #graph.strides<[1, 4]>>
graph.graph @concatenate_follows_first_input(%a: tensor<4x3xf16, #graph.strides<[1, 4]>>,
                                             %b: tensor<4x5xf16>) -> tensor<4x8xf16> {
  %c = graph.concatenate %a, %b {axis = 1 : i64} : (tensor<4x3xf16, #graph.strides<[1, 4]>>, tensor<4x5xf16>) -> tensor<4x8xf16>
  graph.output %c : tensor<4x8xf16>
}
