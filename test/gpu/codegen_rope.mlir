// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=16 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected, so codegen_v1 runs rotary position embedding:
// rope forward on bf16 2x8x128x64 with f32 angles [1, 1, S, D/2] broadcast
// over batch and heads; on f32 1x4x33x64 (odd sequence length) rotating
// only the first rope_dim = 32 channels (the rest pass through) with
// output_scale 0.5; on f32 rank 3 6x50x96 with per-batch angles [6, 50, 48];
// and rope_backward on f16 2x4x40x128 (full and partial rope_dim).
// GPU-ARGS: --random-inputs=16 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_rope(%x: tensor<2x8x128x64xbf16> {graph.name = "X_bf16"},
                          %f: tensor<1x1x128x32xf32> {graph.name = "freqs"},
                          %xp: tensor<1x4x33x64xf32> {graph.name = "X_partial"},
                          %fp: tensor<1x1x33x16xf32> {graph.name = "freqs_partial"},
                          %x3: tensor<6x50x96xf32> {graph.name = "X_rank3"},
                          %f3: tensor<6x50x48xf32> {graph.name = "freqs_rank3"},
                          %dy: tensor<2x4x40x128xf16> {graph.name = "dY_f16"},
                          %fb: tensor<1x1x40x64xf32> {graph.name = "freqs_bwd"},
                          %fbp: tensor<1x1x40x32xf32> {graph.name = "freqs_bwd_partial"})
    -> (tensor<2x8x128x64xbf16> {graph.name = "Y_bf16"}, tensor<1x4x33x64xf32> {graph.name = "Y_partial"},
        tensor<6x50x96xf32> {graph.name = "Y_rank3"}, tensor<2x4x40x128xf16> {graph.name = "dX_f16"},
        tensor<2x4x40x128xf32> {graph.name = "dX_partial"})
    attributes {compute_data_type = f32} {
  %y = graph.rope %x, freqs %f : (tensor<2x8x128x64xbf16>, tensor<1x1x128x32xf32>) -> tensor<2x8x128x64xbf16>
  %yp = graph.rope %xp, freqs %fp {rope_dim = 32 : i64, output_scale = 0.5 : f64} : (tensor<1x4x33x64xf32>, tensor<1x1x33x16xf32>) -> tensor<1x4x33x64xf32>
  %y3 = graph.rope %x3, freqs %f3 : (tensor<6x50x96xf32>, tensor<6x50x48xf32>) -> tensor<6x50x96xf32>
  %dx = graph.rope_backward %dy, freqs %fb : (tensor<2x4x40x128xf16>, tensor<1x1x40x64xf32>) -> tensor<2x4x40x128xf16>
  %dxp = graph.rope_backward %dy, freqs %fbp {rope_dim = 64 : i64} : (tensor<2x4x40x128xf16>, tensor<1x1x40x32xf32>) -> tensor<2x4x40x128xf32>
  graph.output %y, %yp, %y3, %dx, %dxp
      : tensor<2x8x128x64xbf16>, tensor<1x4x33x64xf32>, tensor<6x50x96xf32>, tensor<2x4x40x128xf16>, tensor<2x4x40x128xf32>
}
