// RUN: graph-opt %s -split-input-file --graph-prepare --graph-split-moe-scatter | FileCheck %s
// RUN: graph-opt %s -split-input-file -verify-diagnostics --graph-prepare --graph-split-moe-scatter --graph-fuse --graph-select-engines --graph-lower-to-executable | FileCheck %s --check-prefix=EXEC

// An MoE down projection in scatter mode (32 tokens, top 2, so 64 routed
// rows over 4 experts): the matmul runs in none mode, writing the rows in
// expert order, and moe_scatter_rows places them; the scatter keeps the
// op's label, the matmul gets <label>.rows.
// CHECK-LABEL: graph.graph @down
// CHECK: %[[ROWS:.+]] = moe_grouped_matmul %{{[^,]+}}, %{{[^,]+}}, offsets %{{[^ ]+}} {compute_data_type = f32, name = "experts.down.rows"} : ({{.*}}) -> tensor<1x64x16xbf16
// CHECK-NEXT: %[[OUT:.+]] = moe_scatter_rows %[[ROWS]], %{{.+}}, %{{.+}}, offsets %{{.+}} {name = "experts.down", top_k = 2 : i64}
// CHECK-NEXT: output %[[OUT]]
// cuDNN runs the matmul, the generated kernels the scatter: a kernel zeroes
// the output, then a thread per element (64 x 16 = 1024: 4 blocks of 256)
// of a routed row reads the row's i32 index and slot and stores the element
// at the routed row.
// EXEC-LABEL: exec.program @down
// EXEC: exec.cudnn_group "down/group0"
// EXEC: graph.moe_grouped_matmul
// EXEC: exec.kernel_group "down/group1" engine = "codegen_v2
// EXEC-NEXT: exec.kernel_module @kernels format = ptx binary = "{{.*}}.visible .entry stage0_zero({{.*}}.visible .entry stage0(
// EXEC-SAME: ld.global.b16{{.*}}st.global.b16
// EXEC-NEXT: exec.kernel_launch @kernels entry = "stage0_zero" grid = [4, 1, 1] block = [256, 1, 1] args = [#exec.arg<uid = 6, access = write>]
// EXEC-NEXT: exec.kernel_launch @kernels entry = "stage0" grid = [4, 1, 1] block = [256, 1, 1]
// EXEC-SAME: args = [#exec.arg<uid = 7, access = read>, #exec.arg<uid = 6, access = write>, #exec.arg<uid = 4, access = read>, #exec.arg<uid = 5, access = read>, #exec.arg<uid = 3, access = read>]
graph.graph @down(%act: tensor<1x64x32xbf16> {graph.name = "act"},
                  %w: tensor<4x32x16xbf16, #graph.strides<[512, 1, 32]>> {graph.name = "w_down"},
                  %off: tensor<4x1x1xi32> {graph.name = "first_token_offset"},
                  %index: tensor<64x1x1xi32> {graph.name = "token_index"},
                  %ks: tensor<64x1x1xi32> {graph.name = "token_ks"})
    -> (tensor<1x64x16xbf16> {graph.name = "down"}) attributes {compute_data_type = f32} {
  %y = graph.moe_grouped_matmul %act, %w, offsets %off token_index %index token_ks %ks
      {mode = #graph.moe_mode<scatter>, top_k = 2 : i64, name = "experts.down", compute_data_type = f32}
      : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16, #graph.strides<[512, 1, 32]>>, tensor<4x1x1xi32>, tensor<64x1x1xi32>, tensor<64x1x1xi32>) -> tensor<1x64x16xbf16>
  graph.output %y : tensor<1x64x16xbf16>
}

// -----

// Offsets that end the last expert's rows (E + 1 entries): the rows past
// that end are padding, so the scatter is bounded by the last offset.
// CHECK-LABEL: graph.graph @padded
// CHECK: moe_scatter_rows {{.*}} {bounded, top_k = 2 : i64}
graph.graph @padded(%act: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<5x1x1xi32>,
                    %index: tensor<64x1x1xi32>, %ks: tensor<64x1x1xi32>)
    -> tensor<1x64x16xbf16> attributes {compute_data_type = f32} {
  %y = graph.moe_grouped_matmul %act, %w, offsets %off token_index %index token_ks %ks
      {mode = #graph.moe_mode<scatter>, top_k = 2 : i64}
      : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<5x1x1xi32>, tensor<64x1x1xi32>, tensor<64x1x1xi32>) -> tensor<1x64x16xbf16>
  graph.output %y : tensor<1x64x16xbf16>
}

// -----

// Scattered rows of another count than the token rows (here a 128-row
// output, half of it unwritten) stay as they are: the split would leave
// rows the scatter does not write; it lowers as written.
// CHECK-LABEL: graph.graph @wider
// CHECK: moe_grouped_matmul {{.*}} token_index {{.*}} token_ks
// CHECK-NOT: moe_scatter_rows
// EXEC-LABEL: exec.program @wider
// EXEC: exec.cudnn_group
// EXEC: graph.moe_grouped_matmul {{.*}}mode = #graph.moe_mode<scatter>
graph.graph @wider(%act: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<4x1x1xi32>,
                   %index: tensor<64x1x1xi32>, %ks: tensor<64x1x1xi32>)
    -> tensor<1x128x16xbf16> attributes {compute_data_type = f32} {
  %y = graph.moe_grouped_matmul %act, %w, offsets %off token_index %index token_ks %ks
      {mode = #graph.moe_mode<scatter>, top_k = 4 : i64}
      : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>, tensor<64x1x1xi32>, tensor<64x1x1xi32>) -> tensor<1x128x16xbf16>
  graph.output %y : tensor<1x128x16xbf16>
}

// -----

// Gather mode is not the scatter split's; left alone, engine selection
// refuses it (cuDNN's gather plans fault).
// CHECK-LABEL: graph.graph @gather
// CHECK-NOT: moe_scatter_rows
// CHECK: moe_grouped_matmul {{.*}} token_index
graph.graph @gather(%act: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<4x1x1xi32>,
                    %index: tensor<64x1x1xi32>) -> tensor<1x64x16xbf16> attributes {compute_data_type = f32} {
  // expected-error @+1 {{cuDNN 9.19's gather-mode grouped matmul faulted}}
  %g = graph.moe_grouped_matmul %act, %w, offsets %off token_index %index {mode = #graph.moe_mode<gather>}
      : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>, tensor<64x1x1xi32>) -> tensor<1x64x16xbf16>
  graph.output %g : tensor<1x64x16xbf16>
}

// -----

// One expert with one offset: no end to bound its rows by (the matmul
// itself rejects such offsets when it runs), so nothing is split.
// CHECK-LABEL: graph.graph @one_offset
// CHECK-NOT: moe_scatter_rows
graph.graph @one_offset(%act: tensor<1x8x4xf32>, %w: tensor<1x4x3xf32>, %off: tensor<1x1x1xi32>,
                        %index: tensor<8x1x1xi32>, %ks: tensor<8x1x1xi32>)
    -> tensor<1x8x3xf32> attributes {compute_data_type = f32} {
  %y = graph.moe_grouped_matmul %act, %w, offsets %off token_index %index token_ks %ks
      {mode = #graph.moe_mode<scatter>, top_k = 1 : i64}
      : (tensor<1x8x4xf32>, tensor<1x4x3xf32>, tensor<1x1x1xi32>, tensor<8x1x1xi32>, tensor<8x1x1xi32>) -> tensor<1x8x3xf32>
  graph.output %y : tensor<1x8x3xf32>
}
