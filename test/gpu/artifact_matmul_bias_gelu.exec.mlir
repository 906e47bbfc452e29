// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=1 %s | FileCheck %s
// CHECK: result[0] (uid 4 "Y")
// GPU: the AOT artifact of matmul_bias_gelu_bf16.mlir, produced by
//   graph-opt matmul_bias_gelu_bf16.mlir --graph-prepare --graph-fuse \
//     --graph-select-engines --graph-lower-to-executable
// run as is (no graph pipeline on the device); an artifact has no graph for
// --check-against=cpu, so the suite only requires exit 0.
// GPU-ARGS: --random-inputs=1
// GPU-EXPECT-NO-CHECK
module {
  exec.program @matmul_bias_gelu inputs = [#exec.tensor<uid = 1, dtype = bf16, dims = [256, 512], strides = [512, 1], name = "A">, #exec.tensor<uid = 2, dtype = bf16, dims = [512, 384], strides = [384, 1], name = "B">, #exec.tensor<uid = 3, dtype = bf16, dims = [1, 384], strides = [384, 1], name = "bias">] outputs = [#exec.tensor<uid = 4, dtype = bf16, dims = [256, 384], strides = [384, 1], name = "Y">] buffers = [] {
    exec.cudnn_group "matmul_bias_gelu/group0" inputs = [#exec.tensor<uid = 1, dtype = bf16, dims = [256, 512], strides = [512, 1]>, #exec.tensor<uid = 2, dtype = bf16, dims = [512, 384], strides = [384, 1]>, #exec.tensor<uid = 3, dtype = bf16, dims = [1, 384], strides = [384, 1]>] outputs = [#exec.tensor<uid = 4, dtype = bf16, dims = [256, 384], strides = [384, 1]>] compute = f32 heuristics = ["a", "fallback"] {
    ^bb0(%arg0: tensor<256x512xbf16, #graph.strides<[512, 1]>>, %arg1: tensor<512x384xbf16, #graph.strides<[384, 1]>>, %arg2: tensor<1x384xbf16, #graph.strides<[384, 1]>>):
      %0 = graph.matmul %arg0, %arg1 {name = "mm"} : (tensor<256x512xbf16, #graph.strides<[512, 1]>>, tensor<512x384xbf16, #graph.strides<[384, 1]>>) -> tensor<256x384xf32, #graph.strides<[384, 1]>>
      %1 = graph.pointwise add(%0, %arg2) {name = "bias"} : (tensor<256x384xf32, #graph.strides<[384, 1]>>, tensor<1x384xbf16, #graph.strides<[384, 1]>>) -> tensor<256x384xf32, #graph.strides<[384, 1]>>
      %2 = graph.pointwise gelu(%1) {name = "gelu"} : (tensor<256x384xf32, #graph.strides<[384, 1]>>) -> tensor<256x384xbf16, #graph.strides<[384, 1]>>
      exec.yield %2 : tensor<256x384xbf16, #graph.strides<[384, 1]>>
    }
  }
}

