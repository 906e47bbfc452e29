// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=10 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected, so codegen_v1 runs reductions of f16 and bf16
// data (f32 accumulation expected) with f32, f16 and bf16 results: over the
// last axis of 64x520 bf16 (add, max) and over its leading axis (avg, and
// add written as bf16), over all of it (add of sigmoid: positive terms); over
// 4x36x130 f16: norm2 of the last axis, amax of the two leading axes, min
// of the middle axis, add and mul of the leading axis (4 terms).
// GPU-ARGS: --random-inputs=10 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_reductions_half(%h: tensor<64x520xbf16> {graph.name = "H"},
                                     %f: tensor<4x36x130xf16> {graph.name = "F"})
    -> (tensor<64x1xf32> {graph.name = "h_add_last"}, tensor<64x1xbf16> {graph.name = "h_max_last"},
        tensor<1x520xf32> {graph.name = "h_avg_lead"}, tensor<1x520xbf16> {graph.name = "h_add_lead"},
        tensor<1x1xf32> {graph.name = "h_add_all"}, tensor<4x36x1xf16> {graph.name = "f_norm2_last"},
        tensor<1x1x130xf16> {graph.name = "f_amax_lead2"}, tensor<4x1x130xf32> {graph.name = "f_min_mid"},
        tensor<1x36x130xf16> {graph.name = "f_add_lead"}, tensor<1x36x130xf32> {graph.name = "f_mul_lead"})
    attributes {compute_data_type = f32} {
  %h_add_last = graph.reduction add %h : (tensor<64x520xbf16>) -> tensor<64x1xf32>
  %h_max_last = graph.reduction max %h : (tensor<64x520xbf16>) -> tensor<64x1xbf16>
  %h_avg_lead = graph.reduction avg %h : (tensor<64x520xbf16>) -> tensor<1x520xf32>
  %h_add_lead = graph.reduction add %h : (tensor<64x520xbf16>) -> tensor<1x520xbf16>
  %hs = graph.pointwise sigmoid(%h) : (tensor<64x520xbf16>) -> tensor<64x520xf32>
  %h_add_all = graph.reduction add %hs : (tensor<64x520xf32>) -> tensor<1x1xf32>
  %f_norm2 = graph.reduction norm2 %f : (tensor<4x36x130xf16>) -> tensor<4x36x1xf16>
  %f_amax = graph.reduction amax %f : (tensor<4x36x130xf16>) -> tensor<1x1x130xf16>
  %f_min = graph.reduction min %f : (tensor<4x36x130xf16>) -> tensor<4x1x130xf32>
  %f_add = graph.reduction add %f : (tensor<4x36x130xf16>) -> tensor<1x36x130xf16>
  %f_mul = graph.reduction mul %f : (tensor<4x36x130xf16>) -> tensor<1x36x130xf32>
  graph.output %h_add_last, %h_max_last, %h_avg_lead, %h_add_lead, %h_add_all, %f_norm2, %f_amax, %f_min, %f_add, %f_mul
      : tensor<64x1xf32>, tensor<64x1xbf16>, tensor<1x520xf32>, tensor<1x520xbf16>, tensor<1x1xf32>, tensor<4x36x1xf16>, tensor<1x1x130xf16>, tensor<4x1x130xf32>, tensor<1x36x130xf16>, tensor<1x36x130xf32>
}
