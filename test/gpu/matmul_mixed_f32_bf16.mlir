// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=7 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: matmuls whose A is f32 and B bf16. One A is an intermediate (a
// norm's f32 output stored as bf16 where it crosses groups); the other is
// read by a pointwise op too, so it stays f32 and cuDNN casts it in a
// prologue.
// GPU-ARGS: --random-inputs=7 --check-against=cpu
graph.graph @mixed(%x: tensor<128x64xbf16> {graph.name = "X"}, %g: tensor<1x64xf32> {graph.name = "gamma"},
                   %w: tensor<64x96xbf16> {graph.name = "W"}, %a: tensor<128x64xf32> {graph.name = "A"})
    -> (tensor<128x96xbf16> {graph.name = "Y"}, tensor<128x96xbf16> {graph.name = "Z"}, tensor<128x64xf32> {graph.name = "S"})
    attributes {io_data_type = bf16, intermediate_data_type = f32, compute_data_type = f32} {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %n = graph.rmsnorm inference %x, scale %g, epsilon %eps : (tensor<128x64xbf16>, tensor<1x64xf32>, tensor<1x1xf32>) -> tensor<128x64xf32>
  %y = graph.matmul %n, %w : (tensor<128x64xf32>, tensor<64x96xbf16>) -> tensor<128x96xbf16>
  %s = graph.pointwise swish(%a) : (tensor<128x64xf32>) -> tensor<128x64xf32>
  %z = graph.matmul %s, %w : (tensor<128x64xf32>, tensor<64x96xbf16>) -> tensor<128x96xbf16>
  graph.output %y, %z, %s : tensor<128x96xbf16>, tensor<128x96xbf16>, tensor<128x64xf32>
}
