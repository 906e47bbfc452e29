// Bad input ends graph-opt with exit status 1 (an error, not a crash) and a
// located diagnostic on stderr, for verifier and parser failures alike.

// RUN: not graph-opt %s -split-input-file 2>&1 | FileCheck %s
// RUN: %python -c "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:], capture_output=True).returncode != 1)" graph-opt %s -split-input-file
// RUN: %python -c "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:], capture_output=True).returncode != 1)" graph-opt %s

// CHECK: errors.mlir:[[@LINE+2]]:8: error: matmul "mm1": K of A is 128 but K of B is 64
graph.graph @g(%a: tensor<4x128xf16>, %b: tensor<64x32xf16>) -> tensor<4x32xf16> {
  %c = graph.matmul %a, %b {name = "mm1"} : (tensor<4x128xf16>, tensor<64x32xf16>) -> tensor<4x32xf16>
  graph.output %c : tensor<4x32xf16>
}

// -----

// CHECK: errors.mlir:[[@LINE+2]]:24: error: custom op 'graph.pointwise' unknown pointwise_mode 'relu6'; expected one of: abs,
graph.graph @g(%x: tensor<4xf32>) {
  %y = graph.pointwise relu6(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.output
}

// -----

// CHECK: errors.mlir:[[@LINE+1]]:{{[0-9]+}}: error: stride of dim 1 is 0 (strides must be positive)
graph.graph @g(%x: tensor<4x8xf32, #graph.strides<[8, 0]>>) {
  graph.output
}
