//===- ExecOps.td - Attributes and ops of the exec dialect -*- tablegen -*-===//

#ifndef EXEC_OPS_TD
#define EXEC_OPS_TD

include "GraphDialect/Executable/ExecDialect.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

// An int64 list printed and parsed in brackets: `[2, 3]`.
def Exec_I64ListParameter : ArrayRefParameter<"int64_t", "int64 list"> {
  let parser = "::mlir::exec::parseI64List($_parser)";
  let printer = "::mlir::exec::printI64List($_printer, $_self)";
}

def Exec_TensorAttr : Exec_Attr<"Tensor", "tensor"> {
  let summary = "A tensor of the program or of one cuDNN group";
  let description = [{
    A tensor by uid: element type, dims and strides in elements. In a
    program's `inputs`, `outputs` and `buffers` it is a device buffer (and
    may carry the user `name`). In a `exec.cudnn_group` it is one tensor of
    the cuDNN operation graph: a device buffer of the program, a `virtual`
    tensor that lives only inside the group, or a pass-by-value scalar
    (`by_value`). A device buffer with `read_by_value` is a one-element
    graph input (`graph.by_value`) that cuDNN takes by value: the runtime
    reads it on the host at each run. Keys may come in any order;
    `is_virtual`, `by_value`, `read_by_value` and `name` are optional. Dims
    and strides have the same length.

    ```mlir
    #exec.tensor<uid = 1, dtype = bf16, dims = [256, 512], strides = [512, 1], name = "A">
    #exec.tensor<uid = 5, dtype = f32, dims = [1, 256, 384], strides = [98304, 384, 1], is_virtual = true>
    #exec.tensor<uid = 7, dtype = f32, dims = [1, 1, 1, 1], strides = [1, 1, 1, 1], by_value = 1.0e-05 : f64>
    ```
  }];
  let parameters = (ins
    "int64_t":$uid,
    "::mlir::Type":$dtype,
    Exec_I64ListParameter:$dims,
    Exec_I64ListParameter:$strides,
    DefaultValuedParameter<"bool", "false">:$is_virtual,
    OptionalParameter<"::mlir::FloatAttr">:$by_value,
    DefaultValuedParameter<"bool", "false">:$read_by_value,
    OptionalParameter<"::mlir::StringAttr">:$name);
  let assemblyFormat = [{
    `<` struct($uid, $dtype, $dims, $strides, $is_virtual, $by_value,
               $read_by_value, $name) `>`
  }];
  let genVerifyDecl = 1;
}

// How a kernel uses one of its pointer arguments.
def Exec_ArgAccess : I32EnumAttr<"ArgAccess", "kernel argument access", [
    I32EnumAttrCase<"read", 0>, I32EnumAttrCase<"write", 1>,
    I32EnumAttrCase<"scratch", 2>]> {
  let cppNamespace = "::mlir::exec";
  let genSpecializedAttr = 0;
}

// The image format of an exec.kernel_module (printed as the word).
def Exec_BinaryFormatAttr : I32EnumAttr<"BinaryFormat", "kernel image format", [
    I32EnumAttrCase<"ptx", 0>, I32EnumAttrCase<"cubin", 1>]> {
  let cppNamespace = "::mlir::exec";
}

def Exec_KernelArgAttr : Exec_Attr<"KernelArg", "arg"> {
  let summary = "One pointer argument of a generated kernel";
  let description = [{
    The device buffer a kernel parameter points at, by uid, and how the
    kernel uses it: `read` (a program input, or a tensor an earlier step or
    launch wrote), `write` (a tensor its group computes; the launch may
    also read it), or `scratch` (a buffer of the group's `scratch` list,
    negative uid, that lives only inside the group). `align` is the byte
    alignment the kernel's vector accesses need of the pointer (0: none; a
    power of two otherwise).

    ```mlir
    #exec.arg<uid = 1, access = read, align = 16>
    #exec.arg<uid = 4, access = write>
    #exec.arg<uid = -1, access = scratch>
    ```
  }];
  let parameters = (ins "int64_t":$uid,
                        EnumParameter<Exec_ArgAccess>:$access,
                        DefaultValuedParameter<"int64_t", "0">:$align);
  let assemblyFormat = "`<` struct($uid, $access, $align) `>`";
  let genVerifyDecl = 1;
}

def Exec_ScratchAttr : Exec_Attr<"Scratch", "scratch"> {
  let summary = "A device buffer that lives only inside one kernel group";
  let description = [{
    A buffer the runtime allocates once when it loads an
    `exec.kernel_group` (values that cross the group's kernels, per-block
    partial sums): a negative uid, local to the group, and its size in
    bytes (positive).

    ```mlir
    #exec.scratch<uid = -1, bytes = 16384>
    ```
  }];
  let parameters = (ins "int64_t":$uid, "int64_t":$bytes);
  let assemblyFormat = "`<` struct($uid, $bytes) `>`";
  let genVerifyDecl = 1;
}

def Exec_KernelArgArrayAttr
    : TypedArrayAttrBase<Exec_KernelArgAttr, "array of #exec.arg">;
def Exec_ScratchArrayAttr
    : TypedArrayAttrBase<Exec_ScratchAttr, "array of #exec.scratch">;

def Exec_TensorArrayAttr : TypedArrayAttrBase<Exec_TensorAttr,
                                              "array of #exec.tensor">;

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

def Exec_ProgramOp : Exec_Op<"program", [
    Symbol, IsolatedFromAbove, NoTerminator, SingleBlock]> {
  let summary = "A compiled graph: device buffers and an ordered schedule";
  let description = [{
    The AOT artifact of one `graph.graph`. `inputs` and `outputs` are the
    graph's inputs and non-virtual outputs in signature order (uid, dtype,
    dims, strides, name): the caller gives a device buffer for each by uid.
    `buffers` are the device tensors the program allocates itself (written
    by one group, read by a later one). An output that is a graph input
    returned as is has `output_aliases[i]` = that input's index (-1 for a
    computed output); two outputs may share the uid of one computed tensor.

    The body is the schedule: its steps (`exec.cudnn_group`,
    `exec.kernel_group`) run in order. Every uid a step uses is a program
    input, output or buffer, or a virtual, by-value or scratch tensor of
    that step; a step reads a program output or buffer only after an
    earlier step (or itself) wrote it; no step writes a program input;
    every computed output is written.

    ```mlir
    exec.program @mlp
        inputs = [#exec.tensor<uid = 1, dtype = f16, dims = [4, 8], strides = [8, 1], name = "x">,
                  #exec.tensor<uid = 2, dtype = f16, dims = [8, 16], strides = [16, 1]>]
        outputs = [#exec.tensor<uid = 3, dtype = f16, dims = [4, 16], strides = [16, 1], name = "y">]
        buffers = [] {
      exec.cudnn_group "mlp/group0" inputs = [...] outputs = [...]
          compute = f32 heuristics = ["a", "fallback"] {
        ...
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       Exec_TensorArrayAttr:$inputs,
                       Exec_TensorArrayAttr:$outputs,
                       Exec_TensorArrayAttr:$buffers,
                       OptionalAttr<DenseI64ArrayAttr>:$output_aliases);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `inputs` `=` $inputs `outputs` `=` $outputs
    `buffers` `=` $buffers attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

// The region holds graph node ops (GraphDialect/GraphTraits.h).
def Exec_HoldsGraphNodes : NativeOpTrait<"HoldsGraphNodes"> {
  let cppNamespace = "::mlir::OpTrait::graph";
}

def Exec_CudnnGroupOp : Exec_Op<"cudnn_group", [
    HasParent<"ProgramOp">, IsolatedFromAbove, SingleBlock,
    Exec_HoldsGraphNodes]> {
  let summary = "One cuDNN operation graph and how to choose its plan";
  let description = [{
    One fused group for cuDNN: its body holds the group's graph-dialect ops
    themselves (the node ops of the `graph.group` graph-fuse formed, in
    schedule order), and the runtime builds the cuDNN operation graph from
    them with the code that builds it for a live graph (the op kinds,
    modes, ports and attributes are the ops' own, typed).

    The body's arguments are the tensors the group reads: `inputs` gives
    one `#exec.tensor` per argument, in order (a program input, output or
    buffer written by an earlier step, or a pass-by-value scalar,
    `by_value`). `exec.yield` lists the values the group writes to device
    memory, one `#exec.tensor` of `outputs` each (a program output or
    buffer). Every other result is virtual: it lives only inside the
    group. A tensor's dims are those of its value's type (the runtime pads
    ranks as cuDNN wants them); its dtype is the buffer's, which may be the
    16-bit type of the tensor-core operand an f32 value feeds. `compute` is
    the graph's compute type.

    The plan choice: either `heuristics`, the modes (`a`, `b`, `fallback`)
    to query in order, the first plan that builds running; or `engine` and
    `knobs` (pairs of knob type and value, flattened) for a plan chosen
    ahead of time. Exactly one of the two is given.

    ```mlir
    exec.cudnn_group "mlp/group0"
        inputs = [#exec.tensor<uid = 1, dtype = f16, dims = [4, 8], strides = [8, 1]>,
                  #exec.tensor<uid = 2, dtype = f16, dims = [8, 16], strides = [16, 1]>]
        outputs = [#exec.tensor<uid = 3, dtype = f16, dims = [4, 16], strides = [16, 1]>]
        compute = f32 heuristics = ["a", "fallback"] {
    ^bb0(%x: tensor<4x8xf16>, %w: tensor<8x16xf16>):
      %0 = graph.matmul %x, %w : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf32>
      %1 = graph.pointwise relu(%0) : (tensor<4x16xf32>) -> tensor<4x16xf16>
      exec.yield %1 : tensor<4x16xf16>
    }
    ```
  }];
  let arguments = (ins StrAttr:$sym_name,
                       Exec_TensorArrayAttr:$inputs,
                       Exec_TensorArrayAttr:$outputs,
                       OptionalAttr<TypeAttr>:$compute,
                       OptionalAttr<StrArrayAttr>:$heuristics,
                       OptionalAttr<I64Attr>:$engine,
                       OptionalAttr<DenseI64ArrayAttr>:$knobs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `inputs` `=` $inputs `outputs` `=` $outputs
    (`compute` `=` $compute^)?
    (`heuristics` `=` $heuristics^)? (`engine` `=` $engine^)?
    (`knobs` `=` $knobs^)? attr-dict-with-keyword $body
  }];
  let extraClassDeclaration = [{
    /// The terminator: the values the group writes, one per `outputs` entry.
    YieldOp getYield();
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Exec_YieldOp : Exec_Op<"yield", [
    Pure, HasParent<"CudnnGroupOp">, Terminator]> {
  let summary = "The values an exec.cudnn_group writes to device memory";
  let description = [{
    Ends the body of an `exec.cudnn_group`: operand `i` is written to the
    device tensor of the group's `outputs[i]`.

    ```mlir
    exec.yield %y, %mean : tensor<4x16xf16>, tensor<4x1xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Exec_KernelGroupOp : Exec_Op<"kernel_group", [
    HasParent<"ProgramOp">, SymbolTable, NoTerminator, SingleBlock,
    NoRegionArguments]> {
  let summary = "One fused group as generated kernels, compiled ahead of time";
  let description = [{
    A group the codegen engine compiled when the artifact was made: its
    kernel images (`exec.kernel_module`, symbols local to the group) and
    its launches (`exec.kernel_launch`), which run in order on the stream.
    `engine` is the codegen plan that generated them (e.g.
    `codegen_v2_t256_i2`); `scratch` lists the buffers that live only
    inside the group (negative uids, each once), allocated when the program
    is loaded. The body holds only modules and launches, at least one
    launch, and every module is launched.

    ```mlir
    exec.kernel_group "lnb/group0" engine = "codegen_v2_t128_i4"
        scratch = [#exec.scratch<uid = -1, bytes = 65536>] {
      exec.kernel_module @kernels format = ptx binary = "//\0A// Generated by LLVM NVPTX Back-End..."
      exec.kernel_launch @kernels entry = "row0" grid = [64, 1, 1] block = [128, 1, 1]
          args = [#exec.arg<uid = 1, access = read, align = 16>,
                  #exec.arg<uid = -1, access = scratch>,
                  #exec.arg<uid = 7, access = write, align = 16>]
    }
    ```
  }];
  let arguments = (ins StrAttr:$sym_name,
                       StrAttr:$engine,
                       DefaultValuedAttr<Exec_ScratchArrayAttr, "{}">:$scratch);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `engine` `=` $engine (`scratch` `=` $scratch^)?
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Exec_KernelModuleOp : Exec_Op<"kernel_module", [
    Symbol, HasParent<"KernelGroupOp">]> {
  let summary = "A kernel image: PTX text or an sm_90 cubin";
  let description = [{
    One module of generated kernels, as the driver loads it
    (`cuModuleLoadData`): `format = ptx` holds PTX text (the driver
    compiles it for the GPU it runs on), `format = cubin` an ELF image
    assembled by ptxas for sm_90 (`--graph-lower-to-executable=cubin=true`,
    the semantics of `--graph-kernels-to-cubin`). The verifier checks the
    image is not empty, that PTX text declares `.entry` functions and that a
    cubin is an ELF image.

    ```mlir
    exec.kernel_module @kernels format = ptx binary = ".version 8.0\0A.target sm_90 ..."
    exec.kernel_module @kernels format = cubin binary = "\7FELF\02\01..."
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       Exec_BinaryFormatAttr:$format,
                       StrAttr:$binary);
  let assemblyFormat = [{
    $sym_name `format` `=` $format `binary` `=` $binary attr-dict
  }];
  let hasVerifier = 1;
}

def Exec_KernelLaunchOp : Exec_Op<"kernel_launch", [
    HasParent<"KernelGroupOp">]> {
  let summary = "One launch of a generated kernel";
  let description = [{
    Launches `entry` of the group's `exec.kernel_module` `@module` with
    `grid` and `block` sizes (three positive values each; at most 1024
    threads per block, grid y and z at most 65535) and one pointer
    parameter per `#exec.arg`, in order (the bare-pointer calling
    convention: each parameter is the device address of the buffer of
    that uid). An argument names a program input, output or buffer (uid
    >= 0) or a scratch buffer of the group (`access = scratch`, negative
    uid). In a PTX module, `entry` must be one of its `.entry` functions.

    ```mlir
    exec.kernel_launch @kernels entry = "pointwise0" grid = [264, 1, 1] block = [256, 1, 1]
        args = [#exec.arg<uid = 1, access = read, align = 16>,
                #exec.arg<uid = 3, access = write, align = 16>]
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$module,
                       StrAttr:$entry,
                       DenseI64ArrayAttr:$grid,
                       DenseI64ArrayAttr:$block,
                       Exec_KernelArgArrayAttr:$args);
  let assemblyFormat = [{
    $module `entry` `=` $entry `grid` `=` $grid `block` `=` $block
    `args` `=` $args attr-dict
  }];
  let hasVerifier = 1;
}

#endif // EXEC_OPS_TD
