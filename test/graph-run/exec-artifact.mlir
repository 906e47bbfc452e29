// RUN: not graph-run --device=cpu %s 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not graph-run --device=gpu --check-against=cpu %s 2>&1 | FileCheck %s --check-prefix=CHECKCPU

// An exec.program (the artifact graph-lower-to-executable writes) runs only
// on the GPU: the CPU device names the flag to use.
// CPU: graph-run: error: '{{.*}}exec-artifact.mlir' holds exec.program @mlp, a compiled artifact that runs only on the GPU: use --device=gpu
// CHECKCPU: graph-run: error: --check-against=cpu: exec.program @mlp is a compiled artifact with no graph for the CPU reference to run
exec.program @mlp
    inputs = [#exec.tensor<uid = 1, dtype = f16, dims = [4, 8], strides = [8, 1], name = "x">,
              #exec.tensor<uid = 2, dtype = f16, dims = [8, 16], strides = [16, 1]>]
    outputs = [#exec.tensor<uid = 3, dtype = f16, dims = [4, 16], strides = [16, 1], name = "y">]
    buffers = [] {
  exec.cudnn_group "mlp/group0"
      tensors = [#exec.tensor<uid = 1, dtype = f16, dims = [1, 4, 8], strides = [32, 8, 1]>,
                 #exec.tensor<uid = 2, dtype = f16, dims = [1, 8, 16], strides = [128, 16, 1]>,
                 #exec.tensor<uid = 4, dtype = f32, dims = [1, 4, 16], strides = [64, 16, 1], is_virtual = true>,
                 #exec.tensor<uid = 3, dtype = f16, dims = [1, 4, 16], strides = [64, 16, 1]>]
      ops = [#exec.op<kind = "matmul", inputs = {A = 1 : i64, B = 2 : i64}, outputs = {C = 4 : i64}, compute = f32>,
             #exec.op<kind = "pointwise", mode = "relu", inputs = {in0 = 4 : i64}, outputs = {output = 3 : i64}, compute = f32>]
      heuristics = ["a", "fallback"]
}
