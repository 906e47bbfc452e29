// RUN: graph-opt %s -split-input-file -verify-diagnostics --graph-fuse --graph-select-engines | FileCheck %s

// Groups cuDNN takes whole are tagged with it.
// CHECK-LABEL: graph.graph @all_cudnn
// CHECK: matmul {{.*}}graph.engines = ["cudnn"], graph.group = 0
// CHECK-NEXT: pointwise relu({{.*}}graph.engines = ["cudnn"], graph.group = 0
graph.graph @all_cudnn(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> tensor<4x4xf16> {
  %m = graph.matmul %a, %b : (tensor<4x8xf16>, tensor<8x4xf16>) -> tensor<4x4xf32>
  %r = graph.pointwise relu(%m) : (tensor<4x4xf32>) -> tensor<4x4xf16>
  graph.output %r : tensor<4x4xf16>
}

// -----

// A group one op of which no engine takes is split into single ops, and the
// split keeps the schedule order; the op nothing runs is the error.
graph.graph @nothing_runs(%a: tensor<4x8xf64>, %b: tensor<8x4xf64>) -> tensor<4x4xf64> {
  // expected-error @below {{matmul "mm": no engine can run this op; tried:}}
  %m = graph.matmul %a, %b {name = "mm"} : (tensor<4x8xf64>, tensor<8x4xf64>) -> tensor<4x4xf64>
  graph.output %m : tensor<4x4xf64>
}

// -----

graph.graph @unsupported_op(%t: tensor<4x8xf16>) -> tensor<8x4xf16> {
  // expected-error-re @below {{transpose: no engine can run this op; tried:{{[[:space:]]+}}cudnn: no cuDNN lowering for transpose yet}}
  %x = graph.transpose %t {permutation = array<i64: 1, 0>} : (tensor<4x8xf16>) -> tensor<8x4xf16>
  graph.output %x : tensor<8x4xf16>
}
