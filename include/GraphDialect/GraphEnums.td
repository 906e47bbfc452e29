//===- GraphEnums.td - Enums of the graph dialect ----------*- tablegen -*-===//

#ifndef GRAPH_ENUMS_TD
#define GRAPH_ENUMS_TD

include "mlir/IR/EnumAttr.td"

class Case<string sym, int val> : I32EnumAttrCase<sym, val>;

// Every pointwise builder of the cuDNN frontend, named as the builder is.
def Graph_PointwiseMode : I32EnumAttr<"PointwiseMode", "pointwise operation", [
    // unary
    Case<"abs", 0>, Case<"ceil", 1>, Case<"cos", 2>, Case<"elu", 3>,
    Case<"erf", 4>, Case<"exp", 5>, Case<"floor", 6>, Case<"gelu", 7>,
    Case<"gelu_approx_tanh", 8>, Case<"identity", 9>, Case<"log", 10>,
    Case<"logical_not", 11>, Case<"neg", 12>, Case<"reciprocal", 13>,
    Case<"rsqrt", 14>, Case<"sigmoid", 15>, Case<"sin", 16>,
    Case<"softplus", 17>, Case<"sqrt", 18>, Case<"tan", 19>, Case<"tanh", 20>,
    Case<"relu", 21>, Case<"leaky_relu", 22>, Case<"swish", 23>,
    Case<"gen_index", 24>,
    // binary
    Case<"add", 30>, Case<"add_square", 31>, Case<"div", 32>,
    Case<"logical_and", 33>, Case<"logical_or", 34>, Case<"mul", 35>,
    Case<"sub", 36>, Case<"max", 37>, Case<"min", 38>, Case<"mod", 39>,
    Case<"pow", 40>, Case<"cmp_eq", 41>, Case<"cmp_ge", 42>,
    Case<"cmp_gt", 43>, Case<"cmp_le", 44>, Case<"cmp_lt", 45>,
    Case<"cmp_neq", 46>, Case<"bias", 47>, Case<"scale", 48>,
    // backward: (loss, input) -> d input
    Case<"relu_backward", 60>, Case<"leaky_relu_backward", 61>,
    Case<"swish_backward", 62>, Case<"elu_backward", 63>,
    Case<"gelu_approx_tanh_backward", 64>, Case<"gelu_backward", 65>,
    Case<"sigmoid_backward", 66>, Case<"softplus_backward", 67>,
    Case<"tanh_backward", 68>,
    // ternary
    Case<"binary_select", 80>]> {
  let cppNamespace = "::mlir::graph";
  let genSpecializedAttr = 0;
}

def Graph_NormPhase : I32EnumAttr<"NormPhase", "norm forward phase", [
    Case<"training", 0>, Case<"inference", 1>]> {
  let cppNamespace = "::mlir::graph";
  let genSpecializedAttr = 0;
}

def Graph_ReductionMode : I32EnumAttr<"ReductionMode", "reduction operation", [
    Case<"add", 0>, Case<"mul", 1>, Case<"min", 2>, Case<"max", 3>,
    Case<"amax", 4>, Case<"avg", 5>, Case<"norm1", 6>, Case<"norm2", 7>,
    Case<"mul_no_zeros", 8>]> {
  let cppNamespace = "::mlir::graph";
  let genSpecializedAttr = 0;
}

def Graph_ConvMode : I32EnumAttr<"ConvMode", "convolution mode", [
    Case<"cross_correlation", 0>, Case<"convolution", 1>]> {
  let cppNamespace = "::mlir::graph";
  let genSpecializedAttr = 0;
}

def Graph_DiagonalAlignment : I32EnumAttr<"DiagonalAlignment",
    "where the attention mask diagonal starts", [
    Case<"top_left", 0>, Case<"bottom_right", 1>]> {
  let cppNamespace = "::mlir::graph";
  let genSpecializedAttr = 0;
}

def Graph_MoeMode : I32EnumAttr<"MoeMode", "MoE grouped matmul token routing", [
    Case<"none", 0>, Case<"gather", 1>, Case<"scatter", 2>]> {
  let cppNamespace = "::mlir::graph";
  let genSpecializedAttr = 0;
}

// The engines that run fused groups (lib/Engines/<name>/), named as the
// engine registry names them.
def Graph_EngineKind : I32EnumAttr<"EngineKind", "engine that runs a fused group", [
    Case<"cudnn", 0>, Case<"codegen", 1>, Case<"reference", 2>]> {
  let cppNamespace = "::mlir::graph";
  let genSpecializedAttr = 0;
}

#endif // GRAPH_ENUMS_TD
