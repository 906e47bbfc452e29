// rmsnorm backward, bf16, 32768x4096 (256 MiB per tensor): bench/gpu/tune_rows.sh
graph.graph @rmsnorm_bwd(%dy: tensor<32768x4096xbf16>, %x: tensor<32768x4096xbf16>, %w: tensor<1x4096xbf16>,
                         %iv: tensor<32768x1xf32>)
    -> (tensor<32768x4096xbf16>, tensor<1x4096xf32>) attributes {compute_data_type = f32} {
  %dx, %dw = graph.rmsnorm_backward %dy, %x, scale %w, inv_variance %iv {has_dbias = false} : (tensor<32768x4096xbf16>, tensor<32768x4096xbf16>, tensor<1x4096xbf16>, tensor<32768x1xf32>) -> (tensor<32768x4096xbf16>, tensor<1x4096xf32>)
  graph.output %dx, %dw : tensor<32768x4096xbf16>, tensor<1x4096xf32>
}
