// RUN: graph-opt %s -split-input-file --graph-prepare --graph-fuse --graph-select-engines --graph-lower-to-executable | FileCheck %s
// RUN: graph-opt %s --graph-prepare --graph-fuse --graph-select-engines --graph-lower-to-executable --emit-bytecode | graph-opt | FileCheck %s --check-prefix=BC
// RUN: graph-opt %s -split-input-file --graph-prepare --graph-fuse --graph-select-engines --graph-lower-to-executable=heuristics=b | FileCheck %s --check-prefix=HEUR

// matmul + bias + relu: one group holding the three graph ops; its body's
// arguments are the tensors it reads, exec.yield the one it writes; the
// matmul and bias results are virtual (no #exec.tensor).
// CHECK-NOT: graph.graph
// CHECK-LABEL: exec.program @mlp
// CHECK-SAME: inputs = [#exec.tensor<uid = 1, dtype = f16, dims = [4, 8], strides = [8, 1], name = "x">, #exec.tensor<uid = 2, dtype = f16, dims = [8, 16], strides = [16, 1]>, #exec.tensor<uid = 3, dtype = f16, dims = [1, 16], strides = [16, 1]>]
// CHECK-SAME: outputs = [#exec.tensor<uid = 4, dtype = f16, dims = [4, 16], strides = [16, 1], name = "y">]
// CHECK-SAME: buffers = []
// CHECK-NEXT: exec.cudnn_group "mlp/group0"
// CHECK-SAME: inputs = [#exec.tensor<uid = 1, dtype = f16, dims = [4, 8], strides = [8, 1]>, #exec.tensor<uid = 2, dtype = f16, dims = [8, 16], strides = [16, 1]>, #exec.tensor<uid = 3, dtype = f16, dims = [1, 16], strides = [16, 1]>]
// CHECK-SAME: outputs = [#exec.tensor<uid = 4, dtype = f16, dims = [4, 16], strides = [16, 1]>]
// CHECK-SAME: compute = f32 heuristics = ["a", "fallback"] {
// CHECK-NEXT: ^bb0(%[[X:.+]]: tensor<4x8xf16, #graph.strides<[8, 1]>>, %[[W:.+]]: tensor<8x16xf16, #graph.strides<[16, 1]>>, %[[B:.+]]: tensor<1x16xf16, #graph.strides<[16, 1]>>):
// CHECK-NEXT: %[[MM:.+]] = graph.matmul %[[X]], %[[W]]
// CHECK-NEXT: %[[ADD:.+]] = graph.pointwise add(%[[MM]], %[[B]])
// CHECK-NEXT: %[[RELU:.+]] = graph.pointwise relu(%[[ADD]])
// CHECK-NEXT: exec.yield %[[RELU]] : tensor<4x16xf16, #graph.strides<[16, 1]>>
// CHECK-NEXT: }
// CHECK-NOT: exec.cudnn_group
// BC-LABEL: exec.program @mlp
// BC: exec.cudnn_group "mlp/group0"
// BC-LABEL: exec.program @attn
// BC: exec.cudnn_group "attn/group1"
// HEUR: heuristics = ["b"]
graph.graph @mlp(%x: tensor<4x8xf16> {graph.name = "x"}, %w: tensor<8x16xf16>,
                 %b: tensor<1x16xf16>) -> (tensor<4x16xf16> {graph.name = "y"})
    attributes {compute_data_type = f32} {
  %0 = graph.matmul %x, %w : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf32>
  %1 = graph.pointwise add(%0, %b) : (tensor<4x16xf32>, tensor<1x16xf16>) -> tensor<4x16xf32>
  %2 = graph.pointwise relu(%1) : (tensor<4x16xf32>) -> tensor<4x16xf16>
  graph.output %2 : tensor<4x16xf16>
}

// -----

// conv_fprop + relu: channels-last strides from graph-infer-layout; the
// conv keeps its own typed attributes (the runtime derives the geometry).
// CHECK-LABEL: exec.program @conv
// CHECK-SAME: inputs = [#exec.tensor<uid = 1, dtype = f16, dims = [2, 8, 6, 6], strides = [288, 1, 48, 8]>, #exec.tensor<uid = 2, dtype = f16, dims = [16, 8, 3, 3], strides = [72, 1, 24, 8]>]
// CHECK-SAME: outputs = [#exec.tensor<uid = 3, dtype = f16, dims = [2, 16, 6, 6], strides = [576, 1, 96, 16]>]
// CHECK-NEXT: exec.cudnn_group "conv/group0"
// CHECK-SAME: outputs = [#exec.tensor<uid = 3, dtype = f16, dims = [2, 16, 6, 6], strides = [576, 1, 96, 16]>]
// CHECK: graph.conv_fprop %{{.+}}, %{{.+}} {padding = array<i64: 1, 1>}
// CHECK-NEXT: graph.pointwise relu(
// CHECK-NEXT: exec.yield
graph.graph @conv(%x: tensor<2x8x6x6xf16>, %w: tensor<16x8x3x3xf16>) -> tensor<2x16x6x6xf16>
    attributes {compute_data_type = f32} {
  %c = graph.conv_fprop %x, %w {padding = array<i64: 1, 1>} : (tensor<2x8x6x6xf16>, tensor<16x8x3x3xf16>) -> tensor<2x16x6x6xf32>
  %y = graph.pointwise relu(%c) : (tensor<2x16x6x6xf32>) -> tensor<2x16x6x6xf16>
  graph.output %y : tensor<2x16x6x6xf16>
}

// -----

// layernorm training + its backward: two groups; the epsilon scalar is
// passed by value (an input of the group); mean and inv_var cross groups
// as outputs.
// CHECK-LABEL: exec.program @norm
// CHECK: exec.cudnn_group "norm/group0"
// CHECK-SAME: #exec.tensor<uid = 5, dtype = f32, dims = [1, 1, 1, 1], strides = [1, 1, 1, 1], by_value = {{.*}} : f64>]
// CHECK-SAME: outputs = [#exec.tensor<uid = 6, {{[^>]*}}>, #exec.tensor<uid = 7, {{[^>]*}}>, #exec.tensor<uid = 8, {{[^>]*}}>]
// CHECK: %[[Y:.+]], %[[M:.+]], %[[IV:.+]] = graph.layernorm training
// CHECK-NEXT: exec.yield %[[Y]], %[[M]], %[[IV]]
// CHECK: exec.cudnn_group "norm/group1"
// CHECK-SAME: #exec.tensor<uid = 7, {{[^>]*}}>, #exec.tensor<uid = 8, {{[^>]*}}>]
// CHECK-SAME: outputs = [#exec.tensor<uid = 9, {{[^>]*}}>, #exec.tensor<uid = 10, {{[^>]*}}>, #exec.tensor<uid = 11, {{[^>]*}}>]
// CHECK: graph.layernorm_backward
graph.graph @norm(%x: tensor<8x32x1x1xbf16>, %g: tensor<1x32x1x1xf32>,
                  %b: tensor<1x32x1x1xf32>, %dy: tensor<8x32x1x1xbf16>)
    -> (tensor<8x32x1x1xbf16>, tensor<8x1x1x1xf32>, tensor<8x1x1x1xf32>,
        tensor<8x32x1x1xbf16>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>)
    attributes {compute_data_type = f32} {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1x1x1xf32>
  %y, %m, %iv = graph.layernorm training %x, scale %g, bias %b, epsilon %eps : (tensor<8x32x1x1xbf16>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<8x32x1x1xbf16>, tensor<8x1x1x1xf32>, tensor<8x1x1x1xf32>)
  %dx, %ds, %db = graph.layernorm_backward %dy, %x, scale %g, mean %m, inv_variance %iv : (tensor<8x32x1x1xbf16>, tensor<8x32x1x1xbf16>, tensor<1x32x1x1xf32>, tensor<8x1x1x1xf32>, tensor<8x1x1x1xf32>) -> (tensor<8x32x1x1xbf16>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>)
  graph.output %y, %m, %iv, %dx, %ds, %db : tensor<8x32x1x1xbf16>, tensor<8x1x1x1xf32>, tensor<8x1x1x1xf32>, tensor<8x32x1x1xbf16>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>
}

// -----

// sdpa forward whose O feeds a relu: O crosses groups as an internal buffer.
// CHECK-LABEL: exec.program @attn
// CHECK-SAME: buffers = [#exec.tensor<uid = 6, dtype = bf16, dims = [1, 2, 16, 8], strides = [256, 128, 8, 1]>]
// CHECK-NEXT: exec.cudnn_group "attn/group0"
// CHECK-SAME: outputs = [#exec.tensor<uid = 6, {{[^>]*}}>, #exec.tensor<uid = 5, {{[^>]*}}>]
// CHECK: %[[O:.+]], %[[S:.+]] = graph.sdpa %{{.+}}, %{{.+}}, %{{.+}} {attn_scale_value = 1.250000e-01 : f64, generate_stats, use_causal_mask}
// CHECK-NEXT: exec.yield %[[O]], %[[S]]
// CHECK: exec.cudnn_group "attn/group1"
// CHECK-SAME: inputs = [#exec.tensor<uid = 6, {{[^>]*}}>]
graph.graph @attn(%q: tensor<1x2x16x8xbf16>, %k: tensor<1x2x16x8xbf16>, %v: tensor<1x2x16x8xbf16>)
    -> (tensor<1x2x16x8xbf16>, tensor<1x2x16x1xf32>)
    attributes {compute_data_type = f32} {
  %o, %stats = graph.sdpa %q, %k, %v {use_causal_mask, generate_stats, attn_scale_value = 0.125 : f64} : (tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>) -> (tensor<1x2x16x8xbf16>, tensor<1x2x16x1xf32>, none, none)
  %r = graph.pointwise relu(%o) : (tensor<1x2x16x8xbf16>) -> tensor<1x2x16x8xbf16>
  graph.output %r, %stats : tensor<1x2x16x8xbf16>, tensor<1x2x16x1xf32>
}

// -----

// A graph.by_value input (the frontend's is_pass_by_value) stays a program
// buffer; inside the cuDNN group it is marked read_by_value, so the runtime
// hands cuDNN its value instead of its device address.
// CHECK-LABEL: exec.program @scaled
// CHECK-SAME: inputs = [{{.*}}#exec.tensor<uid = 3, dtype = f32, dims = [1, 1], strides = [1, 1], name = "s">]
// CHECK-NEXT: exec.cudnn_group "scaled/group0"
// CHECK-SAME: #exec.tensor<uid = 3, dtype = f32, dims = [1, 1], strides = [1, 1], read_by_value = true>
graph.graph @scaled(%x: tensor<4x8xf16>, %w: tensor<8x16xf16>,
                    %s: tensor<1x1xf32> {graph.by_value, graph.name = "s"})
    -> tensor<4x16xf16> attributes {compute_data_type = f32} {
  %mm = graph.matmul %x, %w : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf32>
  %y = graph.pointwise mul(%mm, %s) : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf16>
  graph.output %y : tensor<4x16xf16>
}

// -----

// cuDNN takes a by-value tensor only in pointwise ops (and by-value ports):
// a graph.by_value input a matmul reads stays device memory in the group.
// CHECK-LABEL: exec.program @by_value_matmul
// CHECK-NEXT: exec.cudnn_group "by_value_matmul/group0"
// CHECK-SAME: #exec.tensor<uid = 2, dtype = f16, dims = [1, 1], strides = [1, 1]>
// CHECK-NOT: read_by_value
graph.graph @by_value_matmul(%x: tensor<4x1xf16>, %s: tensor<1x1xf16> {graph.by_value})
    -> tensor<4x1xf16> attributes {compute_data_type = f32} {
  %y = graph.matmul %x, %s : (tensor<4x1xf16>, tensor<1x1xf16>) -> tensor<4x1xf16>
  graph.output %y : tensor<4x1xf16>
}
