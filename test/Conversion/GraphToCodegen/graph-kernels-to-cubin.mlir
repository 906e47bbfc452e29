// REQUIRES: ptxas
// RUN: graph-opt %s --graph-prepare --graph-fuse --graph-select-engines=engines=codegen --graph-generate-kernels --graph-kernels-to-cubin | FileCheck %s

// With ptxas at compile time the kernels are embedded as an sm_90 cubin
// (an ELF image) instead of PTX text.
// CHECK: gpu.binary @chain_group0 [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">
// CHECK-SAME: bin = "\7FELF
graph.graph @chain(%x: tensor<128x1024xbf16>, %b: tensor<1x1024xbf16>) -> tensor<128x1024xbf16> {
  %a = graph.pointwise add(%x, %b) : (tensor<128x1024xbf16>, tensor<1x1024xbf16>) -> tensor<128x1024xf32>
  %g = graph.pointwise tanh(%a) : (tensor<128x1024xf32>) -> tensor<128x1024xbf16>
  graph.output %g : tensor<128x1024xbf16>
}
