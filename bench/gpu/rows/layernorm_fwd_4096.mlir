// layernorm training forward, bf16, 32768x4096 (256 MiB): bench/gpu/tune_rows.sh
graph.graph @layernorm_fwd(%x: tensor<32768x4096xbf16>, %w: tensor<1x4096xbf16>, %b: tensor<1x4096xbf16>)
    -> (tensor<32768x4096xbf16>, tensor<32768x1xf32>, tensor<32768x1xf32>) attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %y, %m, %iv = graph.layernorm training %x, scale %w, bias %b, epsilon %eps : (tensor<32768x4096xbf16>, tensor<1x4096xbf16>, tensor<1x4096xbf16>, tensor<1x1xf32>) -> (tensor<32768x4096xbf16>, tensor<32768x1xf32>, tensor<32768x1xf32>)
  graph.output %y, %m, %iv : tensor<32768x4096xbf16>, tensor<32768x1xf32>, tensor<32768x1xf32>
}
