// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=23 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: the generated rope kernels' run-wise path (a run of lanes in one
// half of a row loads x, its partner half and the angles as runs) against
// the CPU reference: q heads read in place from a fused [b, s, heads, d]
// projection (a slice and a transpose folded into a strided view, as a
// Llama block's attention reads them); rope_backward on f32, whole and
// partially rotated (rope_dim 64 of 128, the rest passing through, scaled);
// and the per-element path for runs that cross a half (head dim 6, and
// rope_dim 40 of f16 128).
// GPU-ARGS: --random-inputs=23 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_rope_runs(%qkv: tensor<2x64x12x128xbf16> {graph.name = "qkv"},
                               %f: tensor<1x1x64x64xf32> {graph.name = "freqs"},
                               %dy: tensor<2x4x64x128xf32> {graph.name = "dY"},
                               %fh: tensor<1x1x64x32xf32> {graph.name = "freqs_partial"},
                               %x6: tensor<2x3x10x6xf32> {graph.name = "X_head6"},
                               %f6: tensor<1x1x10x3xf32> {graph.name = "freqs_head6"},
                               %xh: tensor<2x2x16x128xf16> {graph.name = "X_f16"},
                               %f40: tensor<1x1x16x20xf32> {graph.name = "freqs_40"})
    -> (tensor<2x4x64x128xbf16> {graph.name = "Q_roped"}, tensor<2x4x64x128xf32> {graph.name = "dX"},
        tensor<2x4x64x128xf32> {graph.name = "dX_partial"}, tensor<2x3x10x6xf32> {graph.name = "Y_head6"},
        tensor<2x2x16x128xf16> {graph.name = "Y_f16_40"})
    attributes {compute_data_type = f32} {
  %heads = graph.slice %qkv {start = array<i64: 0, 0, 4, 0>, limit = array<i64: 2, 64, 8, 128>, step = array<i64: 1, 1, 1, 1>} : (tensor<2x64x12x128xbf16>) -> tensor<2x64x4x128xbf16>
  %q = graph.transpose %heads {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x64x4x128xbf16>) -> tensor<2x4x64x128xbf16>
  %qr = graph.rope %q, freqs %f : (tensor<2x4x64x128xbf16>, tensor<1x1x64x64xf32>) -> tensor<2x4x64x128xbf16>
  %dx = graph.rope_backward %dy, freqs %f : (tensor<2x4x64x128xf32>, tensor<1x1x64x64xf32>) -> tensor<2x4x64x128xf32>
  %dxp = graph.rope_backward %dy, freqs %fh {rope_dim = 64 : i64, output_scale = 0.5 : f64} : (tensor<2x4x64x128xf32>, tensor<1x1x64x32xf32>) -> tensor<2x4x64x128xf32>
  %y6 = graph.rope %x6, freqs %f6 : (tensor<2x3x10x6xf32>, tensor<1x1x10x3xf32>) -> tensor<2x3x10x6xf32>
  %y40 = graph.rope %xh, freqs %f40 {rope_dim = 40 : i64} : (tensor<2x2x16x128xf16>, tensor<1x1x16x20xf32>) -> tensor<2x2x16x128xf16>
  graph.output %qr, %dx, %dxp, %y6, %y40
      : tensor<2x4x64x128xbf16>, tensor<2x4x64x128xf32>, tensor<2x4x64x128xf32>, tensor<2x3x10x6xf32>, tensor<2x2x16x128xf16>
}
