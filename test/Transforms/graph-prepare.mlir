// RUN: graph-opt %s --graph-prepare | FileCheck %s
// RUN: graph-opt %s --pass-pipeline='builtin.module(graph-prepare{canonicalize=false})' | FileCheck %s --check-prefix=NOCANON
// RUN: graph-opt --help | FileCheck %s --check-prefix=HELP
// RUN: graph-opt %s --graph-prepare --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: graph-opt %s --graph-prepare --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING

// The named pipeline end to end: uids, then layouts (channels-last around
// the f16 convolution, row-major elsewhere), then the canonicalizer drops
// the identity.

// CHECK-LABEL: graph.graph @block
// CHECK-SAME: (%[[X:.+]]: tensor<2x8x4x4xf16, #graph.strides<[128, 1, 32, 8]>> {graph.name = "x", graph.uid = 1 : i64},
// CHECK-SAME:  %[[W:.+]]: tensor<16x8x3x3xf16, #graph.strides<[72, 1, 24, 8]>> {graph.uid = 2 : i64},
// CHECK-SAME:  %[[B:.+]]: tensor<1x16x1x1xf16, #graph.strides<[16, 1, 1, 1]>> {graph.uid = 3 : i64})
// CHECK-SAME: -> (tensor<2x16x4x4xf16, #graph.strides<[256, 1, 64, 16]>> {graph.name = "y", graph.uid = 5 : i64})
// CHECK: %[[S:.+]] = scalar {{.*}} {uid = 4 : i64} -> tensor<1x1x1x1xf16, #graph.strides<[1, 1, 1, 1]>>
// CHECK: %[[C:.+]] = conv_fprop %[[X]], %[[W]] {{.*}} -> tensor<2x16x4x4xf16, #graph.strides<[256, 1, 64, 16]>>
// CHECK-NOT: identity
// CHECK: %[[A:.+]] = pointwise add(%[[C]], %[[B]]) {{.*}} -> tensor<2x16x4x4xf16, #graph.strides<[256, 1, 64, 16]>>
// CHECK: %[[Y:.+]] = pointwise mul(%[[A]], %[[S]]) {{.*}} -> tensor<2x16x4x4xf16, #graph.strides<[256, 1, 64, 16]>>
// CHECK: output %[[Y]] : tensor<2x16x4x4xf16, #graph.strides<[256, 1, 64, 16]>>

// Without the canonicalizer the identity stays, laid out like its operand.
// NOCANON-LABEL: graph.graph @block
// NOCANON-SAME: {graph.name = "x", graph.uid = 1 : i64}
// NOCANON-SAME: -> (tensor<2x16x4x4xf16, #graph.strides<[256, 1, 64, 16]>> {graph.name = "y", graph.uid = 5 : i64})
// NOCANON: scalar {{.*}} {uid = 4 : i64}
// NOCANON: pointwise identity({{.*}}) : (tensor<2x16x4x4xf16, #graph.strides<[256, 1, 64, 16]>>) -> tensor<2x16x4x4xf16, #graph.strides<[256, 1, 64, 16]>>
graph.graph @block(%x: tensor<2x8x4x4xf16> {graph.name = "x"},
                   %w: tensor<16x8x3x3xf16>,
                   %b: tensor<1x16x1x1xf16>)
    -> (tensor<2x16x4x4xf16> {graph.name = "y"})
    attributes {io_data_type = f16, compute_data_type = f32} {
  %s = graph.scalar 0.5 : f16 -> tensor<1x1x1x1xf16>
  %c = graph.conv_fprop %x, %w {padding = array<i64: 1, 1>}
      : (tensor<2x8x4x4xf16>, tensor<16x8x3x3xf16>) -> tensor<2x16x4x4xf16>
  %i = graph.pointwise identity(%c) : (tensor<2x16x4x4xf16>) -> tensor<2x16x4x4xf16>
  %a = graph.pointwise add(%i, %b) : (tensor<2x16x4x4xf16>, tensor<1x16x1x1xf16>) -> tensor<2x16x4x4xf16>
  %y = graph.pointwise mul(%a, %s) : (tensor<2x16x4x4xf16>, tensor<1x1x1x1xf16>) -> tensor<2x16x4x4xf16>
  graph.output %y : tensor<2x16x4x4xf16>
}

// HELP-DAG: --graph-assign-uids
// HELP-DAG: --graph-infer-layout
// HELP-DAG: --graph-prepare

// DUMP: IR Dump After GraphAssignUids (graph-assign-uids)
// DUMP: IR Dump After GraphInferLayout (graph-infer-layout)
// DUMP: IR Dump After Canonicalizer (canonicalize)

// TIMING: Execution time report
// TIMING: GraphAssignUids
// TIMING: GraphInferLayout
// TIMING: Canonicalizer
