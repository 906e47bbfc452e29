// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=3 --check-against=cpu --verbose-plans %s | FileCheck %s
// CHECK: plan: by_value_scale/group0: eng
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: a graph.by_value input read by a cuDNN pointwise chain: cuDNN takes
// it by value, read from its buffer at each execute.
// GPU-ARGS: --random-inputs=3 --check-against=cpu
graph.graph @by_value_scale(%x: tensor<64x1024xf16> {graph.name = "X"},
                            %s: tensor<1x1xf32> {graph.by_value, graph.name = "s"},
                            %r: tensor<64x1024xf16> {graph.name = "R"})
    -> (tensor<64x1024xf16> {graph.name = "Y"})
    attributes {compute_data_type = f32} {
  %m = graph.pointwise mul(%x, %s) : (tensor<64x1024xf16>, tensor<1x1xf32>) -> tensor<64x1024xf32>
  %y = graph.pointwise add(%m, %r) : (tensor<64x1024xf32>, tensor<64x1024xf16>) -> tensor<64x1024xf16>
  graph.output %y : tensor<64x1024xf16>
}
