// RUN: graph-opt %s | graph-opt | FileCheck %s --strict-whitespace
// RUN: graph-opt %s --mlir-print-op-generic | graph-opt | FileCheck %s --strict-whitespace

// Round trip of every op of the graph dialect, in the custom and the generic
// form. Inside a graph.graph the `graph.` prefix of the node ops is elided.
// --strict-whitespace keeps enum keywords to one space (`pointwise add(`).

// Container attributes, uids and names, pass-by-value scalars, matmul.
// CHECK-LABEL: graph.graph @matmul(
// CHECK-SAME: %[[A:[^:]+]]: tensor<8x64x128xf16> {graph.name = "a", graph.uid = 1 : i64}, %[[B:[^:]+]]: tensor<1x128x256xf16> {graph.uid = 2 : i64}, %[[C:[^:]+]]: tensor<4x64x32xbf16> {graph.name = "c"}, %[[D:[^:]+]]: tensor<4x32x?xbf16>) -> (tensor<8x64x256xf32> {graph.name = "y", graph.uid = 3 : i64}, tensor<4x64x?xbf16>) attributes {compute_data_type = f32, intermediate_data_type = f32, io_data_type = f16} {
// CHECK-NEXT: %[[ALPHA:.+]] = scalar 5.000000e-01 : f32 -> tensor<1x1x1xf32>
// CHECK-NEXT: %[[SEED:.+]] = scalar 42 : i64 {name = "seed", uid = 7 : i64} -> tensor<1xi64>
// CHECK-NEXT: %[[MM:.+]] = matmul %[[A]], %[[B]] {compute_data_type = f32, name = "mm1"} : (tensor<8x64x128xf16>, tensor<1x128x256xf16>) -> tensor<8x64x256xf32>
// CHECK-NEXT: %[[SCALED:.+]] = pointwise mul(%[[MM]], %[[ALPHA]]) : (tensor<8x64x256xf32>, tensor<1x1x1xf32>) -> tensor<8x64x256xf32>
// CHECK-NEXT: %[[DYN:.+]] = matmul %[[C]], %[[D]] {padding = 0.000000e+00 : f64} : (tensor<4x64x32xbf16>, tensor<4x32x?xbf16>) -> tensor<4x64x?xbf16>
// CHECK-NEXT: output %[[SCALED]], %[[DYN]] : tensor<8x64x256xf32>, tensor<4x64x?xbf16>
graph.graph @matmul(%a: tensor<8x64x128xf16> {graph.uid = 1 : i64, graph.name = "a"},
                    %b: tensor<1x128x256xf16> {graph.uid = 2 : i64},
                    %c: tensor<4x64x32xbf16> {graph.name = "c"},
                    %d: tensor<4x32x?xbf16>)
    -> (tensor<8x64x256xf32> {graph.uid = 3 : i64, graph.name = "y"},
        tensor<4x64x?xbf16>)
    attributes {io_data_type = f16, intermediate_data_type = f32, compute_data_type = f32} {
  %alpha = graph.scalar 5.000000e-01 : f32 -> tensor<1x1x1xf32>
  %seed = graph.scalar 42 : i64 {uid = 7 : i64, name = "seed"} -> tensor<1xi64>
  %mm = graph.matmul %a, %b {name = "mm1", compute_data_type = f32} : (tensor<8x64x128xf16>, tensor<1x128x256xf16>) -> tensor<8x64x256xf32>
  %scaled = graph.pointwise mul(%mm, %alpha) : (tensor<8x64x256xf32>, tensor<1x1x1xf32>) -> tensor<8x64x256xf32>
  %dyn = graph.matmul %c, %d {padding = 0.000000e+00 : f64} : (tensor<4x64x32xbf16>, tensor<4x32x?xbf16>) -> tensor<4x64x?xbf16>
  graph.output %scaled, %dyn : tensor<8x64x256xf32>, tensor<4x64x?xbf16>
}

// Every pointwise mode, with the scalars each mode takes.
// CHECK-LABEL: graph.graph @pointwise(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x16xf32>, %[[ROW:[^:]+]]: tensor<1x16xf32>, %[[DY:[^:]+]]: tensor<4x16xf32>, %[[MASK:[^:]+]]: tensor<4x1xi1>) -> tensor<4x16xf32> {
// CHECK-NEXT: %[[U_ABS:.+]] = pointwise abs(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_CEIL:.+]] = pointwise ceil(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_COS:.+]] = pointwise cos(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_ELU:.+]] = pointwise elu(%[[X]]) {elu_alpha = 1.000000e+00 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_ERF:.+]] = pointwise erf(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_EXP:.+]] = pointwise exp(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_FLOOR:.+]] = pointwise floor(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_GELU:.+]] = pointwise gelu(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_GELU_APPROX_TANH:.+]] = pointwise gelu_approx_tanh(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_IDENTITY:.+]] = pointwise identity(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_LOG:.+]] = pointwise log(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_LOGICAL_NOT:.+]] = pointwise logical_not(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_NEG:.+]] = pointwise neg(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_RECIPROCAL:.+]] = pointwise reciprocal(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_RSQRT:.+]] = pointwise rsqrt(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_SIGMOID:.+]] = pointwise sigmoid(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_SIN:.+]] = pointwise sin(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_SOFTPLUS:.+]] = pointwise softplus(%[[X]]) {softplus_beta = 2.000000e+00 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_SQRT:.+]] = pointwise sqrt(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_TAN:.+]] = pointwise tan(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_TANH:.+]] = pointwise tanh(%[[X]]) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_RELU:.+]] = pointwise relu(%[[X]]) {lower_clip = 0.000000e+00 : f64, upper_clip = 6.000000e+00 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_LEAKY_RELU:.+]] = pointwise leaky_relu(%[[X]]) {negative_slope = 1.000000e-02 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_SWISH:.+]] = pointwise swish(%[[X]]) {swish_beta = 1.500000e+00 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[U_GEN_INDEX:.+]] = pointwise gen_index(%[[X]]) {axis = 1 : i64} : (tensor<4x16xf32>) -> tensor<4x16xi32>
// CHECK-NEXT: %[[B_ADD:.+]] = pointwise add(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_ADD_SQUARE:.+]] = pointwise add_square(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_DIV:.+]] = pointwise div(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_LOGICAL_AND:.+]] = pointwise logical_and(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_LOGICAL_OR:.+]] = pointwise logical_or(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_MUL:.+]] = pointwise mul(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_SUB:.+]] = pointwise sub(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_MAX:.+]] = pointwise max(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_MIN:.+]] = pointwise min(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_MOD:.+]] = pointwise mod(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_POW:.+]] = pointwise pow(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_CMP_EQ:.+]] = pointwise cmp_eq(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_CMP_GE:.+]] = pointwise cmp_ge(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_CMP_GT:.+]] = pointwise cmp_gt(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_CMP_LE:.+]] = pointwise cmp_le(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_CMP_LT:.+]] = pointwise cmp_lt(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_CMP_NEQ:.+]] = pointwise cmp_neq(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_BIAS:.+]] = pointwise bias(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B_SCALE:.+]] = pointwise scale(%[[X]], %[[ROW]]) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[D_RELU_BACKWARD:.+]] = pointwise relu_backward(%[[DY]], %[[X]]) {lower_clip = 0.000000e+00 : f64, negative_slope = 0.000000e+00 : f64, upper_clip = 6.000000e+00 : f64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[D_LEAKY_RELU_BACKWARD:.+]] = pointwise leaky_relu_backward(%[[DY]], %[[X]]) {negative_slope = 2.000000e-01 : f64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[D_SWISH_BACKWARD:.+]] = pointwise swish_backward(%[[DY]], %[[X]]) {swish_beta = 1.000000e+00 : f64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[D_ELU_BACKWARD:.+]] = pointwise elu_backward(%[[DY]], %[[X]]) {elu_alpha = 5.000000e-01 : f64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[D_GELU_APPROX_TANH_BACKWARD:.+]] = pointwise gelu_approx_tanh_backward(%[[DY]], %[[X]]) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[D_GELU_BACKWARD:.+]] = pointwise gelu_backward(%[[DY]], %[[X]]) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[D_SIGMOID_BACKWARD:.+]] = pointwise sigmoid_backward(%[[DY]], %[[X]]) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[D_SOFTPLUS_BACKWARD:.+]] = pointwise softplus_backward(%[[DY]], %[[X]]) {softplus_beta = 1.000000e+00 : f64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[D_TANH_BACKWARD:.+]] = pointwise tanh_backward(%[[DY]], %[[X]]) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[SEL:.+]] = pointwise binary_select(%[[X]], %[[DY]], %[[MASK]]) : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x1xi1>) -> tensor<4x16xf32>
// CHECK-NEXT: output %[[SEL]] : tensor<4x16xf32>

graph.graph @pointwise(%x: tensor<4x16xf32>, %row: tensor<1x16xf32>, %dy: tensor<4x16xf32>, %mask: tensor<4x1xi1>) -> tensor<4x16xf32> {
  %u_abs = graph.pointwise abs(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_ceil = graph.pointwise ceil(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_cos = graph.pointwise cos(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_elu = graph.pointwise elu(%x) {elu_alpha = 1.0 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_erf = graph.pointwise erf(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_exp = graph.pointwise exp(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_floor = graph.pointwise floor(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_gelu = graph.pointwise gelu(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_gelu_approx_tanh = graph.pointwise gelu_approx_tanh(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_identity = graph.pointwise identity(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_log = graph.pointwise log(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_logical_not = graph.pointwise logical_not(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_neg = graph.pointwise neg(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_reciprocal = graph.pointwise reciprocal(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_rsqrt = graph.pointwise rsqrt(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_sigmoid = graph.pointwise sigmoid(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_sin = graph.pointwise sin(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_softplus = graph.pointwise softplus(%x) {softplus_beta = 2.0 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_sqrt = graph.pointwise sqrt(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_tan = graph.pointwise tan(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_tanh = graph.pointwise tanh(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_relu = graph.pointwise relu(%x) {lower_clip = 0.0 : f64, upper_clip = 6.0 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_leaky_relu = graph.pointwise leaky_relu(%x) {negative_slope = 0.01 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_swish = graph.pointwise swish(%x) {swish_beta = 1.5 : f64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %u_gen_index = graph.pointwise gen_index(%x) {axis = 1 : i64} : (tensor<4x16xf32>) -> tensor<4x16xi32>
  %b_add = graph.pointwise add(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_add_square = graph.pointwise add_square(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_div = graph.pointwise div(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_logical_and = graph.pointwise logical_and(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_logical_or = graph.pointwise logical_or(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_mul = graph.pointwise mul(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_sub = graph.pointwise sub(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_max = graph.pointwise max(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_min = graph.pointwise min(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_mod = graph.pointwise mod(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_pow = graph.pointwise pow(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_cmp_eq = graph.pointwise cmp_eq(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_cmp_ge = graph.pointwise cmp_ge(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_cmp_gt = graph.pointwise cmp_gt(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_cmp_le = graph.pointwise cmp_le(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_cmp_lt = graph.pointwise cmp_lt(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_cmp_neq = graph.pointwise cmp_neq(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_bias = graph.pointwise bias(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %b_scale = graph.pointwise scale(%x, %row) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %d_relu_backward = graph.pointwise relu_backward(%dy, %x) {lower_clip = 0.0 : f64, negative_slope = 0.0 : f64, upper_clip = 6.0 : f64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %d_leaky_relu_backward = graph.pointwise leaky_relu_backward(%dy, %x) {negative_slope = 0.2 : f64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %d_swish_backward = graph.pointwise swish_backward(%dy, %x) {swish_beta = 1.0 : f64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %d_elu_backward = graph.pointwise elu_backward(%dy, %x) {elu_alpha = 0.5 : f64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %d_gelu_approx_tanh_backward = graph.pointwise gelu_approx_tanh_backward(%dy, %x) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %d_gelu_backward = graph.pointwise gelu_backward(%dy, %x) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %d_sigmoid_backward = graph.pointwise sigmoid_backward(%dy, %x) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %d_softplus_backward = graph.pointwise softplus_backward(%dy, %x) {softplus_beta = 1.0 : f64} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %d_tanh_backward = graph.pointwise tanh_backward(%dy, %x) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %sel = graph.pointwise binary_select(%x, %dy, %mask) : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x1xi1>) -> tensor<4x16xf32>
  graph.output %sel : tensor<4x16xf32>
}

// 2-D convolutions: symmetric padding with stride and groups, asymmetric
// padding with dilation, the true-convolution mode.
// CHECK-LABEL: graph.graph @conv2d(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x64x56x56xf16>, %[[W:[^:]+]]: tensor<128x32x3x3xf16>, %[[X2:[^:]+]]: tensor<2x16x32x32xf16>, %[[W2:[^:]+]]: tensor<16x16x5x5xf16>) -> tensor<8x128x28x28xf32> {
// CHECK-NEXT: %[[Y:.+]] = conv_fprop %[[X]], %[[W]] {dilation = array<i64: 1, 1>, name = "conv1", padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<8x64x56x56xf16>, tensor<128x32x3x3xf16>) -> tensor<8x128x28x28xf32>
// CHECK-NEXT: %[[Y2:.+]] = conv_fprop %[[X2]], %[[W2]] {convolution_mode = #graph.conv_mode<convolution>, dilation = array<i64: 2, 1>, post_padding = array<i64: 2, 3>, pre_padding = array<i64: 2, 1>} : (tensor<2x16x32x32xf16>, tensor<16x16x5x5xf16>) -> tensor<2x16x28x32xf16>
// CHECK-NEXT: %[[DX:.+]] = conv_dgrad %[[Y]], %[[W]] {padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<8x128x28x28xf32>, tensor<128x32x3x3xf16>) -> tensor<8x64x56x56xf32>
// CHECK-NEXT: %[[DW:.+]] = conv_wgrad %[[X]], %[[Y]] {convolution_mode = #graph.conv_mode<cross_correlation>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<8x64x56x56xf16>, tensor<8x128x28x28xf32>) -> tensor<128x32x3x3xf32>
// CHECK-NEXT: output %[[Y]] : tensor<8x128x28x28xf32>

graph.graph @conv2d(%x: tensor<8x64x56x56xf16>, %w: tensor<128x32x3x3xf16>, %x2: tensor<2x16x32x32xf16>, %w2: tensor<16x16x5x5xf16>) -> tensor<8x128x28x28xf32> {
  %y = graph.conv_fprop %x, %w {padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>, name = "conv1"} : (tensor<8x64x56x56xf16>, tensor<128x32x3x3xf16>) -> tensor<8x128x28x28xf32>
  %y2 = graph.conv_fprop %x2, %w2 {pre_padding = array<i64: 2, 1>, post_padding = array<i64: 2, 3>, dilation = array<i64: 2, 1>, convolution_mode = #graph.conv_mode<convolution>} : (tensor<2x16x32x32xf16>, tensor<16x16x5x5xf16>) -> tensor<2x16x28x32xf16>
  %dx = graph.conv_dgrad %y, %w {padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<8x128x28x28xf32>, tensor<128x32x3x3xf16>) -> tensor<8x64x56x56xf32>
  %dw = graph.conv_wgrad %x, %y {padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, convolution_mode = #graph.conv_mode<cross_correlation>} : (tensor<8x64x56x56xf16>, tensor<8x128x28x28xf32>) -> tensor<128x32x3x3xf32>
  graph.output %y : tensor<8x128x28x28xf32>
}

// 3-D convolutions.
// CHECK-LABEL: graph.graph @conv3d(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8x16x16x16xbf16>, %[[W:[^:]+]]: tensor<16x8x3x3x3xbf16>, %[[DY:[^:]+]]: tensor<2x16x16x8x8xbf16>) -> tensor<2x16x16x16x16xbf16> {
// CHECK-NEXT: %[[Y:.+]] = conv_fprop %[[X]], %[[W]] {padding = array<i64: 1, 1, 1>} : (tensor<2x8x16x16x16xbf16>, tensor<16x8x3x3x3xbf16>) -> tensor<2x16x16x16x16xbf16>
// CHECK-NEXT: %[[DX:.+]] = conv_dgrad %[[DY]], %[[W]] {padding = array<i64: 1, 1, 1>, stride = array<i64: 1, 2, 2>} : (tensor<2x16x16x8x8xbf16>, tensor<16x8x3x3x3xbf16>) -> tensor<2x8x16x16x16xf32>
// CHECK-NEXT: %[[DW:.+]] = conv_wgrad %[[X]], %[[DY]] {dilation = array<i64: 1, 1, 1>, post_padding = array<i64: 1, 1, 1>, pre_padding = array<i64: 1, 1, 1>, stride = array<i64: 1, 2, 2>} : (tensor<2x8x16x16x16xbf16>, tensor<2x16x16x8x8xbf16>) -> tensor<16x8x3x3x3xf32>
// CHECK-NEXT: output %[[Y]] : tensor<2x16x16x16x16xbf16>

graph.graph @conv3d(%x: tensor<2x8x16x16x16xbf16>, %w: tensor<16x8x3x3x3xbf16>, %dy: tensor<2x16x16x8x8xbf16>) -> tensor<2x16x16x16x16xbf16> {
  %y = graph.conv_fprop %x, %w {padding = array<i64: 1, 1, 1>} : (tensor<2x8x16x16x16xbf16>, tensor<16x8x3x3x3xbf16>) -> tensor<2x16x16x16x16xbf16>
  %dx = graph.conv_dgrad %dy, %w {padding = array<i64: 1, 1, 1>, stride = array<i64: 1, 2, 2>} : (tensor<2x16x16x8x8xbf16>, tensor<16x8x3x3x3xbf16>) -> tensor<2x8x16x16x16xf32>
  %dw = graph.conv_wgrad %x, %dy {pre_padding = array<i64: 1, 1, 1>, post_padding = array<i64: 1, 1, 1>, stride = array<i64: 1, 2, 2>, dilation = array<i64: 1, 1, 1>} : (tensor<2x8x16x16x16xbf16>, tensor<2x16x16x8x8xbf16>) -> tensor<16x8x3x3x3xf32>
  graph.output %y : tensor<2x16x16x16x16xbf16>
}

// Layer, adaptive layer, instance and RMS norms in both phases.
// CHECK-LABEL: graph.graph @norms(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x128x1x1xbf16>, %[[G:[^:]+]]: tensor<1x128x1x1xf32>, %[[B:[^:]+]]: tensor<1x128x1x1xf32>, %[[AG:[^:]+]]: tensor<4x128x1x1xf32>, %[[AB:[^:]+]]: tensor<4x128x1x1xf32>, %[[XI:[^:]+]]: tensor<2x16x8x8xf32>, %[[GI:[^:]+]]: tensor<1x16x1x1xf32>, %[[BI:[^:]+]]: tensor<1x16x1x1xf32>) -> tensor<4x128x1x1xbf16> {
// CHECK-NEXT: %[[EPS:.+]] = scalar 9.99999974E-6 : f32 {name = "eps"} -> tensor<1x1x1x1xf32>
// CHECK-NEXT: %[[LN:.+]], %[[LN_MEAN:.+]], %[[LN_IV:.+]] = layernorm training %[[X]], scale %[[G]], bias %[[B]], epsilon %[[EPS]] {name = "ln"} : (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<1x128x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, tensor<4x1x1x1xf32>, tensor<4x1x1x1xf32>)
// CHECK-NEXT: %[[LN_INF:.+]] = layernorm inference %[[X]], scale %[[G]], bias %[[B]], epsilon %[[EPS]] : (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<1x128x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, none, none)
// CHECK-NEXT: %[[ADA:.+]], %[[ADA_MEAN:.+]], %[[ADA_IV:.+]] = adalayernorm training %[[X]], scale %[[AG]], bias %[[AB]], epsilon %[[EPS]] : (tensor<4x128x1x1xbf16>, tensor<4x128x1x1xf32>, tensor<4x128x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, tensor<4x1x1x1xf32>, tensor<4x1x1x1xf32>)
// CHECK-NEXT: %[[ADA_INF:.+]] = adalayernorm inference %[[X]], scale %[[AG]], bias %[[B]], epsilon %[[EPS]] : (tensor<4x128x1x1xbf16>, tensor<4x128x1x1xf32>, tensor<1x128x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, none, none)
// CHECK-NEXT: %[[IN:.+]], %[[IN_MEAN:.+]], %[[IN_IV:.+]] = instancenorm training %[[XI]], scale %[[GI]], bias %[[BI]], epsilon %[[EPS]] : (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<2x16x1x1xf32>, tensor<2x16x1x1xf32>)
// CHECK-NEXT: %[[IN_INF:.+]] = instancenorm inference %[[XI]], scale %[[GI]], bias %[[BI]], epsilon %[[EPS]] : (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x16x8x8xf32>, none, none)
// CHECK-NEXT: %[[RMS:.+]], %[[RMS_IV:.+]] = rmsnorm training %[[X]], scale %[[G]], epsilon %[[EPS]] : (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, tensor<4x1x1x1xf32>)
// CHECK-NEXT: %[[RMS_B:.+]], %[[RMS_B_IV:.+]] = rmsnorm training %[[X]], scale %[[G]], bias %[[B]], epsilon %[[EPS]] : (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<1x128x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, tensor<4x1x1x1xf32>)
// CHECK-NEXT: %[[RMS_INF:.+]] = rmsnorm inference %[[X]], scale %[[G]], epsilon %[[EPS]] : (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<4x128x1x1xbf16>
// CHECK-NEXT: %[[RMS_INF_B:.+]] = rmsnorm inference %[[X]], scale %[[G]], bias %[[B]], epsilon %[[EPS]] : (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<1x128x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<4x128x1x1xbf16>
// CHECK-NEXT: output %[[LN]] : tensor<4x128x1x1xbf16>

graph.graph @norms(%x: tensor<4x128x1x1xbf16>, %g: tensor<1x128x1x1xf32>, %b: tensor<1x128x1x1xf32>,
                   %ag: tensor<4x128x1x1xf32>, %ab: tensor<4x128x1x1xf32>,
                   %xi: tensor<2x16x8x8xf32>, %gi: tensor<1x16x1x1xf32>, %bi: tensor<1x16x1x1xf32>) -> tensor<4x128x1x1xbf16> {
  %eps = graph.scalar 1.000000e-05 : f32 {name = "eps"} -> tensor<1x1x1x1xf32>
  %ln, %ln_mean, %ln_iv = graph.layernorm training %x, scale %g, bias %b, epsilon %eps {name = "ln"} : (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<1x128x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, tensor<4x1x1x1xf32>, tensor<4x1x1x1xf32>)
  %ln_inf = graph.layernorm inference %x, scale %g, bias %b, epsilon %eps : (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<1x128x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, none, none)
  %ada, %ada_mean, %ada_iv = graph.adalayernorm training %x, scale %ag, bias %ab, epsilon %eps : (tensor<4x128x1x1xbf16>, tensor<4x128x1x1xf32>, tensor<4x128x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, tensor<4x1x1x1xf32>, tensor<4x1x1x1xf32>)
  %ada_inf = graph.adalayernorm inference %x, scale %ag, bias %b, epsilon %eps : (tensor<4x128x1x1xbf16>, tensor<4x128x1x1xf32>, tensor<1x128x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, none, none)
  %in, %in_mean, %in_iv = graph.instancenorm training %xi, scale %gi, bias %bi, epsilon %eps : (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<2x16x1x1xf32>, tensor<2x16x1x1xf32>)
  %in_inf = graph.instancenorm inference %xi, scale %gi, bias %bi, epsilon %eps : (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x16x8x8xf32>, none, none)
  %rms, %rms_iv = graph.rmsnorm training %x, scale %g, epsilon %eps : (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, tensor<4x1x1x1xf32>)
  %rms_b, %rms_b_iv = graph.rmsnorm training %x, scale %g, bias %b, epsilon %eps : (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<1x128x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, tensor<4x1x1x1xf32>)
  %rms_inf = graph.rmsnorm inference %x, scale %g, epsilon %eps : (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<4x128x1x1xbf16>
  %rms_inf_b = graph.rmsnorm inference %x, scale %g, bias %b, epsilon %eps : (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<1x128x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<4x128x1x1xbf16>
  graph.output %ln : tensor<4x128x1x1xbf16>
}

// Batch norm with and without running statistics and peer stats, inference,
// genstats.
// CHECK-LABEL: graph.graph @batchnorm(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x16x8x8xf16>, %[[G:[^:]+]]: tensor<1x16x1x1xf32>, %[[B:[^:]+]]: tensor<1x16x1x1xf32>, %[[RM:[^:]+]]: tensor<1x16x1x1xf32>, %[[RV:[^:]+]]: tensor<1x16x1x1xf32>, %[[P0:[^:]+]]: tensor<2x16x1x1xf32>, %[[P1:[^:]+]]: tensor<2x16x1x1xf32>) -> tensor<2x16x8x8xf16> {
// CHECK-NEXT: %[[EPS:.+]] = scalar 9.99999974E-6 : f32 -> tensor<1x1x1x1xf32>
// CHECK-NEXT: %[[MOM:.+]] = scalar 1.000000e-01 : f32 -> tensor<1x1x1x1xf32>
// CHECK-NEXT: %[[Y:.+]], %[[MEAN:.+]], %[[IV:.+]] = batchnorm %[[X]], scale %[[G]], bias %[[B]], epsilon %[[EPS]] : (tensor<2x16x8x8xf16>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x16x8x8xf16>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, none, none)
// CHECK-NEXT: %[[Y2:.+]], %[[MEAN2:.+]], %[[IV2:.+]], %[[NRM:.+]], %[[NRV:.+]] = batchnorm %[[X]], scale %[[G]], bias %[[B]], epsilon %[[EPS]] running_mean %[[RM]] running_var %[[RV]] momentum %[[MOM]] peer_stats(%[[P0]], %[[P1]]) {name = "bn"} : (tensor<2x16x8x8xf16>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>, tensor<2x16x1x1xf32>, tensor<2x16x1x1xf32>) -> (tensor<2x16x8x8xf16>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
// CHECK-NEXT: %[[YI:.+]] = batchnorm_inference %[[X]], mean %[[MEAN]], inv_variance %[[IV]], scale %[[G]], bias %[[B]] : (tensor<2x16x8x8xf16>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>) -> tensor<2x16x8x8xf16>
// CHECK-NEXT: %[[SUM:.+]], %[[SQ:.+]] = genstats %[[X]] : (tensor<2x16x8x8xf16>) -> (tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
// CHECK-NEXT: output %[[YI]] : tensor<2x16x8x8xf16>

graph.graph @batchnorm(%x: tensor<2x16x8x8xf16>, %g: tensor<1x16x1x1xf32>, %b: tensor<1x16x1x1xf32>,
                       %rm: tensor<1x16x1x1xf32>, %rv: tensor<1x16x1x1xf32>,
                       %p0: tensor<2x16x1x1xf32>, %p1: tensor<2x16x1x1xf32>) -> tensor<2x16x8x8xf16> {
  %eps = graph.scalar 1.000000e-05 : f32 -> tensor<1x1x1x1xf32>
  %mom = graph.scalar 1.000000e-01 : f32 -> tensor<1x1x1x1xf32>
  %y, %mean, %iv = graph.batchnorm %x, scale %g, bias %b, epsilon %eps : (tensor<2x16x8x8xf16>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x16x8x8xf16>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, none, none)
  %y2, %mean2, %iv2, %nrm, %nrv = graph.batchnorm %x, scale %g, bias %b, epsilon %eps running_mean %rm running_var %rv momentum %mom peer_stats(%p0, %p1) {name = "bn"} : (tensor<2x16x8x8xf16>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>, tensor<2x16x1x1xf32>, tensor<2x16x1x1xf32>) -> (tensor<2x16x8x8xf16>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
  %yi = graph.batchnorm_inference %x, mean %mean, inv_variance %iv, scale %g, bias %b : (tensor<2x16x8x8xf16>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>) -> tensor<2x16x8x8xf16>
  %sum, %sq = graph.genstats %x : (tensor<2x16x8x8xf16>) -> (tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
  graph.output %yi : tensor<2x16x8x8xf16>
}

// The backward of every norm.
// CHECK-LABEL: graph.graph @norm_backward(
// CHECK-SAME: %[[DY:[^:]+]]: tensor<4x128x1x1xbf16>, %[[X:[^:]+]]: tensor<4x128x1x1xbf16>, %[[G:[^:]+]]: tensor<1x128x1x1xf32>, %[[AG:[^:]+]]: tensor<4x128x1x1xf32>, %[[M:[^:]+]]: tensor<4x1x1x1xf32>, %[[IV:[^:]+]]: tensor<4x1x1x1xf32>, %[[DYI:[^:]+]]: tensor<2x16x8x8xf32>, %[[XI:[^:]+]]: tensor<2x16x8x8xf32>, %[[GI:[^:]+]]: tensor<1x16x1x1xf32>, %[[MI:[^:]+]]: tensor<2x16x1x1xf32>, %[[IVI:[^:]+]]: tensor<2x16x1x1xf32>, %[[MB:[^:]+]]: tensor<1x16x1x1xf32>, %[[IVB:[^:]+]]: tensor<1x16x1x1xf32>, %[[P0:[^:]+]]: tensor<2x16x1x1xf32>) -> tensor<4x128x1x1xbf16> {
// CHECK-NEXT: %[[LN_DX:.+]], %[[LN_DS:.+]], %[[LN_DB:.+]] = layernorm_backward %[[DY]], %[[X]], scale %[[G]], mean %[[M]], inv_variance %[[IV]] : (tensor<4x128x1x1xbf16>, tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<4x1x1x1xf32>, tensor<4x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<1x128x1x1xf32>)
// CHECK-NEXT: %[[ADA_DX:.+]], %[[ADA_DS:.+]], %[[ADA_DB:.+]] = adalayernorm_backward %[[DY]], %[[X]], scale %[[AG]], mean %[[M]], inv_variance %[[IV]] : (tensor<4x128x1x1xbf16>, tensor<4x128x1x1xbf16>, tensor<4x128x1x1xf32>, tensor<4x1x1x1xf32>, tensor<4x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, tensor<4x128x1x1xf32>, tensor<4x128x1x1xf32>)
// CHECK-NEXT: %[[IN_DX:.+]], %[[IN_DS:.+]], %[[IN_DB:.+]] = instancenorm_backward %[[DYI]], %[[XI]], scale %[[GI]], mean %[[MI]], inv_variance %[[IVI]] : (tensor<2x16x8x8xf32>, tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<2x16x1x1xf32>, tensor<2x16x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
// CHECK-NEXT: %[[RMS_DX:.+]], %[[RMS_DS:.+]] = rmsnorm_backward %[[DY]], %[[X]], scale %[[G]], inv_variance %[[IV]] {has_dbias = false} : (tensor<4x128x1x1xbf16>, tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<4x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>)
// CHECK-NEXT: %[[RMSB_DX:.+]], %[[RMSB_DS:.+]], %[[RMSB_DB:.+]] = rmsnorm_backward %[[DY]], %[[X]], scale %[[G]], inv_variance %[[IV]] : (tensor<4x128x1x1xbf16>, tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<4x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<1x128x1x1xf32>)
// CHECK-NEXT: %[[BN_DX:.+]], %[[BN_DS:.+]], %[[BN_DB:.+]] = batchnorm_backward %[[DYI]], %[[XI]], scale %[[GI]], mean %[[MB]], inv_variance %[[IVB]] peer_stats(%[[P0]]) : (tensor<2x16x8x8xf32>, tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<2x16x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
// CHECK-NEXT: %[[BN2_DX:.+]], %[[BN2_DS:.+]], %[[BN2_DB:.+]] = batchnorm_backward %[[DYI]], %[[XI]], scale %[[GI]], mean %[[MB]], inv_variance %[[IVB]] : (tensor<2x16x8x8xf32>, tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
// CHECK-NEXT: output %[[LN_DX]] : tensor<4x128x1x1xbf16>

graph.graph @norm_backward(%dy: tensor<4x128x1x1xbf16>, %x: tensor<4x128x1x1xbf16>, %g: tensor<1x128x1x1xf32>,
                           %ag: tensor<4x128x1x1xf32>, %m: tensor<4x1x1x1xf32>, %iv: tensor<4x1x1x1xf32>,
                           %dyi: tensor<2x16x8x8xf32>, %xi: tensor<2x16x8x8xf32>, %gi: tensor<1x16x1x1xf32>,
                           %mi: tensor<2x16x1x1xf32>, %ivi: tensor<2x16x1x1xf32>,
                           %mb: tensor<1x16x1x1xf32>, %ivb: tensor<1x16x1x1xf32>,
                           %p0: tensor<2x16x1x1xf32>) -> tensor<4x128x1x1xbf16> {
  %ln_dx, %ln_ds, %ln_db = graph.layernorm_backward %dy, %x, scale %g, mean %m, inv_variance %iv : (tensor<4x128x1x1xbf16>, tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<4x1x1x1xf32>, tensor<4x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<1x128x1x1xf32>)
  %ada_dx, %ada_ds, %ada_db = graph.adalayernorm_backward %dy, %x, scale %ag, mean %m, inv_variance %iv : (tensor<4x128x1x1xbf16>, tensor<4x128x1x1xbf16>, tensor<4x128x1x1xf32>, tensor<4x1x1x1xf32>, tensor<4x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, tensor<4x128x1x1xf32>, tensor<4x128x1x1xf32>)
  %in_dx, %in_ds, %in_db = graph.instancenorm_backward %dyi, %xi, scale %gi, mean %mi, inv_variance %ivi : (tensor<2x16x8x8xf32>, tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<2x16x1x1xf32>, tensor<2x16x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
  %rms_dx, %rms_ds = graph.rmsnorm_backward %dy, %x, scale %g, inv_variance %iv {has_dbias = false} : (tensor<4x128x1x1xbf16>, tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<4x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>)
  %rmsb_dx, %rmsb_ds, %rmsb_db = graph.rmsnorm_backward %dy, %x, scale %g, inv_variance %iv : (tensor<4x128x1x1xbf16>, tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<4x1x1x1xf32>) -> (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<1x128x1x1xf32>)
  %bn_dx, %bn_ds, %bn_db = graph.batchnorm_backward %dyi, %xi, scale %gi, mean %mb, inv_variance %ivb peer_stats(%p0) : (tensor<2x16x8x8xf32>, tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<2x16x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
  %bn2_dx, %bn2_ds, %bn2_db = graph.batchnorm_backward %dyi, %xi, scale %gi, mean %mb, inv_variance %ivb : (tensor<2x16x8x8xf32>, tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>) -> (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
  graph.output %ln_dx : tensor<4x128x1x1xbf16>
}

// Reductions (every mode) and the structural ops.
// CHECK-LABEL: graph.graph @reduction_structural(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x16xf32>, %[[OFF:[^:]+]]: tensor<3xi32>, %[[A:[^:]+]]: tensor<4x8xf32>, %[[C:[^:]+]]: tensor<4x4xf32>) -> tensor<4x1xf32> {
// CHECK-NEXT: %[[R_ADD:.+]] = reduction add %[[X]] : (tensor<4x16xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[R_MUL:.+]] = reduction mul %[[X]] : (tensor<4x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT: %[[R_MIN:.+]] = reduction min %[[X]] : (tensor<4x16xf32>) -> tensor<1x1xf32>
// CHECK-NEXT: %[[R_MAX:.+]] = reduction max %[[X]] : (tensor<4x16xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[R_AMAX:.+]] = reduction amax %[[X]] {compute_data_type = f32} : (tensor<4x16xf32>) -> tensor<1x1xf32>
// CHECK-NEXT: %[[R_AVG:.+]] = reduction avg %[[X]] : (tensor<4x16xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[R_NORM1:.+]] = reduction norm1 %[[X]] : (tensor<4x16xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[R_NORM2:.+]] = reduction norm2 %[[X]] : (tensor<4x16xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[R_MNZ:.+]] = reduction mul_no_zeros %[[X]] : (tensor<4x16xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[R_GROUPED:.+]] = reduction add %[[X]] group_offset %[[OFF]] {name = "ragged"} : (tensor<4x16xf32>, tensor<3xi32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[RESHAPED:.+]] = reshape %[[X]] : (tensor<4x16xf32>) -> tensor<2x2x16xf32>
// CHECK-NEXT: %[[SLICED:.+]] = slice %[[X]] {limit = array<i64: 4, 12>, start = array<i64: 0, 4>, step = array<i64: 1, 2>} : (tensor<4x16xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: %[[SLICED1:.+]] = slice %[[X]] {limit = array<i64: 3, 16>, start = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<2x16xf32>
// CHECK-NEXT: %[[TRANSPOSED:.+]] = transpose %[[X]] {permutation = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<16x4xf32>
// CHECK-NEXT: %[[CAT:.+]] = concatenate %[[A]], %[[C]] {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x4xf32>) -> tensor<4x12xf32>
// CHECK-NEXT: %[[CAT3:.+]] = concatenate %[[A]], %[[C]], %[[A]] {axis = 1 : i64, in_place_index = 1 : i64} : (tensor<4x8xf32>, tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x20xf32>
// CHECK-NEXT: output %[[R_ADD]] : tensor<4x1xf32>

graph.graph @reduction_structural(%x: tensor<4x16xf32>, %off: tensor<3xi32>, %a: tensor<4x8xf32>, %c: tensor<4x4xf32>) -> tensor<4x1xf32> {
  %r_add = graph.reduction add %x : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %r_mul = graph.reduction mul %x : (tensor<4x16xf32>) -> tensor<1x16xf32>
  %r_min = graph.reduction min %x : (tensor<4x16xf32>) -> tensor<1x1xf32>
  %r_max = graph.reduction max %x : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %r_amax = graph.reduction amax %x {compute_data_type = f32} : (tensor<4x16xf32>) -> tensor<1x1xf32>
  %r_avg = graph.reduction avg %x : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %r_norm1 = graph.reduction norm1 %x : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %r_norm2 = graph.reduction norm2 %x : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %r_mnz = graph.reduction mul_no_zeros %x : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %r_grouped = graph.reduction add %x group_offset %off {name = "ragged"} : (tensor<4x16xf32>, tensor<3xi32>) -> tensor<4x1xf32>
  %reshaped = graph.reshape %x : (tensor<4x16xf32>) -> tensor<2x2x16xf32>
  %sliced = graph.slice %x {start = array<i64: 0, 4>, limit = array<i64: 4, 12>, step = array<i64: 1, 2>} : (tensor<4x16xf32>) -> tensor<4x4xf32>
  %sliced1 = graph.slice %x {start = array<i64: 1, 0>, limit = array<i64: 3, 16>} : (tensor<4x16xf32>) -> tensor<2x16xf32>
  %transposed = graph.transpose %x {permutation = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<16x4xf32>
  %cat = graph.concatenate %a, %c {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x4xf32>) -> tensor<4x12xf32>
  %cat3 = graph.concatenate %a, %c, %a {axis = 1 : i64, in_place_index = 1 : i64} : (tensor<4x8xf32>, tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x20xf32>
  graph.output %r_add : tensor<4x1xf32>
}

// Rotary embeddings.
// CHECK-LABEL: graph.graph @rope(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8x128x64xbf16>, %[[F:[^:]+]]: tensor<1x1x128x32xf32>, %[[FP:[^:]+]]: tensor<128x16xf32>) -> tensor<2x8x128x64xbf16> {
// CHECK-NEXT: %[[Y:.+]] = rope %[[X]], freqs %[[F]] : (tensor<2x8x128x64xbf16>, tensor<1x1x128x32xf32>) -> tensor<2x8x128x64xbf16>
// CHECK-NEXT: %[[YP:.+]] = rope %[[X]], freqs %[[FP]] {output_scale = 5.000000e-01 : f64, rope_dim = 32 : i64} : (tensor<2x8x128x64xbf16>, tensor<128x16xf32>) -> tensor<2x8x128x64xbf16>
// CHECK-NEXT: %[[DX:.+]] = rope_backward %[[Y]], freqs %[[F]] {name = "rope_bwd"} : (tensor<2x8x128x64xbf16>, tensor<1x1x128x32xf32>) -> tensor<2x8x128x64xbf16>
// CHECK-NEXT: output %[[Y]] : tensor<2x8x128x64xbf16>

graph.graph @rope(%x: tensor<2x8x128x64xbf16>, %f: tensor<1x1x128x32xf32>, %fp: tensor<128x16xf32>) -> tensor<2x8x128x64xbf16> {
  %y = graph.rope %x, freqs %f : (tensor<2x8x128x64xbf16>, tensor<1x1x128x32xf32>) -> tensor<2x8x128x64xbf16>
  %yp = graph.rope %x, freqs %fp {rope_dim = 32 : i64, output_scale = 5.000000e-01 : f64} : (tensor<2x8x128x64xbf16>, tensor<128x16xf32>) -> tensor<2x8x128x64xbf16>
  %dx = graph.rope_backward %y, freqs %f {name = "rope_bwd"} : (tensor<2x8x128x64xbf16>, tensor<1x1x128x32xf32>) -> tensor<2x8x128x64xbf16>
  graph.output %y : tensor<2x8x128x64xbf16>
}

// Attention forward: stats, causal masks, padding mask, bias, sliding
// window, dropout, the scale as a tensor and as a value, GQA.
// CHECK-LABEL: graph.graph @sdpa(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x8x128x64xbf16>, %[[K:[^:]+]]: tensor<2x8x128x64xbf16>, %[[V:[^:]+]]: tensor<2x8x128x64xbf16>, %[[BIAS:[^:]+]]: tensor<1x8x128x128xbf16>, %[[SLQ:[^:]+]]: tensor<2x1x1x1xi32>, %[[SLKV:[^:]+]]: tensor<2x1x1x1xi32>, %[[MASK:[^:]+]]: tensor<2x8x128x128xi1>, %[[GQ:[^:]+]]: tensor<2x32x128x128xf16>, %[[GK:[^:]+]]: tensor<2x8x256x128xf16>, %[[GV:[^:]+]]: tensor<2x4x256x64xf16>) -> (tensor<2x8x128x64xbf16>, tensor<2x8x128x1xf32>) {
// CHECK-NEXT: %[[SCALE:.+]] = scalar 1.250000e-01 : f32 -> tensor<1x1x1x1xf32>
// CHECK-NEXT: %[[O:.+]], %[[STATS:.+]] = sdpa %[[Q]], %[[K]], %[[V]] {attn_scale_value = 1.250000e-01 : f64, generate_stats, name = "attn", use_causal_mask} : (tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>) -> (tensor<2x8x128x64xbf16>, tensor<2x8x128x1xf32>, none, none)
// CHECK-NEXT: %[[O2:.+]], %[[SMAX:.+]], %[[SSUM:.+]] = sdpa %[[Q]], %[[K]], %[[V]] attn_scale %[[SCALE]] bias %[[BIAS]] seq_len_q %[[SLQ]] seq_len_kv %[[SLKV]] {use_causal_mask_bottom_right, use_padding_mask} : (tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x8x128x128xbf16>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>) -> (tensor<2x8x128x64xbf16>, none, tensor<2x8x128x1xf32>, tensor<2x8x128x1xf32>)
// CHECK-NEXT: %[[O3:.+]] = sdpa %[[Q]], %[[K]], %[[V]] dropout_mask %[[MASK]] {diagonal_alignment = #graph.diagonal_alignment<bottom_right>, diagonal_band_left_bound = 64 : i64, diagonal_band_right_bound = 0 : i64, dropout_probability = 1.000000e-01 : f64} : (tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x128xi1>) -> (tensor<2x8x128x64xbf16>, none, none, none)
// CHECK-NEXT: %[[O4:.+]] = sdpa %[[Q]], %[[K]], %[[V]] {diagonal_alignment = #graph.diagonal_alignment<top_left>, sliding_window_length = 32 : i64, use_alibi_mask, use_causal_mask} : (tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>) -> (tensor<2x8x128x64xbf16>, none, none, none)
// CHECK-NEXT: %[[OG:.+]], %[[SG:.+]] = sdpa %[[GQ]], %[[GK]], %[[GV]] {generate_stats} : (tensor<2x32x128x128xf16>, tensor<2x8x256x128xf16>, tensor<2x4x256x64xf16>) -> (tensor<2x32x128x64xf16>, tensor<2x32x128x1xf32>, none, none)
// CHECK-NEXT: output %[[O]], %[[STATS]] : tensor<2x8x128x64xbf16>, tensor<2x8x128x1xf32>

graph.graph @sdpa(%q: tensor<2x8x128x64xbf16>, %k: tensor<2x8x128x64xbf16>, %v: tensor<2x8x128x64xbf16>,
                  %bias: tensor<1x8x128x128xbf16>, %slq: tensor<2x1x1x1xi32>, %slkv: tensor<2x1x1x1xi32>,
                  %mask: tensor<2x8x128x128xi1>,
                  %gq: tensor<2x32x128x128xf16>, %gk: tensor<2x8x256x128xf16>, %gv: tensor<2x4x256x64xf16>)
    -> (tensor<2x8x128x64xbf16>, tensor<2x8x128x1xf32>) {
  %scale = graph.scalar 1.250000e-01 : f32 -> tensor<1x1x1x1xf32>
  %o, %stats = graph.sdpa %q, %k, %v {use_causal_mask, generate_stats, attn_scale_value = 1.250000e-01 : f64, name = "attn"} : (tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>) -> (tensor<2x8x128x64xbf16>, tensor<2x8x128x1xf32>, none, none)
  %o2, %smax, %ssum = graph.sdpa %q, %k, %v attn_scale %scale bias %bias seq_len_q %slq seq_len_kv %slkv {use_padding_mask, use_causal_mask_bottom_right} : (tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x8x128x128xbf16>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>) -> (tensor<2x8x128x64xbf16>, none, tensor<2x8x128x1xf32>, tensor<2x8x128x1xf32>)
  %o3 = graph.sdpa %q, %k, %v dropout_mask %mask {diagonal_alignment = #graph.diagonal_alignment<bottom_right>, diagonal_band_left_bound = 64 : i64, diagonal_band_right_bound = 0 : i64, dropout_probability = 1.000000e-01 : f64} : (tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x128xi1>) -> (tensor<2x8x128x64xbf16>, none, none, none)
  %o4 = graph.sdpa %q, %k, %v {sliding_window_length = 32 : i64, use_causal_mask, use_alibi_mask, diagonal_alignment = #graph.diagonal_alignment<top_left>} : (tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>) -> (tensor<2x8x128x64xbf16>, none, none, none)
  %og, %sg = graph.sdpa %gq, %gk, %gv {generate_stats} : (tensor<2x32x128x128xf16>, tensor<2x8x256x128xf16>, tensor<2x4x256x64xf16>) -> (tensor<2x32x128x64xf16>, tensor<2x32x128x1xf32>, none, none)
  graph.output %o, %stats : tensor<2x8x128x64xbf16>, tensor<2x8x128x1xf32>
}

// Attention backward, with and without dBias.
// CHECK-LABEL: graph.graph @sdpa_backward(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x8x128x64xbf16>, %[[K:[^:]+]]: tensor<2x2x128x64xbf16>, %[[V:[^:]+]]: tensor<2x2x128x64xbf16>, %[[O:[^:]+]]: tensor<2x8x128x64xbf16>, %[[DO:[^:]+]]: tensor<2x8x128x64xbf16>, %[[STATS:[^:]+]]: tensor<2x8x128x1xf32>, %[[BIAS:[^:]+]]: tensor<1x8x128x128xbf16>) -> tensor<2x8x128x64xbf16> {
// CHECK-NEXT: %[[DQ:.+]], %[[DK:.+]], %[[DV:.+]] = sdpa_backward %[[Q]], %[[K]], %[[V]], %[[O]], %[[DO]], %[[STATS]] {attn_scale_value = 1.250000e-01 : f64, use_causal_mask, use_deterministic_algorithm} : (tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x1xf32>) -> (tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>)
// CHECK-NEXT: %[[DQ2:.+]], %[[DK2:.+]], %[[DV2:.+]], %[[DBIAS:.+]] = sdpa_backward %[[Q]], %[[K]], %[[V]], %[[O]], %[[DO]], %[[STATS]] bias %[[BIAS]] {name = "attn_bwd"} : (tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x1xf32>, tensor<1x8x128x128xbf16>) -> (tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<1x8x128x128xbf16>)
// CHECK-NEXT: output %[[DQ]] : tensor<2x8x128x64xbf16>

graph.graph @sdpa_backward(%q: tensor<2x8x128x64xbf16>, %k: tensor<2x2x128x64xbf16>, %v: tensor<2x2x128x64xbf16>,
                           %o: tensor<2x8x128x64xbf16>, %do: tensor<2x8x128x64xbf16>, %stats: tensor<2x8x128x1xf32>,
                           %bias: tensor<1x8x128x128xbf16>) -> tensor<2x8x128x64xbf16> {
  %dq, %dk, %dv = graph.sdpa_backward %q, %k, %v, %o, %do, %stats {use_causal_mask, use_deterministic_algorithm, attn_scale_value = 1.250000e-01 : f64} : (tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x1xf32>) -> (tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>)
  %dq2, %dk2, %dv2, %dbias = graph.sdpa_backward %q, %k, %v, %o, %do, %stats bias %bias {name = "attn_bwd"} : (tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x1xf32>, tensor<1x8x128x128xbf16>) -> (tensor<2x8x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<2x2x128x64xbf16>, tensor<1x8x128x128xbf16>)
  graph.output %dq : tensor<2x8x128x64xbf16>
}

// Block-sparse attention: sdpa's block_mask operand.
// CHECK-LABEL: graph.graph @sdpa_block_mask(
// CHECK: sdpa %{{.+}}, %{{.+}}, %{{.+}} block_mask %{{.+}} : ({{.+}}, tensor<1x2x2x1xui8>) -> (tensor<1x2x200x16xbf16>, none, none, none)
graph.graph @sdpa_block_mask(%q: tensor<1x2x200x16xbf16>, %m: tensor<1x2x2x1xui8>) -> tensor<1x2x200x16xbf16> {
  %o = graph.sdpa %q, %q, %q block_mask %m : (tensor<1x2x200x16xbf16>, tensor<1x2x200x16xbf16>, tensor<1x2x200x16xbf16>, tensor<1x2x2x1xui8>) -> (tensor<1x2x200x16xbf16>, none, none, none)
  graph.output %o : tensor<1x2x200x16xbf16>
}

// Attention sinks: sdpa's sink_token operand, sdpa_backward's sink_token
// and its dSink_token result (after dBias when both are present).
// CHECK-LABEL: graph.graph @sdpa_sink(
// CHECK: %[[O:.+]], %[[ST:.+]] = sdpa %{{.+}}, %{{.+}}, %{{.+}} sink_token %[[SINK:[^ ]+]] {generate_stats} : ({{.+}}, tensor<1x2x1x1xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>, none, none)
// CHECK-NEXT: %{{.+}}, %{{.+}}, %{{.+}}, %[[DS:.+]] = sdpa_backward {{.+}} sink_token %[[SINK]] : ({{.+}}) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x1x1xf32>)
// CHECK-NEXT: %{{.+}}, %{{.+}}, %{{.+}}, %[[DB:.+]], %[[DS2:.+]] = sdpa_backward {{.+}} bias %{{.+}} sink_token %[[SINK]] : ({{.+}}) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x8xbf16>, tensor<1x2x1x1xf32>)
graph.graph @sdpa_sink(%q: tensor<1x2x8x16xbf16>, %sink: tensor<1x2x1x1xf32>, %bias: tensor<1x2x8x8xbf16>) -> tensor<1x2x1x1xf32> {
  %o, %st = graph.sdpa %q, %q, %q sink_token %sink {generate_stats} : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x1x1xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>, none, none)
  %dq, %dk, %dv, %ds = graph.sdpa_backward %q, %q, %q, %o, %o, %st sink_token %sink : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>, tensor<1x2x1x1xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x1x1xf32>)
  %dq2, %dk2, %dv2, %db, %ds2 = graph.sdpa_backward %q, %q, %q, %o, %o, %st bias %bias sink_token %sink : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x1xf32>, tensor<1x2x8x8xbf16>, tensor<1x2x1x1xf32>) -> (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x8xbf16>, tensor<1x2x1x1xf32>)
  graph.output %ds : tensor<1x2x1x1xf32>
}

// FP8 attention, forward and backward.
// CHECK-LABEL: graph.graph @sdpa_fp8(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x8x128x64xf8E4M3FN>, %[[K:[^:]+]]: tensor<2x8x128x64xf8E4M3FN>, %[[V:[^:]+]]: tensor<2x8x128x64xf8E4M3FN>, %[[O:[^:]+]]: tensor<2x8x128x64xf8E4M3FN>, %[[DO:[^:]+]]: tensor<2x8x128x64xf8E5M2>, %[[STATS:[^:]+]]: tensor<2x8x128x1xf32>, %[[S:[^:]+]]: tensor<1x1x1x1xf32>) -> tensor<2x8x128x64xf8E4M3FN> {
// CHECK-NEXT: %[[OUT:.+]], %[[ST:.+]], %[[AMAX_S:.+]], %[[AMAX_O:.+]] = sdpa_fp8 %[[Q]], %[[K]], %[[V]] descale(%[[S]], %[[S]], %[[S]], %[[S]]) scale(%[[S]], %[[S]]) {generate_stats, use_causal_mask} : (tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
// CHECK-NEXT: %[[OUT2:.+]], %[[AMAX_S2:.+]], %[[AMAX_O2:.+]] = sdpa_fp8 %[[Q]], %[[K]], %[[V]] descale(%[[S]], %[[S]], %[[S]], %[[S]]) scale(%[[S]], %[[S]]) attn_scale %[[S]] : (tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x8x128x64xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
// CHECK-NEXT: %[[DQ:.+]], %[[DK:.+]], %[[DV:.+]], %[[ADQ:.+]], %[[ADK:.+]], %[[ADV:.+]], %[[ADP:.+]] = sdpa_fp8_backward %[[Q]], %[[K]], %[[V]], %[[O]], %[[DO]], %[[STATS]] descale(%[[S]], %[[S]], %[[S]], %[[S]], %[[S]], %[[S]], %[[S]]) scale(%[[S]], %[[S]], %[[S]], %[[S]], %[[S]]) {use_causal_mask} : (tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E5M2>, tensor<2x8x128x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x8x128x64xf8E5M2>, tensor<2x8x128x64xf8E5M2>, tensor<2x8x128x64xf8E5M2>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
// CHECK-NEXT: output %[[OUT]] : tensor<2x8x128x64xf8E4M3FN>

graph.graph @sdpa_fp8(%q: tensor<2x8x128x64xf8E4M3FN>, %k: tensor<2x8x128x64xf8E4M3FN>, %v: tensor<2x8x128x64xf8E4M3FN>,
                      %o: tensor<2x8x128x64xf8E4M3FN>, %do: tensor<2x8x128x64xf8E5M2>, %stats: tensor<2x8x128x1xf32>,
                      %s: tensor<1x1x1x1xf32>) -> tensor<2x8x128x64xf8E4M3FN> {
  %out, %st, %amax_s, %amax_o = graph.sdpa_fp8 %q, %k, %v descale(%s, %s, %s, %s) scale(%s, %s) {generate_stats, use_causal_mask} : (tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  %out2, %amax_s2, %amax_o2 = graph.sdpa_fp8 %q, %k, %v descale(%s, %s, %s, %s) scale(%s, %s) attn_scale %s : (tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x8x128x64xf8E4M3FN>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  %dq, %dk, %dv, %adq, %adk, %adv, %adp = graph.sdpa_fp8_backward %q, %k, %v, %o, %do, %stats descale(%s, %s, %s, %s, %s, %s, %s) scale(%s, %s, %s, %s, %s) {use_causal_mask} : (tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E5M2>, tensor<2x8x128x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> (tensor<2x8x128x64xf8E5M2>, tensor<2x8x128x64xf8E5M2>, tensor<2x8x128x64xf8E5M2>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output %out : tensor<2x8x128x64xf8E4M3FN>
}

// MXFP8 (block-scaled) attention, forward and backward. The _T operands are
// the same values quantized along the sequence dim.
// CHECK-LABEL: graph.graph @sdpa_mxfp8(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x8x128x64xf8E4M3FN>, %[[QT:[^:]+]]: tensor<2x8x128x64xf8E4M3FN>, %[[K:[^:]+]]: tensor<2x8x128x64xf8E4M3FN>, %[[KT:[^:]+]]: tensor<2x8x128x64xf8E4M3FN>, %[[V:[^:]+]]: tensor<2x8x128x64xf8E4M3FN>, %[[O16:[^:]+]]: tensor<2x8x128x64xbf16>, %[[DO16:[^:]+]]: tensor<2x8x128x64xbf16>, %[[DO:[^:]+]]: tensor<2x8x128x64xf8E5M2>, %[[DOT:[^:]+]]: tensor<2x8x128x64xf8E5M2>, %[[STATS:[^:]+]]: tensor<2x8x128x1xf32>, %[[SD:[^:]+]]: tensor<2x8x128x2xf8E8M0FNU>, %[[SS:[^:]+]]: tensor<2x8x4x64xf8E8M0FNU>) -> tensor<2x8x128x64xbf16> {
// CHECK-NEXT: %[[O:.+]], %[[ST:.+]], %[[AMAX:.+]] = sdpa_mxfp8 %[[Q]], %[[K]], %[[V]] descale(%[[SD]], %[[SD]], %[[SS]]) {generate_stats, use_causal_mask} : (tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x2xf8E8M0FNU>, tensor<2x8x128x2xf8E8M0FNU>, tensor<2x8x4x64xf8E8M0FNU>) -> (tensor<2x8x128x64xbf16>, tensor<2x8x128x1xf32>, tensor<1x1x1x1xf32>)
// CHECK-NEXT: %[[O2:.+]], %[[AMAX2:.+]] = sdpa_mxfp8 %[[Q]], %[[K]], %[[V]] descale(%[[SD]], %[[SD]], %[[SS]]) {attn_scale_value = 1.250000e-01 : f64} : (tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x2xf8E8M0FNU>, tensor<2x8x128x2xf8E8M0FNU>, tensor<2x8x4x64xf8E8M0FNU>) -> (tensor<2x8x128x64xbf16>, tensor<1x1x1x1xf32>)
// CHECK-NEXT: %[[DQ:.+]], %[[DK:.+]], %[[DV:.+]], %[[ADQ:.+]], %[[ADK:.+]], %[[ADV:.+]] = sdpa_mxfp8_backward %[[Q]], %[[QT]], %[[K]], %[[KT]], %[[V]], %[[O16]], %[[DO16]], %[[DO]], %[[DOT]], %[[STATS]] descale(%[[SD]], %[[SS]], %[[SD]], %[[SS]], %[[SS]], %[[SD]], %[[SS]]) {use_causal_mask} : (tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xf8E5M2>, tensor<2x8x128x64xf8E5M2>, tensor<2x8x128x1xf32>, tensor<2x8x128x2xf8E8M0FNU>, tensor<2x8x4x64xf8E8M0FNU>, tensor<2x8x128x2xf8E8M0FNU>, tensor<2x8x4x64xf8E8M0FNU>, tensor<2x8x4x64xf8E8M0FNU>, tensor<2x8x128x2xf8E8M0FNU>, tensor<2x8x4x64xf8E8M0FNU>) -> (tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
// CHECK-NEXT: output %[[O]] : tensor<2x8x128x64xbf16>

graph.graph @sdpa_mxfp8(%q: tensor<2x8x128x64xf8E4M3FN>, %qt: tensor<2x8x128x64xf8E4M3FN>,
                        %k: tensor<2x8x128x64xf8E4M3FN>, %kt: tensor<2x8x128x64xf8E4M3FN>,
                        %v: tensor<2x8x128x64xf8E4M3FN>, %o16: tensor<2x8x128x64xbf16>, %do16: tensor<2x8x128x64xbf16>,
                        %do: tensor<2x8x128x64xf8E5M2>, %dot: tensor<2x8x128x64xf8E5M2>, %stats: tensor<2x8x128x1xf32>,
                        %sd: tensor<2x8x128x2xf8E8M0FNU>, %ss: tensor<2x8x4x64xf8E8M0FNU>) -> tensor<2x8x128x64xbf16> {
  %o, %st, %amax = graph.sdpa_mxfp8 %q, %k, %v descale(%sd, %sd, %ss) {generate_stats, use_causal_mask} : (tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x2xf8E8M0FNU>, tensor<2x8x128x2xf8E8M0FNU>, tensor<2x8x4x64xf8E8M0FNU>) -> (tensor<2x8x128x64xbf16>, tensor<2x8x128x1xf32>, tensor<1x1x1x1xf32>)
  %o2, %amax2 = graph.sdpa_mxfp8 %q, %k, %v descale(%sd, %sd, %ss) {attn_scale_value = 1.250000e-01 : f64} : (tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x2xf8E8M0FNU>, tensor<2x8x128x2xf8E8M0FNU>, tensor<2x8x4x64xf8E8M0FNU>) -> (tensor<2x8x128x64xbf16>, tensor<1x1x1x1xf32>)
  %dq, %dk, %dv, %adq, %adk, %adv = graph.sdpa_mxfp8_backward %q, %qt, %k, %kt, %v, %o16, %do16, %do, %dot, %stats descale(%sd, %ss, %sd, %ss, %ss, %sd, %ss) {use_causal_mask} : (tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xf8E4M3FN>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xf8E5M2>, tensor<2x8x128x64xf8E5M2>, tensor<2x8x128x1xf32>, tensor<2x8x128x2xf8E8M0FNU>, tensor<2x8x4x64xf8E8M0FNU>, tensor<2x8x128x2xf8E8M0FNU>, tensor<2x8x4x64xf8E8M0FNU>, tensor<2x8x4x64xf8E8M0FNU>, tensor<2x8x128x2xf8E8M0FNU>, tensor<2x8x4x64xf8E8M0FNU>) -> (tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
  graph.output %o : tensor<2x8x128x64xbf16>
}

// Block-scale quantization.
// CHECK-LABEL: graph.graph @block_scale(
// CHECK-SAME: %[[X:[^:]+]]: tensor<128x256xbf16>, %[[OFF:[^:]+]]: tensor<5xi32>) -> tensor<128x256xf32> {
// CHECK-NEXT: %[[Y:.+]], %[[S:.+]] = block_scale_quantize %[[X]] {block_size = 32 : i64} : (tensor<128x256xbf16>) -> (tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>)
// CHECK-NEXT: %[[Y0:.+]], %[[S0:.+]] = block_scale_quantize %[[X]] group_offset %[[OFF]] {axis = 0 : i64, block_size = 32 : i64, transpose} : (tensor<128x256xbf16>, tensor<5xi32>) -> (tensor<128x256xf4E2M1FN>, tensor<4x256xf8E8M0FNU>)
// CHECK-NEXT: %[[X1:.+]] = block_scale_dequantize %[[Y]], descale %[[S]] {block_size = 32 : i64} : (tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>) -> tensor<128x256xf32>
// CHECK-NEXT: %[[X2:.+]] = block_scale_dequantize %[[Y]], descale %[[S]] {block_size = 32 : i64, is_negative_scale} : (tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>) -> tensor<128x256xf32>
// CHECK-NEXT: output %[[X1]] : tensor<128x256xf32>

graph.graph @block_scale(%x: tensor<128x256xbf16>, %off: tensor<5xi32>) -> tensor<128x256xf32> {
  %y, %s = graph.block_scale_quantize %x {block_size = 32 : i64} : (tensor<128x256xbf16>) -> (tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>)
  %y0, %s0 = graph.block_scale_quantize %x group_offset %off {block_size = 32 : i64, axis = 0 : i64, transpose} : (tensor<128x256xbf16>, tensor<5xi32>) -> (tensor<128x256xf4E2M1FN>, tensor<4x256xf8E8M0FNU>)
  %x1 = graph.block_scale_dequantize %y, descale %s {block_size = 32 : i64} : (tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>) -> tensor<128x256xf32>
  %x2 = graph.block_scale_dequantize %y, descale %s {block_size = 32 : i64, is_negative_scale} : (tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>) -> tensor<128x256xf32>
  graph.output %x1 : tensor<128x256xf32>
}

// A paged cache gathered into [B, H, max_seq_len, D], with and without the
// per-batch lengths.
// CHECK-LABEL: graph.graph @paged_cache_load(
// CHECK-SAME: %[[C:[^:]+]]: tensor<32x4x8x64xf16>, %[[T:[^:]+]]: tensor<4x1x8x1xi32>, %[[L:[^:]+]]: tensor<4x1x1x1xi32>)
// CHECK-NEXT: %[[K:.+]] = paged_cache_load %[[C]], %[[T]] seq_len %[[L]] {max_seq_len = 60 : i64} : (tensor<32x4x8x64xf16>, tensor<4x1x8x1xi32>, tensor<4x1x1x1xi32>) -> tensor<4x4x60x64xf16>
// CHECK-NEXT: %[[V:.+]] = paged_cache_load %[[C]], %[[T]] {max_seq_len = 64 : i64} : (tensor<32x4x8x64xf16>, tensor<4x1x8x1xi32>) -> tensor<4x4x64x64xf16>
graph.graph @paged_cache_load(%c: tensor<32x4x8x64xf16>, %t: tensor<4x1x8x1xi32>, %l: tensor<4x1x1x1xi32>) -> (tensor<4x4x60x64xf16>, tensor<4x4x64x64xf16>) {
  %k = graph.paged_cache_load %c, %t seq_len %l {max_seq_len = 60 : i64} : (tensor<32x4x8x64xf16>, tensor<4x1x8x1xi32>, tensor<4x1x1x1xi32>) -> tensor<4x4x60x64xf16>
  %v = graph.paged_cache_load %c, %t {max_seq_len = 64 : i64} : (tensor<32x4x8x64xf16>, tensor<4x1x8x1xi32>) -> tensor<4x4x64x64xf16>
  graph.output %k, %v : tensor<4x4x60x64xf16>, tensor<4x4x64x64xf16>
}

// The row routing of scatter mode alone.
// CHECK-LABEL: graph.graph @moe_scatter_rows(
// CHECK-NEXT: %[[S:.+]] = moe_scatter_rows %{{.+}}, %{{.+}}, %{{.+}}, offsets %{{.+}} {bounded, name = "route", top_k = 2 : i64} : (tensor<1x64x16xbf16>, tensor<64x1x1xi32>, tensor<64x1x1xi32>, tensor<5x1x1xi32>) -> tensor<1x64x16xbf16>
graph.graph @moe_scatter_rows(%rows: tensor<1x64x16xbf16>, %idx: tensor<64x1x1xi32>, %ks: tensor<64x1x1xi32>, %off: tensor<5x1x1xi32>) -> tensor<1x64x16xbf16> {
  %y = graph.moe_scatter_rows %rows, %idx, %ks, offsets %off {name = "route", top_k = 2 : i64, bounded} : (tensor<1x64x16xbf16>, tensor<64x1x1xi32>, tensor<64x1x1xi32>, tensor<5x1x1xi32>) -> tensor<1x64x16xbf16>
  graph.output %y : tensor<1x64x16xbf16>
}

// The row routing of gather mode alone.
// CHECK-LABEL: graph.graph @moe_gather_rows(
// CHECK-NEXT: %[[G:.+]] = moe_gather_rows %{{.+}}, %{{.+}} {name = "route"} : (tensor<1x32x16xbf16>, tensor<1x64x1xi32>) -> tensor<1x64x16xbf16>
graph.graph @moe_gather_rows(%t: tensor<1x32x16xbf16>, %idx: tensor<1x64x1xi32>) -> tensor<1x64x16xbf16> {
  %y = graph.moe_gather_rows %t, %idx {name = "route"} : (tensor<1x32x16xbf16>, tensor<1x64x1xi32>) -> tensor<1x64x16xbf16>
  graph.output %y : tensor<1x64x16xbf16>
}

// Mixture-of-experts grouped matmul in each routing mode, and its backward.
// CHECK-LABEL: graph.graph @moe(
// CHECK-SAME: %[[T:[^:]+]]: tensor<1x64x32xbf16>, %[[W:[^:]+]]: tensor<4x32x16xbf16>, %[[OFF:[^:]+]]: tensor<4x1x1xi32>, %[[IDX:[^:]+]]: tensor<1x64x1xi32>, %[[KS:[^:]+]]: tensor<1x64x1xf32>, %[[DY:[^:]+]]: tensor<1x64x16xbf16>) -> tensor<4x32x16xf32> {
// CHECK-NEXT: %[[Y:.+]] = moe_grouped_matmul %[[T]], %[[W]], offsets %[[OFF]] : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>) -> tensor<1x64x16xbf16>
// CHECK-NEXT: %[[Y_NONE:.+]] = moe_grouped_matmul %[[T]], %[[W]], offsets %[[OFF]] {mode = #graph.moe_mode<none>} : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>) -> tensor<1x64x16xbf16>
// CHECK-NEXT: %[[Y_GATHER:.+]] = moe_grouped_matmul %[[T]], %[[W]], offsets %[[OFF]] token_index %[[IDX]] {mode = #graph.moe_mode<gather>} : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>, tensor<1x64x1xi32>) -> tensor<1x64x16xbf16>
// CHECK-NEXT: %[[Y_SCATTER:.+]] = moe_grouped_matmul %[[T]], %[[W]], offsets %[[OFF]] token_index %[[IDX]] token_ks %[[KS]] {mode = #graph.moe_mode<scatter>, top_k = 2 : i64} : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>, tensor<1x64x1xi32>, tensor<1x64x1xf32>) -> tensor<1x32x16xbf16>
// CHECK-NEXT: %[[DW:.+]] = moe_grouped_matmul_bwd %[[DY]], %[[T]], offsets %[[OFF]] : (tensor<1x64x16xbf16>, tensor<1x64x32xbf16>, tensor<4x1x1xi32>) -> tensor<4x32x16xf32>
// CHECK-NEXT: output %[[DW]] : tensor<4x32x16xf32>

graph.graph @moe(%t: tensor<1x64x32xbf16>, %w: tensor<4x32x16xbf16>, %off: tensor<4x1x1xi32>,
                 %idx: tensor<1x64x1xi32>, %ks: tensor<1x64x1xf32>, %dy: tensor<1x64x16xbf16>) -> tensor<4x32x16xf32> {
  %y = graph.moe_grouped_matmul %t, %w, offsets %off : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>) -> tensor<1x64x16xbf16>
  %y_none = graph.moe_grouped_matmul %t, %w, offsets %off {mode = #graph.moe_mode<none>} : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>) -> tensor<1x64x16xbf16>
  %y_gather = graph.moe_grouped_matmul %t, %w, offsets %off token_index %idx {mode = #graph.moe_mode<gather>} : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>, tensor<1x64x1xi32>) -> tensor<1x64x16xbf16>
  %y_scatter = graph.moe_grouped_matmul %t, %w, offsets %off token_index %idx token_ks %ks {mode = #graph.moe_mode<scatter>, top_k = 2 : i64} : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>, tensor<1x64x1xi32>, tensor<1x64x1xf32>) -> tensor<1x32x16xbf16>
  %dw = graph.moe_grouped_matmul_bwd %dy, %t, offsets %off : (tensor<1x64x16xbf16>, tensor<1x64x32xbf16>, tensor<4x1x1xi32>) -> tensor<4x32x16xf32>
  graph.output %dw : tensor<4x32x16xf32>
}

// Gated delta net, kimi delta attention and gdn2, forward and backward.
// CHECK-LABEL: graph.graph @linear_attention(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<64x2x32xbf16>, %[[K:[^:]+]]: tensor<64x2x32xbf16>, %[[V:[^:]+]]: tensor<64x4x32xbf16>, %[[G:[^:]+]]: tensor<64x4xf32>, %[[GK:[^:]+]]: tensor<64x4x32xf32>, %[[BETA:[^:]+]]: tensor<64x4xf32>, %[[W:[^:]+]]: tensor<64x4x32xbf16>, %[[CU:[^:]+]]: tensor<3xi32>, %[[H0:[^:]+]]: tensor<2x4x32x32xf32>, %[[ALOG:[^:]+]]: tensor<4xf32>, %[[DTB:[^:]+]]: tensor<4xf32>, %[[DO:[^:]+]]: tensor<64x4x32xbf16>, %[[CKPT:[^:]+]]: tensor<4x4x32x32xf32>, %[[DHT:[^:]+]]: tensor<2x4x32x32xf32>, %[[Q1:[^:]+]]: tensor<64x4x32xbf16>, %[[H01:[^:]+]]: tensor<1x4x32x32xf32>) -> tensor<64x4x32xbf16> {
// CHECK-NEXT: %[[O:.+]] = gdn %[[Q]], %[[K]], %[[V]], %[[G]], %[[BETA]] : (tensor<64x2x32xbf16>, tensor<64x2x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4xf32>, tensor<64x4xf32>) -> (tensor<64x4x32xbf16>, none, none)
// CHECK-NEXT: %[[O2:.+]], %[[HT:.+]], %[[CK:.+]] = gdn %[[Q]], %[[K]], %[[V]], %[[G]], %[[BETA]] cu_seqlens %[[CU]] initial_state %[[H0]] a_log %[[ALOG]] dt_bias %[[DTB]] {batch_invariant, checkpoint_every_n_tokens = 16 : i64, name = "gdn", output_final_state, safe_gate, scale = 0.17677670000000001 : f64, use_qk_l2norm} : (tensor<64x2x32xbf16>, tensor<64x2x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4xf32>, tensor<64x4xf32>, tensor<3xi32>, tensor<2x4x32x32xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<64x4x32xbf16>, tensor<2x4x32x32xf32>, tensor<4x4x32x32xf32>)
// CHECK-NEXT: %[[DQ:.+]], %[[DK:.+]], %[[DV:.+]], %[[DG:.+]], %[[DBETA:.+]], %[[DH0:.+]] = gdn_bwd %[[Q]], %[[K]], %[[V]], %[[G]], %[[BETA]] cu_seqlens %[[CU]] dO %[[DO]] state_checkpoints %[[CKPT]] initial_state %[[H0]] d_final_state %[[DHT]] {use_qk_l2norm} : (tensor<64x2x32xbf16>, tensor<64x2x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4xf32>, tensor<64x4xf32>, tensor<3xi32>, tensor<64x4x32xbf16>, tensor<4x4x32x32xf32>, tensor<2x4x32x32xf32>, tensor<2x4x32x32xf32>) -> (tensor<64x2x32xbf16>, tensor<64x2x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4xf32>, tensor<64x4xf32>, tensor<2x4x32x32xf32>)
// CHECK-NEXT: %[[KO:.+]], %[[KHT:.+]] = kda %[[Q1]], %[[Q1]], %[[V]], %[[GK]], %[[BETA]] initial_state %[[H01]] {gate_lower_bound = -5.000000e+00 : f64, output_final_state, use_beta_sigmoid} : (tensor<64x4x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xf32>, tensor<64x4xf32>, tensor<1x4x32x32xf32>) -> (tensor<64x4x32xbf16>, tensor<1x4x32x32xf32>, none)
// CHECK-NEXT: %[[KDQ:.+]], %[[KDK:.+]], %[[KDV:.+]], %[[KDG:.+]], %[[KDBETA:.+]] = kda_bwd %[[Q1]], %[[Q1]], %[[V]], %[[GK]], %[[BETA]] dO %[[DO]] : (tensor<64x4x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xf32>, tensor<64x4xf32>, tensor<64x4x32xbf16>) -> (tensor<64x4x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xf32>, tensor<64x4xf32>)
// CHECK-NEXT: %[[GO:.+]] = gdn2 %[[Q]], %[[K]], %[[V]], %[[GK]], %[[GK]], %[[W]] cu_seqlens %[[CU]] {gate_lower_bound = -1.000000e+01 : f64} : (tensor<64x2x32xbf16>, tensor<64x2x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xf32>, tensor<64x4x32xf32>, tensor<64x4x32xbf16>, tensor<3xi32>) -> (tensor<64x4x32xbf16>, none, none)
// CHECK-NEXT: %[[GDQ:.+]], %[[GDK:.+]], %[[GDV:.+]], %[[GDG:.+]], %[[GDBETA:.+]], %[[GDW:.+]], %[[GDH0:.+]] = gdn2_bwd %[[Q]], %[[K]], %[[V]], %[[GK]], %[[GK]], %[[W]] cu_seqlens %[[CU]] dO %[[DO]] initial_state %[[H0]] : (tensor<64x2x32xbf16>, tensor<64x2x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xf32>, tensor<64x4x32xf32>, tensor<64x4x32xbf16>, tensor<3xi32>, tensor<64x4x32xbf16>, tensor<2x4x32x32xf32>) -> (tensor<64x2x32xbf16>, tensor<64x2x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xf32>, tensor<64x4x32xf32>, tensor<64x4x32xbf16>, tensor<2x4x32x32xf32>)
// CHECK-NEXT: output %[[O]] : tensor<64x4x32xbf16>
// CHECK-NEXT: }

graph.graph @linear_attention(%q: tensor<64x2x32xbf16>, %k: tensor<64x2x32xbf16>, %v: tensor<64x4x32xbf16>,
                              %g: tensor<64x4xf32>, %gk: tensor<64x4x32xf32>, %beta: tensor<64x4xf32>,
                              %w: tensor<64x4x32xbf16>, %cu: tensor<3xi32>, %h0: tensor<2x4x32x32xf32>,
                              %alog: tensor<4xf32>, %dtb: tensor<4xf32>, %do: tensor<64x4x32xbf16>,
                              %ckpt: tensor<4x4x32x32xf32>, %dhT: tensor<2x4x32x32xf32>,
                              %q1: tensor<64x4x32xbf16>, %h01: tensor<1x4x32x32xf32>) -> tensor<64x4x32xbf16> {
  %o = graph.gdn %q, %k, %v, %g, %beta : (tensor<64x2x32xbf16>, tensor<64x2x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4xf32>, tensor<64x4xf32>) -> (tensor<64x4x32xbf16>, none, none)
  %o2, %hT, %ck = graph.gdn %q, %k, %v, %g, %beta cu_seqlens %cu initial_state %h0 a_log %alog dt_bias %dtb {scale = 1.767767e-01 : f64, output_final_state, use_qk_l2norm, checkpoint_every_n_tokens = 16 : i64, safe_gate, batch_invariant, name = "gdn"} : (tensor<64x2x32xbf16>, tensor<64x2x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4xf32>, tensor<64x4xf32>, tensor<3xi32>, tensor<2x4x32x32xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<64x4x32xbf16>, tensor<2x4x32x32xf32>, tensor<4x4x32x32xf32>)
  %dq, %dk, %dv, %dg, %dbeta, %dh0 = graph.gdn_bwd %q, %k, %v, %g, %beta cu_seqlens %cu dO %do state_checkpoints %ckpt initial_state %h0 d_final_state %dhT {use_qk_l2norm} : (tensor<64x2x32xbf16>, tensor<64x2x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4xf32>, tensor<64x4xf32>, tensor<3xi32>, tensor<64x4x32xbf16>, tensor<4x4x32x32xf32>, tensor<2x4x32x32xf32>, tensor<2x4x32x32xf32>) -> (tensor<64x2x32xbf16>, tensor<64x2x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4xf32>, tensor<64x4xf32>, tensor<2x4x32x32xf32>)
  %ko, %khT = graph.kda %q1, %q1, %v, %gk, %beta initial_state %h01 {output_final_state, use_beta_sigmoid, gate_lower_bound = -5.000000e+00 : f64} : (tensor<64x4x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xf32>, tensor<64x4xf32>, tensor<1x4x32x32xf32>) -> (tensor<64x4x32xbf16>, tensor<1x4x32x32xf32>, none)
  %kdq, %kdk, %kdv, %kdg, %kdbeta = graph.kda_bwd %q1, %q1, %v, %gk, %beta dO %do : (tensor<64x4x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xf32>, tensor<64x4xf32>, tensor<64x4x32xbf16>) -> (tensor<64x4x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xf32>, tensor<64x4xf32>)
  %go = graph.gdn2 %q, %k, %v, %gk, %gk, %w cu_seqlens %cu {gate_lower_bound = -1.000000e+01 : f64} : (tensor<64x2x32xbf16>, tensor<64x2x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xf32>, tensor<64x4x32xf32>, tensor<64x4x32xbf16>, tensor<3xi32>) -> (tensor<64x4x32xbf16>, none, none)
  %gdq, %gdk, %gdv, %gdg, %gdbeta, %gdw, %gdh0 = graph.gdn2_bwd %q, %k, %v, %gk, %gk, %w cu_seqlens %cu dO %do initial_state %h0 : (tensor<64x2x32xbf16>, tensor<64x2x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xf32>, tensor<64x4x32xf32>, tensor<64x4x32xbf16>, tensor<3xi32>, tensor<64x4x32xbf16>, tensor<2x4x32x32xf32>) -> (tensor<64x2x32xbf16>, tensor<64x2x32xbf16>, tensor<64x4x32xbf16>, tensor<64x4x32xf32>, tensor<64x4x32xf32>, tensor<64x4x32xbf16>, tensor<2x4x32x32xf32>)
  graph.output %o : tensor<64x4x32xbf16>
}

// Inputs may be read through overlapping strides: the frontend's
// mixed-precision matmul views a [B, N, K] buffer as [B, K, N] with strides
// [N*K, 1, N] (K > N), so dim 2 steps inside dim 1's span. Only what is
// written must not overlap.
// CHECK-LABEL: graph.graph @overlapping_input(
// CHECK-SAME: tensor<2x8x4xf16, #graph.strides<[32, 1, 4]>>
// CHECK: matmul {{.*}} -> tensor<2x4x4xf32>
graph.graph @overlapping_input(%a: tensor<2x4x8xf16>,
                               %b: tensor<2x8x4xf16, #graph.strides<[32, 1, 4]>>)
    -> tensor<2x4x4xf32> {
  %c = graph.matmul %a, %b : (tensor<2x4x8xf16>, tensor<2x8x4xf16, #graph.strides<[32, 1, 4]>>) -> tensor<2x4x4xf32>
  graph.output %c : tensor<2x4x4xf32>
}

// Layer and RMS norm normalize over the dims their scale varies along (the
// cuDNN frontend's rule): scale [1, 1, D] of a [B, S, D] input normalizes
// each row over D, with statistics [B, S, 1]; a scale over the whole input
// leaves one statistic for all of it.
// CHECK-LABEL: graph.graph @norm_over_scale_dims(
// CHECK: layernorm training {{.*}} -> (tensor<2x8x32xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>)
// CHECK: rmsnorm training {{.*}} -> (tensor<2x8x32xf32>, tensor<2x8x1xf32>)
// CHECK: layernorm_backward {{.*}} : (tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<1x1x32xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>) -> (tensor<2x8x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>)
// CHECK: rmsnorm_backward {{.*}} -> (tensor<2x8x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>)
// CHECK: layernorm training {{.*}} -> (tensor<4x16xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
// CHECK: rmsnorm training {{.*}} -> (tensor<2x8x32xf32>, tensor<2x1x32xf32>)
graph.graph @norm_over_scale_dims(%x: tensor<2x8x32xf32>, %g: tensor<1x1x32xf32>, %b: tensor<1x1x32xf32>,
                                  %w: tensor<4x16xf32>, %c: tensor<1x8x1xf32>) -> tensor<2x8x32xf32> {
  %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1x1xf32>
  %eps2 = graph.scalar 1.0e-05 : f32 -> tensor<1x1xf32>
  %y, %m, %iv = graph.layernorm training %x, scale %g, bias %b, epsilon %eps : (tensor<2x8x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>, tensor<1x1x1xf32>) -> (tensor<2x8x32xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>)
  %r, %riv = graph.rmsnorm training %x, scale %g, bias %b, epsilon %eps : (tensor<2x8x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>, tensor<1x1x1xf32>) -> (tensor<2x8x32xf32>, tensor<2x8x1xf32>)
  %dx, %ds, %db = graph.layernorm_backward %x, %x, scale %g, mean %m, inv_variance %iv : (tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<1x1x32xf32>, tensor<2x8x1xf32>, tensor<2x8x1xf32>) -> (tensor<2x8x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>)
  %rdx, %rds, %rdb = graph.rmsnorm_backward %x, %x, scale %g, inv_variance %riv : (tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<1x1x32xf32>, tensor<2x8x1xf32>) -> (tensor<2x8x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>)
  %wy, %wm, %wiv = graph.layernorm training %w, scale %w, bias %w, epsilon %eps2 : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<1x1xf32>) -> (tensor<4x16xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
  %cy, %civ = graph.rmsnorm training %x, scale %c, epsilon %eps : (tensor<2x8x32xf32>, tensor<1x8x1xf32>, tensor<1x1x1xf32>) -> (tensor<2x8x32xf32>, tensor<2x1x32xf32>)
  graph.output %y : tensor<2x8x32xf32>
}

// CHECK-LABEL: graph.graph @rng(
// CHECK-NEXT: %[[KEEP:.+]] = rng %{{.+}}, %{{.+}} {bernoulli_probability = 9.000000e-01 : f64, name = "keep"} : (tensor<1x1x1x1xi64>, tensor<1x1x1x1xi32>) -> tensor<2x8x128x128xf32>
// CHECK-NEXT: output %[[KEEP]] : tensor<2x8x128x128xf32>
graph.graph @rng(%seed: tensor<1x1x1x1xi64>, %offset: tensor<1x1x1x1xi32>) -> (tensor<2x8x128x128xf32>) {
  %keep = graph.rng %seed, %offset {bernoulli_probability = 0.9 : f64, name = "keep"} : (tensor<1x1x1x1xi64>, tensor<1x1x1x1xi32>) -> tensor<2x8x128x128xf32>
  graph.output %keep : tensor<2x8x128x128xf32>
}

// CHECK-LABEL: graph.graph @sdpa_ragged(
// CHECK: sdpa %{{.+}}, %{{.+}}, %{{.+}} seq_len_q %{{.+}} seq_len_kv %{{.+}} ragged_offset_q %[[OFF:[^ ]+]] ragged_offset_k %[[OFF]] ragged_offset_v %[[OFF]] ragged_offset_O %[[OFF]] {use_padding_mask}
// CHECK: sdpa_backward {{.*}} ragged_offset_q %[[OFF]] ragged_offset_k %[[OFF]] ragged_offset_v %[[OFF]] ragged_offset_dQ %[[OFF]] {use_padding_mask}

graph.graph @sdpa_ragged(%q: tensor<2x2x8x16xbf16, #graph.strides<[256, 16, 32, 1]>>, %l: tensor<2x1x1x1xi32>, %off: tensor<3x1x1x1xi64>, %st: tensor<2x2x8x1xf32>) -> (tensor<2x2x8x16xbf16, #graph.strides<[256, 16, 32, 1]>>, tensor<2x2x8x16xbf16>) {
  %o = graph.sdpa %q, %q, %q seq_len_q %l seq_len_kv %l ragged_offset_q %off ragged_offset_k %off ragged_offset_v %off ragged_offset_O %off {use_padding_mask} : (tensor<2x2x8x16xbf16, #graph.strides<[256, 16, 32, 1]>>, tensor<2x2x8x16xbf16, #graph.strides<[256, 16, 32, 1]>>, tensor<2x2x8x16xbf16, #graph.strides<[256, 16, 32, 1]>>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>) -> (tensor<2x2x8x16xbf16, #graph.strides<[256, 16, 32, 1]>>, none, none, none)
  %dq, %dk, %dv = graph.sdpa_backward %q, %q, %q, %o, %o, %st seq_len_q %l seq_len_kv %l ragged_offset_q %off ragged_offset_k %off ragged_offset_v %off ragged_offset_dQ %off {use_padding_mask} : (tensor<2x2x8x16xbf16, #graph.strides<[256, 16, 32, 1]>>, tensor<2x2x8x16xbf16, #graph.strides<[256, 16, 32, 1]>>, tensor<2x2x8x16xbf16, #graph.strides<[256, 16, 32, 1]>>, tensor<2x2x8x16xbf16, #graph.strides<[256, 16, 32, 1]>>, tensor<2x2x8x16xbf16, #graph.strides<[256, 16, 32, 1]>>, tensor<2x2x8x1xf32>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>) -> (tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>)
  graph.output %o, %dq : tensor<2x2x8x16xbf16, #graph.strides<[256, 16, 32, 1]>>, tensor<2x2x8x16xbf16>
}

// A ragged tensor finds each batch at its offset, so its batch stride
// addresses nothing: the frontend's chunked-prefill program declares packed
// THD q and O with batch stride H*D, which overlaps the sequence dim. The
// graph may write O through it.
// CHECK-LABEL: graph.graph @sdpa_ragged_thd_batch_stride(
// CHECK: sdpa {{.*}} ragged_offset_O
graph.graph @sdpa_ragged_thd_batch_stride(%q: tensor<2x2x8x16xbf16, #graph.strides<[32, 16, 32, 1]>>, %k: tensor<2x2x8x16xbf16>, %l: tensor<2x1x1x1xi32>, %off: tensor<3x1x1x1xi64>) -> tensor<2x2x8x16xbf16, #graph.strides<[32, 16, 32, 1]>> {
  %o = graph.sdpa %q, %k, %k seq_len_q %l seq_len_kv %l ragged_offset_q %off ragged_offset_O %off {use_padding_mask} : (tensor<2x2x8x16xbf16, #graph.strides<[32, 16, 32, 1]>>, tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<3x1x1x1xi64>, tensor<3x1x1x1xi64>) -> (tensor<2x2x8x16xbf16, #graph.strides<[32, 16, 32, 1]>>, none, none, none)
  graph.output %o : tensor<2x2x8x16xbf16, #graph.strides<[32, 16, 32, 1]>>
}

// CHECK-LABEL: graph.graph @sdpa_paged(
// CHECK: sdpa %{{.+}}, %{{.+}}, %{{.+}} seq_len_q %{{.+}} seq_len_kv %{{.+}} page_table_k %[[T:[^ ]+]] page_table_v %[[T]] {paged_attention_max_seq_len_kv = 16 : i64, use_padding_mask}

graph.graph @sdpa_paged(%q: tensor<2x2x8x16xbf16>, %k: tensor<4x2x8x16xbf16>, %v: tensor<4x2x8x16xbf16>, %lq: tensor<2x1x1x1xi32>, %lkv: tensor<2x1x1x1xi32>, %t: tensor<2x1x2x1xi32>) -> tensor<2x2x8x16xbf16> {
  %o = graph.sdpa %q, %k, %v seq_len_q %lq seq_len_kv %lkv page_table_k %t page_table_v %t {use_padding_mask, paged_attention_max_seq_len_kv = 16 : i64} : (tensor<2x2x8x16xbf16>, tensor<4x2x8x16xbf16>, tensor<4x2x8x16xbf16>, tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>, tensor<2x1x2x1xi32>, tensor<2x1x2x1xi32>) -> (tensor<2x2x8x16xbf16>, none, none, none)
  graph.output %o : tensor<2x2x8x16xbf16>
}

// Logical ops may compute in booleans (cuDNN's BOOLEAN math precision).
// CHECK-LABEL: graph.graph @logical_in_booleans(
// CHECK: pointwise logical_and(%{{.+}}, %{{.+}}) {compute_data_type = i1} : (tensor<4x16xi1>, tensor<4x16xi1>) -> tensor<4x16xi1>

graph.graph @logical_in_booleans(%a: tensor<4x16xi1>, %b: tensor<4x16xi1>) -> tensor<4x16xi1> {
  %y = graph.pointwise logical_and(%a, %b) {compute_data_type = i1} : (tensor<4x16xi1>, tensor<4x16xi1>) -> tensor<4x16xi1>
  graph.output %y : tensor<4x16xi1>
}

// Comparisons may compute in booleans and gen_index in i32 (the frontend's
// score_mod masks pass BOOLEAN and INT32).
// CHECK-LABEL: graph.graph @index_mask_types(
// CHECK: pointwise gen_index(%{{.+}}) {axis = 2 : i64, compute_data_type = i32}
// CHECK: pointwise cmp_ge(%{{.+}}, %{{.+}}) {compute_data_type = i1}

graph.graph @index_mask_types(%s: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xi1> {
  %r = graph.pointwise gen_index(%s) {axis = 2 : i64, compute_data_type = i32} : (tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xi32>
  %c = graph.pointwise gen_index(%s) {axis = 3 : i64, compute_data_type = i32} : (tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xi32>
  %m = graph.pointwise cmp_ge(%r, %c) {compute_data_type = i1} : (tensor<1x2x4x8xi32>, tensor<1x2x4x8xi32>) -> tensor<1x2x4x8xi1>
  graph.output %m : tensor<1x2x4x8xi1>
}
