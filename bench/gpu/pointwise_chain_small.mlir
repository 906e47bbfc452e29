// A one-group pointwise chain (add + relu, f16) for plan-list checks:
// scripts/gpu/issue-checks.sh runs it at every --plan-index.
graph.graph @chain_small(%x: tensor<256x1024xf16>, %b: tensor<1x1024xf16>) -> tensor<256x1024xf16>
    attributes {compute_data_type = f32} {
  %a = graph.pointwise add(%x, %b) : (tensor<256x1024xf16>, tensor<1x1024xf16>) -> tensor<256x1024xf32>
  %r = graph.pointwise relu(%a) : (tensor<256x1024xf32>) -> tensor<256x1024xf16>
  graph.output %r : tensor<256x1024xf16>
}
