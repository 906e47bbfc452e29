//===- ExecToRuntime.cpp - Load an exec.program into the runtime ---------===//
//
// The inverse of graph-lower-to-executable: an exec.program becomes the
// runtime Program GpuExecutable runs, with no pass run: an
// exec.cudnn_group becomes an rt::GraphSpec, built from the graph ops in
// its body by buildGroupSpec (the function lowerToCudnn builds live groups
// with), and its plan choice; an exec.kernel_group an rt::CodegenSpec (its
// kernel images, launch geometry and pointer arguments) that
// lib/Runtime/CodegenKernel.cpp loads. The program was verified when
// parsed, so uids, values and symbols are consistent here.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Executable/ExecToRuntime.h"

#include "GraphDialect/Conversion/GraphToCudnn.h"
#include "GraphDialect/Executable/ExecOps.h"

#include "llvm/ADT/DenseMap.h"
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

  // Virtual tensors get fresh uids above all others.
  int64_t maxUid = 0;
  for (ArrayAttr tensors : {op.getInputs(), op.getOutputs(), op.getBuffers()})
    for (TensorAttr tensor : tensors.getAsRange<TensorAttr>())
      maxUid = std::max(maxUid, tensor.getUid());
  for (auto group : op.getBody().getOps<CudnnGroupOp>())
    for (ArrayAttr tensors : {group.getInputs(), group.getOutputs()})
      for (TensorAttr tensor : tensors.getAsRange<TensorAttr>())
        maxUid = std::max(maxUid, tensor.getUid());

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
    // The group's device and by-value tensors are its body's arguments and
    // yielded values; the other results of its ops are virtual tensors,
    // with uids above every uid of the program.
    Block &body = group.getBody().front();
    llvm::DenseMap<Value, TensorAttr> declared;
    for (auto [arg, tensor] : llvm::zip(
             body.getArguments(), group.getInputs().getAsRange<TensorAttr>()))
      declared[arg] = tensor;
    for (auto [value, tensor] :
         llvm::zip(group.getYield().getValues(),
                   group.getOutputs().getAsRange<TensorAttr>()))
      declared[value] = tensor;
    llvm::DenseMap<Value, int64_t> added;
    auto tensorOf = [&](Value value, std::string &error) -> int64_t {
      if (auto it = added.find(value); it != added.end())
        return it->second;
      rt::TensorSpec t;
      if (TensorAttr tensor = declared.lookup(value)) {
        t.uid = tensor.getUid();
        t.dims.assign(tensor.getDims().begin(), tensor.getDims().end());
        t.strides.assign(tensor.getStrides().begin(),
                         tensor.getStrides().end());
        if (FloatAttr byValue = tensor.getByValue()) {
          t.isByValue = true;
          t.byValue = byValue.getValueAsDouble();
        }
        t.readByValue = tensor.getReadByValue();
        error = dtypeOf(tensor.getDtype(), t.dtype, t.uid);
      } else {
        t.uid = ++maxUid;
        t.isVirtual = true;
        error = mlir::graph::describeTensor(value, t);
      }
      added[value] = t.uid;
      spec.tensors.push_back(std::move(t));
      return added[value];
    };
    SmallVector<Operation *> ops;
    for (Operation &node : body.without_terminator())
      ops.push_back(&node);
    Type compute;
    if (std::optional<Type> type = group.getCompute())
      compute = *type;
    if (std::string e =
            mlir::graph::buildGroupSpec(ops, compute, tensorOf, spec);
        !e.empty())
      return where + spec.name + ": " + e;
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
