//===- Device.cpp - CUDA driver and cuDNN opened at run time -------------===//
//
// dlopen of libcuda.so.1 and libcudnn.so.9, the process's context, stream
// and cuDNN handle. Nothing here links against CUDA or cuDNN.
//
//===----------------------------------------------------------------------===//

#include "RuntimeApi.h"

#include "GraphDialect/Runtime/CudnnGraph.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

using namespace graph::rt;
using namespace graph::rt::detail;

std::string detail::libcudaName() {
  const char *env = std::getenv("GRAPH_LIBCUDA");
  return env && *env ? env : "libcuda.so.1";
}

std::string detail::libcudnnName() {
  const char *env = std::getenv("GRAPH_LIBCUDNN");
  return env && *env ? env : "libcudnn.so.9";
}

namespace {

/// Resolves `name` into `slot`; false and `error` when missing.
template <typename Fn>
bool resolve(void *lib, const char *libName, const char *name, Fn &slot,
             std::string &error) {
  void *symbol = dlsym(lib, name);
  if (!symbol) {
    error = std::string(libName) + " lacks " + name;
    return false;
  }
  slot = reinterpret_cast<Fn>(symbol);
  return true;
}

struct DriverHolder {
  DriverApi api{};
  std::string error;
  bool ok = false;
  DriverHolder() {
    std::string name = libcudaName();
    void *lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char *why = dlerror();
      error = "the GPU runtime needs " + name + " (the NVIDIA driver): " +
              (why ? why : "dlopen failed");
      return;
    }
    const char *n = name.c_str();
#define RESOLVE(field, sym)                                                    \
  if (!resolve(lib, n, sym, api.field, error))                                 \
    return;
    RESOLVE(cuInit, "cuInit");
    RESOLVE(cuDriverGetVersion, "cuDriverGetVersion");
    RESOLVE(cuDeviceGet, "cuDeviceGet");
    RESOLVE(cuDeviceGetAttribute, "cuDeviceGetAttribute");
    RESOLVE(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    RESOLVE(cuCtxSetCurrent, "cuCtxSetCurrent");
    RESOLVE(cuMemAlloc, "cuMemAlloc_v2");
    RESOLVE(cuMemFree, "cuMemFree_v2");
    RESOLVE(cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    RESOLVE(cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    RESOLVE(cuMemsetD8Async, "cuMemsetD8Async");
    RESOLVE(cuStreamCreate, "cuStreamCreate");
    RESOLVE(cuStreamSynchronize, "cuStreamSynchronize");
    RESOLVE(cuEventCreate, "cuEventCreate");
    RESOLVE(cuEventRecord, "cuEventRecord");
    RESOLVE(cuEventSynchronize, "cuEventSynchronize");
    RESOLVE(cuEventDestroy, "cuEventDestroy_v2");
    RESOLVE(cuGetErrorName, "cuGetErrorName");
    RESOLVE(cuGetErrorString, "cuGetErrorString");
    RESOLVE(cuModuleLoadData, "cuModuleLoadData");
    RESOLVE(cuModuleUnload, "cuModuleUnload");
    RESOLVE(cuModuleGetFunction, "cuModuleGetFunction");
    RESOLVE(cuLaunchKernel, "cuLaunchKernel");
    // CUDA 13 renamed the timing entry point; older drivers have the first.
    if (!resolve(lib, n, "cuEventElapsedTime_v2", api.cuEventElapsedTime,
                 error) &&
        !resolve(lib, n, "cuEventElapsedTime", api.cuEventElapsedTime, error))
      return;
#undef RESOLVE
    error.clear();
    ok = true;
  }
};

struct CudnnHolder {
  CudnnApi api{};
  std::string error;
  bool ok = false;
  CudnnHolder() {
    std::string name = libcudnnName();
    void *lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char *why = dlerror();
      error = "the GPU runtime needs " + name +
              " (cuDNN 9; set LD_LIBRARY_PATH to its lib folder): " +
              (why ? why : "dlopen failed");
      return;
    }
    const char *n = name.c_str();
#define RESOLVE(field)                                                         \
  if (!resolve(lib, n, #field, api.field, error))                              \
    return;
    RESOLVE(cudnnGetVersion);
    RESOLVE(cudnnGetErrorString);
    RESOLVE(cudnnGetLastErrorString);
    RESOLVE(cudnnCreate);
    RESOLVE(cudnnSetStream);
    RESOLVE(cudnnBackendCreateDescriptor);
    RESOLVE(cudnnBackendDestroyDescriptor);
    RESOLVE(cudnnBackendFinalize);
    RESOLVE(cudnnBackendSetAttribute);
    RESOLVE(cudnnBackendGetAttribute);
    RESOLVE(cudnnBackendExecute);
#undef RESOLVE
    ok = true;
  }
};

} // namespace

const DriverApi *detail::driverApi(std::string &error) {
  static DriverHolder holder;
  if (!holder.ok) {
    error = holder.error;
    return nullptr;
  }
  return &holder.api;
}

const CudnnApi *detail::cudnnApi(std::string &error) {
  static CudnnHolder holder;
  if (!holder.ok) {
    error = holder.error;
    return nullptr;
  }
  return &holder.api;
}

std::string detail::cuStatusText(const DriverApi &api, CUresult status) {
  const char *name = nullptr, *text = nullptr;
  api.cuGetErrorName(status, &name);
  api.cuGetErrorString(status, &text);
  std::string out = name ? name : ("CUresult " + std::to_string(status));
  if (text)
    out += std::string(": ") + text;
  return out;
}

std::string detail::cudnnStatusText(const CudnnApi &api,
                                    cudnnStatus_t status) {
  std::string out = api.cudnnGetErrorString(status);
  char last[2048] = {0};
  api.cudnnGetLastErrorString(last, sizeof(last));
  if (last[0])
    out += std::string(" (cuDNN: ") + last + ")";
  return out;
}

namespace {

class CudaDevice final : public Device {
public:
  const DriverApi *cu = nullptr;
  const CudnnApi *dnn = nullptr;
  CUcontext context = nullptr;
  CUstream cuStream = nullptr; // where work goes: ownStream or the caller's
  CUstream ownStream = nullptr;
  cudnnHandle_t handle = nullptr;
  int driverVersion = 0, major = 0, minor = 0;

  std::string init() {
    std::string error;
    cu = driverApi(error);
    if (!cu)
      return error;
    dnn = cudnnApi(error);
    if (!dnn)
      return error;
#define CU_CHECK(call, step)                                                   \
  if (CUresult status = (call); status != CUDA_SUCCESS)                        \
    return std::string(step) + " failed: " + cuStatusText(*cu, status);
    CU_CHECK(cu->cuInit(0), "cuInit");
    CU_CHECK(cu->cuDriverGetVersion(&driverVersion), "cuDriverGetVersion");
    CUdevice device = 0;
    CU_CHECK(cu->cuDeviceGet(&device, 0), "cuDeviceGet(0)");
    CU_CHECK(cu->cuDeviceGetAttribute(
                 &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
             "cuDeviceGetAttribute(compute capability major)");
    CU_CHECK(cu->cuDeviceGetAttribute(
                 &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
             "cuDeviceGetAttribute(compute capability minor)");
    CU_CHECK(cu->cuDevicePrimaryCtxRetain(&context, device),
             "cuDevicePrimaryCtxRetain");
    CU_CHECK(cu->cuCtxSetCurrent(context), "cuCtxSetCurrent");
    CU_CHECK(cu->cuStreamCreate(&ownStream, CU_STREAM_NON_BLOCKING),
             "cuStreamCreate");
    cuStream = ownStream;
    if (cudnnStatus_t status = dnn->cudnnCreate(&handle);
        status != CUDNN_STATUS_SUCCESS)
      return "cudnnCreate failed: " + cudnnStatusText(*dnn, status);
    if (cudnnStatus_t status =
            dnn->cudnnSetStream(handle, reinterpret_cast<cudaStream_t>(cuStream));
        status != CUDNN_STATUS_SUCCESS)
      return "cudnnSetStream failed: " + cudnnStatusText(*dnn, status);
    return "";
  }

  std::string current() {
    if (CUresult status = cu->cuCtxSetCurrent(context); status != CUDA_SUCCESS)
      return "cuCtxSetCurrent failed: " + cuStatusText(*cu, status);
    return "";
  }

  std::string version() const override {
    size_t v = dnn->cudnnGetVersion();
    return "cuDNN " + std::to_string(v / 10000) + "." +
           std::to_string((v % 10000) / 100) + "." + std::to_string(v % 100) +
           ", driver " + std::to_string(driverVersion) + ", sm_" +
           std::to_string(major) + std::to_string(minor);
  }

  void *alloc(size_t bytes, std::string &error) override {
    if (std::string e = current(); !e.empty()) {
      error = e;
      return nullptr;
    }
    CUdeviceptr ptr = 0;
    if (CUresult status = cu->cuMemAlloc(&ptr, bytes ? bytes : 1);
        status != CUDA_SUCCESS) {
      error = "cuMemAlloc(" + std::to_string(bytes) +
              " bytes) failed: " + cuStatusText(*cu, status);
      return nullptr;
    }
    return reinterpret_cast<void *>(ptr);
  }

  void free(void *pointer) override {
    if (pointer) {
      current();
      cu->cuMemFree(reinterpret_cast<CUdeviceptr>(pointer));
    }
  }

  std::string copyToDevice(void *dst, const void *src, size_t bytes) override {
    if (std::string e = current(); !e.empty())
      return e;
    if (std::string e = synchronize(); !e.empty())
      return e;
    if (CUresult status =
            cu->cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(dst), src, bytes);
        status != CUDA_SUCCESS)
      return "cuMemcpyHtoD failed: " + cuStatusText(*cu, status);
    return "";
  }

  std::string copyToHost(void *dst, const void *src, size_t bytes) override {
    if (std::string e = current(); !e.empty())
      return e;
    // The stream is non-blocking: finish its work before reading.
    if (std::string e = synchronize(); !e.empty())
      return e;
    if (CUresult status = cu->cuMemcpyDtoH(
            dst, reinterpret_cast<CUdeviceptr>(const_cast<void *>(src)), bytes);
        status != CUDA_SUCCESS)
      return "cuMemcpyDtoH failed: " + cuStatusText(*cu, status);
    return "";
  }

  std::string memset(void *dst, unsigned char value, size_t bytes) override {
    if (std::string e = current(); !e.empty())
      return e;
    if (CUresult status = cu->cuMemsetD8Async(
            reinterpret_cast<CUdeviceptr>(dst), value, bytes, cuStream);
        status != CUDA_SUCCESS)
      return "cuMemsetD8 failed: " + cuStatusText(*cu, status);
    return "";
  }

  std::string synchronize() override {
    // GRAPH_TRACE_RUNTIME=1: the first few waits (an execute on a caller's
    // stream should not wait at all).
    static int traced = 0;
    if (const char *trace = std::getenv("GRAPH_TRACE_RUNTIME");
        trace && *trace && traced < 3) {
      ++traced;
      std::fprintf(stderr, "[graph runtime] synchronize (%s stream)\n",
                   hasCallerStream() ? "caller's" : "own");
    }
    if (CUresult status = cu->cuStreamSynchronize(cuStream);
        status != CUDA_SUCCESS)
      return "cuStreamSynchronize failed: " + cuStatusText(*cu, status);
    return "";
  }

  std::string time(const std::function<std::string()> &body,
                   double &milliseconds) override {
    if (std::string e = current(); !e.empty())
      return e;
    CUevent start = nullptr, stop = nullptr;
    CU_CHECK(cu->cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
    if (CUresult status = cu->cuEventCreate(&stop, CU_EVENT_DEFAULT);
        status != CUDA_SUCCESS) {
      cu->cuEventDestroy(start);
      return "cuEventCreate failed: " + cuStatusText(*cu, status);
    }
    std::string error;
    auto fail = [&](const char *step, CUresult status) {
      error = std::string(step) + " failed: " + cuStatusText(*cu, status);
    };
    if (CUresult s = cu->cuEventRecord(start, cuStream); s != CUDA_SUCCESS)
      fail("cuEventRecord", s);
    if (error.empty())
      error = body();
    if (error.empty())
      if (CUresult s = cu->cuEventRecord(stop, cuStream); s != CUDA_SUCCESS)
        fail("cuEventRecord", s);
    if (error.empty())
      if (CUresult s = cu->cuEventSynchronize(stop); s != CUDA_SUCCESS)
        fail("cuEventSynchronize", s);
    float ms = 0;
    if (error.empty())
      if (CUresult s = cu->cuEventElapsedTime(&ms, start, stop);
          s != CUDA_SUCCESS)
        fail("cuEventElapsedTime", s);
    milliseconds = ms;
    cu->cuEventDestroy(start);
    cu->cuEventDestroy(stop);
    return error;
  }
#undef CU_CHECK

  void *stream() const override { return cuStream; }

  std::string setStream(void *stream) override {
    CUstream next = stream ? static_cast<CUstream>(stream) : ownStream;
    if (cudnnStatus_t status =
            dnn->cudnnSetStream(handle, reinterpret_cast<cudaStream_t>(next));
        status != CUDNN_STATUS_SUCCESS)
      return "cudnnSetStream failed: " + cudnnStatusText(*dnn, status);
    cuStream = next;
    return "";
  }
  bool hasCallerStream() const override { return cuStream != ownStream; }
  void *cudnnHandle() const override { return handle; }
};

} // namespace

Device *Device::get(std::string &error) {
  static std::once_flag once;
  // A failed device is kept, never freed (its handles may be half made),
  // and stays reachable from `device` so that LeakSanitizer does not count
  // it as a leak; `ready` says whether it may be used.
  static CudaDevice *device = nullptr;
  static bool ready = false;
  static std::string initError;
  std::call_once(once, [] {
    device = new CudaDevice();
    initError = device->init();
    ready = initError.empty();
  });
  if (!ready) {
    error = initError;
    return nullptr;
  }
  return device;
}
