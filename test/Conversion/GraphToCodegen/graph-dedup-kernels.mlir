// RUN: graph-opt %s -split-input-file --graph-prepare --graph-select-engines=engines=codegen --graph-generate-kernels | FileCheck %s
// RUN: graph-opt %s -split-input-file --graph-prepare --graph-select-engines=engines=codegen --graph-generate-kernels=dedup=false | FileCheck %s --check-prefix=NODEDUP
// RUN: graph-opt %s -split-input-file --graph-prepare --graph-select-engines=engines=codegen --graph-generate-kernels --graph-kernels-to-ptx | FileCheck %s --check-prefix=PTX
// RUN: graph-opt %s -split-input-file --graph-dedup-kernels | FileCheck %s --check-prefix=PASS

// Issue 13: groups of the same ops and shapes generate the same kernels;
// graph-generate-kernels keeps one gpu.module per distinct kernel module
// (graph-dedup-kernels), so the NVVM pipeline compiles each once. Three
// identical chains (groups 0, 1 and 3) share chains_group0's module, which
// lists them in graph.groups; group 2 (other dims) keeps its own.

// CHECK-NOT: gpu.module @
// CHECK: gpu.module @chains_group0
// CHECK-SAME: graph.groups = ["chains_group0", "chains_group1", "chains_group3"]
// CHECK-SAME: graph.launches = ["stage0 grid 1 block 256"]
// CHECK: gpu.func @stage0(%{{.*}}: memref<1024xf32>, %{{.*}}: memref<64xf32>, %{{.*}}: memref<1024xf32>)
// CHECK-NOT: gpu.module @
// CHECK: gpu.module @chains_group2 attributes {graph.launches = ["stage0 grid 1 block 256"]}
// CHECK: gpu.func @stage0(%{{.*}}: memref<512xf32>, %{{.*}}: memref<64xf32>, %{{.*}}: memref<512xf32>)
// CHECK-NOT: gpu.module @
// CHECK: // -----

// Without dedup, one module per group.
// NODEDUP-COUNT-4: gpu.module @chains_group{{[0-3]}} attributes {graph.launches
// NODEDUP-NOT: gpu.module @
// NODEDUP: // -----

// PTX-COUNT-2: gpu.binary @
// PTX-NOT: gpu.binary @
// PTX: // -----
graph.graph @chains(%x0: tensor<16x64xf32>, %x1: tensor<16x64xf32>, %x2: tensor<16x64xf32>, %x3: tensor<8x64xf32>, %b: tensor<1x64xf32>)
    -> (tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<8x64xf32>) {
  %grp0 = graph.group 0 (%g0_x = %x0 : tensor<16x64xf32>, %g0_b = %b : tensor<1x64xf32>) -> tensor<16x64xf32> {
    %r = graph.pointwise relu(%g0_x) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %y = graph.pointwise add(%r, %g0_b) : (tensor<16x64xf32>, tensor<1x64xf32>) -> tensor<16x64xf32>
    graph.yield %y : tensor<16x64xf32>
  }
  %grp1 = graph.group 1 (%g1_x = %x1 : tensor<16x64xf32>, %g1_b = %b : tensor<1x64xf32>) -> tensor<16x64xf32> {
    %r = graph.pointwise relu(%g1_x) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %y = graph.pointwise add(%r, %g1_b) : (tensor<16x64xf32>, tensor<1x64xf32>) -> tensor<16x64xf32>
    graph.yield %y : tensor<16x64xf32>
  }
  %grp2 = graph.group 2 (%g2_x = %x3 : tensor<8x64xf32>, %g2_b = %b : tensor<1x64xf32>) -> tensor<8x64xf32> {
    %r = graph.pointwise relu(%g2_x) : (tensor<8x64xf32>) -> tensor<8x64xf32>
    %y = graph.pointwise add(%r, %g2_b) : (tensor<8x64xf32>, tensor<1x64xf32>) -> tensor<8x64xf32>
    graph.yield %y : tensor<8x64xf32>
  }
  %grp3 = graph.group 3 (%g3_x = %x2 : tensor<16x64xf32>, %g3_b = %b : tensor<1x64xf32>) -> tensor<16x64xf32> {
    %r = graph.pointwise relu(%g3_x) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %y = graph.pointwise add(%r, %g3_b) : (tensor<16x64xf32>, tensor<1x64xf32>) -> tensor<16x64xf32>
    graph.yield %y : tensor<16x64xf32>
  }
  graph.output %grp0, %grp1, %grp3, %grp2 : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<8x64xf32>
}

// -----

// The pass alone on any gpu modules: @b is @a under another name, so every
// reference to @b (a gpu.launch_func's @b::@k, an attribute's @b) is
// re-pointed at @a and @b is erased; @c (other argument types) stays.

// PASS-LABEL: gpu.module @a attributes {graph.groups = ["a", "b"]}
// PASS-NOT: gpu.module @b
// PASS-LABEL: gpu.module @c {
// PASS-LABEL: func.func @host
// PASS-SAME: kernels = [@a, @a::@k, @c]
// PASS: gpu.launch_func @a::@k
// PASS-NEXT: gpu.launch_func @a::@k
// PASS-NEXT: gpu.launch_func @c::@k
// PASS-NOT: @b
module attributes {gpu.container_module} {
  gpu.module @a {
    gpu.func @k(%arg0: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @b {
    gpu.func @k(%arg0: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @c {
    gpu.func @k(%arg0: memref<8xf32>) kernel {
      gpu.return
    }
  }
  func.func @host(%m: memref<4xf32>, %n: memref<8xf32>) attributes {kernels = [@b, @b::@k, @c]} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @a::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @b::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @c::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%n : memref<8xf32>)
    return
  }
}
