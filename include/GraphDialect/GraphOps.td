//===- GraphOps.td - Operations of the graph dialect -------*- tablegen -*-===//

#ifndef GRAPH_OPS_TD
#define GRAPH_OPS_TD

include "GraphDialect/GraphDialect.td"
include "GraphDialect/GraphAttrs.td"
include "GraphDialect/GraphInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Container and terminator
//===----------------------------------------------------------------------===//

def Graph_GraphOp : Op<Graph_Dialect, "graph", [
    FunctionOpInterface, IsolatedFromAbove, Symbol, OpAsmOpInterface,
    SingleBlockImplicitTerminator<"OutputOp">]> {
  let summary = "One operation graph: inputs, nodes, non-virtual outputs";
  let description = [{
    A named operation graph. Block arguments are the graph inputs; the
    `graph.output` terminator lists the non-virtual outputs. Every input and
    output carries a `graph.uid` (an integer >= 0, unique in the graph; the
    `graph-assign-uids` pass fills missing ones) and may carry a `graph.name`
    label (labels may repeat). The graph-level data types play the role of
    the frontend's `io_data_type`, `intermediate_data_type` and
    `compute_data_type`.

    ```mlir
    graph.graph @mlp(%x: tensor<4x8xf16> {graph.uid = 1 : i64, graph.name = "x"},
                     %w: tensor<8x16xf16> {graph.uid = 2 : i64})
        -> (tensor<4x16xf16> {graph.uid = 3 : i64, graph.name = "y"})
        attributes {io_data_type = f16, compute_data_type = f32} {
      %0 = graph.matmul %x, %w : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf32>
      %1 = graph.pointwise relu(%0) : (tensor<4x16xf32>) -> tensor<4x16xf16>
      graph.output %1 : tensor<4x16xf16>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       OptionalAttr<TypeAttr>:$io_data_type,
                       OptionalAttr<TypeAttr>:$intermediate_data_type,
                       OptionalAttr<TypeAttr>:$compute_data_type);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::mlir::FunctionType":$type)>];
  let extraClassDeclaration = [{
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    /// The terminator listing the outputs.
    OutputOp getOutputOp();
    /// uid of input `i` / output `i` (0 is a uid), or nullopt when not
    /// assigned yet (no graph.uid attribute).
    std::optional<int64_t> getInputUid(unsigned i);
    std::optional<int64_t> getOutputUid(unsigned i);
    /// Whether input `i` is marked graph.by_value: a one-element input whose
    /// value cuDNN takes by value, read from its buffer at each execute.
    bool isInputByValue(unsigned i);
    static ::llvm::StringRef getDefaultDialect() { return "graph"; }
  }];
}

def Graph_OutputOp : Op<Graph_Dialect, "output", [
    Pure, HasParent<"GraphOp">, ReturnLike, Terminator]> {
  let summary = "Lists the non-virtual outputs of a graph";
  let description = [{
    Terminates a `graph.graph`. Its operands are the graph outputs, in the
    order of the graph's result types.

    ```mlir
    graph.output %y, %stats : tensor<2x8x128x64xbf16>, tensor<2x8x128x1xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$outputs);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let assemblyFormat = "attr-dict ($outputs^ `:` type($outputs))?";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Base class of the node ops
//===----------------------------------------------------------------------===//

// Marks an operand type whose operand cuDNN reads by value on the host (a
// one-element tensor handed to a descriptor as a scalar) rather than from a
// device buffer. scripts/gen_builder_ports.py lists these operands in
// Support/ByValuePorts.inc, which the cuDNN engine (an f64 one is fine) and
// the runtime (the descriptor takes a value) both read.
class Graph_ByValue;

// A ranked tensor operand passed by value (a norm's epsilon and momentum):
// AnyRankedTensor with the Graph_ByValue mark.
def Graph_ByValueTensor : RankedTensorOf<[AnyType]>, Graph_ByValue;

// Attributes every node carries: its user label and compute type override.
defvar NodeAttrs = (ins OptionalAttr<StrAttr>:$name,
                        OptionalAttr<TypeAttr>:$compute_data_type);

// A node op's parent: a graph.graph, a graph.group, or an op of another
// dialect with the HoldsGraphNodes trait (exec.cudnn_group); no NaN
// attribute (GraphTraits.h).
def Graph_NodeParent : NativeOpTrait<"GraphNode"> {
  let cppNamespace = "::mlir::OpTrait::graph";
}

class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic, !listconcat(traits, [Pure, Graph_NodeParent,
          DeclareOpInterfaceMethods<Graph_ShapeRuleOpInterface>])> {
  let hasVerifier = 1;
}

// Ops whose result type the operands and attributes determine infer it
// through InferTypeOpInterface (shape from the operands, element type from
// the first operand), so the textual form may omit `-> type`; a type that is
// written may carry another element type and a strides encoding.
defvar InferredResult = [InferTypeOpAdaptorWithIsCompatible];

def Graph_ScalarOp : Graph_Op<"scalar", []> {
  let summary = "A pass-by-value scalar";
  let description = [{
    The frontend's `tensor_scalar`: a value passed to cuDNN by value rather
    than through a device buffer (epsilon, momentum, attention scale...). Its
    result is a tensor of one element, usually `1x1x1x1`. Like a graph input
    it may carry a `uid` and a `name`.

    ```mlir
    %eps = graph.scalar 1.0e-05 : f32 -> tensor<1x1x1x1xf32>
    ```
  }];
  let arguments = !con((ins TypedAttrInterface:$value,
                            OptionalAttr<I64Attr>:$uid), NodeAttrs);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$value attr-dict `->` type($output)";
  let hasFolder = 0;
}

//===----------------------------------------------------------------------===//
// Matmul and pointwise
//===----------------------------------------------------------------------===//

def Graph_MatmulOp : Graph_Op<"matmul", InferredResult> {
  let summary = "Batched matrix product C = A @ B";
  let description = [{
    `A` is `[..., M, K]`, `B` is `[..., K, N]`, `C` is `[..., M, N]`; the
    leading (batch) dims broadcast as numpy does, and the ranks match.
    `padding` is the value the frontend pads ragged rows with.

    ```mlir
    %c = graph.matmul %a, %b {name = "mm1"}
        : (tensor<8x64x128xf16>, tensor<1x128x256xf16>) -> tensor<8x64x256xf16>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$A, AnyRankedTensor:$B,
                            OptionalAttr<F64Attr>:$padding), NodeAttrs);
  let results = (outs AnyRankedTensor:$C);
  let hasCustomAssemblyFormat = 1;
}

def Graph_PointwiseOp : Graph_Op<"pointwise", InferredResult> {
  let summary = "Element-wise operation with numpy broadcasting";
  let description = [{
    One element-wise operation of the cuDNN frontend, selected by `mode`
    (named as the frontend's builder: `add`, `gelu_approx_tanh`,
    `relu_backward`, `binary_select`...). Unary modes take one operand,
    binary two (`bias`/`scale` are `(input, other)`, backward modes are
    `(loss, input)`), `binary_select` three `(input0, input1, mask)`.
    Operands broadcast numpy-style to the result shape, which must be the
    broadcast of the operand shapes. Mode-specific scalars:
    `negative_slope`, `lower_clip`, `upper_clip` (relu, leaky_relu and
    their backwards), `swish_beta` (swish), `elu_alpha` (elu),
    `softplus_beta` (softplus), `axis` (gen_index: required).

    ```mlir
    %y = graph.pointwise add(%x, %b) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
    %r = graph.pointwise relu(%y) {upper_clip = 6.0} : (tensor<4x16xf32>) -> tensor<4x16xf16>
    ```
  }];
  let arguments = !con((ins Graph_PointwiseModeAttr:$mode,
                            Variadic<AnyRankedTensor>:$inputs,
                            OptionalAttr<F64Attr>:$negative_slope,
                            OptionalAttr<F64Attr>:$lower_clip,
                            OptionalAttr<F64Attr>:$upper_clip,
                            OptionalAttr<F64Attr>:$swish_beta,
                            OptionalAttr<F64Attr>:$elu_alpha,
                            OptionalAttr<F64Attr>:$softplus_beta,
                            OptionalAttr<I64Attr>:$axis), NodeAttrs);
  let results = (outs AnyRankedTensor:$output);
  let hasCustomAssemblyFormat = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// Number of tensor operands `mode` takes.
    static unsigned getArity(PointwiseMode mode);
    /// logical_and, logical_or, logical_not.
    static bool isLogical(PointwiseMode mode) {
      return mode == PointwiseMode::logical_and ||
             mode == PointwiseMode::logical_or ||
             mode == PointwiseMode::logical_not;
    }
    /// cmp_eq, cmp_ge, cmp_gt, cmp_le, cmp_lt, cmp_neq.
    static bool isComparison(PointwiseMode mode) {
      return mode >= PointwiseMode::cmp_eq && mode <= PointwiseMode::cmp_neq;
    }
    /// The arithmetic modes whose result on integers is an integer computed
    /// exactly (gen_index, add, sub, mul, max, min, neg, abs, identity,
    /// bias, scale): the ones that may compute in i32.
    static bool isIntegerExact(PointwiseMode mode) {
      switch (mode) {
      case PointwiseMode::gen_index: case PointwiseMode::add:
      case PointwiseMode::sub: case PointwiseMode::mul:
      case PointwiseMode::max: case PointwiseMode::min:
      case PointwiseMode::neg: case PointwiseMode::abs:
      case PointwiseMode::identity: case PointwiseMode::bias:
      case PointwiseMode::scale:
        return true;
      default:
        return false;
      }
    }
  }];
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

defvar ConvAttrs = (ins OptionalAttr<DenseI64ArrayAttr>:$padding,
                        OptionalAttr<DenseI64ArrayAttr>:$pre_padding,
                        OptionalAttr<DenseI64ArrayAttr>:$post_padding,
                        OptionalAttr<DenseI64ArrayAttr>:$stride,
                        OptionalAttr<DenseI64ArrayAttr>:$dilation,
                        OptionalAttr<Graph_ConvModeAttr>:$convolution_mode);

class Graph_ConvOp<string mnemonic, string in0, string in1, string out,
                   list<Trait> traits = []>
    : Graph_Op<mnemonic, traits> {
  let arguments = !con(!dag(ins, [AnyRankedTensor, AnyRankedTensor], [in0, in1]),
                       ConvAttrs, NodeAttrs);
  let results = !dag(outs, [AnyRankedTensor], [out]);
  let assemblyFormat = "$" # in0 # " `,` $" # in1 #
                       " attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// Per spatial dim, with the defaults (0 padding, unit stride/dilation).
    ::llvm::SmallVector<int64_t> getPrePaddingOrDefault(unsigned spatialDims);
    ::llvm::SmallVector<int64_t> getPostPaddingOrDefault(unsigned spatialDims);
    ::llvm::SmallVector<int64_t> getStrideOrDefault(unsigned spatialDims);
    ::llvm::SmallVector<int64_t> getDilationOrDefault(unsigned spatialDims);
  }];
  string shapeRule = "";
  let description = [{
    Tensors are `[N, C, spatial...]` logically (2-D or 3-D spatial),
    filters `[K, C/groups, window...]`, whatever their memory strides.
    `padding` sets pre and post padding alike; `pre_padding` and
    `post_padding` set them apart (not together with `padding`).
    `stride` and `dilation` default to 1, padding to 0, the mode to
    cross-correlation. }] # shapeRule;
}

def Graph_ConvFpropOp : Graph_ConvOp<"conv_fprop", "image", "weight", "Y",
                                     InferredResult> {
  let summary = "Forward convolution Y = conv(image, weight)";
  let assemblyFormat = ?;
  let hasCustomAssemblyFormat = 1;
  let shapeRule = [{
    Y is `[N, K, o...]` with
    `o = (i + pre + post - ((w - 1) * dilation + 1)) / stride + 1`.

    ```mlir
    %y = graph.conv_fprop %x, %w {padding = array<i64: 1, 1>}
        : (tensor<8x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<8x64x56x56xf16>
    ```
  }];
}

def Graph_ConvDgradOp : Graph_ConvOp<"conv_dgrad", "loss", "filter", "DX"> {
  let summary = "Convolution gradient with respect to the image";
  let shapeRule = [{
    `loss` is dY `[N, K, o...]`; DX `[N, C, i...]` is given explicitly
    (strided convolutions make it ambiguous) and must give back `o` by the
    forward formula.

    ```mlir
    %dx = graph.conv_dgrad %dy, %w {padding = array<i64: 1, 1>}
        : (tensor<8x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<8x64x56x56xf16>
    ```
  }];
}

def Graph_ConvWgradOp : Graph_ConvOp<"conv_wgrad", "image", "loss", "DW"> {
  let summary = "Convolution gradient with respect to the filter";
  let shapeRule = [{
    `image` is X `[N, C, i...]`, `loss` is dY `[N, K, o...]`; DW
    `[K, C/groups, w...]` is given explicitly and must give back `o`.

    ```mlir
    %dw = graph.conv_wgrad %x, %dy {padding = array<i64: 1, 1>}
        : (tensor<8x64x56x56xf16>, tensor<8x64x56x56xf16>) -> tensor<64x64x3x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Norms
//===----------------------------------------------------------------------===//

class Graph_NormFwdOp<string mnemonic> : Graph_Op<mnemonic, [AttrSizedResultSegments]> {
  let arguments = !con((ins Graph_NormPhaseAttr:$phase,
                            AnyRankedTensor:$input, AnyRankedTensor:$scale,
                            AnyRankedTensor:$bias, Graph_ByValueTensor:$epsilon),
                       NodeAttrs);
  let results = (outs AnyRankedTensor:$Y, Optional<AnyRankedTensor>:$mean,
                      Optional<AnyRankedTensor>:$inv_var);
  let assemblyFormat = [{
    custom<EnumKeyword>($phase) $input `,` `scale` $scale `,` `bias` $bias `,` `epsilon` $epsilon
    attr-dict `:` `(` type(operands) `)` `->` `(` type($Y) `,`
    custom<OptionalTypes>(type($mean), type($inv_var)) `)`
  }];
}

def Graph_LayernormOp : Graph_NormFwdOp<"layernorm"> {
  let summary = "Layer normalization over the dims its scale varies along";
  let description = [{
    `Y = (x - mean) * inv_var * scale + bias`, `inv_var = 1/sqrt(var + eps)`,
    with the statistics taken over the normalized dims. As in the cuDNN
    frontend, `scale` has the input's rank, each of its dims is 1 or the
    input's extent, and the dims where it is not 1 are the normalized ones
    (at least one); the other dims each index a statistic. `bias` has
    `scale`'s dims. `mean` and `inv_var` are the input's dims with every
    normalized dim set to 1 and exist only in the `training` phase: `x`
    `[16, 128, 768]` with `scale` `[1, 1, 768]` normalizes each row over the
    last dim (statistics `[16, 128, 1]`); with `[1, 128, 768]` (the default,
    `[1, input dims 1...]`) each sample over all its dims (statistics
    `[16, 1, 1]`). `epsilon` is a one-element tensor (usually a
    `graph.scalar`).

    ```mlir
    %y, %m, %iv = graph.layernorm training %x, scale %g, bias %b, epsilon %e
        : (tensor<4x128x1x1xbf16>, tensor<1x128x1x1xf32>, tensor<1x128x1x1xf32>, tensor<1x1x1x1xf32>)
          -> (tensor<4x128x1x1xbf16>, tensor<4x1x1x1xf32>, tensor<4x1x1x1xf32>)
    ```
  }];
}

def Graph_AdaLayernormOp : Graph_NormFwdOp<"adalayernorm"> {
  let summary = "Adaptive layer normalization (per-sample scale and bias)";
  let description = [{
    Layer normalization with per-sample `scale` and `bias` (`[N, ...]`,
    broadcastable to `input`): each sample is normalized over the non-batch
    dims along which `scale` varies, e.g. `x` `[B, S, D]` with `scale`
    `[B, 1, D]` normalizes each `(b, s)` row over `D`, and `mean`/`inv_var`
    (training only) are `[B, S, 1]`.

    ```mlir
    %y, %m, %iv = graph.adalayernorm training %x, scale %g, bias %b, epsilon %e
        : (tensor<2x16x64xf32>, tensor<2x1x64xf32>, tensor<2x1x64xf32>, tensor<1x1x1xf32>)
          -> (tensor<2x16x64xf32>, tensor<2x16x1xf32>, tensor<2x16x1xf32>)
    ```
  }];
}

def Graph_InstancenormOp : Graph_NormFwdOp<"instancenorm"> {
  let summary = "Instance normalization over the spatial dims";
  let description = [{
    Normalizes each `(n, c)` over the spatial dims. `scale`/`bias` are
    `[1, C, 1, ...]`; `mean`/`inv_var` are `[N, C, 1, ...]` in training.

    ```mlir
    %y, %m, %iv = graph.instancenorm training %x, scale %g, bias %b, epsilon %e
        : (tensor<2x16x8x8xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x1x1x1xf32>)
          -> (tensor<2x16x8x8xf32>, tensor<2x16x1x1xf32>, tensor<2x16x1x1xf32>)
    ```
  }];
}

def Graph_RmsnormOp : Graph_Op<"rmsnorm"> {
  let summary = "RMS normalization over the dims its scale varies along";
  let description = [{
    `Y = x * inv_var * scale (+ bias)`, `inv_var = 1/sqrt(mean(x^2) + eps)`
    over the normalized dims: those where `scale` is not 1, as in
    `graph.layernorm` (`scale` `[1, input dims 1...]` normalizes each sample
    over all its dims, `[1, 1, D]` each row of a `[B, S, D]` input over `D`).
    `bias` is optional and has `scale`'s dims; `inv_var` (the input's dims
    with every normalized dim set to 1, e.g. `[B, S, 1]`) exists only in
    training.

    ```mlir
    %y, %iv = graph.rmsnorm training %x, scale %g, epsilon %e
        : (tensor<4x64x1x1xf32>, tensor<1x64x1x1xf32>, tensor<1x1x1x1xf32>)
          -> (tensor<4x64x1x1xf32>, tensor<4x1x1x1xf32>)
    ```
  }];
  let arguments = !con((ins Graph_NormPhaseAttr:$phase,
                            AnyRankedTensor:$input, AnyRankedTensor:$scale,
                            Optional<AnyRankedTensor>:$bias,
                            Graph_ByValueTensor:$epsilon), NodeAttrs);
  let results = (outs AnyRankedTensor:$Y, Optional<AnyRankedTensor>:$inv_var);
  let assemblyFormat = [{
    custom<EnumKeyword>($phase) $input `,` `scale` $scale `,` (`bias` $bias^ `,`)? `epsilon` $epsilon
    attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_BatchnormOp : Graph_Op<"batchnorm", [AttrSizedOperandSegments, AttrSizedResultSegments]> {
  let summary = "Training batch normalization with optional running stats";
  let description = [{
    Normalizes each channel (dim 1) over all other dims. `scale`, `bias`,
    the running stats and the outputs `mean`/`inv_var` are `[1, C, 1, ...]`.
    With `in_running_mean`/`in_running_var` (and `momentum`) the op also
    produces `next_running_mean`/`next_running_var`. `peer_stats` are the
    statistics buffers of peer GPUs in a multi-GPU batch norm.

    ```mlir
    %y, %m, %iv, %rm, %rv = graph.batchnorm %x, scale %g, bias %b, epsilon %e
        running_mean %rm0 running_var %rv0 momentum %mom
        : (...) -> (...)
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$input, AnyRankedTensor:$scale,
                            AnyRankedTensor:$bias, Graph_ByValueTensor:$epsilon,
                            Optional<AnyRankedTensor>:$in_running_mean,
                            Optional<AnyRankedTensor>:$in_running_var,
                            Optional<Graph_ByValueTensor>:$momentum,
                            Variadic<AnyRankedTensor>:$peer_stats), NodeAttrs);
  let results = (outs AnyRankedTensor:$Y, AnyRankedTensor:$mean,
                      AnyRankedTensor:$inv_var,
                      Optional<AnyRankedTensor>:$next_running_mean,
                      Optional<AnyRankedTensor>:$next_running_var);
  let assemblyFormat = [{
    $input `,` `scale` $scale `,` `bias` $bias `,` `epsilon` $epsilon
    (`running_mean` $in_running_mean^)? (`running_var` $in_running_var^)?
    (`momentum` $momentum^)? (`peer_stats` `(` $peer_stats^ `)`)?
    attr-dict `:` `(` type(operands) `)` `->` `(` type($Y) `,` type($mean) `,`
    type($inv_var) `,` custom<OptionalTypes>(type($next_running_mean),
    type($next_running_var)) `)`
  }];
}

def Graph_BatchnormInferenceOp : Graph_Op<"batchnorm_inference"> {
  let summary = "Batch normalization with given statistics";
  let description = [{
    `Y = (x - mean) * inv_variance * scale + bias` per channel (dim 1); the
    four per-channel tensors are `[1, C, 1, ...]`.

    ```mlir
    %y = graph.batchnorm_inference %x, mean %m, inv_variance %iv, scale %g, bias %b
        : (tensor<2x16x8x8xf16>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
          -> tensor<2x16x8x8xf16>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$input, AnyRankedTensor:$mean,
                            AnyRankedTensor:$inv_variance,
                            AnyRankedTensor:$scale, AnyRankedTensor:$bias),
                       NodeAttrs);
  let results = (outs AnyRankedTensor:$Y);
  let assemblyFormat = [{
    $input `,` `mean` $mean `,` `inv_variance` $inv_variance `,` `scale` $scale
    `,` `bias` $bias attr-dict `:` functional-type(operands, results)
  }];
}

class Graph_NormBwdOp<string mnemonic, string what> : Graph_Op<mnemonic> {
  let summary = "Backward of " # what;
  let description = [{
    Gradients of the forward norm given its saved statistics: `DX` like
    `input`, `DScale` and `DBias` like `scale`. `grad` is dY, shaped like
    `input`; `mean` and `inv_variance` are shaped as the forward produced
    them (for layernorm, the input's dims with the dims where `scale` is
    not 1 set to 1).

    ```mlir
    %dx, %ds, %db = graph.}] # mnemonic # [{ %dy, %x, scale %g, mean %m, inv_variance %iv
        : (...) -> (...)
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$grad, AnyRankedTensor:$input,
                            AnyRankedTensor:$scale, AnyRankedTensor:$mean,
                            AnyRankedTensor:$inv_variance), NodeAttrs);
  let results = (outs AnyRankedTensor:$DX, AnyRankedTensor:$DScale,
                      AnyRankedTensor:$DBias);
  let assemblyFormat = [{
    $grad `,` $input `,` `scale` $scale `,` `mean` $mean `,` `inv_variance`
    $inv_variance attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_LayernormBackwardOp : Graph_NormBwdOp<"layernorm_backward", "layernorm">;
def Graph_AdaLayernormBackwardOp : Graph_NormBwdOp<"adalayernorm_backward", "adalayernorm">;
def Graph_InstancenormBackwardOp : Graph_NormBwdOp<"instancenorm_backward", "instancenorm">;

def Graph_RmsnormBackwardOp : Graph_Op<"rmsnorm_backward"> {
  let summary = "Backward of rmsnorm";
  let description = [{
    `DX` like `input`, `DScale` like `scale`, and `DBias` when `has_dbias`
    (the default; the forward had a bias). `inv_variance` is shaped as the
    forward produced it: the input's dims with the dims where `scale` is not
    1 set to 1.

    ```mlir
    %dx, %ds = graph.rmsnorm_backward %dy, %x, scale %g, inv_variance %iv {has_dbias = false}
        : (...) -> (...)
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$grad, AnyRankedTensor:$input,
                            AnyRankedTensor:$scale,
                            AnyRankedTensor:$inv_variance,
                            DefaultValuedAttr<BoolAttr, "true">:$has_dbias),
                       NodeAttrs);
  let results = (outs AnyRankedTensor:$DX, AnyRankedTensor:$DScale,
                      Optional<AnyRankedTensor>:$DBias);
  let assemblyFormat = [{
    $grad `,` $input `,` `scale` $scale `,` `inv_variance` $inv_variance
    attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_BatchnormBackwardOp : Graph_Op<"batchnorm_backward"> {
  let summary = "Backward of batchnorm";
  let description = [{
    Per-channel gradients of training batch normalization; `peer_stats`
    as in `graph.batchnorm`.

    ```mlir
    %dx, %ds, %db = graph.batchnorm_backward %dy, %x, scale %g, mean %m, inv_variance %iv
        : (...) -> (...)
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$grad, AnyRankedTensor:$input,
                            AnyRankedTensor:$scale, AnyRankedTensor:$mean,
                            AnyRankedTensor:$inv_variance,
                            Variadic<AnyRankedTensor>:$peer_stats), NodeAttrs);
  let results = (outs AnyRankedTensor:$DX, AnyRankedTensor:$DScale,
                      AnyRankedTensor:$DBias);
  let assemblyFormat = [{
    $grad `,` $input `,` `scale` $scale `,` `mean` $mean `,` `inv_variance`
    $inv_variance (`peer_stats` `(` $peer_stats^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_GenstatsOp : Graph_Op<"genstats"> {
  let summary = "Per-channel sum and sum of squares";
  let description = [{
    `SUM` and `SQ_SUM` are `[1, C, 1, ...]`: the sum and the sum of squares
    of `input` over all dims but dim 1.

    ```mlir
    %s, %sq = graph.genstats %x : (tensor<2x16x8x8xf16>) -> (tensor<1x16x1x1xf32>, tensor<1x16x1x1xf32>)
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$input), NodeAttrs);
  let results = (outs AnyRankedTensor:$SUM, AnyRankedTensor:$SQ_SUM);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Reduction and structural ops
//===----------------------------------------------------------------------===//

def Graph_ReductionOp : Graph_Op<"reduction"> {
  let summary = "Reduction to an explicit output shape";
  let description = [{
    Reduces `input` over every dim where the output extent is 1 and the
    input's is not; other dims must match. `group_offset` (optional,
    integers) gives ragged group boundaries along dim 0.

    ```mlir
    %s = graph.reduction add %x : (tensor<4x16xf32>) -> tensor<4x1xf32>
    ```
  }];
  let arguments = !con((ins Graph_ReductionModeAttr:$mode,
                            AnyRankedTensor:$input,
                            Optional<AnyRankedTensor>:$group_offset), NodeAttrs);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    custom<EnumKeyword>($mode) $input (`group_offset` $group_offset^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Graph_ReshapeOp : Graph_Op<"reshape"> {
  let summary = "Row-major reshape to an explicit shape";
  let description = [{
    Same elements, new dims; the element counts must match and the element
    type is kept.

    ```mlir
    %r = graph.reshape %x : (tensor<4x16xf32>) -> tensor<64xf32>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$input), NodeAttrs);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Graph_SliceOp : Graph_Op<"slice", InferredResult> {
  let summary = "Strided slice along every dim";
  let description = [{
    Per dim, `start <= limit <= extent` and `step >= 1`; the result extent
    is `ceil((limit - start) / step)`. The element type is kept.

    ```mlir
    %s = graph.slice %x {start = array<i64: 0, 4>, limit = array<i64: 4, 12>, step = array<i64: 1, 2>}
        : (tensor<4x16xf32>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$input,
                            DenseI64ArrayAttr:$start, DenseI64ArrayAttr:$limit,
                            OptionalAttr<DenseI64ArrayAttr>:$step), NodeAttrs);
  let results = (outs AnyRankedTensor:$output);
  let hasCustomAssemblyFormat = 1;
}

def Graph_TransposeOp : Graph_Op<"transpose", InferredResult> {
  let summary = "Dimension permutation";
  let description = [{
    Result dim `i` is input dim `permutation[i]`; the permutation holds
    each of `0..rank-1` once. The element type is kept.

    ```mlir
    %t = graph.transpose %x {permutation = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<16x4xf32>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$input,
                            DenseI64ArrayAttr:$permutation), NodeAttrs);
  let results = (outs AnyRankedTensor:$output);
  let hasCustomAssemblyFormat = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Graph_ConcatenateOp : Graph_Op<"concatenate", InferredResult> {
  let summary = "Concatenation along an axis";
  let description = [{
    All inputs have the result's rank and element type and agree on every
    dim but `axis`, whose extents add up to the result's. `in_place_index`
    names the input that already lives in the output buffer.

    ```mlir
    %c = graph.concatenate %a, %b {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x4xf32>) -> tensor<4x12xf32>
    ```
  }];
  let arguments = !con((ins Variadic<AnyRankedTensor>:$inputs, I64Attr:$axis,
                            OptionalAttr<I64Attr>:$in_place_index), NodeAttrs);
  let results = (outs AnyRankedTensor:$output);
  let hasCustomAssemblyFormat = 1;
}

class Graph_RopeOpBase<string mnemonic, string in0> : Graph_Op<mnemonic> {
  let arguments = !con(!dag(ins, [AnyRankedTensor], [in0]),
                       (ins AnyRankedTensor:$freqs,
                            OptionalAttr<F64Attr>:$output_scale,
                            OptionalAttr<I64Attr>:$rope_dim), NodeAttrs);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$" # in0 # " `,` `freqs` $freqs attr-dict `:` functional-type(operands, results)";
}

def Graph_RopeOp : Graph_RopeOpBase<"rope", "input"> {
  let summary = "Rotary position embedding";
  let description = [{
    Rotates pairs of the first `rope_dim` (default: all) channels of the
    last dim of `input` `[..., S, D]` by the angles in `freqs` `[..., S, rope_dim/2]`
    (broadcast over the leading dims), times `output_scale` (default 1).

    ```mlir
    %y = graph.rope %x, freqs %f : (tensor<2x8x128x64xbf16>, tensor<1x1x128x32xf32>) -> tensor<2x8x128x64xbf16>
    ```
  }];
}

def Graph_RopeBackwardOp : Graph_RopeOpBase<"rope_backward", "dY"> {
  let summary = "Backward of rope";
  let description = [{
    The transpose of `graph.rope` applied to `dY`: the same shapes.

    ```mlir
    %dx = graph.rope_backward %dy, freqs %f : (tensor<2x8x128x64xbf16>, tensor<1x1x128x32xf32>) -> tensor<2x8x128x64xbf16>
    ```
  }];
}

def Graph_PagedCacheLoadOp : Graph_Op<"paged_cache_load"> {
  let summary = "Gather a paged K/V cache into a dense tensor";
  let description = [{
    Reads the `[B, H, max_seq_len, D]` tensor a paged cache holds:
    `container` `[pages, H, page_size, D]` stores the pages and
    `page_table` `[B, 1, ceil(max_seq_len / page_size), 1]` (i32) names
    batch `b`'s pages in order, so
    `Y[b, h, s, d] = container[page_table[b, 0, s / page_size, 0], h,
    s % page_size, d]`. With `seq_len` (`[B, 1, 1, 1]` integers) only batch
    `b`'s first `seq_len[b]` positions are read and the rest of `Y` is zero;
    without it every position is read. A page number outside
    `[0, pages)` reads zeros (the reference rejects it). `Y` has the
    container's element type.

    The attention ops read paged caches through their own `page_table_k/v`;
    this op serves graphs that build attention from other ops (a score
    modification's composite), as cuDNN's PAGED_CACHE_LOAD operation does.

    ```mlir
    %k = graph.paged_cache_load %container, %table seq_len %len {max_seq_len = 64 : i64}
        : (tensor<32x4x8x64xf16>, tensor<4x1x8x1xi32>, tensor<4x1x1x1xi32>) -> tensor<4x4x64x64xf16>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$container,
                            AnyRankedTensor:$page_table,
                            Optional<AnyRankedTensor>:$seq_len,
                            I64Attr:$max_seq_len), NodeAttrs);
  let results = (outs AnyRankedTensor:$Y);
  let assemblyFormat = [{
    $container `,` $page_table (`seq_len` $seq_len^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Scaled dot-product attention
//===----------------------------------------------------------------------===//

// Options every sdpa variant shares: scale, masks, dropout.
defvar SdpaOptionalOperands = (ins Optional<AnyRankedTensor>:$attn_scale,
                                   Optional<AnyRankedTensor>:$bias,
                                   Optional<AnyRankedTensor>:$seq_len_q,
                                   Optional<AnyRankedTensor>:$seq_len_kv,
                                   Optional<AnyRankedTensor>:$dropout_mask);
defvar SdpaAttrs = (ins OptionalAttr<F64Attr>:$attn_scale_value,
                        UnitAttr:$use_causal_mask,
                        UnitAttr:$use_causal_mask_bottom_right,
                        UnitAttr:$use_alibi_mask,
                        UnitAttr:$use_padding_mask,
                        OptionalAttr<Graph_DiagonalAlignmentAttr>:$diagonal_alignment,
                        OptionalAttr<I64Attr>:$diagonal_band_left_bound,
                        OptionalAttr<I64Attr>:$diagonal_band_right_bound,
                        OptionalAttr<I64Attr>:$sliding_window_length,
                        OptionalAttr<F64Attr>:$dropout_probability);
defvar SdpaOptionalFormat = [{
    (`attn_scale` $attn_scale^)? (`bias` $bias^)?
    (`seq_len_q` $seq_len_q^)? (`seq_len_kv` $seq_len_kv^)?
    (`dropout_mask` $dropout_mask^)?
}];

defvar SdpaRaggedDoc = [{

    Ragged (packed, THD) tensors: with `ragged_offset_<port>` (`[B + 1, 1,
    1, 1]` i32 or i64 element offsets, as the frontend's
    `set_ragged_offset`), the buffer of `<port>` holds its batches packed:
    batch `b` starts at element `offset[b]` instead of `b * stride[0]`, and
    only its first `seq_len` positions (of the padding mask, which is then
    required) are read or written. The op's value is the padded tensor those
    positions make (zero elsewhere); an output's unwritten positions are
    zero in the reference.
}];

defvar SdpaMaskDoc = [{

    Options: the attention scale as a tensor (`attn_scale`) or a value
    (`attn_scale_value`), not both; an additive `bias` broadcastable to
    `[B, H, Sq, Skv]`; ALiBi; a padding mask from the per-batch lengths
    `seq_len_q`/`seq_len_kv` (`[B, 1, 1, 1]` integers); a causal mask aligned
    top-left (`use_causal_mask`) or bottom-right
    (`use_causal_mask_bottom_right`); a sliding window through
    `diagonal_band_left_bound`/`diagonal_band_right_bound` (or
    `sliding_window_length`) with `diagonal_alignment`; dropout with
    `dropout_probability` in [0, 1) and, for a reproducible reference, an
    explicit keep mask `dropout_mask` `[B, H, Sq, Skv]`.
}];

def Graph_SdpaOp : Graph_Op<"sdpa", [AttrSizedOperandSegments, AttrSizedResultSegments]> {
  let summary = "Scaled dot-product attention forward";
  let description = [{
    `O = softmax(scale * Q K^T + bias + masks) V` with `Q` `[B, Hq, Sq, D]`,
    `K` `[B, Hk, Skv, D]`, `V` `[B, Hv, Skv, Dv]`, `O` `[B, Hq, Sq, Dv]`.
    `Hq` is a multiple of `Hk` and `Hv` (GQA/MQA). The last stride of Q, K,
    V and O is 1 when strides are set. `Stats` `[B, Hq, Sq, 1]` (the
    log-sum-exp of each row, needed by the backward), `score_max` and
    `score_sum_exp` are optional outputs: request `Stats` with
    `generate_stats`. Any head dim is accepted, except above 256 together
    with the padding mask (no engine ran that correctly on the H200).

    Paged K/V caches: with `page_table_k` (`page_table_v`), `k` (`v`) is a
    container of pages `[num_pages, Hk, page_size, D]` and the table
    `[B, 1, pages_per_batch, 1]` (integers) names, for each batch, the page
    holding each run of `page_size` positions of its sequence. The logical
    K (V) is `[B, Hk, Skv, D]` with `Skv = paged_attention_max_seq_len_kv`
    (required with a table, `pages_per_batch = ceil(Skv / page_size)`);
    the padding mask is required (each batch's `seq_len_kv` says how many
    positions are valid). A packed page table (`ragged_offset_page_table_k`,
    `_v`) holds batch b's `ceil(seq_len_kv[b] / page_size)` page numbers
    from element `offset[b]` on.

    Attention sinks: `sink_token` `[1, Hq, 1, 1]` f32 is one extra logit per
    head in every row's softmax, with no value row: `O` is the rows' weights
    `exp(s - m) / (sum exp(s - m) + exp(sink - m))` times V, where `m` is
    the larger of the row's maximum score and the sink. `Stats`,
    `score_max` and `score_sum_exp` count the sink too.

    Block-sparse attention: `block_mask` (ui8 `[B, Hq, ceil(Sq / 128),
    ceil(ceil(Skv / 128) / 8)]`) holds one bit per 128 x 128 tile of the
    scores, tile `n` of a tile row in bit `n % 8` of byte `n / 8`: a clear
    bit masks the tile's scores out (the frontend's block mask; the cuDNN
    engine lowers it to the unified SDPA operation, for which cuDNN 9.19
    offers no engine config on the H200, so there it is refused at
    planning; the CPU reference runs it).
  }] # !strconcat("", SdpaRaggedDoc) # !strconcat("", SdpaMaskDoc) # [{

    ```mlir
    %o, %stats = graph.sdpa %q, %k, %v {use_causal_mask, generate_stats, attn_scale_value = 0.125}
        : (tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>, tensor<2x8x1024x128xbf16>)
          -> (tensor<2x8x1024x128xbf16>, tensor<2x8x1024x1xf32>)
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$q, AnyRankedTensor:$k,
                            AnyRankedTensor:$v), SdpaOptionalOperands,
                       (ins Optional<AnyRankedTensor>:$page_table_k,
                            Optional<AnyRankedTensor>:$page_table_v,
                            Optional<AnyRankedTensor>:$sink_token,
                            Optional<AnyRankedTensor>:$block_mask,
                            Optional<AnyRankedTensor>:$ragged_offset_q,
                            Optional<AnyRankedTensor>:$ragged_offset_k,
                            Optional<AnyRankedTensor>:$ragged_offset_v,
                            Optional<AnyRankedTensor>:$ragged_offset_O,
                            Optional<AnyRankedTensor>:$ragged_offset_page_table_k,
                            Optional<AnyRankedTensor>:$ragged_offset_page_table_v,
                            Optional<AnyRankedTensor>:$ragged_offset_Stats),
                       SdpaAttrs,
                       (ins UnitAttr:$generate_stats,
                            OptionalAttr<I64Attr>:$paged_attention_max_seq_len_kv),
                       NodeAttrs);
  let results = (outs AnyRankedTensor:$O, Optional<AnyRankedTensor>:$Stats,
                      Optional<AnyRankedTensor>:$score_max,
                      Optional<AnyRankedTensor>:$score_sum_exp);
  let assemblyFormat = "$q `,` $k `,` $v " # !strconcat("", SdpaOptionalFormat) # [{
    (`page_table_k` $page_table_k^)? (`page_table_v` $page_table_v^)?
    (`sink_token` $sink_token^)? (`block_mask` $block_mask^)?
    (`ragged_offset_q` $ragged_offset_q^)? (`ragged_offset_k` $ragged_offset_k^)?
    (`ragged_offset_v` $ragged_offset_v^)? (`ragged_offset_O` $ragged_offset_O^)?
    (`ragged_offset_page_table_k` $ragged_offset_page_table_k^)?
    (`ragged_offset_page_table_v` $ragged_offset_page_table_v^)?
    (`ragged_offset_Stats` $ragged_offset_Stats^)?
    attr-dict `:` `(` type(operands) `)` `->` `(` type($O) `,`
    custom<OptionalTypes>(type($Stats), type($score_max), type($score_sum_exp)) `)`
  }];
}

def Graph_SdpaBackwardOp : Graph_Op<"sdpa_backward", [AttrSizedOperandSegments,
                                                     AttrSizedResultSegments]> {
  let summary = "Scaled dot-product attention backward";
  let description = [{
    Gradients `dQ`, `dK`, `dV` (shaped like `q`, `k`, `v`) and optionally
    `dBias` (shaped like `bias`) from the forward's `o`, `dO` and `stats`;
    the options must be those of the forward. `use_deterministic_algorithm`
    asks for bit-identical gradients from run to run (the frontend's
    option): on the GPU dQ is then written by its matmul directly instead
    of accumulated in an f32 workspace.

    With the forward's `sink_token` (`[1, Hq, 1, 1]` f32), the op also
    gives its gradient `dSink_token` (same shape, f32): the result follows
    `dBias` and exists exactly when `sink_token` does.
  }] # !strconcat("", SdpaRaggedDoc) # !strconcat("", SdpaMaskDoc) # [{

    ```mlir
    %dq, %dk, %dv = graph.sdpa_backward %q, %k, %v, %o, %do, %stats {use_causal_mask}
        : (...) -> (...)
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$q, AnyRankedTensor:$k,
                            AnyRankedTensor:$v, AnyRankedTensor:$o,
                            AnyRankedTensor:$dO, AnyRankedTensor:$stats),
                       SdpaOptionalOperands,
                       (ins Optional<AnyRankedTensor>:$sink_token,
                            Optional<AnyRankedTensor>:$ragged_offset_q,
                            Optional<AnyRankedTensor>:$ragged_offset_k,
                            Optional<AnyRankedTensor>:$ragged_offset_v,
                            Optional<AnyRankedTensor>:$ragged_offset_o,
                            Optional<AnyRankedTensor>:$ragged_offset_dO,
                            Optional<AnyRankedTensor>:$ragged_offset_dQ,
                            Optional<AnyRankedTensor>:$ragged_offset_dK,
                            Optional<AnyRankedTensor>:$ragged_offset_dV,
                            Optional<AnyRankedTensor>:$ragged_offset_stats),
                       SdpaAttrs,
                       (ins UnitAttr:$use_deterministic_algorithm), NodeAttrs);
  let results = (outs AnyRankedTensor:$dQ, AnyRankedTensor:$dK,
                      AnyRankedTensor:$dV, Optional<AnyRankedTensor>:$dBias,
                      Optional<AnyRankedTensor>:$dSink_token);
  let assemblyFormat = "$q `,` $k `,` $v `,` $o `,` $dO `,` $stats " #
                       !strconcat("", SdpaOptionalFormat) # [{
    (`sink_token` $sink_token^)?
    (`ragged_offset_q` $ragged_offset_q^)? (`ragged_offset_k` $ragged_offset_k^)?
    (`ragged_offset_v` $ragged_offset_v^)? (`ragged_offset_o` $ragged_offset_o^)?
    (`ragged_offset_dO` $ragged_offset_dO^)? (`ragged_offset_dQ` $ragged_offset_dQ^)?
    (`ragged_offset_dK` $ragged_offset_dK^)? (`ragged_offset_dV` $ragged_offset_dV^)?
    (`ragged_offset_stats` $ragged_offset_stats^)?
    attr-dict `:` `(` type(operands) `)` `->` `(`
    custom<SinkGradientResults>(ref($sink_token), type($dQ), type($dK),
                                type($dV), type($dBias), type($dSink_token)) `)`
  }];
}

def Graph_RngOp : Graph_Op<"rng"> {
  let summary = "Bernoulli keep mask from cuDNN's Philox generator";
  let description = [{
    `Y[i]` is 1 with probability `bernoulli_probability` and 0 otherwise,
    drawn by cuDNN's Philox generator from the one-element integer tensors
    `seed` and `offset`: the same seed, offset and shape give the same mask,
    so an sdpa forward and its backward regenerate one dropout mask (the
    frontend's `dropout=(p, seed, offset)`; the keep probability is `1 - p`).
    The stream is cuDNN's: the CPU reference does not reproduce it and
    declines the op, and it runs fused with the attention that reads it.

    ```mlir
    %keep = graph.rng %seed, %offset {bernoulli_probability = 0.9 : f64}
        : (tensor<1x1x1x1xi64>, tensor<1x1x1x1xi64>) -> tensor<2x4x512x512xf32>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$seed, AnyRankedTensor:$offset,
                            F64Attr:$bernoulli_probability), NodeAttrs);
  let results = (outs AnyRankedTensor:$Y);
  let assemblyFormat = "$seed `,` $offset attr-dict `:` functional-type(operands, results)";
}

def Graph_SdpaFp8Op : Graph_Op<"sdpa_fp8", [AttrSizedOperandSegments]> {
  let summary = "FP8 scaled dot-product attention forward";
  let description = [{
    As `graph.sdpa` with fp8 (e4m3/e5m2) `q`, `k`, `v`, and an fp8, f16 or
    bf16 `O` (`scale_o` applies to either; 1 for a half O). The
    one-element `descale_*` tensors undo the inputs' quantization scales,
    `scale_s` quantizes the softmax probabilities and `scale_o` the output;
    `Amax_S` and `Amax_O` (`[1, 1, 1, 1]` f32) report the largest magnitude
    before quantization. Paged K/V caches (`page_table_k`, `page_table_v`
    with `paged_attention_max_seq_len_kv`) and ragged (packed THD) `q`, `k`,
    `v`, `O` and `Stats` are read as `graph.sdpa` reads them.
  }] # !strconcat("", SdpaRaggedDoc) # !strconcat("", SdpaMaskDoc) # [{

    ```mlir
    %o, %st, %as, %ao = graph.sdpa_fp8 %q, %k, %v descale(%dq, %dk, %dv, %ds) scale(%ss, %so) {generate_stats}
        : (...) -> (...)
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$q, AnyRankedTensor:$k,
                            AnyRankedTensor:$v, AnyRankedTensor:$descale_q,
                            AnyRankedTensor:$descale_k,
                            AnyRankedTensor:$descale_v,
                            AnyRankedTensor:$descale_s,
                            AnyRankedTensor:$scale_s,
                            AnyRankedTensor:$scale_o),
                       SdpaOptionalOperands,
                       (ins Optional<AnyRankedTensor>:$page_table_k,
                            Optional<AnyRankedTensor>:$page_table_v,
                            Optional<AnyRankedTensor>:$ragged_offset_q,
                            Optional<AnyRankedTensor>:$ragged_offset_k,
                            Optional<AnyRankedTensor>:$ragged_offset_v,
                            Optional<AnyRankedTensor>:$ragged_offset_O,
                            Optional<AnyRankedTensor>:$ragged_offset_Stats),
                       SdpaAttrs,
                       (ins UnitAttr:$generate_stats,
                            OptionalAttr<I64Attr>:$paged_attention_max_seq_len_kv),
                       NodeAttrs);
  let results = (outs AnyRankedTensor:$O, Optional<AnyRankedTensor>:$Stats,
                      AnyRankedTensor:$Amax_S, AnyRankedTensor:$Amax_O);
  let assemblyFormat = [{
    $q `,` $k `,` $v `descale` `(` $descale_q `,` $descale_k `,` $descale_v `,`
    $descale_s `)` `scale` `(` $scale_s `,` $scale_o `)` }] # !strconcat("", SdpaOptionalFormat) # [{
    (`page_table_k` $page_table_k^)? (`page_table_v` $page_table_v^)?
    (`ragged_offset_q` $ragged_offset_q^)? (`ragged_offset_k` $ragged_offset_k^)?
    (`ragged_offset_v` $ragged_offset_v^)? (`ragged_offset_O` $ragged_offset_O^)?
    (`ragged_offset_Stats` $ragged_offset_Stats^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_SdpaFp8BackwardOp : Graph_Op<"sdpa_fp8_backward", [AttrSizedOperandSegments]> {
  let summary = "FP8 scaled dot-product attention backward";
  let description = [{
    As `graph.sdpa_backward` with fp8 operands: `descale_*` undo the input
    scales, `scale_*` quantize `S`, `dQ`, `dK`, `dV`, `dP`; the `amax_*`
    outputs (`[1, 1, 1, 1]` f32) report the magnitudes before quantization.
  }] # !strconcat("", SdpaMaskDoc);
  let arguments = !con((ins AnyRankedTensor:$q, AnyRankedTensor:$k,
                            AnyRankedTensor:$v, AnyRankedTensor:$o,
                            AnyRankedTensor:$dO, AnyRankedTensor:$stats,
                            AnyRankedTensor:$descale_q,
                            AnyRankedTensor:$descale_k,
                            AnyRankedTensor:$descale_v,
                            AnyRankedTensor:$descale_o,
                            AnyRankedTensor:$descale_dO,
                            AnyRankedTensor:$descale_s,
                            AnyRankedTensor:$descale_dP,
                            AnyRankedTensor:$scale_s, AnyRankedTensor:$scale_dQ,
                            AnyRankedTensor:$scale_dK, AnyRankedTensor:$scale_dV,
                            AnyRankedTensor:$scale_dP),
                       SdpaOptionalOperands, SdpaAttrs, NodeAttrs);
  let results = (outs AnyRankedTensor:$dQ, AnyRankedTensor:$dK,
                      AnyRankedTensor:$dV, AnyRankedTensor:$amax_dQ,
                      AnyRankedTensor:$amax_dK, AnyRankedTensor:$amax_dV,
                      AnyRankedTensor:$amax_dP);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $o `,` $dO `,` $stats `descale` `(` $descale_q `,`
    $descale_k `,` $descale_v `,` $descale_o `,` $descale_dO `,` $descale_s `,`
    $descale_dP `)` `scale` `(` $scale_s `,` $scale_dQ `,` $scale_dK `,`
    $scale_dV `,` $scale_dP `)` }] # !strconcat("", SdpaOptionalFormat) # [{
    attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_SdpaMxfp8Op : Graph_Op<"sdpa_mxfp8", [AttrSizedOperandSegments]> {
  let summary = "MXFP8 (block-scaled fp8) attention forward";
  let description = [{
    As `graph.sdpa` with block-scaled fp8 `q`, `k`, `v`: each block of 32
    elements along the dim its product contracts has an e8m0 scale, the
    head dim for `q` and `k` (`descale_q/k` `[B, H, S, ceil(D/32)]`), the
    sequence dim for `v` (`descale_v` `[B, H, ceil(Skv/32), Dv]`). `Amax_O`
    reports the output's largest magnitude.
  }] # !strconcat("", SdpaMaskDoc);
  let arguments = !con((ins AnyRankedTensor:$q, AnyRankedTensor:$k,
                            AnyRankedTensor:$v, AnyRankedTensor:$descale_q,
                            AnyRankedTensor:$descale_k,
                            AnyRankedTensor:$descale_v),
                       SdpaOptionalOperands, SdpaAttrs,
                       (ins UnitAttr:$generate_stats), NodeAttrs);
  let results = (outs AnyRankedTensor:$O, Optional<AnyRankedTensor>:$Stats,
                      AnyRankedTensor:$Amax_O);
  let assemblyFormat = [{
    $q `,` $k `,` $v `descale` `(` $descale_q `,` $descale_k `,` $descale_v `)`
    }] # !strconcat("", SdpaOptionalFormat) # [{ attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_SdpaMxfp8BackwardOp : Graph_Op<"sdpa_mxfp8_backward", [AttrSizedOperandSegments]> {
  let summary = "MXFP8 (block-scaled fp8) attention backward";
  let description = [{
    Gradients of `graph.sdpa_mxfp8`. The transposed operands (`q_T`, `k_T`,
    `dO_T`) have the dims of `q`, `k`, `dO` and hold the same values
    quantized along the sequence dim, with their own block scales
    (`[B, H, ceil(S/32), D]`, as `descale_v`); `dO` is scaled along the head
    dim like `q`. `o_f16` and `dO_f16` are the unquantized output and output
    gradient.
  }] # !strconcat("", SdpaMaskDoc);
  let arguments = !con((ins AnyRankedTensor:$q, AnyRankedTensor:$q_T,
                            AnyRankedTensor:$k, AnyRankedTensor:$k_T,
                            AnyRankedTensor:$v, AnyRankedTensor:$o_f16,
                            AnyRankedTensor:$dO_f16, AnyRankedTensor:$dO,
                            AnyRankedTensor:$dO_T, AnyRankedTensor:$stats,
                            AnyRankedTensor:$descale_q,
                            AnyRankedTensor:$descale_q_T,
                            AnyRankedTensor:$descale_k,
                            AnyRankedTensor:$descale_k_T,
                            AnyRankedTensor:$descale_v,
                            AnyRankedTensor:$descale_dO,
                            AnyRankedTensor:$descale_dO_T),
                       SdpaOptionalOperands, SdpaAttrs, NodeAttrs);
  let results = (outs AnyRankedTensor:$dQ, AnyRankedTensor:$dK,
                      AnyRankedTensor:$dV, AnyRankedTensor:$amax_dQ,
                      AnyRankedTensor:$amax_dK, AnyRankedTensor:$amax_dV);
  let assemblyFormat = [{
    $q `,` $q_T `,` $k `,` $k_T `,` $v `,` $o_f16 `,` $dO_f16 `,` $dO `,` $dO_T
    `,` $stats `descale` `(` $descale_q `,` $descale_q_T `,` $descale_k `,`
    $descale_k_T `,` $descale_v `,` $descale_dO `,` $descale_dO_T `)`
    }] # !strconcat("", SdpaOptionalFormat) # [{ attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Block-scale quantization and MoE
//===----------------------------------------------------------------------===//

def Graph_BlockScaleQuantizeOp : Graph_Op<"block_scale_quantize"> {
  let summary = "Quantize to a narrow type with one scale per block";
  let description = [{
    Splits `axis` (default: the last dim) into blocks of `block_size`
    elements, which must divide it; `Y` has `input`'s shape in an fp8 or fp4
    type, `scale` has `input`'s shape with `axis` divided by
    `block_size`. `transpose` makes cuDNN lay `Y` and `scale` out with
    `axis` innermost; it changes strides, never dims.

    ```mlir
    %y, %s = graph.block_scale_quantize %x {block_size = 32 : i64}
        : (tensor<128x256xbf16>) -> (tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>)
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$input,
                            Optional<AnyRankedTensor>:$group_offset,
                            I64Attr:$block_size, OptionalAttr<I64Attr>:$axis,
                            UnitAttr:$transpose), NodeAttrs);
  let results = (outs AnyRankedTensor:$Y, AnyRankedTensor:$scale);
  let assemblyFormat = [{
    $input (`group_offset` $group_offset^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_BlockScaleDequantizeOp : Graph_Op<"block_scale_dequantize"> {
  let summary = "Dequantize a block-scaled tensor";
  let description = [{
    `output = input * descale` with one `descale` element per block of
    `block_size` along the last dim (`is_negative_scale` negates it).

    ```mlir
    %x = graph.block_scale_dequantize %y, descale %s {block_size = 32 : i64}
        : (tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>) -> tensor<128x256xf32>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$input, AnyRankedTensor:$descale,
                            I64Attr:$block_size, UnitAttr:$is_negative_scale),
                       NodeAttrs);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    $input `,` `descale` $descale attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_MoeGroupedMatmulOp : Graph_Op<"moe_grouped_matmul", [AttrSizedOperandSegments]> {
  let summary = "Mixture-of-experts grouped matmul";
  let description = [{
    Tokens grouped by expert: `token` `[1, T, H]`, `weight` `[E, H, N]`,
    `first_token_offset` `[E, 1, 1]` integers (where each expert's rows
    start); output `[1, T, N]`. In `gather` mode `token_index` names
    each routed row's source token; in `scatter` mode row `r` is written
    to output row `token_index[r] * top_k + token_ks[r]` (`token_ks` is the
    slot among the token's `top_k`; it places rows, it does not weigh
    them).

    ```mlir
    %y = graph.moe_grouped_matmul %t, %w, offsets %off
        : (tensor<1x64x32xbf16>, tensor<4x32x16xbf16>, tensor<4x1x1xi32>) -> tensor<1x64x16xbf16>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$token, AnyRankedTensor:$weight,
                            AnyRankedTensor:$first_token_offset,
                            Optional<AnyRankedTensor>:$token_index,
                            Optional<AnyRankedTensor>:$token_ks,
                            OptionalAttr<Graph_MoeModeAttr>:$mode,
                            OptionalAttr<I64Attr>:$top_k), NodeAttrs);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    $token `,` $weight `,` `offsets` $first_token_offset
    (`token_index` $token_index^)? (`token_ks` $token_ks^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_MoeGroupedMatmulBwdOp : Graph_Op<"moe_grouped_matmul_bwd"> {
  let summary = "Weight gradient of the MoE grouped matmul";
  let description = [{
    `dweight[e] = token[rows of e]^T @ doutput[rows of e]`, shaped
    `[E, H, N]` (given explicitly).

    ```mlir
    %dw = graph.moe_grouped_matmul_bwd %dy, %t, offsets %off
        : (tensor<1x64x16xbf16>, tensor<1x64x32xbf16>, tensor<4x1x1xi32>) -> tensor<4x32x16xf32>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$doutput, AnyRankedTensor:$token,
                            AnyRankedTensor:$first_token_offset), NodeAttrs);
  let results = (outs AnyRankedTensor:$dweight);
  let assemblyFormat = [{
    $doutput `,` $token `,` `offsets` $first_token_offset attr-dict `:`
    functional-type(operands, results)
  }];
}

def Graph_MoeScatterRowsOp : Graph_Op<"moe_scatter_rows"> {
  let summary = "Place routed rows where the scatter-mode MoE matmul puts them";
  let description = [{
    The row routing of `moe_grouped_matmul` in `scatter` mode, alone: each
    routed row `r` of `input` `[1, M, N]` becomes row `token_index[r] *
    top_k + token_ks[r]` of `output` (the input's dims and element type; the
    rows are copied, not converted), and output rows no routed row lands on
    are zero. The routed rows are those the matmul's `first_token_offset`
    gives its experts: from its first entry to its last when `bounded` (the
    offsets end with the last expert's end), else to `M`; rows outside are
    padding, their routing unread. `token_index` and `token_ks` hold one
    i32 per row, `first_token_offset` i32. A routed row's slot must be in
    `[0, top_k)` and its destination in `[0, M)`, written once: the
    reference rejects routing that breaks this, the generated kernel skips
    such a row.

    graph-split-moe-scatter makes it: cuDNN 9.19 offers no engine config for
    scatter mode on the H200, so the GPU pipeline runs the matmul in `none`
    mode (rows in expert order) and this op on the generated kernels.

    ```mlir
    %y = graph.moe_scatter_rows %rows, %index, %ks, offsets %off {top_k = 2 : i64}
        : (tensor<1x64x16xbf16>, tensor<64x1x1xi32>, tensor<64x1x1xi32>, tensor<4x1x1xi32>) -> tensor<1x64x16xbf16>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$input,
                            AnyRankedTensor:$token_index,
                            AnyRankedTensor:$token_ks,
                            AnyRankedTensor:$first_token_offset,
                            I64Attr:$top_k, UnitAttr:$bounded),
                       NodeAttrs);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    $input `,` $token_index `,` $token_ks `,` `offsets` $first_token_offset
    attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_MoeGatherRowsOp : Graph_Op<"moe_gather_rows"> {
  let summary = "Gather the source token rows a gather-mode MoE matmul reads";
  let description = [{
    The row routing of `moe_grouped_matmul` in `gather` mode, alone: row `r`
    of `output` `[1, S, K]` is row `token_index[r]` of `input` `[1, T, K]`
    (the tokens), so a `none`-mode matmul over the output computes what the
    gather-mode matmul does. `token_index` holds one i32 per output row;
    the output has the input's element type (the rows are copied, not
    converted). An index outside `[0, T)` gives a row of zeros: rows the
    matmul's experts do not cover (padding) may hold any index, and the
    matmul never reads them. (A routed row's index outside the tokens is
    an error of the gather-mode matmul on the reference; graph-run's
    `--check-against=cpu` runs the graph as written, so it reports it.)

    graph-split-moe-gather makes it: cuDNN 9.19's gather-mode engine faults
    on the H200 (an illegal address at every size tried), so the GPU
    pipeline gathers the rows on the generated kernels and runs the matmul
    in `none` mode.

    ```mlir
    %rows = graph.moe_gather_rows %tokens, %index
        : (tensor<1x32x16xbf16>, tensor<1x64x1xi32>) -> tensor<1x64x16xbf16>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$input,
                            AnyRankedTensor:$token_index), NodeAttrs);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    $input `,` $token_index attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Linear attention: gated delta net (gdn, gdn2) and kimi delta attention
//===----------------------------------------------------------------------===//

defvar LinearAttnDoc = [{
    Sequences are packed along dim 0: `q` `[T, Hq, K]`, `k` `[T, Hk, K]`,
    `v` `[T, Hv, V]`, the gates per token and head, `cu_seqlens` `[N + 1]`
    the sequence boundaries (one sequence when absent). The recurrent state
    `[N, H, K, V]` lives at `H = max(Hq, Hv)` heads; every head count (of
    q, k, v and the gates) divides H. `initial_state` seeds it; `final_state` returns it when
    `output_final_state`; `state_checkpoints` saves it every
    `checkpoint_every_n_tokens` tokens for the backward. `use_qk_l2norm`
    normalizes q and k per head; `a_log` and `dt_bias` parametrize the gate.
}];

class Graph_LinearAttnFwdOp<string mnemonic, dag extraIns, dag extraAttrs>
    : Graph_Op<mnemonic, [AttrSizedOperandSegments, AttrSizedResultSegments]> {
  let arguments = !con((ins AnyRankedTensor:$q, AnyRankedTensor:$k,
                            AnyRankedTensor:$v, AnyRankedTensor:$g,
                            AnyRankedTensor:$beta), extraIns,
                       (ins Optional<AnyRankedTensor>:$cu_seqlens,
                            Optional<AnyRankedTensor>:$initial_state,
                            Optional<AnyRankedTensor>:$a_log,
                            Optional<AnyRankedTensor>:$dt_bias,
                            OptionalAttr<F64Attr>:$scale,
                            UnitAttr:$output_final_state,
                            UnitAttr:$use_qk_l2norm,
                            OptionalAttr<I64Attr>:$checkpoint_every_n_tokens,
                            UnitAttr:$safe_gate, UnitAttr:$batch_invariant),
                       extraAttrs, NodeAttrs);
  let results = (outs AnyRankedTensor:$O,
                      Optional<AnyRankedTensor>:$final_state,
                      Optional<AnyRankedTensor>:$state_checkpoints);
}

class Graph_LinearAttnBwdOp<string mnemonic, dag extraIns, dag extraOuts>
    : Graph_Op<mnemonic, [AttrSizedOperandSegments]> {
  let arguments = !con((ins AnyRankedTensor:$q, AnyRankedTensor:$k,
                            AnyRankedTensor:$v, AnyRankedTensor:$g,
                            AnyRankedTensor:$beta), extraIns,
                       (ins Optional<AnyRankedTensor>:$cu_seqlens,
                            AnyRankedTensor:$dO,
                            Optional<AnyRankedTensor>:$state_checkpoints,
                            Optional<AnyRankedTensor>:$initial_state,
                            Optional<AnyRankedTensor>:$d_final_state,
                            OptionalAttr<F64Attr>:$scale,
                            UnitAttr:$use_qk_l2norm,
                            UnitAttr:$batch_invariant), NodeAttrs);
  let results = !con((outs AnyRankedTensor:$dQ, AnyRankedTensor:$dK,
                           AnyRankedTensor:$dV, AnyRankedTensor:$dG,
                           AnyRankedTensor:$dBeta), extraOuts,
                     (outs Optional<AnyRankedTensor>:$d_initial_state));
}

def Graph_GdnOp : Graph_LinearAttnFwdOp<"gdn", (ins), (ins)> {
  let summary = "Gated delta net forward";
  let description = [{
    Per head the state follows `S_t = exp(g_t) S_{t-1} + beta_t k_t (v_t -
    exp(g_t) S_{t-1}^T k_t)^T` and the output is `o_t = scale * S_t^T q_t`
    (`g` and `beta` are one scalar per token and head, `[T, H]`).
  }] # !strconcat("", LinearAttnDoc) # [{

    ```mlir
    %o = graph.gdn %q, %k, %v, %g, %beta : (...) -> tensor<64x4x32xf32>
    ```
  }];
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $g `,` $beta (`cu_seqlens` $cu_seqlens^)? (`initial_state` $initial_state^)?
    (`a_log` $a_log^)? (`dt_bias` $dt_bias^)?
    attr-dict `:` `(` type(operands) `)` `->` `(` type($O) `,`
    custom<OptionalTypes>(type($final_state), type($state_checkpoints)) `)`
  }];
}

def Graph_GdnBwdOp : Graph_LinearAttnBwdOp<"gdn_bwd", (ins), (outs)> {
  let summary = "Gated delta net backward";
  let description = "Gradients of `graph.gdn` with respect to every input." # !strconcat("", LinearAttnDoc);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $g `,` $beta (`cu_seqlens` $cu_seqlens^)? `dO` $dO
    (`state_checkpoints` $state_checkpoints^)? (`initial_state` $initial_state^)?
    (`d_final_state` $d_final_state^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_KdaOp : Graph_LinearAttnFwdOp<"kda", (ins),
    (ins UnitAttr:$use_beta_sigmoid, OptionalAttr<F64Attr>:$gate_lower_bound)> {
  let summary = "Kimi delta attention forward";
  let description = [{
    The gated delta rule with a gate per key channel: `g` is `[T, H, K]`
    and decays each row of the state separately.
  }] # !strconcat("", LinearAttnDoc) # [{

    ```mlir
    %o = graph.kda %q, %k, %v, %g, %beta : (...) -> tensor<64x4x32xf32>
    ```
  }];
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $g `,` $beta (`cu_seqlens` $cu_seqlens^)? (`initial_state` $initial_state^)?
    (`a_log` $a_log^)? (`dt_bias` $dt_bias^)?
    attr-dict `:` `(` type(operands) `)` `->` `(` type($O) `,`
    custom<OptionalTypes>(type($final_state), type($state_checkpoints)) `)`
  }];
}

def Graph_KdaBwdOp : Graph_LinearAttnBwdOp<"kda_bwd", (ins), (outs)> {
  let summary = "Kimi delta attention backward";
  let description = "Gradients of `graph.kda` with respect to every input." # !strconcat("", LinearAttnDoc);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $g `,` $beta (`cu_seqlens` $cu_seqlens^)? `dO` $dO
    (`state_checkpoints` $state_checkpoints^)? (`initial_state` $initial_state^)?
    (`d_final_state` $d_final_state^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_Gdn2Op : Graph_LinearAttnFwdOp<"gdn2", (ins AnyRankedTensor:$w),
    (ins OptionalAttr<F64Attr>:$gate_lower_bound)> {
  let summary = "Gated delta net, second form (per-key gates, write gate w)";
  let description = [{
    The gated delta rule with a decay `g` and an erase gate `beta` per key
    channel (both `[T, H, K]`) and a write gate `w` per value channel
    (`[T, H, V]`): the decayed state loses `beta * k` along the key and gains
    `w * v` along the value.
  }] # !strconcat("", LinearAttnDoc) # [{

    ```mlir
    %o = graph.gdn2 %q, %k, %v, %g, %beta, %w : (...) -> tensor<64x4x32xf32>
    ```
  }];
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $g `,` $beta `,` $w (`cu_seqlens` $cu_seqlens^)? (`initial_state` $initial_state^)?
    (`a_log` $a_log^)? (`dt_bias` $dt_bias^)?
    attr-dict `:` `(` type(operands) `)` `->` `(` type($O) `,`
    custom<OptionalTypes>(type($final_state), type($state_checkpoints)) `)`
  }];
}

def Graph_Gdn2BwdOp : Graph_LinearAttnBwdOp<"gdn2_bwd", (ins AnyRankedTensor:$w),
    (outs AnyRankedTensor:$dW)> {
  let summary = "Gated delta net (second form) backward";
  let description = "Gradients of `graph.gdn2` with respect to every input." # !strconcat("", LinearAttnDoc);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $g `,` $beta `,` $w (`cu_seqlens` $cu_seqlens^)? `dO` $dO
    (`state_checkpoints` $state_checkpoints^)? (`initial_state` $initial_state^)?
    (`d_final_state` $d_final_state^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

include "GraphDialect/GroupOps.td"

#endif // GRAPH_OPS_TD
