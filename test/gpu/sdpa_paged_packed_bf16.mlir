// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=4 --input=seq_q=@%S/Inputs/sdpa_padding_seq_q.npy --input=seq_kv=@%S/Inputs/sdpa_paged_packed_seq_kv.npy --input=table=@%S/Inputs/sdpa_paged_packed_table.npy --input=table_offsets=@%S/Inputs/sdpa_paged_packed_offsets.npy --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: sdpa forward bf16 (b2 h4 s128 d64) reading K and V through a packed
// GPU: page table (the frontend's paged_packed: ragged offsets on the
// GPU: table): seq_len_kv 60/100 with 64-position pages, so batch 0 has one
// GPU: entry [3] and batch 1's [0, 2] start at element 1 (offsets [0, 1, 3]).
// GPU-ARGS: --random-inputs=4 --input=seq_q=@%S/Inputs/sdpa_padding_seq_q.npy --input=seq_kv=@%S/Inputs/sdpa_paged_packed_seq_kv.npy --input=table=@%S/Inputs/sdpa_paged_packed_table.npy --input=table_offsets=@%S/Inputs/sdpa_paged_packed_offsets.npy --check-against=cpu
graph.graph @sdpa_paged_packed(%q: tensor<2x4x128x64xbf16> {graph.name = "Q"},
                               %k: tensor<4x4x64x64xbf16> {graph.name = "K_pages"},
                               %v: tensor<4x4x64x64xbf16> {graph.name = "V_pages"},
                               %lq: tensor<2x1x1x1xi32> {graph.name = "seq_q"},
                               %lkv: tensor<2x1x1x1xi32> {graph.name = "seq_kv"},
                               %table: tensor<2x1x2x1xi32> {graph.name = "table"},
                               %offsets: tensor<3x1x1x1xi64> {graph.name = "table_offsets"})
    -> (tensor<2x4x128x64xbf16> {graph.name = "O"}, tensor<2x4x128x1xf32> {graph.name = "Stats"})
    attributes {compute_data_type = f32} {
  %o, %stats = graph.sdpa %q, %k, %v seq_len_q %lq seq_len_kv %lkv page_table_k %table page_table_v %table ragged_offset_page_table_k %offsets ragged_offset_page_table_v %offsets {attn_scale_value = 0.125 : f64, use_padding_mask, use_causal_mask, generate_stats, paged_attention_max_seq_len_kv = 128 : i64} : (tensor<2x4x128x64xbf16>, tensor<4x4x64x64xbf16>, tensor<4x4x64x64xbf16>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<2x1x2x1xi32>, tensor<2x1x2x1xi32>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>) -> (tensor<2x4x128x64xbf16>, tensor<2x4x128x1xf32>, none, none)
  graph.output %o, %stats : tensor<2x4x128x64xbf16>, tensor<2x4x128x1xf32>
}
