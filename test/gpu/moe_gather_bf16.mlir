// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=4 --check-against=cpu --verbose-plans %s | FileCheck %s
// CHECK: plan: gate_up/group0: codegen_v2
// CHECK: plan: gate_up/group1: eng
// CHECK: plan: gate_up/group2: eng
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: an MoE layer's gate and up projections in gather mode (Mixtral's):
// GPU: 96 tokens, top 2, so 192 routed rows over 6 experts, graph-run's
// GPU: legal routing (every index a token). cuDNN 9.19's gather-mode engine
// GPU: faults on the H200 (illegal address): graph-split-moe-gather gathers
// GPU: the rows once on the generated kernels and runs both matmuls in none
// GPU: mode on cuDNN, against the CPU reference's gather mode.
// GPU-ARGS: --random-inputs=4 --check-against=cpu
graph.graph @gate_up(%tokens: tensor<1x96x64xbf16> {graph.name = "tokens"},
                     %w_gate: tensor<6x64x48xbf16, #graph.strides<[3072, 1, 64]>> {graph.name = "w_gate"},
                     %w_up: tensor<6x64x48xbf16, #graph.strides<[3072, 1, 64]>> {graph.name = "w_up"},
                     %off: tensor<6x1x1xi32> {graph.name = "first_token_offset"},
                     %index: tensor<1x192x1xi32> {graph.name = "token_index"})
    -> (tensor<1x192x48xbf16> {graph.name = "gate"}, tensor<1x192x48xbf16> {graph.name = "up"})
    attributes {compute_data_type = f32} {
  %g = graph.moe_grouped_matmul %tokens, %w_gate, offsets %off token_index %index
      {mode = #graph.moe_mode<gather>, name = "experts.gate"}
      : (tensor<1x96x64xbf16>, tensor<6x64x48xbf16, #graph.strides<[3072, 1, 64]>>, tensor<6x1x1xi32>, tensor<1x192x1xi32>) -> tensor<1x192x48xbf16>
  %u = graph.moe_grouped_matmul %tokens, %w_up, offsets %off token_index %index
      {mode = #graph.moe_mode<gather>, name = "experts.up"}
      : (tensor<1x96x64xbf16>, tensor<6x64x48xbf16, #graph.strides<[3072, 1, 64]>>, tensor<6x1x1xi32>, tensor<1x192x1xi32>) -> tensor<1x192x48xbf16>
  graph.output %g, %u : tensor<1x192x48xbf16>, tensor<1x192x48xbf16>
}
