graph.graph @broken(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.pointwise frobnicate(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.output %y : tensor<2xf32>
}
