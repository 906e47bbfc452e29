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
      inputs = [#exec.tensor<uid = 1, dtype = f16, dims = [4, 8], strides = [8, 1]>,
                #exec.tensor<uid = 2, dtype = f16, dims = [8, 16], strides = [16, 1]>]
      outputs = [#exec.tensor<uid = 3, dtype = f16, dims = [4, 16], strides = [16, 1]>]
      compute = f32 heuristics = ["a", "fallback"] {
  ^bb0(%x: tensor<4x8xf16>, %w: tensor<8x16xf16>):
    %0 = graph.matmul %x, %w : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf32>
    %1 = graph.pointwise relu(%0) : (tensor<4x16xf32>) -> tensor<4x16xf16>
    exec.yield %1 : tensor<4x16xf16>
  }
}
