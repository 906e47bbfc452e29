// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=7 --input=dq=1x1x1x1xf32=1 --input=dk=1x1x1x1xf32=1 --input=dv=1x1x1x1xf32=1 --input=ds=1x1x1x1xf32=0.03125 --input=ss=1x1x1x1xf32=32 --input=so=1x1x1x1xf32=1 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: fp8 (e4m3) attention forward, b2 h4 s128 d64, causal, with Stats,
// GPU: Amax_S, Amax_O and an f16 O (scale_o 1): the frontend's SDPA FP8 composite
// GPU: graph (descales after Q K^T, P quantized by scale_s, O' descaled,
// GPU: its amax, then scale_o), which cuDNN's fused fp8 engines run.
// GPU-ARGS: --random-inputs=7 --input=dq=1x1x1x1xf32=1 --input=dk=1x1x1x1xf32=1 --input=dv=1x1x1x1xf32=1 --input=ds=1x1x1x1xf32=0.03125 --input=ss=1x1x1x1xf32=32 --input=so=1x1x1x1xf32=1 --check-against=cpu
graph.graph @fp8_attention(%q: tensor<2x4x128x64xf8E4M3FN> {graph.name = "q"}, %k: tensor<2x4x128x64xf8E4M3FN> {graph.name = "k"}, %v: tensor<2x4x128x64xf8E4M3FN> {graph.name = "v"},
                           %dq: tensor<1x1x1x1xf32> {graph.name = "dq"}, %dk: tensor<1x1x1x1xf32> {graph.name = "dk"}, %dv: tensor<1x1x1x1xf32> {graph.name = "dv"},
                           %ds: tensor<1x1x1x1xf32> {graph.name = "ds"}, %ss: tensor<1x1x1x1xf32> {graph.name = "ss"}, %so: tensor<1x1x1x1xf32> {graph.name = "so"})
    -> (tensor<2x4x128x64xf16> {graph.name = "O"}, tensor<2x4x128x1xf32> {graph.name = "Stats"}, tensor<1x1x1x1xf32> {graph.name = "Amax_S"}, tensor<1x1x1x1xf32> {graph.name = "Amax_O"})
    attributes {compute_data_type = f32} {
  %o, %st, %as, %ao = graph.sdpa_fp8 %q, %k, %v descale(%dq, %dk, %dv, %ds) scale(%ss, %so) {generate_stats, use_causal_mask, attn_scale_value = 0.125 : f64}
      : (tensor<2x4x128x64xf8E4M3FN>, tensor<2x4x128x64xf8E4M3FN>, tensor<2x4x128x64xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x4x128x64xf16>, tensor<2x4x128x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output %o, %st, %as, %ao : tensor<2x4x128x64xf16>, tensor<2x4x128x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>
}
