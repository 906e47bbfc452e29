// REQUIRES: ptxas
// RUN: graph-opt %s --graph-prepare --graph-fuse --graph-select-engines --graph-lower-to-executable=cubin=true -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: graph-opt %t.mlir --emit-bytecode | graph-opt -o %t.bc.mlir
// RUN: cmp %t.mlir %t.bc.mlir
// RUN: graph-opt %t.mlir --mlir-print-op-generic | graph-opt -o %t.generic.mlir
// RUN: cmp %t.mlir %t.generic.mlir

// With cubin=true the kernels are embedded as the sm_90 cubin ptxas
// assembled (an ELF image, the semantics of --graph-kernels-to-cubin); the
// image's bytes survive the text, generic and bytecode round trips.
// CHECK-LABEL: exec.program @lnb
// CHECK-NEXT: exec.kernel_group "lnb/group0" engine = "codegen_v2_t128_i4"
// CHECK-NEXT: exec.kernel_module @kernels format = cubin binary = "\7FELF
// CHECK-NEXT: exec.kernel_launch @kernels entry = "stage0"
// CHECK-NEXT: exec.kernel_launch @kernels entry = "stage0_colsum0"
// CHECK-NEXT: exec.kernel_launch @kernels entry = "stage0_colsum1"
graph.graph @lnb(%x: tensor<64x256xbf16>, %g: tensor<1x256xf32>, %dy: tensor<64x256xbf16>,
                 %m: tensor<64x1xf32>, %iv: tensor<64x1xf32>, %r: tensor<64x256xbf16>)
    -> (tensor<64x256xbf16>, tensor<1x256xf32>, tensor<1x256xf32>)
    attributes {compute_data_type = f32} {
  %dx, %ds, %db = graph.layernorm_backward %dy, %x, scale %g, mean %m, inv_variance %iv : (tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<1x256xf32>, tensor<64x1xf32>, tensor<64x1xf32>) -> (tensor<64x256xf32>, tensor<1x256xf32>, tensor<1x256xf32>)
  %s = graph.pointwise add(%dx, %r) : (tensor<64x256xf32>, tensor<64x256xbf16>) -> tensor<64x256xbf16>
  graph.output %s, %ds, %db : tensor<64x256xbf16>, tensor<1x256xf32>, tensor<1x256xf32>
}
