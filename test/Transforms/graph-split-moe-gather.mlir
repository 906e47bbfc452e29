// RUN: graph-opt %s -split-input-file --graph-prepare --graph-split-moe-gather | FileCheck %s
// RUN: graph-opt %s -split-input-file -verify-diagnostics --graph-prepare --graph-split-moe-gather --graph-fuse --graph-select-engines --graph-lower-to-executable | FileCheck %s --check-prefix=EXEC

// An MoE layer's gate and up projections in gather mode (32 tokens, top 2,
// so 64 routed rows over 4 experts), routed alike: one moe_gather_rows
// copies each routed row's token, and both matmuls run in none mode over
// those rows; the matmuls keep their labels, the gather is named after
// the first.
// CHECK-LABEL: graph.graph @gate_up
// CHECK: %[[ROWS:.+]] = moe_gather_rows %arg0, %arg3 {name = "experts.gate.gather"} : (tensor<1x32x16xbf16, {{.*}}>, tensor<64x1x1xi32, {{.*}}>) -> tensor<1x64x16xbf16, #graph.strides<[1024, 16, 1]>>
// CHECK-NEXT: %[[GATE:.+]] = moe_grouped_matmul %[[ROWS]], %arg1, offsets %arg4 {compute_data_type = f32, name = "experts.gate"} : (tensor<1x64x16xbf16, {{.*}}) -> tensor<1x64x24xbf16
// CHECK-NEXT: %[[UP:.+]] = moe_grouped_matmul %[[ROWS]], %arg2, offsets %arg4 {compute_data_type = f32, name = "experts.up"} : (tensor<1x64x16xbf16, {{.*}}) -> tensor<1x64x24xbf16
// CHECK-NOT: moe_gather_rows
// CHECK-NOT: token_index
// CHECK: output %[[GATE]], %[[UP]]
// The generated kernels gather: a pointwise stage over the 64 x 16 rows
// whose threads read their row's i32 index once (one unsigned compare
// checks it lies in the 32 tokens) and copy the token's elements as
// 16-byte vectors; cuDNN runs each matmul over the gathered rows.
// EXEC-LABEL: exec.program @gate_up
// EXEC: exec.kernel_group "gate_up/group0" engine = "codegen_v2
// EXEC-NEXT: exec.kernel_module @kernels format = ptx binary = "{{.*}}ld.global.b32 {{.*}}setp.lt.u32 {{.*}}, 32;{{.*}}ld.global.v4.b32{{.*}}st.global.v4.b32
// EXEC-NEXT: exec.kernel_launch @kernels entry = "stage0"
// EXEC-SAME: args = [#exec.arg<uid = 1, access = read, align = 16>, #exec.arg<uid = 4, access = read>, #exec.arg<uid = [[ROWS:[0-9]+]], access = write, align = 16>]
// EXEC: exec.cudnn_group "gate_up/group1" inputs = [#exec.tensor<uid = [[ROWS]], dtype = bf16, dims = [1, 64, 16], strides = [1024, 16, 1]>
// EXEC: graph.moe_grouped_matmul {{.*}}name = "experts.gate"
// EXEC: exec.cudnn_group "gate_up/group2" inputs = [#exec.tensor<uid = [[ROWS]],
// EXEC: graph.moe_grouped_matmul {{.*}}name = "experts.up"
graph.graph @gate_up(%tokens: tensor<1x32x16xbf16> {graph.name = "tokens"},
                     %w_gate: tensor<4x16x24xbf16, #graph.strides<[384, 1, 16]>> {graph.name = "w_gate"},
                     %w_up: tensor<4x16x24xbf16, #graph.strides<[384, 1, 16]>> {graph.name = "w_up"},
                     %index: tensor<64x1x1xi32> {graph.name = "token_index"},
                     %off: tensor<4x1x1xi32> {graph.name = "first_token_offset"})
    -> (tensor<1x64x24xbf16> {graph.name = "gate"}, tensor<1x64x24xbf16> {graph.name = "up"}) attributes {compute_data_type = f32} {
  %g = graph.moe_grouped_matmul %tokens, %w_gate, offsets %off token_index %index
      {mode = #graph.moe_mode<gather>, name = "experts.gate", compute_data_type = f32}
      : (tensor<1x32x16xbf16>, tensor<4x16x24xbf16, #graph.strides<[384, 1, 16]>>, tensor<4x1x1xi32>, tensor<64x1x1xi32>) -> tensor<1x64x24xbf16>
  %u = graph.moe_grouped_matmul %tokens, %w_up, offsets %off token_index %index
      {mode = #graph.moe_mode<gather>, name = "experts.up", compute_data_type = f32}
      : (tensor<1x32x16xbf16>, tensor<4x16x24xbf16, #graph.strides<[384, 1, 16]>>, tensor<4x1x1xi32>, tensor<64x1x1xi32>) -> tensor<1x64x24xbf16>
  graph.output %g, %u : tensor<1x64x24xbf16>, tensor<1x64x24xbf16>
}

// -----

// Different routings gather apart; none mode is not touched.
// CHECK-LABEL: graph.graph @apart
// CHECK: moe_gather_rows %arg0, %arg2
// CHECK: moe_gather_rows %arg0, %arg3
// CHECK-NOT: moe_gather_rows
// CHECK: moe_grouped_matmul
// CHECK-NOT: moe_gather_rows
// EXEC-LABEL: exec.program @apart
// EXEC-COUNT-2: exec.kernel_group
graph.graph @apart(%t: tensor<1x8x4xf32>, %w: tensor<2x4x3xf32>, %i0: tensor<8x1x1xi32>, %i1: tensor<8x1x1xi32>,
                   %off: tensor<2x1x1xi32>)
    -> (tensor<1x8x3xf32>, tensor<1x8x3xf32>, tensor<1x8x3xf32>) attributes {compute_data_type = f32} {
  %a = graph.moe_grouped_matmul %t, %w, offsets %off token_index %i0 {mode = #graph.moe_mode<gather>}
      : (tensor<1x8x4xf32>, tensor<2x4x3xf32>, tensor<2x1x1xi32>, tensor<8x1x1xi32>) -> tensor<1x8x3xf32>
  %b = graph.moe_grouped_matmul %t, %w, offsets %off token_index %i1 {mode = #graph.moe_mode<gather>}
      : (tensor<1x8x4xf32>, tensor<2x4x3xf32>, tensor<2x1x1xi32>, tensor<8x1x1xi32>) -> tensor<1x8x3xf32>
  %d = graph.moe_grouped_matmul %t, %w, offsets %off
      : (tensor<1x8x4xf32>, tensor<2x4x3xf32>, tensor<2x1x1xi32>) -> tensor<1x8x3xf32>
  graph.output %a, %b, %d : tensor<1x8x3xf32>, tensor<1x8x3xf32>, tensor<1x8x3xf32>
}

// -----

// An i64 routing is not split (the generated gather reads i32); the gather
// left in place is refused by engine selection, not handed to cuDNN.
// CHECK-LABEL: graph.graph @i64_routing
// CHECK-NOT: moe_gather_rows
// CHECK: moe_grouped_matmul {{.*}} token_index {{.*}}mode = #graph.moe_mode<gather>
graph.graph @i64_routing(%t: tensor<1x8x4xf32>, %w: tensor<2x4x3xf32>, %i64: tensor<8x1x1xi64>, %off: tensor<2x1x1xi32>)
    -> tensor<1x8x3xf32> attributes {compute_data_type = f32} {
  // expected-error @+1 {{cuDNN 9.19's gather-mode grouped matmul faulted with an illegal address on an H100 (sm90), so it is not run; graph-split-moe-gather runs gather mode as a row gather for f32, f16, bf16 and fp8 tokens with i32 routing and a static K}}
  %c = graph.moe_grouped_matmul %t, %w, offsets %off token_index %i64 {mode = #graph.moe_mode<gather>}
      : (tensor<1x8x4xf32>, tensor<2x4x3xf32>, tensor<2x1x1xi32>, tensor<8x1x1xi64>) -> tensor<1x8x3xf32>
  graph.output %c : tensor<1x8x3xf32>
}

// -----

// Tokens the generated gather does not copy (i8, fp4) stay with the
// gather-mode matmul, which no engine then runs (named at the first).
// CHECK-LABEL: graph.graph @kept
// CHECK-NOT: moe_gather_rows
// CHECK-COUNT-2: mode = #graph.moe_mode<gather>
// CHECK-NOT: moe_gather_rows
graph.graph @kept(%t8: tensor<1x8x4xi8>, %t4: tensor<1x8x4xf4E2M1FN>,
                  %w8: tensor<2x4x3xi8>, %w4: tensor<2x4x3xf4E2M1FN>,
                  %i: tensor<8x1x1xi32>, %off: tensor<2x1x1xi32>)
    -> (tensor<1x8x3xf32>, tensor<1x8x3xf32>) attributes {compute_data_type = f32} {
  // expected-error @+1 {{cuDNN 9.19's gather-mode grouped matmul faulted}}
  %a = graph.moe_grouped_matmul %t8, %w8, offsets %off token_index %i {mode = #graph.moe_mode<gather>}
      : (tensor<1x8x4xi8>, tensor<2x4x3xi8>, tensor<2x1x1xi32>, tensor<8x1x1xi32>) -> tensor<1x8x3xf32>
  %b = graph.moe_grouped_matmul %t4, %w4, offsets %off token_index %i {mode = #graph.moe_mode<gather>}
      : (tensor<1x8x4xf4E2M1FN>, tensor<2x4x3xf4E2M1FN>, tensor<2x1x1xi32>, tensor<8x1x1xi32>) -> tensor<1x8x3xf32>
  graph.output %a, %b : tensor<1x8x3xf32>, tensor<1x8x3xf32>
}
