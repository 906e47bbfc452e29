// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=7 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected, so codegen_v1 runs shapes that break a vectorized
// kernel's assumptions: a 1-element rank-1 tensor and a 1x1x1 one; a rank-1
// tensor of 1023 elements (not a multiple of any vector width) and its full
// reduction; 7x1x13 broadcast against 1x5x1 (size-1 dims on both sides); a
// rank-4 tensor of prime dims 3x5x7x11 reduced over its last axis and over
// two non-adjacent axes; a rank-5 bf16 tensor with a size-1 dim; a single
// row of 4097 and a single column of 4097 reduced to one element; and a
// pointwise on a 1x1 tensor whose "reduction" reduces nothing.
// GPU-ARGS: --random-inputs=7 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_odd(%one: tensor<1xf32> {graph.name = "one"},
                         %one3: tensor<1x1x1xf16> {graph.name = "one3"},
                         %v: tensor<1023xbf16> {graph.name = "v1023"},
                         %a: tensor<7x1x13xf16> {graph.name = "A"},
                         %b: tensor<1x5x1xf32> {graph.name = "B"},
                         %p: tensor<3x5x7x11xf32> {graph.name = "P"},
                         %r5: tensor<2x3x1x5x9xbf16> {graph.name = "R5"},
                         %row: tensor<1x4097xf32> {graph.name = "row"},
                         %col: tensor<4097x1xf16> {graph.name = "col"},
                         %s11: tensor<1x1xf32> {graph.name = "s11"})
    -> (tensor<1xf32> {graph.name = "one_exp"}, tensor<1x1x1xf16> {graph.name = "one3_mul"},
        tensor<1023xf32> {graph.name = "v_sigmoid"}, tensor<1xf32> {graph.name = "v_sum"},
        tensor<7x5x13xf32> {graph.name = "ab_add"}, tensor<3x5x7x11xf32> {graph.name = "p_tanh"},
        tensor<3x5x7x1xf32> {graph.name = "p_max_last"}, tensor<3x1x7x1xf32> {graph.name = "p_sum_1_3"},
        tensor<2x3x1x5x9xbf16> {graph.name = "r5_scaled"}, tensor<1x1xf32> {graph.name = "row_sum"},
        tensor<1x1xf32> {graph.name = "col_max"}, tensor<1x1xf32> {graph.name = "s11_sum"})
    attributes {compute_data_type = f32} {
  %c = graph.scalar 1.5 : f32 -> tensor<1x1x1xf32>
  %c1 = graph.scalar 1.5 : f32 -> tensor<1xf32>
  %one_exp = graph.pointwise exp(%one) : (tensor<1xf32>) -> tensor<1xf32>
  %one3_mul = graph.pointwise mul(%one3, %c) : (tensor<1x1x1xf16>, tensor<1x1x1xf32>) -> tensor<1x1x1xf16>
  %vs = graph.pointwise sigmoid(%v) : (tensor<1023xbf16>) -> tensor<1023xf32>
  %vsum = graph.reduction add %vs : (tensor<1023xf32>) -> tensor<1xf32>
  %ab = graph.pointwise add(%a, %b) : (tensor<7x1x13xf16>, tensor<1x5x1xf32>) -> tensor<7x5x13xf32>
  %pt = graph.pointwise tanh(%p) : (tensor<3x5x7x11xf32>) -> tensor<3x5x7x11xf32>
  %pmax = graph.reduction max %p : (tensor<3x5x7x11xf32>) -> tensor<3x5x7x1xf32>
  %psum = graph.reduction add %pt : (tensor<3x5x7x11xf32>) -> tensor<3x1x7x1xf32>
  %r5s = graph.pointwise mul(%r5, %c) : (tensor<2x3x1x5x9xbf16>, tensor<1x1x1xf32>) -> tensor<2x3x1x5x9xbf16>
  %rowsum = graph.reduction add %row : (tensor<1x4097xf32>) -> tensor<1x1xf32>
  %colmax = graph.reduction max %col : (tensor<4097x1xf16>) -> tensor<1x1xf32>
  %s11a = graph.pointwise add(%s11, %c1) : (tensor<1x1xf32>, tensor<1xf32>) -> tensor<1x1xf32>
  %s11sum = graph.reduction add %s11a : (tensor<1x1xf32>) -> tensor<1x1xf32>
  graph.output %one_exp, %one3_mul, %vs, %vsum, %ab, %pt, %pmax, %psum, %r5s, %rowsum, %colmax, %s11sum
      : tensor<1xf32>, tensor<1x1x1xf16>, tensor<1023xf32>, tensor<1xf32>, tensor<7x5x13xf32>, tensor<3x5x7x11xf32>, tensor<3x5x7x1xf32>, tensor<3x1x7x1xf32>, tensor<2x3x1x5x9xbf16>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>
}
