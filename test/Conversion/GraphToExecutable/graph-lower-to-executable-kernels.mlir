// RUN: graph-opt %s -split-input-file --graph-prepare --graph-fuse --graph-select-engines --graph-lower-to-executable | FileCheck %s
// RUN: graph-opt %s -split-input-file --graph-prepare --graph-fuse --graph-select-engines --graph-lower-to-executable | graph-opt -split-input-file | FileCheck %s
// RUN: graph-opt %s -split-input-file --graph-prepare --graph-fuse --graph-select-engines --graph-lower-to-executable --mlir-print-op-generic | graph-opt -split-input-file | FileCheck %s
// RUN: graph-opt %s --graph-prepare --graph-fuse --graph-select-engines --graph-lower-to-executable --emit-bytecode | graph-opt | FileCheck %s --check-prefix=BC
// RUN: graph-opt %s -split-input-file --graph-prepare --graph-fuse --graph-select-engines --graph-lower-to-executable=kernels=never | FileCheck %s --check-prefix=NEVER
// RUN: graph-opt %s -split-input-file --graph-prepare --graph-fuse --graph-select-engines --graph-lower-to-executable=kernels=prefer | FileCheck %s --check-prefix=PREFER

// Generated kernels in the artifact: groups whose first-ranked engine is
// codegen (cuDNN's rules decline them) become exec.kernel_group with the
// PTX, the launches' geometry and each pointer argument's uid, access and
// alignment; the others stay exec.cudnn_group.

// A layernorm backward with a residual add: cuDNN runs a norm backward only
// alone, so codegen_v2 runs the group: one row kernel, then a column-sum
// kernel per per-column gradient, through the group's scratch partials.
// CHECK-LABEL: exec.program @lnb
// CHECK-SAME: buffers = []
// CHECK-NEXT: exec.kernel_group "lnb/group0" engine = "codegen_v2_t128_i4" scratch = [#exec.scratch<uid = -1, bytes = 65536>, #exec.scratch<uid = -2, bytes = 65536>] {
// CHECK-NEXT: exec.kernel_module @kernels format = ptx binary = "{{.*}}.target sm_90{{.*}}.visible .entry stage0({{.*}}.visible .entry stage0_colsum0({{.*}}.visible .entry stage0_colsum1({{.*}}"
// CHECK-NEXT: exec.kernel_launch @kernels entry = "stage0" grid = [64, 1, 1] block = [64, 1, 1]
// CHECK-SAME: args = [#exec.arg<uid = 3, access = read, align = 8>, #exec.arg<uid = 1, access = read, align = 8>, #exec.arg<uid = 5, access = read>, #exec.arg<uid = 4, access = read>, #exec.arg<uid = 2, access = read, align = 16>, #exec.arg<uid = 6, access = read, align = 8>, #exec.arg<uid = 7, access = write, align = 8>, #exec.arg<uid = 8, access = write>, #exec.arg<uid = 9, access = write>, #exec.arg<uid = -1, access = scratch, align = 16>, #exec.arg<uid = -2, access = scratch, align = 16>]
// CHECK-NEXT: exec.kernel_launch @kernels entry = "stage0_colsum0" grid = [8, 1, 1] block = [256, 1, 1] args = [#exec.arg<uid = -1, access = scratch>, #exec.arg<uid = 8, access = write>]
// CHECK-NEXT: exec.kernel_launch @kernels entry = "stage0_colsum1" grid = [8, 1, 1] block = [256, 1, 1] args = [#exec.arg<uid = -2, access = scratch>, #exec.arg<uid = 9, access = write>]
// CHECK-NEXT: }
// CHECK-NEXT: }
// BC-LABEL: exec.program @lnb
// BC: exec.kernel_group "lnb/group0" engine = "codegen_v2_t128_i4"
// BC: exec.kernel_module @kernels format = ptx binary = "{{.*}}.visible .entry stage0(
// NEVER-LABEL: exec.program @lnb
// NEVER-NEXT: exec.cudnn_group "lnb/group0"
// NEVER: graph.layernorm_backward
// NEVER-NOT: exec.kernel_group
// PREFER-LABEL: exec.program @lnb
// PREFER-NEXT: exec.kernel_group "lnb/group0"
graph.graph @lnb(%x: tensor<64x256xbf16>, %g: tensor<1x256xf32>, %dy: tensor<64x256xbf16>,
                 %m: tensor<64x1xf32>, %iv: tensor<64x1xf32>, %r: tensor<64x256xbf16>)
    -> (tensor<64x256xbf16>, tensor<1x256xf32>, tensor<1x256xf32>)
    attributes {compute_data_type = f32} {
  %dx, %ds, %db = graph.layernorm_backward %dy, %x, scale %g, mean %m, inv_variance %iv : (tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<1x256xf32>, tensor<64x1xf32>, tensor<64x1xf32>) -> (tensor<64x256xf32>, tensor<1x256xf32>, tensor<1x256xf32>)
  %s = graph.pointwise add(%dx, %r) : (tensor<64x256xf32>, tensor<64x256xbf16>) -> tensor<64x256xbf16>
  graph.output %s, %ds, %db : tensor<64x256xbf16>, tensor<1x256xf32>, tensor<1x256xf32>
}

// -----

// Both engines in one artifact: cuDNN's matmul writes buffer uid 5, the
// reshape (a copy: this lowering folds no views) and the rope, which cuDNN
// has no lowering for, are generated kernels reading it in schedule order.
// CHECK-LABEL: exec.program @mixed
// CHECK-SAME: buffers = [#exec.tensor<uid = 5, dtype = f16, dims = [8, 32], strides = [32, 1]>, #exec.tensor<uid = 6, dtype = f16, dims = [1, 1, 8, 32], strides = [256, 256, 32, 1]>]
// CHECK-NEXT: exec.cudnn_group "mixed/group0"
// CHECK-SAME: outputs = [#exec.tensor<uid = 5, dtype = f16, dims = [8, 32], strides = [32, 1]>]
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[MM:.+]] = graph.matmul
// CHECK-NEXT: exec.yield %[[MM]]
// CHECK-NEXT: }
// CHECK-NEXT: exec.kernel_group "mixed/group1" engine = "codegen_v2_t128_i4" {
// CHECK-NEXT: exec.kernel_module @kernels format = ptx binary = "{{.*}}.visible .entry stage0({{.*}}"
// CHECK-NEXT: exec.kernel_launch @kernels entry = "stage0" grid = [1, 1, 1] block = [128, 1, 1] args = [#exec.arg<uid = 5, access = read, align = 16>, #exec.arg<uid = 6, access = write, align = 16>]
// CHECK-NEXT: }
// CHECK-NEXT: exec.kernel_group "mixed/group2" engine = "codegen_v2_t128_i4" {
// CHECK-NEXT: exec.kernel_module @kernels
// CHECK-NEXT: exec.kernel_launch @kernels entry = "stage0" grid = [1, 1, 1] block = [128, 1, 1] args = [#exec.arg<uid = 3, access = read, align = 16>, #exec.arg<uid = 6, access = read, align = 16>, #exec.arg<uid = 4, access = write, align = 16>]
// NEVER-LABEL: exec.program @mixed
// NEVER: exec.cudnn_group "mixed/group0"
// NEVER: exec.cudnn_group "mixed/group1"
// NEVER: exec.cudnn_group "mixed/group2"
// NEVER: graph.rope
graph.graph @mixed(%x: tensor<8x64xf16> {graph.name = "x"}, %w: tensor<64x32xf16> {graph.name = "w"},
                   %f: tensor<1x1x8x16xf32> {graph.name = "freqs"})
    -> (tensor<1x1x8x32xf16> {graph.name = "y"}) attributes {compute_data_type = f32} {
  %mm = graph.matmul %x, %w : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf16>
  %r = graph.reshape %mm : (tensor<8x32xf16>) -> tensor<1x1x8x32xf16>
  %y = graph.rope %r, freqs %f : (tensor<1x1x8x32xf16>, tensor<1x1x8x16xf32>) -> tensor<1x1x8x32xf16>
  graph.output %y : tensor<1x1x8x32xf16>
}

// -----

// A pointwise chain both engines take, cuDNN ranked first: a cuDNN group
// unless kernels=prefer.
// CHECK-LABEL: exec.program @chain
// CHECK-NEXT: exec.cudnn_group "chain/group0"
// CHECK-NOT: exec.kernel_group
// PREFER-LABEL: exec.program @chain
// PREFER-NEXT: exec.kernel_group "chain/group0" engine = "codegen_v2_t128_i4" {
// PREFER-NEXT: exec.kernel_module @kernels format = ptx
// PREFER-NEXT: exec.kernel_launch @kernels entry = "stage0" grid = [32, 1, 1] block = [128, 1, 1] args = [#exec.arg<uid = 1, access = read, align = 16>, #exec.arg<uid = 2, access = read, align = 16>, #exec.arg<uid = 3, access = write, align = 16>]
graph.graph @chain(%x: tensor<128x1024xbf16>, %b: tensor<1x1024xbf16>) -> tensor<128x1024xbf16> {
  %a = graph.pointwise add(%x, %b) : (tensor<128x1024xbf16>, tensor<1x1024xbf16>) -> tensor<128x1024xf32>
  %g = graph.pointwise tanh(%a) : (tensor<128x1024xf32>) -> tensor<128x1024xbf16>
  graph.output %g : tensor<128x1024xbf16>
}
