//===- ExecToRuntime.cpp - Load an exec.program into the runtime ---------===//
//
// The inverse of graph-lower-to-executable: an exec.program becomes the
// runtime Program GpuExecutable runs, with no graph dialect involved: an
// exec.cudnn_group becomes an rt::GraphSpec and its plan choice, an
// exec.kernel_group an rt::CodegenSpec (its kernel images, launch geometry
// and pointer arguments) that lib/Runtime/CodegenKernel.cpp loads. The
// program was verified when parsed, so uids, ports and symbols are
// consistent here.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Executable/ExecToRuntime.h"

#include "GraphDialect/Executable/ExecOps.h"

#include "llvm/ADT/StringMap.h"

#include <set>

using namespace mlir;
using namespace mlir::exec;
namespace rt = ::graph::rt;

namespace {

/// The runtime dtype of element type `type`: DType names are the MLIR
/// spellings (f16, bf16, f8E4M3FN, i32...), so the printed type is parsed.
std::string dtypeOf(Type type, ::graph::DType &dtype, int64_t uid) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  if (::graph::parseDType(text, dtype))
    return "";
  return "uid " + std::to_string(uid) + ": element type " + text +
         " has no runtime equivalent";
}

std::string infoOf(TensorAttr tensor, ::graph::TensorInfo &info) {
  info.uid = tensor.getUid();
  info.name = tensor.getName() ? tensor.getName().str() : "";
  info.shape.assign(tensor.getDims().begin(), tensor.getDims().end());
  info.strides.assign(tensor.getStrides().begin(), tensor.getStrides().end());
  return dtypeOf(tensor.getDtype(), info.dtype, tensor.getUid());
}

/// The runtime's description of a kernel group: one KernelLaunch per
/// exec.kernel_launch with its module's image, and the scratch buffers.
rt::CodegenSpec codegenSpecOf(KernelGroupOp group) {
  rt::CodegenSpec spec;
  spec.name = group.getSymName().str();
  spec.engine = group.getEngine().str();
  for (ScratchAttr buffer : group.getScratch().getAsRange<ScratchAttr>())
    spec.scratch.emplace_back(buffer.getUid(), buffer.getBytes());
  llvm::StringMap<KernelModuleOp> modules;
  for (auto module : group.getBody().getOps<KernelModuleOp>())
    modules[module.getSymName()] = module;
  for (auto launch : group.getBody().getOps<KernelLaunchOp>()) {
    KernelModuleOp module = modules.lookup(launch.getModule());
    rt::KernelLaunch kernel;
    kernel.ptx = module.getBinary().str();
    kernel.cubin = module.getFormat() == BinaryFormat::cubin;
    kernel.entry = launch.getEntry().str();
    for (unsigned d = 0; d < 3; ++d) {
      kernel.grid[d] = static_cast<unsigned>(launch.getGrid()[d]);
      kernel.block[d] = static_cast<unsigned>(launch.getBlock()[d]);
    }
    for (KernelArgAttr arg : launch.getArgs().getAsRange<KernelArgAttr>()) {
      kernel.argUids.push_back(arg.getUid());
      kernel.argAlign.push_back(arg.getAlign());
    }
    spec.launches.push_back(std::move(kernel));
  }
  return spec;
}

} // namespace

std::string mlir::exec::loadProgram(ProgramOp op, rt::Program &program,
                                    ProgramIO *io) {
  using rt::DeviceTensor;
  program = rt::Program();
  ProgramIO local;
  if (!io)
    io = &local;
  *io = ProgramIO();
  std::string where = "exec.program @" + op.getSymName().str() + ": ";

  auto device = [&](TensorAttr tensor, DeviceTensor::Role role,
                    unsigned index) -> std::string {
    DeviceTensor d;
    d.uid = tensor.getUid();
    d.dims.assign(tensor.getDims().begin(), tensor.getDims().end());
    d.strides.assign(tensor.getStrides().begin(), tensor.getStrides().end());
    d.role = role;
    d.index = index;
    if (std::string e = dtypeOf(tensor.getDtype(), d.dtype, d.uid); !e.empty())
      return e;
    program.tensors.push_back(d);
    return "";
  };

  for (auto [i, tensor] :
       llvm::enumerate(op.getInputs().getAsRange<TensorAttr>())) {
    ::graph::TensorInfo info;
    if (std::string e = infoOf(tensor, info); !e.empty())
      return where + "input " + e;
    io->inputs.push_back(info);
    if (std::string e = device(tensor, DeviceTensor::Role::Input, i);
        !e.empty())
      return where + "input " + e;
  }
  std::optional<ArrayRef<int64_t>> aliases = op.getOutputAliases();
  std::set<int64_t> computed;
  for (auto [i, tensor] :
       llvm::enumerate(op.getOutputs().getAsRange<TensorAttr>())) {
    ::graph::TensorInfo info;
    if (std::string e = infoOf(tensor, info); !e.empty())
      return where + "output " + e;
    io->outputs.push_back(info);
    int alias = aliases ? static_cast<int>((*aliases)[i]) : -1;
    program.outputAliasesInput.push_back(alias);
    program.outputUids.push_back(alias >= 0 ? 0 : tensor.getUid());
    if (alias < 0 && computed.insert(tensor.getUid()).second)
      if (std::string e = device(tensor, DeviceTensor::Role::Output, i);
          !e.empty())
        return where + "output " + e;
  }
  for (TensorAttr tensor : op.getBuffers().getAsRange<TensorAttr>())
    if (std::string e = device(tensor, DeviceTensor::Role::Intermediate, 0);
        !e.empty())
      return where + "buffer " + e;

  for (Operation &step : op.getBody().front()) {
    if (auto kernels = dyn_cast<KernelGroupOp>(step)) {
      // Generated kernels, compiled ahead: no plan list to walk. The spec
      // names the group and says only the codegen engine runs it.
      rt::GraphSpec spec;
      spec.name = kernels.getSymName().str();
      spec.engines = {"codegen"};
      rt::GroupEngine engine;
      engine.kernels = codegenSpecOf(kernels);
      program.groups.push_back(std::move(spec));
      program.engines.push_back(std::move(engine));
      continue;
    }
    auto group = dyn_cast<CudnnGroupOp>(step);
    if (!group)
      return where + "unknown step " + step.getName().getStringRef().str();
    rt::GraphSpec spec;
    spec.name = group.getSymName().str();
    for (TensorAttr tensor : group.getTensors().getAsRange<TensorAttr>()) {
      rt::TensorSpec t;
      t.uid = tensor.getUid();
      t.dims.assign(tensor.getDims().begin(), tensor.getDims().end());
      t.strides.assign(tensor.getStrides().begin(), tensor.getStrides().end());
      t.isVirtual = tensor.getIsVirtual();
      if (FloatAttr value = tensor.getByValue()) {
        t.isByValue = true;
        t.byValue = value.getValueAsDouble();
      }
      if (std::string e = dtypeOf(tensor.getDtype(), t.dtype, t.uid);
          !e.empty())
        return where + spec.name + ": " + e;
      spec.tensors.push_back(std::move(t));
    }
    for (OpAttr attr : group.getOps().getAsRange<OpAttr>()) {
      rt::OpSpec o;
      o.kind = attr.getKind().str();
      o.mode = attr.getMode() ? attr.getMode().str() : "";
      o.name = attr.getName() ? attr.getName().str() : "";
      for (NamedAttribute port : attr.getInputs())
        o.inputs[port.getName().str()] =
            cast<IntegerAttr>(port.getValue()).getInt();
      for (NamedAttribute port : attr.getOutputs())
        o.outputs[port.getName().str()] =
            cast<IntegerAttr>(port.getValue()).getInt();
      if (DictionaryAttr ints = attr.getInts())
        for (NamedAttribute entry : ints) {
          ArrayRef<int64_t> values =
              cast<DenseI64ArrayAttr>(entry.getValue()).asArrayRef();
          o.intAttrs[entry.getName().str()] =
              std::vector<int64_t>(values.begin(), values.end());
        }
      if (DictionaryAttr floats = attr.getFloats())
        for (NamedAttribute entry : floats)
          o.floatAttrs[entry.getName().str()] =
              cast<FloatAttr>(entry.getValue()).getValueAsDouble();
      if (std::string e = dtypeOf(attr.getCompute(), o.computeType, 0);
          !e.empty())
        return where + spec.name + ": op " + o.kind + " compute type: " + e;
      spec.ops.push_back(std::move(o));
    }
    rt::GroupEngine engine;
    if (std::optional<ArrayAttr> modes = group.getHeuristics())
      for (StringAttr mode : modes->getAsRange<StringAttr>())
        engine.heuristics.push_back(mode.getValue() == "a" ? rt::HeurMode::A
                                    : mode.getValue() == "b"
                                        ? rt::HeurMode::B
                                        : rt::HeurMode::Fallback);
    if (IntegerAttr id = group.getEngineAttr()) {
      engine.engineId = id.getInt();
      if (std::optional<ArrayRef<int64_t>> knobs = group.getKnobs())
        for (size_t k = 0; k + 1 < knobs->size(); k += 2)
          engine.knobs.emplace_back((*knobs)[k], (*knobs)[k + 1]);
    }
    program.groups.push_back(std::move(spec));
    program.engines.push_back(std::move(engine));
  }
  return "";
}
