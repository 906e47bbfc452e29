// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=1 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: matmul bf16 + bias + gelu, fp32 compute, checked against the CPU reference.
// GPU-ARGS: --random-inputs=1 --check-against=cpu
graph.graph @matmul_bias_gelu(%a: tensor<256x512xbf16> {graph.name = "A"},
                              %b: tensor<512x384xbf16> {graph.name = "B"},
                              %bias: tensor<1x384xbf16> {graph.name = "bias"})
    -> (tensor<256x384xbf16> {graph.name = "Y"})
    attributes {compute_data_type = f32} {
  %c = graph.matmul %a, %b {name = "mm"} : (tensor<256x512xbf16>, tensor<512x384xbf16>) -> tensor<256x384xf32>
  %d = graph.pointwise add(%c, %bias) {name = "bias"} : (tensor<256x384xf32>, tensor<1x384xbf16>) -> tensor<256x384xf32>
  %y = graph.pointwise gelu(%d) {name = "gelu"} : (tensor<256x384xf32>) -> tensor<256x384xbf16>
  graph.output %y : tensor<256x384xbf16>
}
