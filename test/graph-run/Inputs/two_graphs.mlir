graph.graph @first(%x: tensor<2xf32> {graph.name = "x"}) -> tensor<2xf32> {
  %y = graph.pointwise neg(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.output %y : tensor<2xf32>
}
graph.graph @second(%x: tensor<2xf32> {graph.name = "x"}) -> tensor<2xf32> {
  %y = graph.pointwise abs(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.output %y : tensor<2xf32>
}
