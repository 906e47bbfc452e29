// RUN: graph-opt %s | graph-opt | FileCheck %s
// RUN: graph-opt %s --mlir-print-op-generic | graph-opt | FileCheck %s
// RUN: graph-opt %s --emit-bytecode | graph-opt | FileCheck %s

// Round trip of the exec dialect: a program with an internal buffer, an
// aliased output, a by-value scalar, heuristics and a pinned engine, and a
// group of generated kernels (a PTX and a cubin module, scratch, each
// argument's access and alignment).

// CHECK-LABEL: exec.program @mlp
// CHECK-SAME: inputs = [#exec.tensor<uid = 1, dtype = f16, dims = [4, 8], strides = [8, 1], name = "x">, #exec.tensor<uid = 2, dtype = f16, dims = [8, 16], strides = [16, 1]>]
// CHECK-SAME: outputs = [#exec.tensor<uid = 3, dtype = f16, dims = [4, 16], strides = [16, 1], name = "y">, #exec.tensor<uid = 1, dtype = f16, dims = [4, 8], strides = [8, 1]>]
// CHECK-SAME: buffers = [#exec.tensor<uid = 10, dtype = f32, dims = [4, 16], strides = [16, 1]>]
// CHECK-SAME: attributes {output_aliases = array<i64: -1, 0>}
// CHECK: exec.cudnn_group "mlp/group0"
// CHECK-SAME: #exec.tensor<uid = 11, dtype = f32, dims = [1, 4, 16], strides = [64, 16, 1], is_virtual = true>
// CHECK-SAME: #exec.op<kind = "matmul", name = "mm", inputs = {A = 1 : i64, B = 2 : i64}, outputs = {C = 11 : i64}, compute = f32>
// CHECK-SAME: heuristics = ["a", "fallback"]
// CHECK: exec.cudnn_group "mlp/group1"
// CHECK-SAME: by_value = 5.000000e-01 : f64
// CHECK-SAME: floats = {negative_slope = 1.000000e-01 : f64}
// CHECK-SAME: engine = 7 knobs = [2, 1, 3, 0]
// CHECK: exec.kernel_group "mlp/group2" engine = "codegen_v2_t256_i2" scratch = [#exec.scratch<uid = -1, bytes = 256>] {
// CHECK-NEXT: exec.kernel_module @kernels format = ptx binary = ".version 8.0\0A.target sm_90\0A.visible .entry k0(\0A)\0A.visible .entry k1 (\0A)"
// CHECK-NEXT: exec.kernel_module @image format = cubin binary = "\7FELF\02\01"
// CHECK-NEXT: exec.kernel_launch @kernels entry = "k0" grid = [4, 1, 1] block = [128, 1, 1] args = [#exec.arg<uid = 10, access = read, align = 16>, #exec.arg<uid = -1, access = scratch>]
// CHECK-NEXT: exec.kernel_launch @kernels entry = "k1" grid = [1, 2, 3] block = [32, 4, 1] args = [#exec.arg<uid = -1, access = scratch>, #exec.arg<uid = 3, access = write, align = 8>]
// CHECK-NEXT: exec.kernel_launch @image entry = "anything" grid = [1, 1, 1] block = [1, 1, 1] args = []
// CHECK-NEXT: }
exec.program @mlp
    inputs = [#exec.tensor<uid = 1, dtype = f16, dims = [4, 8], strides = [8, 1], name = "x">,
              #exec.tensor<uid = 2, dtype = f16, dims = [8, 16], strides = [16, 1]>]
    outputs = [#exec.tensor<uid = 3, dtype = f16, dims = [4, 16], strides = [16, 1], name = "y">,
               #exec.tensor<uid = 1, dtype = f16, dims = [4, 8], strides = [8, 1]>]
    buffers = [#exec.tensor<uid = 10, dtype = f32, dims = [4, 16], strides = [16, 1]>]
    attributes {output_aliases = array<i64: -1, 0>} {
  exec.cudnn_group "mlp/group0"
      tensors = [#exec.tensor<uid = 1, dtype = f16, dims = [1, 4, 8], strides = [32, 8, 1]>,
                 #exec.tensor<uid = 2, dtype = f16, dims = [1, 8, 16], strides = [128, 16, 1]>,
                 #exec.tensor<uid = 11, dtype = f32, dims = [1, 4, 16], strides = [64, 16, 1], is_virtual = true>,
                 #exec.tensor<uid = 10, dtype = f32, dims = [1, 4, 16], strides = [64, 16, 1]>]
      ops = [#exec.op<kind = "matmul", name = "mm", inputs = {A = 1 : i64, B = 2 : i64}, outputs = {C = 11 : i64}, compute = f32>,
             #exec.op<kind = "pointwise", mode = "relu", inputs = {in0 = 11 : i64}, outputs = {output = 10 : i64}, compute = f32>]
      heuristics = ["a", "fallback"]
  exec.cudnn_group "mlp/group1"
      tensors = [#exec.tensor<uid = 10, dtype = f32, dims = [1, 4, 16], strides = [64, 16, 1]>,
                 #exec.tensor<uid = 12, dtype = f32, dims = [1, 1, 1], strides = [1, 1, 1], by_value = 5.000000e-01 : f64>,
                 #exec.tensor<uid = 3, dtype = f16, dims = [1, 4, 16], strides = [64, 16, 1]>]
      ops = [#exec.op<kind = "pointwise", mode = "mul", inputs = {in0 = 10 : i64, in1 = 12 : i64}, outputs = {output = 3 : i64}, floats = {negative_slope = 0.1 : f64}, compute = f32>]
      engine = 7 knobs = [2, 1, 3, 0]
  exec.kernel_group "mlp/group2" engine = "codegen_v2_t256_i2"
      scratch = [#exec.scratch<uid = -1, bytes = 256>] {
    exec.kernel_module @kernels format = ptx
        binary = ".version 8.0\0A.target sm_90\0A.visible .entry k0(\0A)\0A.visible .entry k1 (\0A)"
    exec.kernel_module @image format = cubin binary = "\7FELF\02\01"
    exec.kernel_launch @kernels entry = "k0" grid = [4, 1, 1] block = [128, 1, 1]
        args = [#exec.arg<uid = 10, access = read, align = 16>,
                #exec.arg<uid = -1, access = scratch>]
    exec.kernel_launch @kernels entry = "k1" grid = [1, 2, 3] block = [32, 4, 1]
        args = [#exec.arg<uid = -1, access = scratch, align = 0>,
                #exec.arg<access = write, uid = 3, align = 8>]
    exec.kernel_launch @image entry = "anything" grid = [1, 1, 1] block = [1, 1, 1]
        args = []
  }
}

// CHECK-LABEL: exec.program @conv
// CHECK: ints = {dilation = array<i64: 1, 1>, stride = array<i64: 2, 2>}
exec.program @conv
    inputs = [#exec.tensor<uid = 1, dtype = f16, dims = [1, 8, 4, 4], strides = [128, 1, 32, 8]>,
              #exec.tensor<uid = 2, dtype = f16, dims = [8, 8, 1, 1], strides = [8, 1, 8, 8]>]
    outputs = [#exec.tensor<uid = 3, dtype = f16, dims = [1, 8, 2, 2], strides = [32, 1, 16, 8]>]
    buffers = [] {
  exec.cudnn_group "conv/group0"
      tensors = [#exec.tensor<uid = 1, dtype = f16, dims = [1, 8, 4, 4], strides = [128, 1, 32, 8]>,
                 #exec.tensor<uid = 2, dtype = f16, dims = [8, 8, 1, 1], strides = [8, 1, 8, 8]>,
                 #exec.tensor<uid = 3, dtype = f16, dims = [1, 8, 2, 2], strides = [32, 1, 16, 8]>]
      ops = [#exec.op<kind = "conv_fprop", mode = "cross_correlation", inputs = {image = 1 : i64, weight = 2 : i64}, outputs = {Y = 3 : i64}, ints = {stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>}, compute = f32>]
      heuristics = ["b"]
}
