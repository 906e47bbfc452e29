// RUN: graph-opt %s -split-input-file | FileCheck %s
// RUN: graph-opt %s -split-input-file | graph-opt -split-input-file | FileCheck %s
// RUN: graph-opt %s -split-input-file -mlir-print-op-generic | graph-opt -split-input-file | FileCheck %s

// A fused group prints in its custom form and reads back: id, ranked
// engines with their plans, operands bound to block arguments with their
// types, result types, the body and its yield.
// CHECK-LABEL: graph.graph @epilogue
// CHECK: %[[S:.*]] = scalar
// CHECK: %[[G:.*]]:2 = group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>, #graph.engine<codegen, plans = ["codegen_v2_t256_i2", "codegen_v1"]>] (%[[A:.*]] = %arg0 : tensor<8x64xf16>, %[[B:.*]] = %arg1 : tensor<64x32xf16>, %[[C:.*]] = %[[S]] : tensor<1x1xf32>) -> (tensor<8x32xf16>, tensor<8x1xf32>) {
// CHECK-NEXT: %[[MM:.*]] = matmul %[[A]], %[[B]]
// CHECK-NEXT: %[[SC:.*]] = pointwise mul(%[[MM]], %[[C]])
// CHECK-NEXT: %[[GE:.*]] = pointwise gelu(%[[SC]])
// CHECK-NEXT: %[[R:.*]] = reduction add %[[GE]]
// CHECK-NEXT: yield %[[GE]], %[[R]] : tensor<8x32xf16>, tensor<8x1xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[H:.*]] = group 1 (%[[X:.*]] = %[[G]]#0 : tensor<8x32xf16>) -> tensor<8x32xf16> attributes {note = "kept"} {
// CHECK-NEXT: pointwise relu(%[[X]])
// CHECK: output %[[H]], %[[G]]#1
graph.graph @epilogue(%x: tensor<8x64xf16>, %w: tensor<64x32xf16>) -> (tensor<8x32xf16>, tensor<8x1xf32>) {
  %s = graph.scalar 0.5 : f32 -> tensor<1x1xf32>
  %g:2 = graph.group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>, #graph.engine<codegen, plans = ["codegen_v2_t256_i2", "codegen_v1"]>] (%a = %x : tensor<8x64xf16>, %b = %w : tensor<64x32xf16>, %c = %s : tensor<1x1xf32>) -> (tensor<8x32xf16>, tensor<8x1xf32>) {
    %mm = graph.matmul %a, %b : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf32>
    %sc = graph.pointwise mul(%mm, %c) : (tensor<8x32xf32>, tensor<1x1xf32>) -> tensor<8x32xf32>
    %ge = graph.pointwise gelu(%sc) : (tensor<8x32xf32>) -> tensor<8x32xf16>
    %r = graph.reduction add %ge : (tensor<8x32xf16>) -> tensor<8x1xf32>
    graph.yield %ge, %r : tensor<8x32xf16>, tensor<8x1xf32>
  }
  %h = graph.group 1 (%y = %g#0 : tensor<8x32xf16>) -> tensor<8x32xf16> attributes {note = "kept"} {
    %q = graph.pointwise relu(%y) : (tensor<8x32xf16>) -> tensor<8x32xf16>
    graph.yield %q : tensor<8x32xf16>
  }
  graph.output %h, %g#1 : tensor<8x32xf16>, tensor<8x1xf32>
}

// -----

// A group with no operands (its scalar inside), printed with the graph
// dialect's ops unprefixed as in the graph body.
// CHECK-LABEL: graph.graph @no_operands
// CHECK: group 3 () -> tensor<1x1xf32> {
// CHECK-NEXT: %[[C:.*]] = scalar 2.0{{.*}} : f32 -> tensor<1x1xf32>
// CHECK-NEXT: %[[E:.*]] = pointwise exp(%[[C]])
// CHECK-NEXT: yield %[[E]] : tensor<1x1xf32>
graph.graph @no_operands() -> tensor<1x1xf32> {
  %g = graph.group 3 () -> tensor<1x1xf32> {
    %c = graph.scalar 2.0 : f32 -> tensor<1x1xf32>
    %i = graph.pointwise exp(%c) : (tensor<1x1xf32>) -> tensor<1x1xf32>
    graph.yield %i : tensor<1x1xf32>
  }
  graph.output %g : tensor<1x1xf32>
}
