// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=7 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected. Block-scale quantize (MX: bf16 -> e4m3 with e8m0
// scales per 32 along the last dim; f32 -> e5m2 with f32 scales per 16
// along axis 0; f16 -> fp4 e2m1 with e4m3 scales) and dequantize (e4m3 x
// e8m0 -> bf16, negated; an fp8 input tensor x its scales -> f32), plus
// pointwise ops reading and writing fp8 (the software e4m3/e5m2 codecs:
// RNE, NaN/inf overflow rules of the reference).
// GPU-ARGS: --random-inputs=7 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_quantize(%x: tensor<64x256xbf16> {graph.name = "X"},
                              %z: tensor<48x40xf32> {graph.name = "Z"},
                              %h: tensor<16x96xf16> {graph.name = "H"},
                              %q: tensor<32x128xf8E4M3FN> {graph.name = "Q"},
                              %qs: tensor<32x4xf8E8M0FNU> {graph.name = "QS"})
    -> (tensor<64x256xf8E4M3FN> {graph.name = "Y"}, tensor<64x8xf8E8M0FNU> {graph.name = "S"},
        tensor<64x256xbf16> {graph.name = "X_back"},
        tensor<48x40xf8E5M2> {graph.name = "Y5"}, tensor<3x40xf32> {graph.name = "S5"},
        tensor<16x96xf4E2M1FN> {graph.name = "Y4"}, tensor<16x3xf8E4M3FN> {graph.name = "S4"},
        tensor<32x128xf32> {graph.name = "Q_deq"},
        tensor<48x40xf8E4M3FN> {graph.name = "Z_e4m3"}, tensor<32x128xf32> {graph.name = "Q_plus"})
    attributes {compute_data_type = f32} {
  %y, %s = graph.block_scale_quantize %x {block_size = 32 : i64} : (tensor<64x256xbf16>) -> (tensor<64x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU>)
  %xb = graph.block_scale_dequantize %y, descale %s {block_size = 32 : i64, is_negative_scale} : (tensor<64x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU>) -> tensor<64x256xbf16>
  %y5, %s5 = graph.block_scale_quantize %z {block_size = 16 : i64, axis = 0 : i64} : (tensor<48x40xf32>) -> (tensor<48x40xf8E5M2>, tensor<3x40xf32>)
  %y4, %s4 = graph.block_scale_quantize %h {block_size = 32 : i64} : (tensor<16x96xf16>) -> (tensor<16x96xf4E2M1FN>, tensor<16x3xf8E4M3FN>)
  %qd = graph.block_scale_dequantize %q, descale %qs {block_size = 32 : i64} : (tensor<32x128xf8E4M3FN>, tensor<32x4xf8E8M0FNU>) -> tensor<32x128xf32>
  %ze = graph.pointwise mul(%z, %z) : (tensor<48x40xf32>, tensor<48x40xf32>) -> tensor<48x40xf8E4M3FN>
  %qp = graph.pointwise add(%q, %q) : (tensor<32x128xf8E4M3FN>, tensor<32x128xf8E4M3FN>) -> tensor<32x128xf32>
  graph.output %y, %s, %xb, %y5, %s5, %y4, %s4, %qd, %ze, %qp : tensor<64x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU>, tensor<64x256xbf16>, tensor<48x40xf8E5M2>, tensor<3x40xf32>, tensor<16x96xf4E2M1FN>, tensor<16x3xf8E4M3FN>, tensor<32x128xf32>, tensor<48x40xf8E4M3FN>, tensor<32x128xf32>
}
