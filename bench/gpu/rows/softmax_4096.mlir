// softmax over the last axis (max, sub, exp, sum, div), bf16, 32768x4096: bench/gpu/tune_rows.sh
graph.graph @softmax(%x: tensor<32768x4096xbf16>) -> tensor<32768x4096xbf16> attributes {compute_data_type = f32} {
  %m = graph.reduction max %x : (tensor<32768x4096xbf16>) -> tensor<32768x1xf32>
  %d = graph.pointwise sub(%x, %m) : (tensor<32768x4096xbf16>, tensor<32768x1xf32>) -> tensor<32768x4096xf32>
  %e = graph.pointwise exp(%d) : (tensor<32768x4096xf32>) -> tensor<32768x4096xf32>
  %s = graph.reduction add %e : (tensor<32768x4096xf32>) -> tensor<32768x1xf32>
  %p = graph.pointwise div(%e, %s) : (tensor<32768x4096xf32>, tensor<32768x1xf32>) -> tensor<32768x4096xbf16>
  graph.output %p : tensor<32768x4096xbf16>
}
