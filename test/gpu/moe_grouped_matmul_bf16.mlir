// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=3 --check-against=cpu --verbose-plans %s | FileCheck %s
// CHECK: plan: moe/group0: eng
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN's mixture-of-experts grouped matmul (the frontend's
// test_moe_grouped_matmul shape, smaller): 256 tokens of 128 grouped over 8
// experts by random first-token offsets, each expert's [128, 64] weight
// laid out column-major as the frontend's test lays it, bf16 in and out,
// fp32 compute, against the CPU reference.
// GPU-ARGS: --random-inputs=3 --check-against=cpu
graph.graph @moe(%t: tensor<1x256x128xbf16> {graph.name = "token"},
                 %w: tensor<8x128x64xbf16, #graph.strides<[8192, 1, 128]>> {graph.name = "weight"},
                 %off: tensor<8x1x1xi32> {graph.name = "first_token_offset"})
    -> (tensor<1x256x64xbf16> {graph.name = "output"})
    attributes {compute_data_type = f32} {
  %y = graph.moe_grouped_matmul %t, %w, offsets %off {name = "moe_grouped_matmul"}
      : (tensor<1x256x128xbf16>, tensor<8x128x64xbf16, #graph.strides<[8192, 1, 128]>>, tensor<8x1x1xi32>) -> tensor<1x256x64xbf16>
  graph.output %y : tensor<1x256x64xbf16>
}
