// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=17 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: block-sparse sdpa forward (test_mhas_v2's block_mask, cuDNN's unified
// SDPA operation): bf16 b2 h2 s_q 384 s_kv 512 d64, a random ui8 mask of one
// bit per 128 x 128 tile ([2, 2, 3, 1]); a row whose tiles are all masked
// reads 0.
// GPU-ARGS: --random-inputs=17 --check-against=cpu
graph.graph @block_mask(%q: tensor<2x2x384x64xbf16> {graph.name = "Q"},
                        %k: tensor<2x2x512x64xbf16> {graph.name = "K"},
                        %v: tensor<2x2x512x64xbf16> {graph.name = "V"},
                        %mask: tensor<2x2x3x1xui8> {graph.name = "block_mask"})
    -> (tensor<2x2x384x64xbf16> {graph.name = "O"})
    attributes {compute_data_type = f32} {
  %o = graph.sdpa %q, %k, %v block_mask %mask {attn_scale_value = 0.125 : f64} : (tensor<2x2x384x64xbf16>, tensor<2x2x512x64xbf16>, tensor<2x2x512x64xbf16>, tensor<2x2x3x1xui8>) -> (tensor<2x2x384x64xbf16>, none, none, none)
  graph.output %o : tensor<2x2x384x64xbf16>
}
