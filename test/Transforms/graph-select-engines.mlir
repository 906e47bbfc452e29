// RUN: graph-opt %s -split-input-file -verify-diagnostics --graph-fuse --graph-select-engines | FileCheck %s

// A group cuDNN takes whole lists cuDNN alone, with the plan it proposes
// (its heuristics), on the graph.group.
// CHECK-LABEL: graph.graph @all_cudnn
// CHECK-NEXT: %[[G:.*]] = group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>] (
// CHECK-NEXT: matmul
// CHECK-NEXT: pointwise relu(
// CHECK-NEXT: yield
// CHECK-NEXT: }
// CHECK-NEXT: output %[[G]]
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

// By default both engines are ranked; each one's reason is listed.
graph.graph @unsupported_op(%t: tensor<4x8xf64>) -> tensor<8x4xf64> {
  // expected-error-re @below {{transpose: no engine can run this op; tried:{{[[:space:]]+}}cudnn: cuDNN's fused engines have no f64 path{{[[:space:]]+}}codegen: generated kernels take f32, f16, bf16, fp8, fp4, i1 and i32 tensors only}}
  %x = graph.transpose %t {permutation = array<i64: 1, 0>} : (tensor<4x8xf64>) -> tensor<8x4xf64>
  graph.output %x : tensor<8x4xf64>
}
