// Source of ../artifact_codegen_mixed.exec.mlir: a matmul cuDNN runs, whose
// result is reshaped (a copy kernel: the artifact folds no views) and
// rotated by rope, which cuDNN has no lowering for: one cuDNN group and two
// kernel groups in one program, an internal buffer crossing both engines.
graph.graph @mixed(%x: tensor<8x64xf16> {graph.name = "x"},
                   %w: tensor<64x32xf16> {graph.name = "w"},
                   %f: tensor<1x1x8x16xf32> {graph.name = "freqs"})
    -> (tensor<1x1x8x32xf16> {graph.name = "y"}) attributes {compute_data_type = f32} {
  %mm = graph.matmul %x, %w : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf16>
  %r = graph.reshape %mm : (tensor<8x32xf16>) -> tensor<1x1x8x32xf16>
  %y = graph.rope %r, freqs %f : (tensor<1x1x8x32xf16>, tensor<1x1x8x16xf32>) -> tensor<1x1x8x32xf16>
  graph.output %y : tensor<1x1x8x32xf16>
}
