// softmax over the last axis (max, sub, exp, sum, div), bf16, 8192x16384: bench/gpu/tune_rows.sh
graph.graph @softmax(%x: tensor<8192x16384xbf16>) -> tensor<8192x16384xbf16> attributes {compute_data_type = f32} {
  %m = graph.reduction max %x : (tensor<8192x16384xbf16>) -> tensor<8192x1xf32>
  %d = graph.pointwise sub(%x, %m) : (tensor<8192x16384xbf16>, tensor<8192x1xf32>) -> tensor<8192x16384xf32>
  %e = graph.pointwise exp(%d) : (tensor<8192x16384xf32>) -> tensor<8192x16384xf32>
  %s = graph.reduction add %e : (tensor<8192x16384xf32>) -> tensor<8192x1xf32>
  %p = graph.pointwise div(%e, %s) : (tensor<8192x16384xf32>, tensor<8192x1xf32>) -> tensor<8192x16384xbf16>
  graph.output %p : tensor<8192x16384xbf16>
}
