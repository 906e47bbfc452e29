// RUN: graph-opt %s --graph-fuse --graph-select-engines=engines=cudnn,codegen 2>&1 | FileCheck %s

// Every op of a group that cuDNN takes whole lists the engines in rank order;
// the codegen engine is not built yet, so it takes nothing.
// CHECK-LABEL: graph.graph @ranked
// CHECK: pointwise exp({{.*}}graph.engines = ["cudnn"], graph.group = 0
graph.graph @ranked(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = graph.pointwise exp(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  graph.output %e : tensor<4x4xf32>
}
