// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=17 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected, so codegen_v1 runs the data-movement ops alone and
// mixed with pointwise: transpose of f32 48x100 (2-D) and of bf16 2x3x20x33
// (swap of dims 1 and 2, and of the last two dims); a strided slice of f16
// 40x130 (offsets 3 and 5, step 3 on the last dim) and a contiguous slice
// of bf16 8x256; concatenate of three f32 tensors along dim 1 (widths 30,
// 50, 1) and of two bf16 tensors along dim 0; reshape of f32 12x35 to 420
// and to 6x70, and a reshape of a transposed tensor; slice -> exp ->
// concatenate with the unsliced part, and transpose -> add -> tanh.
// GPU-ARGS: --random-inputs=17 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_data_movement(%a: tensor<48x100xf32> {graph.name = "A"},
                                   %b: tensor<2x3x20x33xbf16> {graph.name = "B"},
                                   %c: tensor<40x130xf16> {graph.name = "C"},
                                   %d: tensor<8x256xbf16> {graph.name = "D"},
                                   %e0: tensor<16x30xf32> {graph.name = "E0"},
                                   %e1: tensor<16x50xf32> {graph.name = "E1"},
                                   %e2: tensor<16x1xf32> {graph.name = "E2"},
                                   %g0: tensor<3x64xbf16> {graph.name = "G0"},
                                   %g1: tensor<5x64xbf16> {graph.name = "G1"},
                                   %r: tensor<12x35xf32> {graph.name = "R"},
                                   %at: tensor<100x48xf32> {graph.name = "A_t_addend"})
    -> (tensor<100x48xf32> {graph.name = "a_t"}, tensor<2x20x3x33xbf16> {graph.name = "b_swap12"},
        tensor<2x3x33x20xbf16> {graph.name = "b_swap23"}, tensor<37x42xf16> {graph.name = "c_slice_step3"},
        tensor<8x128xbf16> {graph.name = "d_slice"}, tensor<16x81xf32> {graph.name = "e_concat1"},
        tensor<8x64xbf16> {graph.name = "g_concat0"}, tensor<420xf32> {graph.name = "r_flat"},
        tensor<6x70xf32> {graph.name = "r_6x70"}, tensor<4800xf32> {graph.name = "a_t_flat"},
        tensor<8x256xf32> {graph.name = "d_exp_concat"}, tensor<100x48xf32> {graph.name = "a_t_add_tanh"})
    attributes {compute_data_type = f32} {
  %a_t = graph.transpose %a {permutation = array<i64: 1, 0>} : (tensor<48x100xf32>) -> tensor<100x48xf32>
  %b12 = graph.transpose %b {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x3x20x33xbf16>) -> tensor<2x20x3x33xbf16>
  %b23 = graph.transpose %b {permutation = array<i64: 0, 1, 3, 2>} : (tensor<2x3x20x33xbf16>) -> tensor<2x3x33x20xbf16>
  %cs = graph.slice %c {start = array<i64: 3, 5>, limit = array<i64: 40, 130>, step = array<i64: 1, 3>} : (tensor<40x130xf16>) -> tensor<37x42xf16>
  %ds = graph.slice %d {start = array<i64: 0, 100>, limit = array<i64: 8, 228>, step = array<i64: 1, 1>} : (tensor<8x256xbf16>) -> tensor<8x128xbf16>
  %ec = graph.concatenate %e0, %e1, %e2 {axis = 1 : i64} : (tensor<16x30xf32>, tensor<16x50xf32>, tensor<16x1xf32>) -> tensor<16x81xf32>
  %gc = graph.concatenate %g0, %g1 {axis = 0 : i64} : (tensor<3x64xbf16>, tensor<5x64xbf16>) -> tensor<8x64xbf16>
  %rf = graph.reshape %r : (tensor<12x35xf32>) -> tensor<420xf32>
  %r2 = graph.reshape %r : (tensor<12x35xf32>) -> tensor<6x70xf32>
  %atf = graph.reshape %a_t : (tensor<100x48xf32>) -> tensor<4800xf32>
  %dlo = graph.slice %d {start = array<i64: 0, 0>, limit = array<i64: 8, 100>, step = array<i64: 1, 1>} : (tensor<8x256xbf16>) -> tensor<8x100xbf16>
  %dhi = graph.slice %d {start = array<i64: 0, 100>, limit = array<i64: 8, 256>, step = array<i64: 1, 1>} : (tensor<8x256xbf16>) -> tensor<8x156xbf16>
  %dloe = graph.pointwise exp(%dlo) : (tensor<8x100xbf16>) -> tensor<8x100xf32>
  %dhif = graph.pointwise identity(%dhi) : (tensor<8x156xbf16>) -> tensor<8x156xf32>
  %dcat = graph.concatenate %dloe, %dhif {axis = 1 : i64} : (tensor<8x100xf32>, tensor<8x156xf32>) -> tensor<8x256xf32>
  %ata = graph.pointwise add(%a_t, %at) : (tensor<100x48xf32>, tensor<100x48xf32>) -> tensor<100x48xf32>
  %atat = graph.pointwise tanh(%ata) : (tensor<100x48xf32>) -> tensor<100x48xf32>
  graph.output %a_t, %b12, %b23, %cs, %ds, %ec, %gc, %rf, %r2, %atf, %dcat, %atat
      : tensor<100x48xf32>, tensor<2x20x3x33xbf16>, tensor<2x3x33x20xbf16>, tensor<37x42xf16>, tensor<8x128xbf16>, tensor<16x81xf32>, tensor<8x64xbf16>, tensor<420xf32>, tensor<6x70xf32>, tensor<4800xf32>, tensor<8x256xf32>, tensor<100x48xf32>
}
