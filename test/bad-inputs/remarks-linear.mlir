// Issue 13, class 5: graph-generate-kernels grew quadratically with the graph:
// each group it leaves to another engine got a remark on the graph op, and
// MLIR printed the whole graph with every such remark. The remark now names
// the group at its first op's location, printing neither the graph nor the
// graph's first line (all its arguments, thousands of characters in a model).

// RUN: graph-opt %s --graph-prepare --graph-fuse --graph-select-engines --graph-generate-kernels -o /dev/null 2>&1 | FileCheck %s
// CHECK: remarks-linear.mlir:[[@LINE+7]]:{{[0-9]+}}: remark: two_matmuls/group0 is left to another engine: matmul "mm0"
// CHECK-NOT: see current operation
// CHECK-NOT: graph.graph @two_matmuls
// CHECK: remarks-linear.mlir:[[@LINE+6]]:{{[0-9]+}}: remark: two_matmuls/group1 is left to another engine: matmul "mm1"
// CHECK-NOT: see current operation

graph.graph @two_matmuls(%x: tensor<64x64xbf16>, %w: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  %a = graph.matmul %x, %w {name = "mm0"} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  %b = graph.pointwise identity(%a) : (tensor<64x64xf32>) -> tensor<64x64xbf16>
  %c = graph.matmul %b, %w {name = "mm1"} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  graph.output %c : tensor<64x64xf32>
}
