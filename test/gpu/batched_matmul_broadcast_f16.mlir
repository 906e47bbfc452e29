// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=2 --check-against=cpu %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: batched fp16 matmul whose B broadcasts over the batch.
// GPU-ARGS: --random-inputs=2 --check-against=cpu
graph.graph @batched_matmul(%a: tensor<8x128x64xf16> {graph.name = "A"},
                            %b: tensor<1x64x96xf16> {graph.name = "B"})
    -> (tensor<8x128x96xf16> {graph.name = "C"})
    attributes {compute_data_type = f32} {
  %c = graph.matmul %a, %b : (tensor<8x128x64xf16>, tensor<1x64x96xf16>) -> tensor<8x128x96xf16>
  graph.output %c : tensor<8x128x96xf16>
}
