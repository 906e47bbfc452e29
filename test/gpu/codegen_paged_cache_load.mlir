// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=4 --input=k_table=@%S/Inputs/paged_gather_k_table.npy --input=k_seq=@%S/Inputs/paged_gather_k_seq.npy --input=v_table=@%S/Inputs/paged_gather_v_table.npy --input=f8_table=@%S/Inputs/paged_gather_f8_table.npy --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: paged_cache_load in the generated kernels (cuDNN runs it only inside
// GPU: its attention graphs): an f16 container of 2-position pages gathered
// GPU: through a shuffled table with per-batch lengths 15/6 (zeros past
// GPU: them) and scaled in the same kernel; a bf16 container (4-position
// GPU: pages, no lengths) read through a table in another layout; an fp8
// GPU: container with odd row widths widened to f32.
// GPU-ARGS: --random-inputs=4 --input=k_table=@%S/Inputs/paged_gather_k_table.npy --input=k_seq=@%S/Inputs/paged_gather_k_seq.npy --input=v_table=@%S/Inputs/paged_gather_v_table.npy --input=f8_table=@%S/Inputs/paged_gather_f8_table.npy --check-against=cpu
graph.graph @paged_gather(%k: tensor<32x4x2x64xf16> {graph.name = "k_pages"},
                          %kt: tensor<2x1x8x1xi32> {graph.name = "k_table"},
                          %kl: tensor<2x1x1x1xi32> {graph.name = "k_seq"},
                          %v: tensor<12x2x4x16xbf16> {graph.name = "v_pages"},
                          %vt: tensor<2x1x3x1xi32> {graph.name = "v_table"},
                          %f: tensor<10x3x5x9xf8E4M3FN> {graph.name = "f8_pages"},
                          %ft: tensor<2x1x3x1xi32> {graph.name = "f8_table"})
    -> (tensor<2x4x15x64xf16> {graph.name = "K"}, tensor<2x2x12x16xbf16> {graph.name = "V"},
        tensor<2x3x15x9xf32> {graph.name = "F"}) attributes {compute_data_type = f32} {
  %s = graph.scalar 0.5 : f32 -> tensor<1x1x1x1xf32>
  %kg = graph.paged_cache_load %k, %kt seq_len %kl {max_seq_len = 15 : i64} : (tensor<32x4x2x64xf16>, tensor<2x1x8x1xi32>, tensor<2x1x1x1xi32>) -> tensor<2x4x15x64xf16>
  %ks = graph.pointwise mul(%kg, %s) : (tensor<2x4x15x64xf16>, tensor<1x1x1x1xf32>) -> tensor<2x4x15x64xf16>
  %vg = graph.paged_cache_load %v, %vt {max_seq_len = 12 : i64} : (tensor<12x2x4x16xbf16>, tensor<2x1x3x1xi32>) -> tensor<2x2x12x16xbf16>
  %fg = graph.paged_cache_load %f, %ft {max_seq_len = 15 : i64} : (tensor<10x3x5x9xf8E4M3FN>, tensor<2x1x3x1xi32>) -> tensor<2x3x15x9xf8E4M3FN>
  %fw = graph.pointwise identity(%fg) : (tensor<2x3x15x9xf8E4M3FN>) -> tensor<2x3x15x9xf32>
  graph.output %ks, %vg, %fw : tensor<2x4x15x64xf16>, tensor<2x2x12x16xbf16>, tensor<2x3x15x9xf32>
}
