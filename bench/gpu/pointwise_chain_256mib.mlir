// A 4-op pointwise chain on 256 MiB bf16 tensors (8192 x 16384), for the
// memory-bound engines: y = tanh(gelu(x * s + b)). Read 2 x 256 MiB (x and
// the result of nothing else: s and b broadcast), write 256 MiB.
graph.graph @chain(%x: tensor<8192x16384xbf16> {graph.name = "x"},
                   %s: tensor<1x16384xbf16> {graph.name = "s"},
                   %b: tensor<1x16384xbf16> {graph.name = "b"})
    -> (tensor<8192x16384xbf16> {graph.name = "y"})
    attributes {compute_data_type = f32} {
  %0 = graph.pointwise mul(%x, %s) : (tensor<8192x16384xbf16>, tensor<1x16384xbf16>) -> tensor<8192x16384xf32>
  %1 = graph.pointwise add(%0, %b) : (tensor<8192x16384xf32>, tensor<1x16384xbf16>) -> tensor<8192x16384xf32>
  %2 = graph.pointwise gelu(%1) : (tensor<8192x16384xf32>) -> tensor<8192x16384xf32>
  %3 = graph.pointwise tanh(%2) : (tensor<8192x16384xf32>) -> tensor<8192x16384xbf16>
  graph.output %3 : tensor<8192x16384xbf16>
}
