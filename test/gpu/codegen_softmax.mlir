// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=14 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected, so codegen_v1 runs the softmax pattern built from
// reduction and pointwise ops (reduction max, sub, exp, reduction add, div):
// over the last axis of f32 37x1000 (also writing the row max and sum, and
// the log-softmax x - max - log(sum)); over the last axis of bf16 16x4096
// with f32 intermediates and a bf16 result, inputs scaled by 8 so exp spans
// a wide range; and over the middle axis of f16 4x77x32.
// GPU-ARGS: --random-inputs=14 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_softmax(%x: tensor<37x1000xf32> {graph.name = "X32"},
                             %xb: tensor<16x4096xbf16> {graph.name = "Xbf16"},
                             %xh: tensor<4x77x32xf16> {graph.name = "Xf16"})
    -> (tensor<37x1000xf32> {graph.name = "softmax32"}, tensor<37x1xf32> {graph.name = "max32"},
        tensor<37x1xf32> {graph.name = "sum32"}, tensor<37x1000xf32> {graph.name = "log_softmax32"},
        tensor<16x4096xbf16> {graph.name = "softmax_bf16"}, tensor<4x77x32xf16> {graph.name = "softmax_mid_f16"})
    attributes {compute_data_type = f32} {
  %eight = graph.scalar 8.0 : f32 -> tensor<1x1xf32>
  %mx = graph.reduction max %x : (tensor<37x1000xf32>) -> tensor<37x1xf32>
  %sh = graph.pointwise sub(%x, %mx) : (tensor<37x1000xf32>, tensor<37x1xf32>) -> tensor<37x1000xf32>
  %e = graph.pointwise exp(%sh) : (tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %s = graph.reduction add %e : (tensor<37x1000xf32>) -> tensor<37x1xf32>
  %y = graph.pointwise div(%e, %s) : (tensor<37x1000xf32>, tensor<37x1xf32>) -> tensor<37x1000xf32>
  %ls = graph.pointwise log(%s) : (tensor<37x1xf32>) -> tensor<37x1xf32>
  %lsm = graph.pointwise sub(%sh, %ls) : (tensor<37x1000xf32>, tensor<37x1xf32>) -> tensor<37x1000xf32>
  %xb8 = graph.pointwise mul(%xb, %eight) : (tensor<16x4096xbf16>, tensor<1x1xf32>) -> tensor<16x4096xf32>
  %mxb = graph.reduction max %xb8 : (tensor<16x4096xf32>) -> tensor<16x1xf32>
  %shb = graph.pointwise sub(%xb8, %mxb) : (tensor<16x4096xf32>, tensor<16x1xf32>) -> tensor<16x4096xf32>
  %eb = graph.pointwise exp(%shb) : (tensor<16x4096xf32>) -> tensor<16x4096xf32>
  %sb = graph.reduction add %eb : (tensor<16x4096xf32>) -> tensor<16x1xf32>
  %yb = graph.pointwise div(%eb, %sb) : (tensor<16x4096xf32>, tensor<16x1xf32>) -> tensor<16x4096xbf16>
  %mxh = graph.reduction max %xh : (tensor<4x77x32xf16>) -> tensor<4x1x32xf32>
  %shh = graph.pointwise sub(%xh, %mxh) : (tensor<4x77x32xf16>, tensor<4x1x32xf32>) -> tensor<4x77x32xf32>
  %eh = graph.pointwise exp(%shh) : (tensor<4x77x32xf32>) -> tensor<4x77x32xf32>
  %sh2 = graph.reduction add %eh : (tensor<4x77x32xf32>) -> tensor<4x1x32xf32>
  %yh = graph.pointwise div(%eh, %sh2) : (tensor<4x77x32xf32>, tensor<4x1x32xf32>) -> tensor<4x77x32xf16>
  graph.output %y, %mx, %s, %lsm, %yb, %yh
      : tensor<37x1000xf32>, tensor<37x1xf32>, tensor<37x1xf32>, tensor<37x1000xf32>, tensor<16x4096xbf16>, tensor<4x77x32xf16>
}
