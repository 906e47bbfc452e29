//===- CodegenKernel.cpp - Load and launch generated PTX kernels ---------===//
//
// The runtime side of the codegen engine: a group's kernels, generated at
// plan time (GpuExecutor) or ahead of time (an exec.kernel_group of an
// artifact, ExecToRuntime.cpp), are checked, loaded from their PTX or cubin
// images and launched in order with device pointers by uid.
//
//===----------------------------------------------------------------------===//

#include "RuntimeApi.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "GraphDialect/Runtime/CodegenKernel.h"

using namespace graph::rt;
using namespace graph::rt::detail;

namespace {

/// What to do about a module the driver did not load.
std::string loadHint(CUresult status, const KernelLaunch &launch) {
  if (launch.cubin && (status == CUDA_ERROR_NO_BINARY_FOR_GPU ||
                       status == CUDA_ERROR_INVALID_IMAGE))
    return " (the image is a cubin assembled for sm_90; for another GPU, "
           "embed PTX instead: graph-lower-to-executable without cubin=true)";
  if (status == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
    return " (the driver is older than the PTX ISA version the kernels were "
           "generated for; update the driver or embed a cubin)";
  return "";
}

class LoadedKernels final : public CodegenKernel {
public:
  LoadedKernels(Device &device, const DriverApi &cu, CodegenSpec spec)
      : device(device), cu(cu), codegen(std::move(spec)) {}
  ~LoadedKernels() override {
    for (CUmodule module : modules)
      cu.cuModuleUnload(module);
    for (auto &[uid, pointer] : scratch)
      device.free(pointer);
  }

  std::string load() {
    for (auto &[uid, bytes] : codegen.scratch) {
      std::string error;
      void *pointer = device.alloc(std::max<int64_t>(bytes, 16), error);
      if (!pointer)
        return codegen.name + ": allocating " + std::to_string(bytes) +
               " scratch bytes: " + error;
      scratch[uid] = pointer;
    }
    // Kernels of one group usually share one module image.
    std::map<std::string, CUmodule> loaded;
    for (const KernelLaunch &launch : codegen.launches) {
      CUmodule module = nullptr;
      auto known = loaded.find(launch.ptx);
      if (known != loaded.end()) {
        module = known->second;
      } else {
        if (CUresult status = cu.cuModuleLoadData(&module, launch.ptx.data());
            status != CUDA_SUCCESS)
          return codegen.name + ": cuModuleLoadData of kernel " + launch.entry +
                 (launch.cubin ? " (cubin)" : " (PTX)") +
                 " failed: " + cuStatusText(cu, status) +
                 loadHint(status, launch);
        modules.push_back(module);
        loaded[launch.ptx] = module;
      }
      CUfunction function = nullptr;
      if (CUresult status =
              cu.cuModuleGetFunction(&function, module, launch.entry.c_str());
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
        int64_t uid = launch.argUids[i];
        auto it = uid < 0 ? scratch.find(uid) : buffers.find(uid);
        if (it == (uid < 0 ? scratch.end() : buffers.end()) || !it->second)
          return codegen.name + ": kernel " + launch.entry +
                 " has no device buffer for uid " + std::to_string(uid);
        int64_t align = i < launch.argAlign.size() ? launch.argAlign[i] : 0;
        if (align > 1 && reinterpret_cast<uintptr_t>(it->second) % align)
          return codegen.name + ": the device buffer of uid " +
                 std::to_string(uid) + " is not " + std::to_string(align) +
                 "-byte aligned, which plan " + codegen.engine +
                 "'s vector accesses need (choose codegen_v2 plans with "
                 "aligned buffers, or another engine)";
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
  std::map<int64_t, void *> scratch; // negative uids
};

} // namespace

std::string graph::rt::checkCodegenSpec(const CodegenSpec &spec) {
  std::string group = spec.name.empty() ? "a generated group" : spec.name;
  std::set<int64_t> scratch;
  for (auto &[uid, bytes] : spec.scratch) {
    if (uid >= 0)
      return group + ": scratch uid " + std::to_string(uid) +
             " must be negative";
    if (bytes <= 0)
      return group + ": scratch uid " + std::to_string(uid) +
             " needs a positive size";
    if (!scratch.insert(uid).second)
      return group + ": scratch uid " + std::to_string(uid) +
             " is listed twice";
  }
  if (spec.launches.empty())
    return group + ": no kernel to launch";
  for (const KernelLaunch &launch : spec.launches) {
    std::string kernel =
        group + ": kernel " + (launch.entry.empty() ? "?" : launch.entry);
    if (launch.entry.empty())
      return kernel + " has no entry name";
    if (launch.ptx.empty())
      return kernel + " has no " + (launch.cubin ? "cubin" : "PTX") + " image";
    for (unsigned d = 0; d < 3; ++d)
      if (launch.grid[d] == 0 || launch.block[d] == 0)
        return kernel + " has an empty grid or block";
    if (launch.argAlign.size() > launch.argUids.size())
      return kernel + " has " + std::to_string(launch.argAlign.size()) +
             " alignments for " + std::to_string(launch.argUids.size()) +
             " arguments";
    for (int64_t uid : launch.argUids)
      if (uid < 0 && !scratch.count(uid))
        return kernel + " takes scratch uid " + std::to_string(uid) +
               ", which the group does not allocate";
  }
  return "";
}

std::unique_ptr<CodegenKernel> CodegenKernel::create(Device &device,
                                                     const CodegenSpec &spec,
                                                     std::string &error) {
  if (!(error = checkCodegenSpec(spec)).empty())
    return nullptr;
  const DriverApi *cu = driverApi(error);
  if (!cu)
    return nullptr;
  // GRAPH_TRACE_RUNTIME=1 shows when groups are (re)loaded.
  if (tracingRuntime())
    std::fprintf(stderr, "[graph runtime] loading %zu kernel(s) of %s (%s)\n",
                 spec.launches.size(), spec.name.c_str(), spec.engine.c_str());
  // Device::get made the primary context current on this thread.
  auto kernels = std::make_unique<LoadedKernels>(device, *cu, spec);
  if (!(error = kernels->load()).empty())
    return nullptr;
  return kernels;
}
