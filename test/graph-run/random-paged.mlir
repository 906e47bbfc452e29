// --random-inputs on an sdpa reading paged K/V caches draws legal inputs:
// seq_len_kv is the length the pages make (not the page size) and each
// page table entry names a page of its container (3 pages here, where the
// generic integer fill [0, 4) could name page 3 and the CPU reference would
// stop: "page table entry 3 ... is outside the container's 3 pages").

// RUN: graph-run %s --device=cpu --random-inputs=3 --print-max-elements=8 | FileCheck %s
// CHECK: result[0] (uid {{[0-9]+}} "O"): 1x2x4x8xf16=
// CHECK: result[1] (uid {{[0-9]+}} "skv_used"): 1x1x1x1xi32={{\[\[\[\[24\]\]\]\]}}
// CHECK: result[2] (uid {{[0-9]+}} "table_used"): 1x1x3x1xi32={{\[\[\[\[0\] \[1\] \[2\]\]\]\]}}

graph.graph @paged(%q: tensor<1x2x4x8xf16> {graph.name = "q"},
                   %k: tensor<3x2x8x8xf16> {graph.name = "k_pages"},
                   %v: tensor<3x2x8x8xf16> {graph.name = "v_pages"},
                   %lq: tensor<1x1x1x1xi32> {graph.name = "seq_q"},
                   %lkv: tensor<1x1x1x1xi32> {graph.name = "seq_kv"},
                   %t: tensor<1x1x3x1xi32> {graph.name = "table"})
    -> (tensor<1x2x4x8xf16> {graph.name = "O"}, tensor<1x1x1x1xi32> {graph.name = "skv_used"},
        tensor<1x1x3x1xi32> {graph.name = "table_used"}) {
  %o = graph.sdpa %q, %k, %v seq_len_q %lq seq_len_kv %lkv page_table_k %t page_table_v %t {use_padding_mask, paged_attention_max_seq_len_kv = 24 : i64, attn_scale_value = 0.35 : f64} : (tensor<1x2x4x8xf16>, tensor<3x2x8x8xf16>, tensor<3x2x8x8xf16>, tensor<1x1x1x1xi32>, tensor<1x1x1x1xi32>, tensor<1x1x3x1xi32>, tensor<1x1x3x1xi32>) -> (tensor<1x2x4x8xf16>, none, none, none)
  %lkv2 = graph.pointwise identity(%lkv) : (tensor<1x1x1x1xi32>) -> tensor<1x1x1x1xi32>
  %t2 = graph.pointwise identity(%t) : (tensor<1x1x3x1xi32>) -> tensor<1x1x3x1xi32>
  graph.output %o, %lkv2, %t2 : tensor<1x2x4x8xf16>, tensor<1x1x1x1xi32>, tensor<1x1x3x1xi32>
}
