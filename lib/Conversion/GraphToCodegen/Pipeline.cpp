//===- Pipeline.cpp - linalg on tensors to PTX for codegen_v1 -------------===//

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/GraphDialect.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"

#include <cstdlib>
#include <mutex>

namespace mlir::graph {
#define GEN_PASS_DEF_GRAPHCODEGENCOLLAPSELOOPS
#include "GraphDialect/Conversion/CodegenPasses.h.inc"
} // namespace mlir::graph

using namespace mlir;
using namespace mlir::graph;
namespace rt = ::graph::rt;

namespace {

constexpr int64_t kBlockSize = 256;

struct GraphCodegenCollapseLoops
    : public mlir::graph::impl::GraphCodegenCollapseLoopsBase<
          GraphCodegenCollapseLoops> {
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>() && loop.getNumLoops() > 1)
        outermost.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : outermost) {
      std::vector<unsigned> all;
      for (unsigned i = 0; i < loop.getNumLoops(); ++i)
        all.push_back(i);
      rewriter.setInsertionPoint(loop);
      collapseParallelLoops(rewriter, loop, {all});
    }
  }
};

/// arith.remf inside gpu modules -> a call of libdevice's __nv_fmodf: the
/// NVVM pipeline lowers arith to LLVM before the GPU-specific patterns
/// that would pick the libdevice function, and NVPTX rejects llvm.frem.
struct RemFToLibdevice
    : public PassWrapper<RemFToLibdevice, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RemFToLibdevice)
  StringRef getArgument() const final { return "graph-remf-to-libdevice"; }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect>();
  }
  void runOnOperation() override {
    for (gpu::GPUModuleOp module : getOperation().getOps<gpu::GPUModuleOp>()) {
      SmallVector<arith::RemFOp> rems;
      module.walk([&](arith::RemFOp rem) { rems.push_back(rem); });
      if (rems.empty())
        continue;
      OpBuilder b(module.getBodyRegion());
      Type f32 = b.getF32Type();
      auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>("__nv_fmodf");
      if (!fn) {
        b.setInsertionPointToStart(module.getBody());
        fn = LLVM::LLVMFuncOp::create(
            b, module.getLoc(), "__nv_fmodf",
            LLVM::LLVMFunctionType::get(f32, {f32, f32}));
      }
      for (arith::RemFOp rem : rems) {
        if (!rem.getType().isF32()) {
          rem.emitOpError("only f32 remainders lower to libdevice");
          return signalPassFailure();
        }
        b.setInsertionPoint(rem);
        auto call = LLVM::CallOp::create(
            b, rem.getLoc(), fn, ValueRange{rem.getLhs(), rem.getRhs()});
        rem.replaceAllUsesWith(call.getResult());
        rem.erase();
      }
    }
  }
};

} // namespace

void mlir::graph::buildCodegenToGpuPipeline(OpPassManager &pm) {
  pm.addPass(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // Results materialized into output arguments: write there, not into a
  // temporary.
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(bufferization::createDropEquivalentBufferResultsPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createGraphCodegenCollapseLoops());
  // One thread per element of the collapsed space, kBlockSize per block:
  // consecutive threads touch consecutive elements (coalesced).
  pm.addNestedPass<func::FuncOp>(
      createParallelLoopTilingPass({kBlockSize}, /*noMinMaxBounds=*/true));
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
}

static void addNvvmPipeline(OpPassManager &pm, bool cubin = false) {
  gpu::GPUToNVVMPipelineOptions options;
  options.cubinChip = "sm_90";
  options.cubinFeatures = "+ptx80";
  options.cubinFormat = cubin ? "bin" : "isa";
  options.kernelUseBarePtrCallConv = true;
  options.hostUseBarePtrCallConv = true;
  gpu::buildLowerToNVVMPassPipeline(pm, options);
}

void mlir::graph::buildKernelsToPtxPipeline(OpPassManager &pm, bool cubin) {
  pm.addPass(std::make_unique<RemFToLibdevice>());
  addNvvmPipeline(pm, cubin);
}

void mlir::graph::buildCodegenToPtxPipeline(OpPassManager &pm) {
  buildCodegenToGpuPipeline(pm);
  pm.addPass(std::make_unique<RemFToLibdevice>());
  addNvvmPipeline(pm);
}

/// MLIR's NVVM target links libdevice (the math functions) from the CUDA
/// toolkit it finds through CUDA_ROOT, CUDA_HOME or CUDA_PATH; Debian's
/// build records no default, so point it at the usual install when none
/// of them is set.
static void defaultCudaToolkit() {
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(var); value && *value)
      return;
  for (const char *root : {"/usr/local/cuda", "/usr/lib/cuda"})
    if (llvm::sys::fs::exists(std::string(root) + "/nvvm/libdevice")) {
      ::setenv("CUDA_ROOT", root, /*overwrite=*/0);
      return;
    }
}

void mlir::graph::prepareCodegenEnvironment() {
  // setenv must not race getenv on other threads: once, before any
  // compile starts threads of its own.
  static std::once_flag once;
  std::call_once(once, defaultCudaToolkit);
}

void mlir::graph::registerCodegenDialects(DialectRegistry &registry) {
  prepareCodegenEnvironment();
  registry
      .insert<affine::AffineDialect, arith::ArithDialect,
              bufferization::BufferizationDialect, cf::ControlFlowDialect,
              func::FuncDialect, gpu::GPUDialect, index::IndexDialect,
              linalg::LinalgDialect, LLVM::LLVMDialect, math::MathDialect,
              memref::MemRefDialect, NVVM::NVVMDialect, scf::SCFDialect,
              tensor::TensorDialect, ub::UBDialect, vector::VectorDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
}

std::string mlir::graph::compileToPtx(const rt::GraphSpec &spec,
                                      rt::CodegenSpec &out) {
  DialectRegistry registry;
  registerCodegenDialects(registry);
  registry.insert<GraphDialect>(); // lowerSpecToLinalg builds graph ops
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  std::vector<int64_t> argUids;
  if (std::string why = lowerSpecToLinalg(spec, *module, "group", argUids);
      !why.empty())
    return why;

  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostics += "\n  " + diag.str();
    return success();
  });
  PassManager toGpu(&context);
  buildCodegenToGpuPipeline(toGpu);
  if (failed(toGpu.run(*module)))
    return "lowering to gpu kernels failed:" + diagnostics;

  // The launches, in order, with their arguments as uids.
  auto func = module->lookupSymbol<func::FuncOp>("group");
  out = rt::CodegenSpec();
  out.name = spec.name;
  out.engine = kCodegenEngine;
  std::map<std::string, size_t> launchOfModule;
  std::string error;
  func.walk([&](gpu::LaunchFuncOp launch) {
    rt::KernelLaunch kernel;
    kernel.entry = launch.getKernelName().str();
    auto dim = [&](Value v, unsigned &slot) {
      APInt value;
      if (!matchPattern(v, m_ConstantInt(&value)))
        error = "a launch dimension is not a constant";
      else
        slot = static_cast<unsigned>(value.getZExtValue());
    };
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    dim(grid.x, kernel.grid[0]);
    dim(grid.y, kernel.grid[1]);
    dim(grid.z, kernel.grid[2]);
    dim(block.x, kernel.block[0]);
    dim(block.y, kernel.block[1]);
    dim(block.z, kernel.block[2]);
    for (Value arg : launch.getKernelOperands()) {
      auto blockArg = dyn_cast<BlockArgument>(arg);
      if (!blockArg || !isa<MemRefType>(arg.getType())) {
        error = "kernel " + kernel.entry +
                " takes an argument that is not a group buffer";
        return;
      }
      kernel.argUids.push_back(argUids[blockArg.getArgNumber()]);
    }
    launchOfModule[launch.getKernelModuleName().str()] = out.launches.size();
    out.launches.push_back(std::move(kernel));
  });
  if (!error.empty())
    return error;
  if (out.launches.empty())
    return "the group lowered to no kernel";

  // Serialize only the device code: drop the host function.
  func.erase();
  PassManager toPtx(&context);
  toPtx.addPass(std::make_unique<RemFToLibdevice>());
  addNvvmPipeline(toPtx);
  if (failed(toPtx.run(*module)))
    return "lowering to PTX failed:" + diagnostics;
  for (gpu::BinaryOp binary : module->getOps<gpu::BinaryOp>()) {
    auto it = launchOfModule.find(binary.getSymName().str());
    if (it == launchOfModule.end())
      continue;
    auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
    out.launches[it->second].ptx = object.getObject().getValue().str();
  }
  for (const rt::KernelLaunch &kernel : out.launches) {
    if (kernel.ptx.empty())
      return "kernel " + kernel.entry + " has no PTX";
    if (kernel.ptx.find(".extern .func") != std::string::npos)
      return "kernel " + kernel.entry +
             " calls an external function (libdevice was not linked: set "
             "CUDA_ROOT to a CUDA toolkit with nvvm/libdevice)";
  }
  return "";
}

namespace {

/// The images compilePlan compiled in this process, by the text of the
/// kernels generated for them: groups of the same shapes and ops (a stack of
/// identical blocks) generate the same gpu.module, which is lowered to PTX
/// or cubin once and shared (graph-dedup-kernels' rule, across groups that
/// are compiled one at a time). Emptied when it outgrows kMaxBytes.
class ImageCache {
public:
  std::optional<std::string> find(const std::string &key) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = images.find(key);
    if (it == images.end())
      return std::nullopt;
    return it->second;
  }

  void insert(const std::string &key, const std::string &image) {
    std::lock_guard<std::mutex> lock(mutex);
    if (bytes + key.size() + image.size() > kMaxBytes) {
      images.clear();
      bytes = 0;
    }
    if (images.try_emplace(key, image).second)
      bytes += key.size() + image.size();
  }

private:
  static constexpr size_t kMaxBytes = size_t(256) << 20;
  std::mutex mutex;
  llvm::StringMap<std::string> images;
  size_t bytes = 0;
};

ImageCache &imageCache() {
  static ImageCache *cache = new ImageCache(); // never destroyed
  return *cache;
}

/// What the image of `module`'s kernels depends on: the kernels, the format
/// and the toolkit libdevice and ptxas come from.
std::string imageKey(ModuleOp module, bool cubin) {
  std::string key = cubin ? "cubin" : "ptx";
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"}) {
    const char *value = std::getenv(var);
    key += std::string("\n") + var + "=" + (value ? value : "");
  }
  key += "\n";
  llvm::raw_string_ostream os(key);
  module->print(os, OpPrintingFlags().useLocalScope());
  return key;
}

} // namespace

/// Generates a codegen_v2 plan's kernels with `generate` into a module of a
/// context of their own (the NVVM pipeline's dialects) and compiles them to
/// PTX or, with `cubin`, a cubin shared by all of `out`'s launches.
static std::string
compileGenerated(function_ref<std::string(ModuleOp)> generate, bool cubin,
                 rt::CodegenSpec &out) {
  DialectRegistry registry;
  registerCodegenDialects(registry);
  registry.insert<GraphDialect>(); // the lane patterns' op instances
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  if (std::string why = generate(*module); !why.empty())
    return why;
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostics += "\n  " + diag.str();
    return success();
  });
  if (failed(verify(*module)))
    return "generated kernels do not verify:" + diagnostics;
  std::string key = imageKey(*module, cubin);
  std::string image;
  if (std::optional<std::string> cached = imageCache().find(key)) {
    image = std::move(*cached);
  } else {
    PassManager toPtx(&context);
    toPtx.addPass(std::make_unique<RemFToLibdevice>());
    addNvvmPipeline(toPtx, cubin);
    if (failed(toPtx.run(*module)))
      return std::string(cubin ? "lowering to cubin failed:"
                               : "lowering to PTX failed:") +
             diagnostics;
    for (gpu::BinaryOp binary : module->getOps<gpu::BinaryOp>()) {
      auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
      image = object.getObject().getValue().str();
    }
    if (!image.empty())
      imageCache().insert(key, image);
  }
  if (image.empty())
    return "the kernels have no " + std::string(cubin ? "cubin" : "PTX");
  if (!cubin && image.find(".extern .func") != std::string::npos)
    return "the kernels call an external function (libdevice was not "
           "linked: set CUDA_ROOT to a CUDA toolkit with nvvm/libdevice)";
  for (rt::KernelLaunch &launch : out.launches) {
    launch.ptx = image;
    launch.cubin = cubin;
  }
  return "";
}

std::string mlir::graph::compilePlan(const rt::GraphSpec &spec,
                                     const std::string &plan,
                                     rt::CodegenSpec &out, bool cubin,
                                     const rt::DeviceLimits &limits) {
  if (plan == kCodegenEngine)
    return compileToPtx(spec, out);
  return compileGenerated(
      [&](ModuleOp module) {
        return generateKernels(spec, plan, module, out, limits);
      },
      cubin, out);
}

std::string mlir::graph::compilePlan(const GroupOps &group,
                                     const std::string &plan,
                                     rt::CodegenSpec &out, bool cubin,
                                     const rt::DeviceLimits &limits) {
  // codegen_v1 lowers its graph ops in the context it compiles in, and ops
  // cannot move between contexts.
  if (plan == kCodegenEngine)
    return "codegen_v1 compiles from the group's GraphSpec";
  return compileGenerated(
      [&](ModuleOp module) {
        return generateKernels(group, plan, module, out, limits);
      },
      cubin, out);
}
