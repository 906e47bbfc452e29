//===- CodegenKernel.cpp - Load and launch generated PTX kernels ---------===//

#include "RuntimeApi.h"

#include "GraphDialect/Runtime/CodegenKernel.h"

using namespace graph::rt;
using namespace graph::rt::detail;

namespace {

class LoadedKernels final : public CodegenKernel {
public:
  LoadedKernels(Device &device, const DriverApi &cu, CodegenSpec spec)
      : device(device), cu(cu), codegen(std::move(spec)) {}
  ~LoadedKernels() override {
    for (CUmodule module : modules)
      cu.cuModuleUnload(module);
  }

  std::string load() {
    for (const KernelLaunch &launch : codegen.launches) {
      CUmodule module = nullptr;
      if (CUresult status = cu.cuModuleLoadData(&module, launch.ptx.c_str());
          status != CUDA_SUCCESS)
        return codegen.name + ": cuModuleLoadData of kernel " + launch.entry +
               " failed: " + cuStatusText(cu, status);
      modules.push_back(module);
      CUfunction function = nullptr;
      if (CUresult status = cu.cuModuleGetFunction(&function, module,
                                                   launch.entry.c_str());
          status != CUDA_SUCCESS)
        return codegen.name + ": cuModuleGetFunction(" + launch.entry +
               ") failed: " + cuStatusText(cu, status);
      functions.push_back(function);
    }
    return "";
  }

  std::string execute(const std::map<int64_t, void *> &buffers) override {
    CUstream stream = static_cast<CUstream>(device.stream());
    for (size_t k = 0; k < functions.size(); ++k) {
      const KernelLaunch &launch = codegen.launches[k];
      // Bare-pointer convention: one pointer-sized parameter per memref.
      std::vector<void *> pointers(launch.argUids.size());
      std::vector<void *> params(launch.argUids.size());
      for (size_t i = 0; i < launch.argUids.size(); ++i) {
        auto it = buffers.find(launch.argUids[i]);
        if (it == buffers.end() || !it->second)
          return codegen.name + ": kernel " + launch.entry +
                 " has no device buffer for uid " +
                 std::to_string(launch.argUids[i]);
        pointers[i] = it->second;
        params[i] = &pointers[i];
      }
      if (CUresult status = cu.cuLaunchKernel(
              functions[k], launch.grid[0], launch.grid[1], launch.grid[2],
              launch.block[0], launch.block[1], launch.block[2],
              /*sharedMemBytes=*/0, stream, params.data(), nullptr);
          status != CUDA_SUCCESS)
        return codegen.name + ": cuLaunchKernel(" + launch.entry +
               ") failed: " + cuStatusText(cu, status);
    }
    return "";
  }

  const CodegenSpec &spec() const override { return codegen; }

private:
  Device &device;
  const DriverApi &cu;
  CodegenSpec codegen;
  std::vector<CUmodule> modules;
  std::vector<CUfunction> functions;
};

} // namespace

std::unique_ptr<CodegenKernel>
CodegenKernel::create(Device &device, const CodegenSpec &spec,
                      std::string &error) {
  const DriverApi *cu = driverApi(error);
  if (!cu)
    return nullptr;
  // Device::get made the primary context current on this thread.
  auto kernels = std::make_unique<LoadedKernels>(device, *cu, spec);
  if (!(error = kernels->load()).empty())
    return nullptr;
  return kernels;
}
