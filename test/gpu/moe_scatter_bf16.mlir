// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=5 --input=first_token_offset=@%S/Inputs/moe_scatter_offsets.npy --input=token_index=@%S/Inputs/moe_scatter_index.npy --input=token_ks=@%S/Inputs/moe_scatter_ks.npy --check-against=cpu --verbose-plans %s | FileCheck %s
// CHECK: plan: down/group0: eng
// CHECK: plan: down/group1: codegen_v2
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: an MoE down projection in scatter mode (Mixtral's): 96 tokens, top 2,
// GPU: so 192 routed rows over 6 experts (one empty), routed by a shuffled
// GPU: permutation. cuDNN 9.19 has no engine config for scatter mode on the
// GPU: H200: graph-split-moe-scatter runs the matmul in none mode on cuDNN
// GPU: and moe_scatter_rows on the generated kernels, against the CPU
// GPU: reference's scatter mode.
// GPU-ARGS: --random-inputs=5 --input=first_token_offset=@%S/Inputs/moe_scatter_offsets.npy --input=token_index=@%S/Inputs/moe_scatter_index.npy --input=token_ks=@%S/Inputs/moe_scatter_ks.npy --check-against=cpu
graph.graph @down(%act: tensor<1x192x64xbf16> {graph.name = "act"},
                  %w: tensor<6x64x48xbf16, #graph.strides<[3072, 1, 64]>> {graph.name = "w_down"},
                  %off: tensor<6x1x1xi32> {graph.name = "first_token_offset"},
                  %index: tensor<192x1x1xi32> {graph.name = "token_index"},
                  %ks: tensor<192x1x1xi32> {graph.name = "token_ks"})
    -> (tensor<1x192x48xbf16> {graph.name = "down"}) attributes {compute_data_type = f32} {
  %y = graph.moe_grouped_matmul %act, %w, offsets %off token_index %index token_ks %ks
      {mode = #graph.moe_mode<scatter>, top_k = 2 : i64, name = "experts.down"}
      : (tensor<1x192x64xbf16>, tensor<6x64x48xbf16, #graph.strides<[3072, 1, 64]>>, tensor<6x1x1xi32>, tensor<192x1x1xi32>, tensor<192x1x1xi32>) -> tensor<1x192x48xbf16>
  graph.output %y : tensor<1x192x48xbf16>
}
