// RUN: graph-run --device=gpu --print-max-elements=0 --random-inputs=4 --check-against=cpu --deselect-engines=cudnn %s | FileCheck %s
// CHECK-NOT: [FAILED]
// CHECK: [SUCCESS]
// GPU: cuDNN deselected, so codegen_v1 runs every binary arithmetic mode
// (add, sub, mul, div, max, min, pow, mod, add_square, bias, scale) with
// numpy broadcasting of every kind on 4x50x129 (129: odd last dim): a row
// [1,1,D], a column [B,S,1], a middle dim [1,S,1], a leading dim [B,1,1], a
// one-element scalar, and an outer broadcast [B,1,D] x [1,S,1] where neither
// operand has the result's shape. Inputs mix f16, bf16 and f32 and results
// are written as f32, f16 and bf16. div, pow and mod get a positive
// operand (|v| + 0.5) so no result is inf or NaN.
// GPU-ARGS: --random-inputs=4 --check-against=cpu --deselect-engines=cudnn
graph.graph @codegen_binary(%a: tensor<4x50x129xf16> {graph.name = "A"},
                            %b: tensor<4x50x129xbf16> {graph.name = "B"},
                            %row: tensor<1x1x129xf32> {graph.name = "row"},
                            %col: tensor<4x50x1xf16> {graph.name = "col"},
                            %mid: tensor<1x50x1xbf16> {graph.name = "mid"},
                            %lead: tensor<4x1x1xf32> {graph.name = "lead"},
                            %p: tensor<4x1x129xf32> {graph.name = "P"},
                            %q: tensor<1x50x1xf16> {graph.name = "Q"})
    -> (tensor<4x50x129xf32> {graph.name = "add_f16_bf16"}, tensor<4x50x129xbf16> {graph.name = "sub_row"},
        tensor<4x50x129xf16> {graph.name = "mul_col"}, tensor<4x50x129xf32> {graph.name = "div_mid"},
        tensor<4x50x129xf16> {graph.name = "max"}, tensor<4x50x129xbf16> {graph.name = "min_row"},
        tensor<4x50x129xf32> {graph.name = "pow"}, tensor<4x50x129xf32> {graph.name = "mod_row"},
        tensor<4x50x129xf32> {graph.name = "add_square_lead"}, tensor<4x50x129xbf16> {graph.name = "bias_row"},
        tensor<4x50x129xf16> {graph.name = "scale_lead"}, tensor<4x50x129xf32> {graph.name = "scalar_mul"},
        tensor<4x50x129xf32> {graph.name = "outer_add"}, tensor<4x50x129xbf16> {graph.name = "chain"})
    attributes {compute_data_type = f32} {
  %half = graph.scalar 0.5 : f32 -> tensor<1x1x1xf32>
  %three = graph.scalar -3.0 : f32 -> tensor<1x1x1xf32>
  %add = graph.pointwise add(%a, %b) : (tensor<4x50x129xf16>, tensor<4x50x129xbf16>) -> tensor<4x50x129xf32>
  %sub = graph.pointwise sub(%a, %row) : (tensor<4x50x129xf16>, tensor<1x1x129xf32>) -> tensor<4x50x129xbf16>
  %mul = graph.pointwise mul(%b, %col) : (tensor<4x50x129xbf16>, tensor<4x50x1xf16>) -> tensor<4x50x129xf16>
  %amid = graph.pointwise abs(%mid) : (tensor<1x50x1xbf16>) -> tensor<1x50x1xf32>
  %pmid = graph.pointwise add(%amid, %half) : (tensor<1x50x1xf32>, tensor<1x1x1xf32>) -> tensor<1x50x1xf32>
  %div = graph.pointwise div(%a, %pmid) : (tensor<4x50x129xf16>, tensor<1x50x1xf32>) -> tensor<4x50x129xf32>
  %max = graph.pointwise max(%a, %b) : (tensor<4x50x129xf16>, tensor<4x50x129xbf16>) -> tensor<4x50x129xf16>
  %min = graph.pointwise min(%a, %row) : (tensor<4x50x129xf16>, tensor<1x1x129xf32>) -> tensor<4x50x129xbf16>
  %aa = graph.pointwise abs(%a) : (tensor<4x50x129xf16>) -> tensor<4x50x129xf32>
  %pa = graph.pointwise add(%aa, %half) : (tensor<4x50x129xf32>, tensor<1x1x1xf32>) -> tensor<4x50x129xf32>
  %pow = graph.pointwise pow(%pa, %b) : (tensor<4x50x129xf32>, tensor<4x50x129xbf16>) -> tensor<4x50x129xf32>
  %arow = graph.pointwise abs(%row) : (tensor<1x1x129xf32>) -> tensor<1x1x129xf32>
  %prow = graph.pointwise add(%arow, %half) : (tensor<1x1x129xf32>, tensor<1x1x1xf32>) -> tensor<1x1x129xf32>
  %mod = graph.pointwise mod(%a, %prow) : (tensor<4x50x129xf16>, tensor<1x1x129xf32>) -> tensor<4x50x129xf32>
  %addsq = graph.pointwise add_square(%a, %lead) : (tensor<4x50x129xf16>, tensor<4x1x1xf32>) -> tensor<4x50x129xf32>
  %bias = graph.pointwise bias(%b, %row) : (tensor<4x50x129xbf16>, tensor<1x1x129xf32>) -> tensor<4x50x129xbf16>
  %scale = graph.pointwise scale(%a, %lead) : (tensor<4x50x129xf16>, tensor<4x1x1xf32>) -> tensor<4x50x129xf16>
  %smul = graph.pointwise mul(%b, %three) : (tensor<4x50x129xbf16>, tensor<1x1x1xf32>) -> tensor<4x50x129xf32>
  %outer = graph.pointwise add(%p, %q) : (tensor<4x1x129xf32>, tensor<1x50x1xf16>) -> tensor<4x50x129xf32>
  %c0 = graph.pointwise mul(%a, %row) : (tensor<4x50x129xf16>, tensor<1x1x129xf32>) -> tensor<4x50x129xf32>
  %c1 = graph.pointwise add(%c0, %col) : (tensor<4x50x129xf32>, tensor<4x50x1xf16>) -> tensor<4x50x129xf32>
  %c2 = graph.pointwise gelu(%c1) : (tensor<4x50x129xf32>) -> tensor<4x50x129xf32>
  %c3 = graph.pointwise sub(%c2, %mid) : (tensor<4x50x129xf32>, tensor<1x50x1xbf16>) -> tensor<4x50x129xbf16>
  graph.output %add, %sub, %mul, %div, %max, %min, %pow, %mod, %addsq, %bias, %scale, %smul, %outer, %c3
      : tensor<4x50x129xf32>, tensor<4x50x129xbf16>, tensor<4x50x129xf16>, tensor<4x50x129xf32>, tensor<4x50x129xf16>, tensor<4x50x129xbf16>, tensor<4x50x129xf32>, tensor<4x50x129xf32>, tensor<4x50x129xf32>, tensor<4x50x129xbf16>, tensor<4x50x129xf16>, tensor<4x50x129xf32>, tensor<4x50x129xf32>, tensor<4x50x129xbf16>
}
