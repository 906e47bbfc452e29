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
    exec.cudnn_group "matmul_bias_gelu/group0" tensors = [#exec.tensor<uid = 1, dtype = bf16, dims = [1, 256, 512], strides = [131072, 512, 1]>, #exec.tensor<uid = 2, dtype = bf16, dims = [1, 512, 384], strides = [196608, 384, 1]>, #exec.tensor<uid = 5, dtype = f32, dims = [1, 256, 384], strides = [98304, 384, 1], is_virtual = true>, #exec.tensor<uid = 3, dtype = bf16, dims = [1, 1, 384], strides = [384, 384, 1]>, #exec.tensor<uid = 6, dtype = f32, dims = [1, 256, 384], strides = [98304, 384, 1], is_virtual = true>, #exec.tensor<uid = 4, dtype = bf16, dims = [1, 256, 384], strides = [98304, 384, 1]>] ops = [#exec.op<kind = "matmul", name = "mm", inputs = {A = 1 : i64, B = 2 : i64}, outputs = {C = 5 : i64}, compute = f32>, #exec.op<kind = "pointwise", mode = "add", name = "bias", inputs = {in0 = 5 : i64, in1 = 3 : i64}, outputs = {output = 6 : i64}, compute = f32>, #exec.op<kind = "pointwise", mode = "gelu", name = "gelu", inputs = {in0 = 6 : i64}, outputs = {output = 4 : i64}, compute = f32>] heuristics = ["a", "fallback"]
  }
}

