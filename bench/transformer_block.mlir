// A pre-norm transformer block in bf16 with fp32 compute: batch 2, seq 512,
// hidden 1024, 16 heads of 64, MLP 4096.
//
//   h   = x + Wo(sdpa_causal(rope(q), rope(k), v)),  [q k v] = LN(x) Wqkv
//   out = h + W2(gelu(rmsnorm(h) W1))
//
// Token-wise ops run on [B*S, hidden] = [1024, 1024] (layernorm and rmsnorm
// normalize over every dim but dim 0); attention runs on [B, H, S, D].
// Run: graph-run --device=cpu --random-inputs=1 --benchmark=1 bench/transformer_block.mlir
graph.graph @transformer_block(
    %x: tensor<1024x1024xbf16> {graph.name = "x"},
    %ln_g: tensor<1x1024xf32> {graph.name = "ln_gamma"},
    %ln_b: tensor<1x1024xf32> {graph.name = "ln_beta"},
    %wqkv: tensor<1024x3072xbf16> {graph.name = "w_qkv"},
    %freqs: tensor<1x1x512x32xf32> {graph.name = "rope_freqs"},
    %wo: tensor<1024x1024xbf16> {graph.name = "w_o"},
    %rms_g: tensor<1x1024xf32> {graph.name = "rms_gamma"},
    %w1: tensor<1024x4096xbf16> {graph.name = "w_1"},
    %w2: tensor<4096x1024xbf16> {graph.name = "w_2"})
    -> (tensor<1024x1024xbf16> {graph.name = "y"})
    attributes {io_data_type = bf16, intermediate_data_type = bf16, compute_data_type = f32} {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>

  // Attention.
  %ln = graph.layernorm inference %x, scale %ln_g, bias %ln_b, epsilon %eps {name = "ln1"}
      : (tensor<1024x1024xbf16>, tensor<1x1024xf32>, tensor<1x1024xf32>, tensor<1x1xf32>) -> (tensor<1024x1024xbf16>, none, none)
  %qkv = graph.matmul %ln, %wqkv {name = "qkv"} : (tensor<1024x1024xbf16>, tensor<1024x3072xbf16>) -> tensor<1024x3072xbf16>
  %qkv5 = graph.reshape %qkv : (tensor<1024x3072xbf16>) -> tensor<2x512x3x16x64xbf16>
  %qkvt = graph.transpose %qkv5 {permutation = array<i64: 2, 0, 3, 1, 4>} : (tensor<2x512x3x16x64xbf16>) -> tensor<3x2x16x512x64xbf16>
  %q5 = graph.slice %qkvt {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 2, 16, 512, 64>} : (tensor<3x2x16x512x64xbf16>) -> tensor<1x2x16x512x64xbf16>
  %k5 = graph.slice %qkvt {start = array<i64: 1, 0, 0, 0, 0>, limit = array<i64: 2, 2, 16, 512, 64>} : (tensor<3x2x16x512x64xbf16>) -> tensor<1x2x16x512x64xbf16>
  %v5 = graph.slice %qkvt {start = array<i64: 2, 0, 0, 0, 0>, limit = array<i64: 3, 2, 16, 512, 64>} : (tensor<3x2x16x512x64xbf16>) -> tensor<1x2x16x512x64xbf16>
  %q = graph.reshape %q5 : (tensor<1x2x16x512x64xbf16>) -> tensor<2x16x512x64xbf16>
  %k = graph.reshape %k5 : (tensor<1x2x16x512x64xbf16>) -> tensor<2x16x512x64xbf16>
  %v = graph.reshape %v5 : (tensor<1x2x16x512x64xbf16>) -> tensor<2x16x512x64xbf16>
  %qr = graph.rope %q, freqs %freqs {name = "rope_q"} : (tensor<2x16x512x64xbf16>, tensor<1x1x512x32xf32>) -> tensor<2x16x512x64xbf16>
  %kr = graph.rope %k, freqs %freqs {name = "rope_k"} : (tensor<2x16x512x64xbf16>, tensor<1x1x512x32xf32>) -> tensor<2x16x512x64xbf16>
  %o = graph.sdpa %qr, %kr, %v {use_causal_mask, attn_scale_value = 1.250000e-01 : f64, name = "attn"}
      : (tensor<2x16x512x64xbf16>, tensor<2x16x512x64xbf16>, tensor<2x16x512x64xbf16>) -> (tensor<2x16x512x64xbf16>, none, none, none)
  %ot = graph.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x16x512x64xbf16>) -> tensor<2x512x16x64xbf16>
  %o2 = graph.reshape %ot : (tensor<2x512x16x64xbf16>) -> tensor<1024x1024xbf16>
  %proj = graph.matmul %o2, %wo {name = "out_proj"} : (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16>
  %h = graph.pointwise add(%x, %proj) {name = "residual1"} : (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16>

  // MLP.
  %rms = graph.rmsnorm inference %h, scale %rms_g, epsilon %eps {name = "rms"}
      : (tensor<1024x1024xbf16>, tensor<1x1024xf32>, tensor<1x1xf32>) -> tensor<1024x1024xbf16>
  %up = graph.matmul %rms, %w1 {name = "fc1"} : (tensor<1024x1024xbf16>, tensor<1024x4096xbf16>) -> tensor<1024x4096xbf16>
  %act = graph.pointwise gelu(%up) {name = "gelu"} : (tensor<1024x4096xbf16>) -> tensor<1024x4096xbf16>
  %down = graph.matmul %act, %w2 {name = "fc2"} : (tensor<1024x4096xbf16>, tensor<4096x1024xbf16>) -> tensor<1024x1024xbf16>
  %y = graph.pointwise add(%h, %down) {name = "residual2"} : (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16>
  graph.output %y : tensor<1024x1024xbf16>
}
