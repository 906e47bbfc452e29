// RUN: graph-opt %s -split-input-file --graph-fuse --graph-select-engines=engines=cudnn,codegen 2>&1 | FileCheck %s

// Every op of a group that engines take whole lists them in rank order:
// a pointwise chain with a last-axis reduction is cuDNN's and codegen's.
// CHECK-LABEL: graph.graph @ranked
// CHECK: pointwise exp({{.*}}graph.engines = ["cudnn", "codegen"], graph.group = 0
// CHECK: reduction add {{.*}}graph.engines = ["cudnn", "codegen"], graph.group = 0
graph.graph @ranked(%a: tensor<4x4xf32>) -> tensor<4x1xf32> {
  %e = graph.pointwise exp(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = graph.reduction add %e : (tensor<4x4xf32>) -> tensor<4x1xf32>
  graph.output %s : tensor<4x1xf32>
}

// -----

// Codegen declines what it has no kernel for (a matmul) and takes
// reductions over any axes and gen_index; cuDNN has no transpose.
// CHECK-LABEL: graph.graph @per_engine
// CHECK: matmul {{.*}}graph.engines = ["cudnn"]
// CHECK: reduction add {{.*}}graph.engines = ["cudnn", "codegen"]
// CHECK: pointwise gen_index({{.*}}graph.engines = ["cudnn", "codegen"]
// CHECK: transpose {{.*}}graph.engines = ["codegen"]
graph.graph @per_engine(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>, %c: tensor<4x4xf32>)
    -> (tensor<4x4xf32>, tensor<1x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %m = graph.matmul %a, %b : (tensor<4x8xf16>, tensor<8x4xf16>) -> tensor<4x4xf32>
  %s = graph.reduction add %c : (tensor<4x4xf32>) -> tensor<1x4xf32>
  %g = graph.pointwise gen_index(%c) {axis = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %t = graph.transpose %c {permutation = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  graph.output %m, %s, %g, %t : tensor<4x4xf32>, tensor<1x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
