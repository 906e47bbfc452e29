// rmsnorm training forward, bf16, 8192x16384 (256 MiB): bench/gpu/tune_rows.sh
graph.graph @rmsnorm_fwd(%x: tensor<8192x16384xbf16>, %w: tensor<1x16384xbf16>)
    -> (tensor<8192x16384xbf16>, tensor<8192x1xf32>) attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %y, %iv = graph.rmsnorm training %x, scale %w, epsilon %eps : (tensor<8192x16384xbf16>, tensor<1x16384xbf16>, tensor<1x1xf32>) -> (tensor<8192x16384xbf16>, tensor<8192x1xf32>)
  graph.output %y, %iv : tensor<8192x16384xbf16>, tensor<8192x1xf32>
}
