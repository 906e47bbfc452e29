// Issue 13, class 4: --graph-kernels-to-cubin without a CUDA toolkit is an
// error with a nonzero exit status.

// RUN: not env CUDA_ROOT=/nonexistent graph-opt %s --graph-prepare --graph-fuse --graph-select-engines=engines=codegen --graph-generate-kernels --graph-kernels-to-cubin -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: CUDA path: /nonexistent does not exist or is not a directory

graph.graph @chain(%x: tensor<128x1024xbf16>, %b: tensor<1x1024xbf16>) -> tensor<128x1024xbf16> {
  %a = graph.pointwise add(%x, %b) : (tensor<128x1024xbf16>, tensor<1x1024xbf16>) -> tensor<128x1024xf32>
  %g = graph.pointwise tanh(%a) : (tensor<128x1024xf32>) -> tensor<128x1024xbf16>
  graph.output %g : tensor<128x1024xbf16>
}
