// A small MLP block: matmul + bias + gelu, then layernorm over the features.
graph.graph @mlp(%x: tensor<4x64xf32> {graph.name = "x"},
                 %w: tensor<64x128xf32> {graph.name = "w"},
                 %b: tensor<1x128xf32> {graph.name = "b"},
                 %gamma: tensor<1x128xf32> {graph.name = "gamma"},
                 %beta: tensor<1x128xf32> {graph.name = "beta"})
    -> (tensor<4x128xf32> {graph.name = "y"})
    attributes {io_data_type = f32, compute_data_type = f32} {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %h = graph.matmul %x, %w {name = "fc1"} : (tensor<4x64xf32>, tensor<64x128xf32>) -> tensor<4x128xf32>
  %hb = graph.pointwise add(%h, %b) {name = "bias"} : (tensor<4x128xf32>, tensor<1x128xf32>) -> tensor<4x128xf32>
  %a = graph.pointwise gelu(%hb) : (tensor<4x128xf32>) -> tensor<4x128xf32>
  %y = graph.layernorm inference %a, scale %gamma, bias %beta, epsilon %eps {name = "ln"}
      : (tensor<4x128xf32>, tensor<1x128xf32>, tensor<1x128xf32>, tensor<1x1xf32>) -> (tensor<4x128xf32>, none, none)
  graph.output %y : tensor<4x128xf32>
}
