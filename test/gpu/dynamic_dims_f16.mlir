// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=1 --input=x=48x64xf16=random --check-against=cpu %s | FileCheck %s
// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=1 --input=x=200x64xf16=random --check-against=cpu %s | FileCheck %s --check-prefix=OTHER
// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=1 --input=x=48x64xf16=random --check-against=cpu --autotune --verbose-plans %s | FileCheck %s --check-prefix=TUNE
// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=1 --input=x=48x64xf16=random --check-against=cpu --autotune-against-first --verbose-plans %s | FileCheck %s --check-prefix=FIRST
// CHECK-NOT: [FAILED]
// CHECK: result[0] (uid {{[0-9]+}} "y"): 48x96xf16=
// CHECK: [SUCCESS]
// OTHER-NOT: [FAILED]
// OTHER: result[0] (uid {{[0-9]+}} "y"): 200x96xf16=
// OTHER: [SUCCESS]
// TUNE: plan: dynamic_mlp/group0:
// TUNE: timed
// TUNE-NOT: [FAILED]
// TUNE: [SUCCESS]
// FIRST: plan: dynamic_mlp/group0:
// FIRST: (plans checked against the first plan that ran, not the CPU reference)
// FIRST: timed
// FIRST-NOT: [FAILED]
// FIRST: [SUCCESS]
// GPU: fp16 matmul + bias + relu whose row count is dynamic ('?'): the GPU
// specializes the graph to the bound input dims at execute time.
// GPU-ARGS: --random-inputs=1 --input=x=48x64xf16=random --check-against=cpu
graph.graph @dynamic_mlp(%x: tensor<?x64xf16> {graph.name = "x"},
                         %w: tensor<64x96xf16> {graph.name = "w"},
                         %bias: tensor<1x96xf16> {graph.name = "bias"})
    -> (tensor<?x96xf16> {graph.name = "y"})
    attributes {compute_data_type = f32} {
  %c = graph.matmul %x, %w {name = "mm"} : (tensor<?x64xf16>, tensor<64x96xf16>) -> tensor<?x96xf32>
  %d = graph.pointwise add(%c, %bias) {name = "bias"} : (tensor<?x96xf32>, tensor<1x96xf16>) -> tensor<?x96xf32>
  %y = graph.pointwise relu(%d) {name = "relu"} : (tensor<?x96xf32>) -> tensor<?x96xf16>
  graph.output %y : tensor<?x96xf16>
}
