// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=8 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected, so codegen_v1 reads and writes non-contiguous
// layouts given with #graph.strides: a column-major (transposed) 64x96 f32
// input added to a row-major one and to a broadcast row, and written back
// column-major; rows padded to 128 elements (30x100 f16, stride 128) read
// and written padded; every other column (innermost stride 2); an NHWC bf16
// 2x16x5x7 tensor written as NCHW f32 and reduced over its channel dim; a
// last-axis max over the column-major input; and a [64, 1] column with a
// non-default stride broadcast along rows.
// GPU-ARGS: --random-inputs=8 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_strided(%xt: tensor<64x96xf32, #graph.strides<[1, 64]>> {graph.name = "X_colmajor"},
                             %xr: tensor<64x96xf32> {graph.name = "X_rowmajor"},
                             %b: tensor<1x96xf32> {graph.name = "b"},
                             %bc: tensor<64x1xf32, #graph.strides<[2, 1]>> {graph.name = "b_col_stride2"},
                             %xp: tensor<30x100xf16, #graph.strides<[128, 1]>> {graph.name = "X_padded"},
                             %xs: tensor<16x32xf32, #graph.strides<[64, 2]>> {graph.name = "X_every_other"},
                             %x4: tensor<2x16x5x7xbf16, #graph.strides<[560, 1, 112, 16]>> {graph.name = "X_nhwc"})
    -> (tensor<64x96xf32> {graph.name = "add_mixed_layouts"},
        tensor<64x96xf32, #graph.strides<[1, 64]>> {graph.name = "gelu_colmajor"},
        tensor<64x96xf32> {graph.name = "add_col"},
        tensor<30x100xf16, #graph.strides<[128, 1]>> {graph.name = "scaled_padded"},
        tensor<16x32xf32> {graph.name = "tanh_every_other"},
        tensor<2x16x5x7xf32> {graph.name = "relu_nchw"},
        tensor<2x1x5x7xf32> {graph.name = "sum_channels"},
        tensor<64x1xf32> {graph.name = "max_colmajor"})
    attributes {compute_data_type = f32} {
  %s = graph.scalar 0.75 : f32 -> tensor<1x1xf32>
  %t0 = graph.pointwise add(%xt, %xr) : (tensor<64x96xf32, #graph.strides<[1, 64]>>, tensor<64x96xf32>) -> tensor<64x96xf32>
  %add = graph.pointwise add(%t0, %b) : (tensor<64x96xf32>, tensor<1x96xf32>) -> tensor<64x96xf32>
  %gelu = graph.pointwise gelu(%xt) : (tensor<64x96xf32, #graph.strides<[1, 64]>>) -> tensor<64x96xf32, #graph.strides<[1, 64]>>
  %addc = graph.pointwise add(%xt, %bc) : (tensor<64x96xf32, #graph.strides<[1, 64]>>, tensor<64x1xf32, #graph.strides<[2, 1]>>) -> tensor<64x96xf32>
  %sp = graph.pointwise mul(%xp, %s) : (tensor<30x100xf16, #graph.strides<[128, 1]>>, tensor<1x1xf32>) -> tensor<30x100xf16, #graph.strides<[128, 1]>>
  %ts = graph.pointwise tanh(%xs) : (tensor<16x32xf32, #graph.strides<[64, 2]>>) -> tensor<16x32xf32>
  %r4 = graph.pointwise relu(%x4) : (tensor<2x16x5x7xbf16, #graph.strides<[560, 1, 112, 16]>>) -> tensor<2x16x5x7xf32>
  %sum = graph.reduction add %x4 : (tensor<2x16x5x7xbf16, #graph.strides<[560, 1, 112, 16]>>) -> tensor<2x1x5x7xf32>
  %mx = graph.reduction max %xt : (tensor<64x96xf32, #graph.strides<[1, 64]>>) -> tensor<64x1xf32>
  graph.output %add, %gelu, %addc, %sp, %ts, %r4, %sum, %mx
      : tensor<64x96xf32>, tensor<64x96xf32, #graph.strides<[1, 64]>>, tensor<64x96xf32>, tensor<30x100xf16, #graph.strides<[128, 1]>>, tensor<16x32xf32>, tensor<2x16x5x7xf32>, tensor<2x1x5x7xf32>, tensor<64x1xf32>
}
