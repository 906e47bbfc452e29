// RUN: graph-opt %s | graph-opt | FileCheck %s
// RUN: graph-opt %s --mlir-print-op-generic | graph-opt | FileCheck %s
// RUN: graph-opt %s --emit-bytecode | graph-opt | FileCheck %s

// Round trip of the exec dialect: a program with an internal buffer, an
// aliased output, cuDNN groups holding their graph ops (a by-value scalar,
// a buffer narrower than its value, a compute type, heuristics and a pinned
// engine, a conv with its typed attributes, a norm with several results),
// and a group of generated kernels (a PTX and a cubin module, scratch, each
// argument's access and alignment).

// CHECK-LABEL: exec.program @mlp
// CHECK-SAME: inputs = [#exec.tensor<uid = 1, dtype = f16, dims = [4, 8], strides = [8, 1], name = "x">, #exec.tensor<uid = 2, dtype = f16, dims = [8, 16], strides = [16, 1]>]
// CHECK-SAME: outputs = [#exec.tensor<uid = 3, dtype = f16, dims = [4, 16], strides = [16, 1], name = "y">, #exec.tensor<uid = 1, dtype = f16, dims = [4, 8], strides = [8, 1]>]
// CHECK-SAME: buffers = [#exec.tensor<uid = 10, dtype = f32, dims = [4, 16], strides = [16, 1]>]
// CHECK-SAME: attributes {output_aliases = array<i64: -1, 0>}
// CHECK: exec.cudnn_group "mlp/group0"
// CHECK-SAME: inputs = [#exec.tensor<uid = 1, dtype = f16, dims = [4, 8], strides = [8, 1]>, #exec.tensor<uid = 2, dtype = f16, dims = [8, 16], strides = [16, 1]>]
// CHECK-SAME: outputs = [#exec.tensor<uid = 10, dtype = f32, dims = [4, 16], strides = [16, 1]>]
// CHECK-SAME: compute = f32 heuristics = ["a", "fallback"] {
// CHECK-NEXT: ^bb0(%[[X:.+]]: tensor<4x8xf16>, %[[W:.+]]: tensor<8x16xf16>):
// CHECK-NEXT: %[[MM:.+]] = graph.matmul %[[X]], %[[W]] {name = "mm"} : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[R:.+]] = graph.pointwise relu(%[[MM]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: exec.yield %[[R]] : tensor<4x16xf32>
// CHECK-NEXT: }
// CHECK: exec.cudnn_group "mlp/group1"
// CHECK-SAME: #exec.tensor<uid = 12, dtype = f32, dims = [1, 1], strides = [1, 1], by_value = 5.000000e-01 : f64>
// CHECK-SAME: outputs = [#exec.tensor<uid = 3, dtype = f16, dims = [4, 16], strides = [16, 1]>]
// CHECK-SAME: engine = 7 knobs = [2, 1, 3, 0] {
// CHECK: graph.pointwise leaky_relu(%{{.+}}) {negative_slope = 1.000000e-01 : f64}
// CHECK: graph.pointwise mul(
// CHECK-NEXT: exec.yield
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
      inputs = [#exec.tensor<uid = 1, dtype = f16, dims = [4, 8], strides = [8, 1]>,
                #exec.tensor<uid = 2, dtype = f16, dims = [8, 16], strides = [16, 1]>]
      outputs = [#exec.tensor<uid = 10, dtype = f32, dims = [4, 16], strides = [16, 1]>]
      compute = f32 heuristics = ["a", "fallback"] {
  ^bb0(%x: tensor<4x8xf16>, %w: tensor<8x16xf16>):
    %mm = graph.matmul %x, %w {name = "mm"} : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf32>
    %r = graph.pointwise relu(%mm) : (tensor<4x16xf32>) -> tensor<4x16xf32>
    exec.yield %r : tensor<4x16xf32>
  }
  exec.cudnn_group "mlp/group1"
      inputs = [#exec.tensor<uid = 10, dtype = f32, dims = [4, 16], strides = [16, 1]>,
                #exec.tensor<uid = 12, dtype = f32, dims = [1, 1], strides = [1, 1], by_value = 5.000000e-01 : f64>]
      outputs = [#exec.tensor<uid = 3, dtype = f16, dims = [4, 16], strides = [16, 1]>]
      engine = 7 knobs = [2, 1, 3, 0] {
  ^bb0(%h: tensor<4x16xf32>, %half: tensor<1x1xf32>):
    %l = graph.pointwise leaky_relu(%h) {negative_slope = 0.1 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %y = graph.pointwise mul(%l, %half) : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf16>
    exec.yield %y : tensor<4x16xf16>
  }
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
// CHECK: exec.cudnn_group "conv/group0"
// CHECK: graph.conv_fprop %{{.+}}, %{{.+}} {dilation = array<i64: 1, 1>, stride = array<i64: 2, 2>}
exec.program @conv
    inputs = [#exec.tensor<uid = 1, dtype = f16, dims = [1, 8, 4, 4], strides = [128, 1, 32, 8]>,
              #exec.tensor<uid = 2, dtype = f16, dims = [8, 8, 1, 1], strides = [8, 1, 8, 8]>]
    outputs = [#exec.tensor<uid = 3, dtype = f16, dims = [1, 8, 2, 2], strides = [32, 1, 16, 8]>]
    buffers = [] {
  exec.cudnn_group "conv/group0"
      inputs = [#exec.tensor<uid = 1, dtype = f16, dims = [1, 8, 4, 4], strides = [128, 1, 32, 8]>,
                #exec.tensor<uid = 2, dtype = f16, dims = [8, 8, 1, 1], strides = [8, 1, 8, 8]>]
      outputs = [#exec.tensor<uid = 3, dtype = f16, dims = [1, 8, 2, 2], strides = [32, 1, 16, 8]>]
      heuristics = ["b"] {
  ^bb0(%x: tensor<1x8x4x4xf16>, %w: tensor<8x8x1x1xf16>):
    %y = graph.conv_fprop %x, %w {stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x8x4x4xf16>, tensor<8x8x1x1xf16>) -> tensor<1x8x2x2xf16>
    exec.yield %y : tensor<1x8x2x2xf16>
  }
}

// A training layernorm: three results, two written (Y, mean), one virtual.
// CHECK-LABEL: exec.program @norm
// CHECK: exec.cudnn_group "norm/group0"
// CHECK: %[[Y:.+]], %[[M:.+]], %{{.+}} = graph.layernorm training
// CHECK: exec.yield %[[Y]], %[[M]] : tensor<4x16xf32>, tensor<4x1xf32>
exec.program @norm
    inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4, 16], strides = [16, 1]>,
              #exec.tensor<uid = 2, dtype = f32, dims = [1, 16], strides = [16, 1]>,
              #exec.tensor<uid = 3, dtype = f32, dims = [1, 16], strides = [16, 1]>]
    outputs = [#exec.tensor<uid = 4, dtype = f32, dims = [4, 16], strides = [16, 1]>,
               #exec.tensor<uid = 5, dtype = f32, dims = [4, 1], strides = [1, 1]>]
    buffers = [] {
  exec.cudnn_group "norm/group0"
      inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4, 16], strides = [16, 1]>,
                #exec.tensor<uid = 2, dtype = f32, dims = [1, 16], strides = [16, 1]>,
                #exec.tensor<uid = 3, dtype = f32, dims = [1, 16], strides = [16, 1]>,
                #exec.tensor<uid = 6, dtype = f32, dims = [1, 1], strides = [1, 1], by_value = 1.0e-05 : f64>]
      outputs = [#exec.tensor<uid = 4, dtype = f32, dims = [4, 16], strides = [16, 1]>,
                 #exec.tensor<uid = 5, dtype = f32, dims = [4, 1], strides = [1, 1]>]
      compute = f32 heuristics = ["a"] {
  ^bb0(%x: tensor<4x16xf32>, %g: tensor<1x16xf32>, %b: tensor<1x16xf32>, %eps: tensor<1x1xf32>):
    %y, %mean, %iv = graph.layernorm training %x, scale %g, bias %b, epsilon %eps
        : (tensor<4x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x1xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
    exec.yield %y, %mean : tensor<4x16xf32>, tensor<4x1xf32>
  }
}
