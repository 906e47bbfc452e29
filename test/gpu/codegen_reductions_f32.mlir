// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=9 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected, so codegen_v1 runs every reduction mode in f32
// (strict f32 tolerance) over every axis pattern of 8x24x300: the last axis
// (add, min, avg, norm1), the leading axis (add), the two leading axes
// (add, max), the middle axis (amax), two non-adjacent axes (norm2), and
// all axes of a 20x333 tensor (add, avg and norm2 of |y|: positive terms,
// so the single result has no cancellation); mul and mul_no_zeros over
// short axes of 6x10x12 (last, leading) where products stay in range.
// GPU-ARGS: --random-inputs=9 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_reductions_f32(%x: tensor<8x24x300xf32> {graph.name = "X"},
                                    %y: tensor<20x333xf32> {graph.name = "Y"},
                                    %m: tensor<6x10x12xf32> {graph.name = "M"})
    -> (tensor<8x24x1xf32> {graph.name = "add_last"}, tensor<1x24x300xf32> {graph.name = "add_lead"},
        tensor<1x1x300xf32> {graph.name = "add_lead2"}, tensor<1x1x300xf32> {graph.name = "max_lead2"},
        tensor<8x24x1xf32> {graph.name = "min_last"}, tensor<8x1x300xf32> {graph.name = "amax_mid"},
        tensor<8x24x1xf32> {graph.name = "avg_last"}, tensor<8x24x1xf32> {graph.name = "norm1_last"},
        tensor<1x24x1xf32> {graph.name = "norm2_0_2"}, tensor<1x1xf32> {graph.name = "add_all"},
        tensor<1x1xf32> {graph.name = "avg_all"}, tensor<1x1xf32> {graph.name = "norm2_all"},
        tensor<6x10x1xf32> {graph.name = "mul_last"}, tensor<1x10x12xf32> {graph.name = "mul_no_zeros_lead"})
    attributes {compute_data_type = f32} {
  %add_last = graph.reduction add %x : (tensor<8x24x300xf32>) -> tensor<8x24x1xf32>
  %add_lead = graph.reduction add %x : (tensor<8x24x300xf32>) -> tensor<1x24x300xf32>
  %add_lead2 = graph.reduction add %x : (tensor<8x24x300xf32>) -> tensor<1x1x300xf32>
  %max_lead2 = graph.reduction max %x : (tensor<8x24x300xf32>) -> tensor<1x1x300xf32>
  %min_last = graph.reduction min %x : (tensor<8x24x300xf32>) -> tensor<8x24x1xf32>
  %amax_mid = graph.reduction amax %x : (tensor<8x24x300xf32>) -> tensor<8x1x300xf32>
  %avg_last = graph.reduction avg %x : (tensor<8x24x300xf32>) -> tensor<8x24x1xf32>
  %norm1_last = graph.reduction norm1 %x : (tensor<8x24x300xf32>) -> tensor<8x24x1xf32>
  %norm2_02 = graph.reduction norm2 %x : (tensor<8x24x300xf32>) -> tensor<1x24x1xf32>
  %ay = graph.pointwise abs(%y) : (tensor<20x333xf32>) -> tensor<20x333xf32>
  %add_all = graph.reduction add %ay : (tensor<20x333xf32>) -> tensor<1x1xf32>
  %avg_all = graph.reduction avg %ay : (tensor<20x333xf32>) -> tensor<1x1xf32>
  %norm2_all = graph.reduction norm2 %y : (tensor<20x333xf32>) -> tensor<1x1xf32>
  %mul_last = graph.reduction mul %m : (tensor<6x10x12xf32>) -> tensor<6x10x1xf32>
  %mnz_lead = graph.reduction mul_no_zeros %m : (tensor<6x10x12xf32>) -> tensor<1x10x12xf32>
  graph.output %add_last, %add_lead, %add_lead2, %max_lead2, %min_last, %amax_mid, %avg_last, %norm1_last, %norm2_02, %add_all, %avg_all, %norm2_all, %mul_last, %mnz_lead
      : tensor<8x24x1xf32>, tensor<1x24x300xf32>, tensor<1x1x300xf32>, tensor<1x1x300xf32>, tensor<8x24x1xf32>, tensor<8x1x300xf32>, tensor<8x24x1xf32>, tensor<8x24x1xf32>, tensor<1x24x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<6x10x1xf32>, tensor<1x10x12xf32>
}
