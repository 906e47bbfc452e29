// RUN: not graph-opt %s -split-input-file --graph-fuse --graph-select-engines=engines=cudnn,codegen 2>/dev/null | FileCheck %s
// RUN: not graph-opt %s -split-input-file --graph-fuse --graph-select-engines=engines=cudnn,codegen 2>&1 >/dev/null | FileCheck %s --check-prefix=BOTH
// RUN: not graph-opt %s -split-input-file --graph-fuse --graph-select-engines=engines=cudnn 2>/dev/null | FileCheck %s --check-prefix=SPLIT
// RUN: not graph-opt %s -split-input-file --graph-fuse --graph-select-engines=engines=cudnn 2>&1 >/dev/null | FileCheck %s --check-prefix=NOENGINE

// A group that engines take whole lists them in rank order, each with the
// plans it proposes: a pointwise chain with a last-axis reduction is
// cuDNN's (its heuristics) and codegen's (every generated-kernel plan).
// CHECK-LABEL: graph.graph @ranked
// CHECK-NEXT: group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>, #graph.engine<codegen, plans = ["codegen_v2_t128_i4", {{.*}}, "codegen_v1"]>] (
// CHECK-NEXT: pointwise exp(
// CHECK-NEXT: reduction add
// CHECK-NEXT: yield
graph.graph @ranked(%a: tensor<4x4xf32>) -> tensor<4x1xf32> {
  %e = graph.pointwise exp(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = graph.reduction add %e : (tensor<4x4xf32>) -> tensor<4x1xf32>
  graph.output %s : tensor<4x1xf32>
}

// -----

// Codegen declines what it has no kernel for (a matmul) and takes
// reductions over any axes and gen_index; cuDNN has no transpose. Each op
// is its own group here, numbered in schedule order.
// CHECK-LABEL: graph.graph @per_engine
// CHECK-NEXT: %[[M:.*]] = group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>] (
// CHECK-NEXT: matmul
// CHECK: %[[S:.*]] = group 1 engines [#graph.engine<cudnn, {{[^>]*}}>, #graph.engine<codegen, {{[^>]*}}>] (
// CHECK-NEXT: reduction add
// CHECK: %[[I:.*]] = group 2 engines [#graph.engine<cudnn, {{[^>]*}}>, #graph.engine<codegen, {{[^>]*}}>] (
// CHECK-NEXT: pointwise gen_index(
// CHECK: %[[T:.*]] = group 3 engines [#graph.engine<codegen, {{[^>]*}}>] (
// CHECK-NEXT: transpose
// CHECK: output %[[M]], %[[S]], %[[I]], %[[T]]
// With cuDNN alone the transpose has no engine (the run fails):
// NOENGINE: error: transpose: no engine can run this op; tried:
// NOENGINE-NEXT: cudnn:
graph.graph @per_engine(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>, %c: tensor<4x4xf32>)
    -> (tensor<4x4xf32>, tensor<1x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %m = graph.matmul %a, %b : (tensor<4x8xf16>, tensor<8x4xf16>) -> tensor<4x4xf32>
  %s = graph.reduction add %c : (tensor<4x4xf32>) -> tensor<1x4xf32>
  %g = graph.pointwise gen_index(%c) {axis = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %t = graph.transpose %c {permutation = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  graph.output %m, %s, %g, %t : tensor<4x4xf32>, tensor<1x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A group no engine takes whole (with cuDNN alone: it runs a norm backward
// only alone) is split in its place into the longest runs an engine takes
// (here one op each), in program order, each ranked on its own: the norm's DX, virtual inside the fused
// group, becomes a result of the first group and an operand of the second.
// With codegen ranked too, codegen takes the group whole.
// CHECK-LABEL: graph.graph @split
// CHECK-NEXT: group 0 engines [#graph.engine<codegen, {{[^>]*}}>] (
// CHECK-NEXT: rmsnorm_backward
// CHECK-NEXT: pointwise add(
// CHECK-NEXT: yield
// CHECK-NEXT: }
// CHECK-NEXT: output
// SPLIT-LABEL: graph.graph @split
// SPLIT-NEXT: %[[B:.*]]:2 = group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>] ({{.*}}) -> (tensor<4x64xf32>, tensor<1x64xf32>) {
// SPLIT-NEXT: %[[DX:.*]], %[[DS:.*]] = rmsnorm_backward
// SPLIT-NEXT: yield %[[DX]], %[[DS]]
// SPLIT-NEXT: }
// SPLIT-NEXT: %[[A:.*]] = group 1 engines [#graph.engine<cudnn, plans = ["heuristics"]>] (%[[ARG:.*]] = %[[B]]#0 : tensor<4x64xf32>, %{{.*}} = %arg4 : tensor<4x64xf32>) -> tensor<4x64xf32> {
// SPLIT-NEXT: pointwise add(%[[ARG]],
// SPLIT-NEXT: yield
// SPLIT-NEXT: }
// SPLIT-NEXT: output %[[A]], %[[B]]#1
graph.graph @split(%dy: tensor<4x64xf32>, %x: tensor<4x64xf32>, %s: tensor<1x64xf32>, %iv: tensor<4x1xf32>, %r: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<1x64xf32>) {
  %dx, %ds = graph.rmsnorm_backward %dy, %x, scale %s, inv_variance %iv {name = "bwd", has_dbias = false} : (tensor<4x64xf32>, tensor<4x64xf32>, tensor<1x64xf32>, tensor<4x1xf32>) -> (tensor<4x64xf32>, tensor<1x64xf32>)
  %a = graph.pointwise add(%dx, %r) : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  graph.output %a, %ds : tensor<4x64xf32>, tensor<1x64xf32>
}

// -----

// A zero-centered gamma (scale = gamma + one) whose `one` is a device tensor:
// cuDNN's norm engines segfaulted on this prologue on the H200, so cuDNN
// declines the fused group: codegen takes it whole, and with cuDNN alone it
// is split (the add, then the layernorm reading its result from memory).
// With `one` a graph.by_value input, cuDNN still declines: its norm engines
// fuse the add only for the constant 1.0 (another value fails at execute),
// and a by_value input's value is known only at execute.
// CHECK-LABEL: graph.graph @zcg(
// CHECK-NEXT: group 0 engines [#graph.engine<codegen, {{[^>]*}}>] (
// CHECK-NEXT: pointwise add(
// CHECK-NEXT: layernorm inference
// SPLIT-LABEL: graph.graph @zcg(
// SPLIT-NEXT: %[[S:.*]] = group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>] (
// SPLIT-NEXT: pointwise add(
// SPLIT: group 1 engines [#graph.engine<cudnn, plans = ["heuristics"]>] ({{.*}}%[[S]]
// SPLIT-NEXT: layernorm inference
graph.graph @zcg(%x: tensor<64x768xf16>, %g: tensor<1x768xf16>, %one: tensor<1x1xf32>,
                 %b: tensor<1x768xf16>, %e: tensor<1x1xf32>) -> tensor<64x768xf16>
    attributes {compute_data_type = f32} {
  %s = graph.pointwise add(%g, %one) : (tensor<1x768xf16>, tensor<1x1xf32>) -> tensor<1x768xf32>
  %y = graph.layernorm inference %x, scale %s, bias %b, epsilon %e : (tensor<64x768xf16>, tensor<1x768xf32>, tensor<1x768xf16>, tensor<1x1xf32>) -> (tensor<64x768xf16>, none, none)
  graph.output %y : tensor<64x768xf16>
}

// -----

// CHECK-LABEL: graph.graph @zcg_by_value(
// CHECK-NEXT: group 0 engines [#graph.engine<codegen, {{[^>]*}}>] (
// CHECK-NEXT: pointwise add(
// CHECK-NEXT: layernorm inference
// SPLIT-LABEL: graph.graph @zcg_by_value(
// SPLIT-NEXT: %[[S:.*]] = group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>] (
// SPLIT-NEXT: pointwise add(
// SPLIT: group 1 engines [#graph.engine<cudnn, plans = ["heuristics"]>] ({{.*}}%[[S]]
// SPLIT-NEXT: layernorm inference
graph.graph @zcg_by_value(%x: tensor<64x768xf16>, %g: tensor<1x768xf16>, %one: tensor<1x1xf32> {graph.by_value},
                 %b: tensor<1x768xf16>, %e: tensor<1x1xf32>) -> tensor<64x768xf16>
    attributes {compute_data_type = f32} {
  %s = graph.pointwise add(%g, %one) : (tensor<1x768xf16>, tensor<1x1xf32>) -> tensor<1x768xf32>
  %y = graph.layernorm inference %x, scale %s, bias %b, epsilon %e : (tensor<64x768xf16>, tensor<1x768xf32>, tensor<1x768xf16>, tensor<1x1xf32>) -> (tensor<64x768xf16>, none, none)
  graph.output %y : tensor<64x768xf16>
}

// -----

// The same prologue with a graph.scalar `one` (outside the group, read
// through a group argument): cuDNN takes it by value and the group whole.
// CHECK-LABEL: graph.graph @zcg_scalar(
// CHECK: group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>, #graph.engine<codegen,
// SPLIT-LABEL: graph.graph @zcg_scalar(
// SPLIT: group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>] (
// SPLIT-NEXT: pointwise add(
// SPLIT-NEXT: layernorm inference
graph.graph @zcg_scalar(%x: tensor<64x768xf16>, %g: tensor<1x768xf16>,
                 %b: tensor<1x768xf16>, %e: tensor<1x1xf32>) -> tensor<64x768xf16>
    attributes {compute_data_type = f32} {
  %one = graph.scalar 1.0 : f32 -> tensor<1x1xf32>
  %s = graph.pointwise add(%g, %one) : (tensor<1x768xf16>, tensor<1x1xf32>) -> tensor<1x768xf32>
  %y = graph.layernorm inference %x, scale %s, bias %b, epsilon %e : (tensor<64x768xf16>, tensor<1x768xf32>, tensor<1x768xf16>, tensor<1x1xf32>) -> (tensor<64x768xf16>, none, none)
  graph.output %y : tensor<64x768xf16>
}

// -----

// A graph.scalar other than 1.0 in the prologue: cuDNN declines (its norm
// engines refuse add_scalar != 1 at execute).
// CHECK-LABEL: graph.graph @zcg_scalar_two(
// CHECK-NEXT: scalar 2.0
// CHECK-NEXT: group 0 engines [#graph.engine<codegen, {{[^>]*}}>] (
// CHECK-NEXT: pointwise add(
// CHECK-NEXT: layernorm inference
// SPLIT-LABEL: graph.graph @zcg_scalar_two(
// SPLIT: pointwise add(
// SPLIT: group 1 engines [#graph.engine<cudnn, plans = ["heuristics"]>] (
// SPLIT-NEXT: layernorm inference
graph.graph @zcg_scalar_two(%x: tensor<64x768xf16>, %g: tensor<1x768xf16>,
                 %b: tensor<1x768xf16>, %e: tensor<1x1xf32>) -> tensor<64x768xf16>
    attributes {compute_data_type = f32} {
  %two = graph.scalar 2.0 : f32 -> tensor<1x1xf32>
  %s = graph.pointwise add(%g, %two) : (tensor<1x768xf16>, tensor<1x1xf32>) -> tensor<1x768xf32>
  %y = graph.layernorm inference %x, scale %s, bias %b, epsilon %e : (tensor<64x768xf16>, tensor<1x768xf32>, tensor<1x768xf16>, tensor<1x1xf32>) -> (tensor<64x768xf16>, none, none)
  graph.output %y : tensor<64x768xf16>
}

// -----

// cuDNN reads the prologue's scalar as an f32 second operand: 1.0 + gamma
// (scalar first) and an f16 1.0 are declined too.
// CHECK-LABEL: graph.graph @zcg_scalar_first(
// CHECK-NEXT: scalar 1.0
// CHECK-NEXT: group 0 engines [#graph.engine<codegen, {{[^>]*}}>] (
// CHECK-LABEL: graph.graph @zcg_scalar_f16(
// CHECK-NEXT: scalar 1.0
// CHECK-NEXT: group 0 engines [#graph.engine<codegen, {{[^>]*}}>] (
// SPLIT-LABEL: graph.graph @zcg_scalar_first(
// SPLIT: group 1 engines [#graph.engine<cudnn, plans = ["heuristics"]>] (
// SPLIT-NEXT: layernorm inference
// SPLIT-LABEL: graph.graph @zcg_scalar_f16(
// SPLIT: group 1 engines [#graph.engine<cudnn, plans = ["heuristics"]>] (
// SPLIT-NEXT: layernorm inference
graph.graph @zcg_scalar_first(%x: tensor<64x768xf16>, %g: tensor<1x768xf16>,
                 %b: tensor<1x768xf16>, %e: tensor<1x1xf32>) -> tensor<64x768xf16>
    attributes {compute_data_type = f32} {
  %one = graph.scalar 1.0 : f32 -> tensor<1x1xf32>
  %s = graph.pointwise add(%one, %g) : (tensor<1x1xf32>, tensor<1x768xf16>) -> tensor<1x768xf32>
  %y = graph.layernorm inference %x, scale %s, bias %b, epsilon %e : (tensor<64x768xf16>, tensor<1x768xf32>, tensor<1x768xf16>, tensor<1x1xf32>) -> (tensor<64x768xf16>, none, none)
  graph.output %y : tensor<64x768xf16>
}
graph.graph @zcg_scalar_f16(%x: tensor<64x768xf16>, %g: tensor<1x768xf16>,
                 %b: tensor<1x768xf16>, %e: tensor<1x1xf32>) -> tensor<64x768xf16>
    attributes {compute_data_type = f32} {
  %one = graph.scalar 1.0 : f16 -> tensor<1x1xf16>
  %s = graph.pointwise add(%g, %one) : (tensor<1x768xf16>, tensor<1x1xf16>) -> tensor<1x768xf32>
  %y = graph.layernorm inference %x, scale %s, bias %b, epsilon %e : (tensor<64x768xf16>, tensor<1x768xf32>, tensor<1x768xf16>, tensor<1x1xf32>) -> (tensor<64x768xf16>, none, none)
  graph.output %y : tensor<64x768xf16>
}

// -----

// A matmul fused with a gen_index mask over its product: cuDNN's matmul
// engines misplaced such masks on the H200 (cuDNN 9.19), so cuDNN declines
// the group and codegen has no matmul: it is split, the matmul alone first,
// then the mask whole (the longest run an engine takes: cuDNN declines the
// comparison alone, whose boolean would go to memory).
// CHECK-LABEL: graph.graph @matmul_index_mask
// CHECK-NEXT: %[[S:.*]] = group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>] (
// CHECK-NEXT: matmul
// CHECK-NEXT: yield
// CHECK: group 1 engines [#graph.engine<cudnn, {{[^>]*}}>, #graph.engine<codegen, {{[^>]*}}>] (%{{.*}} = %[[S]]
// CHECK-NEXT: pointwise gen_index(
// CHECK-NEXT: pointwise gen_index(
// CHECK-NEXT: pointwise cmp_ge(
// CHECK-NEXT: pointwise binary_select(
// CHECK-NEXT: yield
// SPLIT-LABEL: graph.graph @matmul_index_mask
// SPLIT: group 1 engines [#graph.engine<cudnn, plans = ["heuristics"]>] (
// SPLIT-NEXT: pointwise gen_index(
// SPLIT-NEXT: pointwise gen_index(
// SPLIT-NEXT: pointwise cmp_ge(
// SPLIT-NEXT: pointwise binary_select(
graph.graph @matmul_index_mask(%q: tensor<8x16x32xf16>, %kt: tensor<8x32x16xf16>, %fill: tensor<1x1x1xf32>) -> tensor<8x16x16xf32> {
  %s = graph.matmul %q, %kt : (tensor<8x16x32xf16>, tensor<8x32x16xf16>) -> tensor<8x16x16xf32>
  %r = graph.pointwise gen_index(%s) {axis = 1 : i64} : (tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %c = graph.pointwise gen_index(%s) {axis = 2 : i64} : (tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %m = graph.pointwise cmp_ge(%r, %c) : (tensor<8x16x16xf32>, tensor<8x16x16xf32>) -> tensor<8x16x16xi1>
  %y = graph.pointwise binary_select(%s, %fill, %m) : (tensor<8x16x16xf32>, tensor<1x1x1xf32>, tensor<8x16x16xi1>) -> tensor<8x16x16xf32>
  graph.output %y : tensor<8x16x16xf32>
}

// -----

// EfficientNet's squeeze-excitation: conv + batchnorm + swish, then an avg
// pool. cuDNN's REDUCTION rejects avg (H200, cuDNN 9.19) and codegen has no
// conv, so the group is split into the longest runs an engine takes: the
// conv with its epilogue stays one cuDNN group, the pool goes to codegen.
// With cuDNN alone the pool has no engine.
// CHECK-LABEL: graph.graph @conv_avg_pool
// CHECK-NEXT: %[[C:.*]] = group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>] (
// CHECK-NEXT: conv_fprop
// CHECK-NEXT: batchnorm_inference
// CHECK-NEXT: pointwise swish(
// CHECK-NEXT: yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[P:.*]] = group 1 engines [#graph.engine<codegen, {{[^>]*}}>] (%{{.*}} = %[[C]] :
// CHECK-NEXT: reduction avg
// CHECK-NEXT: yield
// CHECK-NEXT: }
// CHECK-NEXT: output %[[C]], %[[P]]
// NOENGINE: error: reduction "pool": no engine can run this op; tried:
// NOENGINE-NEXT: cudnn: cuDNN's REDUCTION descriptor rejects avg
graph.graph @conv_avg_pool(%x: tensor<2x8x6x6xf16>, %w: tensor<8x8x3x3xf16>, %m: tensor<1x8x1x1xf32>,
                           %v: tensor<1x8x1x1xf32>, %s: tensor<1x8x1x1xf32>, %b: tensor<1x8x1x1xf32>)
    -> (tensor<2x8x6x6xf16>, tensor<2x8x1x1xf16>) {
  %c = graph.conv_fprop %x, %w {padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<2x8x6x6xf16>, tensor<8x8x3x3xf16>) -> tensor<2x8x6x6xf32>
  %n = graph.batchnorm_inference %c, mean %m, inv_variance %v, scale %s, bias %b : (tensor<2x8x6x6xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>) -> tensor<2x8x6x6xf32>
  %h = graph.pointwise swish(%n) : (tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf16>
  %p = graph.reduction avg %h {name = "pool"} : (tensor<2x8x6x6xf16>) -> tensor<2x8x1x1xf16>
  graph.output %h, %p : tensor<2x8x6x6xf16>, tensor<2x8x1x1xf16>
}

// -----

// cuDNN declines a backward with an attention sink on ragged (packed)
// tensors: on the H200 (cuDNN 9.19) it gave an all-NaN dSink_token and some
// plans faulted. Codegen takes no i64 offsets (nor has it an sdpa), so no
// engine runs it. The same backward on dense tensors stays cuDNN's.
// NOENGINE: error: sdpa_backward "ragged_sink": no engine can run this op; tried:
// NOENGINE-NEXT: cudnn: cuDNN 9.19's sdpa backward with a sink_token on ragged (packed) tensors
// BOTH: error: sdpa_backward "ragged_sink": no engine can run this op; tried:
// BOTH-NEXT: cudnn: cuDNN 9.19's sdpa backward with a sink_token on ragged (packed) tensors
// BOTH-NEXT: codegen: generated kernels take
// CHECK-LABEL: graph.graph @dense_sink
// CHECK-NEXT: group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>] (
// CHECK-NEXT: sdpa_backward
// SPLIT-LABEL: graph.graph @dense_sink
// SPLIT-NEXT: group 0 engines [#graph.engine<cudnn, plans = ["heuristics"]>] (
// SPLIT-NEXT: sdpa_backward
graph.graph @ragged_sink(%q: tensor<2x2x16x8xbf16>, %k: tensor<2x2x16x8xbf16>, %v: tensor<2x2x16x8xbf16>,
                         %o: tensor<2x2x16x8xbf16>, %do: tensor<2x2x16x8xbf16>, %stats: tensor<2x2x16x1xf32>,
                         %lq: tensor<2x1x1x1xi32>, %lkv: tensor<2x1x1x1xi32>, %off: tensor<3x1x1x1xi64>,
                         %sink: tensor<1x2x1x1xf32>)
    -> (tensor<2x2x16x8xbf16>, tensor<1x2x1x1xf32>) {
  %dq, %dk, %dv, %ds = graph.sdpa_backward %q, %k, %v, %o, %do, %stats seq_len_q %lq seq_len_kv %lkv sink_token %sink ragged_offset_q %off ragged_offset_dQ %off {name = "ragged_sink", attn_scale_value = 0.125 : f64, use_padding_mask} : (tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x1xf32>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<1x2x1x1xf32>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>) -> (tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<1x2x1x1xf32>)
  graph.output %dq, %ds : tensor<2x2x16x8xbf16>, tensor<1x2x1x1xf32>
}

// -----

graph.graph @dense_sink(%q: tensor<2x2x16x8xbf16>, %k: tensor<2x2x16x8xbf16>, %v: tensor<2x2x16x8xbf16>,
                        %o: tensor<2x2x16x8xbf16>, %do: tensor<2x2x16x8xbf16>, %stats: tensor<2x2x16x1xf32>,
                        %sink: tensor<1x2x1x1xf32>)
    -> (tensor<2x2x16x8xbf16>, tensor<1x2x1x1xf32>) {
  %dq, %dk, %dv, %ds = graph.sdpa_backward %q, %k, %v, %o, %do, %stats sink_token %sink {name = "dense_sink", attn_scale_value = 0.125 : f64} : (tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x1xf32>, tensor<1x2x1x1xf32>) -> (tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>, tensor<1x2x1x1xf32>)
  graph.output %dq, %ds : tensor<2x2x16x8xbf16>, tensor<1x2x1x1xf32>
}

// -----

// A paged cache gathered on its own (a score modification's composite
// attention reads K and V so): the generated kernels take it; cuDNN's
// PAGED_CACHE_LOAD exists only inside its attention graphs, so with cuDNN
// alone nothing runs it.
// CHECK-LABEL: graph.graph @paged_gather
// CHECK-NEXT: group 0 engines [#graph.engine<codegen, {{[^>]*}}>] (
// CHECK-NEXT: paged_cache_load
// NOENGINE: error: paged_cache_load "gather_k": no engine can run this op; tried:
// NOENGINE-NEXT: cudnn: cuDNN runs PAGED_CACHE_LOAD only inside its attention graphs (sdpa's page_table_k/v), not as a gather of its own
graph.graph @paged_gather(%c: tensor<16x2x4x8xf16>, %t: tensor<2x1x4x1xi32>, %l: tensor<2x1x1x1xi32>) -> tensor<2x2x13x8xf16> {
  %k = graph.paged_cache_load %c, %t seq_len %l {max_seq_len = 13 : i64, name = "gather_k"}
      : (tensor<16x2x4x8xf16>, tensor<2x1x4x1xi32>, tensor<2x1x1x1xi32>) -> tensor<2x2x13x8xf16>
  graph.output %k : tensor<2x2x13x8xf16>
}
