// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=5 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected, so codegen_v1 runs the comparison, logical,
// select and index modes on 16x257 f32 data: cmp_eq/neq (on floor(4x),
// exact, so equal pairs occur), cmp_gt/ge/lt/le against a full tensor and a
// broadcast row, with f32, bf16 and i1 results; logical_and/or/not on
// comparison results and on an i1 input; binary_select with an i1 input mask
// broadcast along rows, with a full i1 mask and with a computed mask;
// gen_index along both axes (i32 results) turned into a causal mask.
// Every input of a comparison is exact in f32, so no result can flip.
// GPU-ARGS: --random-inputs=5 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_compare(%x: tensor<16x257xf32> {graph.name = "X"},
                             %y: tensor<16x257xf32> {graph.name = "Y"},
                             %row: tensor<1x257xf32> {graph.name = "row"},
                             %mrow: tensor<16x1xi1> {graph.name = "mask_rows"},
                             %mfull: tensor<16x257xi1> {graph.name = "mask_full"})
    -> (tensor<16x257xf32> {graph.name = "eq"}, tensor<16x257xi1> {graph.name = "neq"},
        tensor<16x257xf32> {graph.name = "gt"}, tensor<16x257xbf16> {graph.name = "ge_row"},
        tensor<16x257xi1> {graph.name = "lt_row"}, tensor<16x257xf32> {graph.name = "le"},
        tensor<16x257xf32> {graph.name = "and"}, tensor<16x257xf32> {graph.name = "or"},
        tensor<16x257xf32> {graph.name = "not"}, tensor<16x257xi1> {graph.name = "and_i1"},
        tensor<16x257xf32> {graph.name = "select_rows"}, tensor<16x257xf32> {graph.name = "select_full"},
        tensor<16x257xf32> {graph.name = "select_computed"}, tensor<16x257xi32> {graph.name = "index1"},
        tensor<16x257xi32> {graph.name = "index0"}, tensor<16x257xf32> {graph.name = "causal"})
    attributes {compute_data_type = f32} {
  %four = graph.scalar 4.0 : f32 -> tensor<1x1xf32>
  %fill = graph.scalar -2.0 : f32 -> tensor<1x1xf32>
  %x4 = graph.pointwise mul(%x, %four) : (tensor<16x257xf32>, tensor<1x1xf32>) -> tensor<16x257xf32>
  %y4 = graph.pointwise mul(%y, %four) : (tensor<16x257xf32>, tensor<1x1xf32>) -> tensor<16x257xf32>
  %fx = graph.pointwise floor(%x4) : (tensor<16x257xf32>) -> tensor<16x257xf32>
  %fy = graph.pointwise floor(%y4) : (tensor<16x257xf32>) -> tensor<16x257xf32>
  %eq = graph.pointwise cmp_eq(%fx, %fy) : (tensor<16x257xf32>, tensor<16x257xf32>) -> tensor<16x257xf32>
  %neq = graph.pointwise cmp_neq(%fx, %fy) : (tensor<16x257xf32>, tensor<16x257xf32>) -> tensor<16x257xi1>
  %gt = graph.pointwise cmp_gt(%x, %y) : (tensor<16x257xf32>, tensor<16x257xf32>) -> tensor<16x257xf32>
  %ge = graph.pointwise cmp_ge(%x, %row) : (tensor<16x257xf32>, tensor<1x257xf32>) -> tensor<16x257xbf16>
  %lt = graph.pointwise cmp_lt(%x, %row) : (tensor<16x257xf32>, tensor<1x257xf32>) -> tensor<16x257xi1>
  %le = graph.pointwise cmp_le(%fx, %fy) : (tensor<16x257xf32>, tensor<16x257xf32>) -> tensor<16x257xf32>
  %and = graph.pointwise logical_and(%gt, %ge) : (tensor<16x257xf32>, tensor<16x257xbf16>) -> tensor<16x257xf32>
  %or = graph.pointwise logical_or(%eq, %lt) : (tensor<16x257xf32>, tensor<16x257xi1>) -> tensor<16x257xf32>
  %not = graph.pointwise logical_not(%gt) : (tensor<16x257xf32>) -> tensor<16x257xf32>
  %andi = graph.pointwise logical_and(%mfull, %neq) : (tensor<16x257xi1>, tensor<16x257xi1>) -> tensor<16x257xi1>
  %srow = graph.pointwise binary_select(%x, %y, %mrow) : (tensor<16x257xf32>, tensor<16x257xf32>, tensor<16x1xi1>) -> tensor<16x257xf32>
  %sfull = graph.pointwise binary_select(%x, %row, %mfull) : (tensor<16x257xf32>, tensor<1x257xf32>, tensor<16x257xi1>) -> tensor<16x257xf32>
  %scomp = graph.pointwise binary_select(%y, %x, %lt) : (tensor<16x257xf32>, tensor<16x257xf32>, tensor<16x257xi1>) -> tensor<16x257xf32>
  %i1 = graph.pointwise gen_index(%x) {axis = 1 : i64} : (tensor<16x257xf32>) -> tensor<16x257xi32>
  %i0 = graph.pointwise gen_index(%x) {axis = 0 : i64} : (tensor<16x257xf32>) -> tensor<16x257xi32>
  %keep = graph.pointwise cmp_le(%i1, %i0) : (tensor<16x257xi32>, tensor<16x257xi32>) -> tensor<16x257xi1>
  %causal = graph.pointwise binary_select(%x, %fill, %keep) : (tensor<16x257xf32>, tensor<1x1xf32>, tensor<16x257xi1>) -> tensor<16x257xf32>
  graph.output %eq, %neq, %gt, %ge, %lt, %le, %and, %or, %not, %andi, %srow, %sfull, %scomp, %i1, %i0, %causal
      : tensor<16x257xf32>, tensor<16x257xi1>, tensor<16x257xf32>, tensor<16x257xbf16>, tensor<16x257xi1>, tensor<16x257xf32>, tensor<16x257xf32>, tensor<16x257xf32>, tensor<16x257xf32>, tensor<16x257xi1>, tensor<16x257xf32>, tensor<16x257xf32>, tensor<16x257xf32>, tensor<16x257xi32>, tensor<16x257xi32>, tensor<16x257xf32>
}
