// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=4 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: attention scores written with views, as users write them: heads
// taken from [b, s, h, d] (copied packed, their batch dims would not
// merge), K^T read in place, the scores transposed back for a relu.
// GPU-ARGS: --random-inputs=4 --check-against=cpu
graph.graph @qk(%q: tensor<2x64x4x32xf16> {graph.name = "q"},
                %k: tensor<2x4x64x32xf16> {graph.name = "k"})
    -> (tensor<2x64x4x64xf32> {graph.name = "s"})
    attributes {compute_data_type = f32} {
  %qh = graph.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x64x4x32xf16>) -> tensor<2x4x64x32xf16>
  %kt = graph.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<2x4x64x32xf16>) -> tensor<2x4x32x64xf16>
  %s = graph.matmul %qh, %kt : (tensor<2x4x64x32xf16>, tensor<2x4x32x64xf16>) -> tensor<2x4x64x64xf32>
  %st = graph.transpose %s {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x4x64x64xf32>) -> tensor<2x64x4x64xf32>
  %y = graph.pointwise relu(%st) : (tensor<2x64x4x64xf32>) -> tensor<2x64x4x64xf32>
  graph.output %y : tensor<2x64x4x64xf32>
}
