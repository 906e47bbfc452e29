//===- Device.cpp - CUDA driver and cuDNN opened at run time -------------===//
//
// dlopen of libcuda.so.1 and libcudnn.so.9; one Device per CUDA ordinal
// (primary context, stream, cuDNN handle), the calling thread's device
// choice, and the memory checks made before every allocation. Nothing here
// links against CUDA or cuDNN.
//
//===----------------------------------------------------------------------===//

#include "RuntimeApi.h"

#include "GraphDialect/Runtime/Device.h"
#include "GraphDialect/Runtime/PlanRankings.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>

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
      error = "the GPU runtime needs " + name +
              " (the NVIDIA driver): " + (why ? why : "dlopen failed");
      return;
    }
    const char *n = name.c_str();
#define RESOLVE(field, sym)                                                    \
  if (!resolve(lib, n, sym, api.field, error))                                 \
    return;
    RESOLVE(cuInit, "cuInit");
    RESOLVE(cuDriverGetVersion, "cuDriverGetVersion");
    RESOLVE(cuDeviceGet, "cuDeviceGet");
    RESOLVE(cuDeviceGetCount, "cuDeviceGetCount");
    RESOLVE(cuDeviceGetAttribute, "cuDeviceGetAttribute");
    RESOLVE(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    RESOLVE(cuCtxSetCurrent, "cuCtxSetCurrent");
    RESOLVE(cuCtxGetCurrent, "cuCtxGetCurrent");
    RESOLVE(cuCtxGetDevice, "cuCtxGetDevice");
    RESOLVE(cuMemGetInfo, "cuMemGetInfo_v2");
    RESOLVE(cuPointerGetAttribute, "cuPointerGetAttribute");
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
    // Optional: only the check that a caller's stream is this device's.
    api.cuStreamGetCtx = reinterpret_cast<decltype(api.cuStreamGetCtx)>(
        dlsym(lib, "cuStreamGetCtx"));
    api.cuStreamIsCapturing =
        reinterpret_cast<decltype(api.cuStreamIsCapturing)>(
            dlsym(lib, "cuStreamIsCapturing"));
    api.cuThreadExchangeStreamCaptureMode =
        reinterpret_cast<decltype(api.cuThreadExchangeStreamCaptureMode)>(
            dlsym(lib, "cuThreadExchangeStreamCaptureMode"));
    api.cuStreamGetCaptureInfo =
        reinterpret_cast<decltype(api.cuStreamGetCaptureInfo)>(
            dlsym(lib, "cuStreamGetCaptureInfo_v3"));
    api.cuUserObjectCreate = reinterpret_cast<decltype(api.cuUserObjectCreate)>(
        dlsym(lib, "cuUserObjectCreate"));
    api.cuGraphRetainUserObject =
        reinterpret_cast<decltype(api.cuGraphRetainUserObject)>(
            dlsym(lib, "cuGraphRetainUserObject"));
    auto optional = [&](auto &field, const char *symbol) {
      field = reinterpret_cast<std::remove_reference_t<decltype(field)>>(
          dlsym(lib, symbol));
    };
    optional(api.cuStreamBeginCapture, "cuStreamBeginCapture_v2");
    optional(api.cuStreamEndCapture, "cuStreamEndCapture");
    optional(api.cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags");
    optional(api.cuGraphExecUpdate, "cuGraphExecUpdate_v2");
    optional(api.cuGraphLaunch, "cuGraphLaunch");
    optional(api.cuGraphExecDestroy, "cuGraphExecDestroy");
    optional(api.cuGraphDestroy, "cuGraphDestroy");
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
    RESOLVE(cudnnDestroy);
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

std::string detail::cudnnStatusText(const CudnnApi &api, cudnnStatus_t status) {
  std::string out = api.cudnnGetErrorString(status);
  char last[2048] = {0};
  api.cudnnGetLastErrorString(last, sizeof(last));
  if (last[0])
    out += std::string(" (cuDNN: ") + last + ")";
  return out;
}

//===----------------------------------------------------------------------===//
// Memory checks
//===----------------------------------------------------------------------===//

std::string graph::rt::formatBytes(uint64_t bytes) {
  static const char *units[] = {"bytes", "KiB", "MiB", "GiB",
                                "TiB",   "PiB", "EiB"};
  std::string out = std::to_string(bytes) + " bytes";
  if (bytes < 1024)
    return out;
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < sizeof(units) / sizeof(units[0])) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), " (%.1f %s)", value, units[unit]);
  return out + text;
}

namespace {

std::string freeText(const DeviceMemory &memory) {
  return formatBytes(memory.freeBytes) + " free of " +
         formatBytes(memory.totalBytes);
}

} // namespace

std::string graph::rt::memoryShortage(const std::string &what, uint64_t bytes,
                                      const DeviceMemory &memory, int ordinal) {
  if (bytes <= memory.freeBytes)
    return "";
  return "GPU " + std::to_string(ordinal) + ": " + what + " needs " +
         formatBytes(bytes) + ", more than the device has free (" +
         freeText(memory) + ")";
}

std::string graph::rt::memoryShortage(const std::string &what,
                                      const std::vector<MemoryNeed> &needs,
                                      const DeviceMemory &memory, int ordinal,
                                      size_t named) {
  uint64_t total = 0;
  bool saturated = false;
  for (const MemoryNeed &need : needs) {
    if (need.bytes > UINT64_MAX - total) {
      total = UINT64_MAX;
      saturated = true;
      break;
    }
    total += need.bytes;
  }
  if (!saturated && total <= memory.freeBytes)
    return "";
  std::vector<const MemoryNeed *> largest;
  for (const MemoryNeed &need : needs)
    largest.push_back(&need);
  std::stable_sort(largest.begin(), largest.end(),
                   [](const MemoryNeed *a, const MemoryNeed *b) {
                     return a->bytes > b->bytes;
                   });
  std::string out = "GPU " + std::to_string(ordinal) + ": " + what + " (" +
                    std::to_string(needs.size()) +
                    (needs.size() == 1 ? " buffer" : " buffers") + ") need" +
                    (saturated ? " more than " : " ") + formatBytes(total) +
                    ", more than the device has free (" + freeText(memory) +
                    ")";
  size_t shown = std::min(named, largest.size());
  for (size_t i = 0; i < shown; ++i)
    out += std::string(i == 0 ? "; largest: " : ", ") + largest[i]->what + " " +
           formatBytes(largest[i]->bytes);
  if (shown < largest.size())
    out += ", ...";
  return out;
}

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

namespace {

/// The driver once initializedDriver() has loaded it; nullptr before.
std::atomic<const DriverApi *> readyDriver{nullptr};

/// The driver with cuInit done, once per process; nullptr and why not.
const DriverApi *initializedDriver(std::string &error) {
  struct Init {
    const DriverApi *api = nullptr;
    std::string error;
  };
  static Init init = [] {
    Init result;
    std::string why;
    const DriverApi *cu = driverApi(why);
    if (!cu) {
      result.error = why;
      return result;
    }
    if (CUresult status = cu->cuInit(0); status != CUDA_SUCCESS) {
      result.error = "cuInit failed: " + cuStatusText(*cu, status);
      return result;
    }
    result.api = cu;
    readyDriver.store(cu);
    return result;
  }();
  if (!init.api)
    error = init.error;
  return init.api;
}

/// The CUDA_VISIBLE_DEVICES setting for messages: "" when unset.
std::string visibleDevicesNote() {
  const char *env = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!env)
    return "";
  return " (CUDA_VISIBLE_DEVICES=" + std::string(env) + ")";
}

/// The number of devices, or -1 and `error`.
int deviceCount(const DriverApi *&cu, std::string &error) {
  cu = initializedDriver(error);
  if (!cu)
    return -1;
  int count = 0;
  if (CUresult status = cu->cuDeviceGetCount(&count); status != CUDA_SUCCESS) {
    error = "cuDeviceGetCount failed: " + cuStatusText(*cu, status);
    return -1;
  }
  return count;
}

/// "" when `ordinal` names a device, else why not.
std::string checkOrdinal(int ordinal, std::string &error) {
  if (ordinal < 0)
    return "GPU device ordinal " + std::to_string(ordinal) +
           " is not valid (ordinals start at 0)";
  const DriverApi *cu = nullptr;
  int count = deviceCount(cu, error);
  if (count < 0)
    return error;
  if (ordinal < count)
    return "";
  if (count == 0)
    return "GPU device " + std::to_string(ordinal) +
           " does not exist: the driver sees no CUDA device" +
           visibleDevicesNote();
  return "GPU device " + std::to_string(ordinal) +
         " does not exist: this machine has " + std::to_string(count) +
         (count == 1 ? " CUDA device (ordinal 0)"
                     : " CUDA devices (ordinals 0-" +
                           std::to_string(count - 1) + ")") +
         visibleDevicesNote();
}

/// GRAPH_TEST_GPU_FREE_BYTES as a number, or -1 when unset or not one.
int64_t testFreeBytes() {
  const char *env = std::getenv("GRAPH_TEST_GPU_FREE_BYTES");
  if (!env || !*env)
    return -1;
  char *end = nullptr;
  unsigned long long value = std::strtoull(env, &end, 10);
  if (*end || env[0] == '-') {
    static bool warned = false;
    if (!warned)
      std::fprintf(stderr,
                   "[graph runtime] GRAPH_TEST_GPU_FREE_BYTES='%s' is not a "
                   "byte count; ignored\n",
                   env);
    warned = true;
    return -1;
  }
  return static_cast<int64_t>(std::min<unsigned long long>(value, INT64_MAX));
}

/// Owners whose CUDA graphs are gone, released by releaseCapturedOwners().
std::mutex capturedOwnersMutex;
std::vector<std::shared_ptr<void> *> releasedOwners;
std::atomic<bool> ownersQueued{false}; // releasedOwners is not empty

/// A user object's destructor (keepWhileCaptured): runs on a driver thread,
/// where no CUDA call is allowed, so the owner is only queued.
void CUDA_CB queueCapturedOwner(void *held) {
  std::lock_guard<std::mutex> lock(capturedOwnersMutex);
  releasedOwners.push_back(static_cast<std::shared_ptr<void> *>(held));
  ownersQueued.store(true);
}

/// An instantiated CUDA graph (CudaDevice::record).
struct CudaRecordedWork final : RecordedWork {
  const DriverApi *cu = nullptr;
  CUgraphExec exec = nullptr;
  ~CudaRecordedWork() override {
    if (exec)
      cu->cuGraphExecDestroy(exec);
  }
};

class CudaDevice final : public Device {
public:
  explicit CudaDevice(int ordinal) : deviceOrdinal(ordinal) {}

  const DriverApi *cu = nullptr;
  const CudnnApi *dnn = nullptr;
  int deviceOrdinal = 0;
  CUcontext context = nullptr;
  CUstream cuStream = nullptr; // where work goes: ownStream or the caller's
  CUstream ownStream = nullptr;
  CUstream captureStream = nullptr; // record's, made at its first use
  std::recursive_mutex useMutex;    // lockUse
  cudnnHandle_t handle = nullptr;
  int driverVersion = 0, major = 0, minor = 0;

  /// "GPU 1: " for messages.
  std::string gpu() const { return "GPU " + std::to_string(deviceOrdinal); }

  std::string init() {
    std::string error;
    cu = initializedDriver(error);
    if (!cu)
      return error;
    dnn = cudnnApi(error);
    if (!dnn)
      return error;
    std::string at = "(device " + std::to_string(deviceOrdinal) + ")";
#define CU_CHECK(call, step)                                                   \
  if (CUresult status = (call); status != CUDA_SUCCESS)                        \
    return std::string(step) + " failed: " + cuStatusText(*cu, status);
    CU_CHECK(cu->cuDriverGetVersion(&driverVersion), "cuDriverGetVersion");
    CUdevice device = 0;
    CU_CHECK(cu->cuDeviceGet(&device, deviceOrdinal), "cuDeviceGet" + at);
    CU_CHECK(cu->cuDeviceGetAttribute(
                 &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
             "cuDeviceGetAttribute(compute capability major)" + at);
    CU_CHECK(cu->cuDeviceGetAttribute(
                 &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
             "cuDeviceGetAttribute(compute capability minor)" + at);
    // A driver that cannot say keeps the H200's limits: codegen still runs.
    (void)readDeviceLimits(*cu, device, deviceLimits);
    CU_CHECK(cu->cuDevicePrimaryCtxRetain(&context, device),
             "cuDevicePrimaryCtxRetain" + at);
    CU_CHECK(cu->cuCtxSetCurrent(context), "cuCtxSetCurrent" + at);
    CU_CHECK(cu->cuStreamCreate(&ownStream, CU_STREAM_NON_BLOCKING),
             "cuStreamCreate" + at);
    cuStream = ownStream;
    // cudnnCreate binds the handle to the device current now: this one.
    if (cudnnStatus_t status = dnn->cudnnCreate(&handle);
        status != CUDNN_STATUS_SUCCESS)
      return "cudnnCreate" + at + " failed: " + cudnnStatusText(*dnn, status);
    if (cudnnStatus_t status = dnn->cudnnSetStream(
            handle, reinterpret_cast<cudaStream_t>(cuStream));
        status != CUDNN_STATUS_SUCCESS)
      return "cudnnSetStream" + at +
             " failed: " + cudnnStatusText(*dnn, status);
    return "";
  }

  int ordinal() const override { return deviceOrdinal; }

  std::string activate() override {
    if (CUresult status = cu->cuCtxSetCurrent(context); status != CUDA_SUCCESS)
      return gpu() + ": cuCtxSetCurrent failed: " + cuStatusText(*cu, status);
    return "";
  }

  std::string version() const override {
    size_t v = dnn->cudnnGetVersion();
    return "cuDNN " + std::to_string(v / 10000) + "." +
           std::to_string((v % 10000) / 100) + "." + std::to_string(v % 100) +
           ", driver " + std::to_string(driverVersion) + ", sm_" +
           std::to_string(major) + std::to_string(minor);
  }

  std::string memory(DeviceMemory &out) override {
    if (std::string e = activate(); !e.empty())
      return e;
    size_t freeBytes = 0, totalBytes = 0;
    if (CUresult status = cu->cuMemGetInfo(&freeBytes, &totalBytes);
        status != CUDA_SUCCESS)
      return gpu() + ": cuMemGetInfo failed: " + cuStatusText(*cu, status);
    out.freeBytes = freeBytes;
    out.totalBytes = totalBytes;
    if (int64_t cap = testFreeBytes(); cap >= 0)
      out.freeBytes = std::min<uint64_t>(out.freeBytes, cap);
    return "";
  }

  void *alloc(size_t bytes, const std::string &what,
              std::string &error) override {
    if (std::string e = activate(); !e.empty()) {
      error = e;
      return nullptr;
    }
    std::string label = what.empty() ? "an allocation" : what;
    // Ask before allocating: a shortage names what needed the memory.
    DeviceMemory info;
    bool known = memory(info).empty();
    if (known)
      if (std::string shortage =
              memoryShortage(label, bytes, info, deviceOrdinal);
          !shortage.empty()) {
        error = shortage;
        return nullptr;
      }
    CUdeviceptr ptr = 0;
    if (CUresult status = cu->cuMemAlloc(&ptr, bytes ? bytes : 1);
        status != CUDA_SUCCESS) {
      error = gpu() + ": allocating " + formatBytes(bytes) + " for " + label +
              " failed: " + cuStatusText(*cu, status);
      if (status == CUDA_ERROR_OUT_OF_MEMORY && memory(info).empty())
        error += " (" + freeText(info) + ")";
      return nullptr;
    }
    return reinterpret_cast<void *>(ptr);
  }

  void free(void *pointer) override {
    if (pointer) {
      activate();
      cu->cuMemFree(reinterpret_cast<CUdeviceptr>(pointer));
    }
  }

  std::string copyToDevice(void *dst, const void *src, size_t bytes) override {
    if (std::string e = activate(); !e.empty())
      return e;
    if (std::string e = synchronize(); !e.empty())
      return e;
    if (CUresult status =
            cu->cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(dst), src, bytes);
        status != CUDA_SUCCESS)
      return gpu() + ": cuMemcpyHtoD failed: " + cuStatusText(*cu, status);
    return "";
  }

  std::string copyToHost(void *dst, const void *src, size_t bytes) override {
    if (std::string e = activate(); !e.empty())
      return e;
    // The stream is non-blocking: finish its work before reading.
    if (std::string e = synchronize(); !e.empty())
      return e;
    if (CUresult status = cu->cuMemcpyDtoH(
            dst, reinterpret_cast<CUdeviceptr>(const_cast<void *>(src)), bytes);
        status != CUDA_SUCCESS)
      return gpu() + ": cuMemcpyDtoH failed: " + cuStatusText(*cu, status);
    return "";
  }

  std::string memset(void *dst, unsigned char value, size_t bytes) override {
    if (std::string e = activate(); !e.empty())
      return e;
    if (CUresult status = cu->cuMemsetD8Async(
            reinterpret_cast<CUdeviceptr>(dst), value, bytes, cuStream);
        status != CUDA_SUCCESS)
      return gpu() + ": cuMemsetD8 failed: " + cuStatusText(*cu, status);
    return "";
  }

  std::string synchronize() override {
    // GRAPH_TRACE_RUNTIME=1: the first few waits (an execute on a caller's
    // stream should not wait at all).
    static int traced = 0;
    if (tracingRuntime() && traced < 3) {
      ++traced;
      std::fprintf(stderr, "[graph runtime] synchronize (GPU %d, %s stream)\n",
                   deviceOrdinal, hasCallerStream() ? "caller's" : "own");
    }
    if (CUresult status = cu->cuStreamSynchronize(cuStream);
        status != CUDA_SUCCESS)
      return gpu() +
             ": cuStreamSynchronize failed: " + cuStatusText(*cu, status);
    return "";
  }

  std::string time(const std::function<std::string()> &body,
                   double &milliseconds) override {
    DeviceUse use(*this);
    if (std::string e = activate(); !e.empty())
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
    DeviceUse use(*this);
    CUstream next = stream ? static_cast<CUstream>(stream) : ownStream;
    // A stream of another device's context would run cuDNN's kernels there
    // (or fail inside cuDNN): refuse it by name. The legacy and per-thread
    // default stream handles belong to whatever context is current.
    bool special = next == CU_STREAM_LEGACY || next == CU_STREAM_PER_THREAD;
    if (stream && !special && cu->cuStreamGetCtx) {
      CUcontext owner = nullptr;
      if (cu->cuStreamGetCtx(next, &owner) == CUDA_SUCCESS && owner &&
          owner != context)
        return gpu() + ": the stream belongs to another CUDA context than "
                       "this device's primary context (a stream of another "
                       "GPU? select the stream's device first)";
    }
    if (std::string e = activate(); !e.empty())
      return e;
    if (cudnnStatus_t status =
            dnn->cudnnSetStream(handle, reinterpret_cast<cudaStream_t>(next));
        status != CUDNN_STATUS_SUCCESS)
      return gpu() +
             ": cudnnSetStream failed: " + cudnnStatusText(*dnn, status);
    cuStream = next;
    return "";
  }
  bool hasCallerStream() const override { return cuStream != ownStream; }
  bool isCapturing() const override {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    return cu->cuStreamIsCapturing &&
           cu->cuStreamIsCapturing(cuStream, &status) == CUDA_SUCCESS &&
           status != CU_STREAM_CAPTURE_STATUS_NONE;
  }
  std::string keepWhileCaptured(std::shared_ptr<void> owner) override {
    if (!cu->cuStreamGetCaptureInfo || !cu->cuUserObjectCreate ||
        !cu->cuGraphRetainUserObject)
      return gpu() + ": the driver cannot tie a program to the CUDA graph "
                     "capturing its stream (no user objects)";
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    CUgraph graph = nullptr;
    if (CUresult r = cu->cuStreamGetCaptureInfo(
            cuStream, &status, nullptr, &graph, nullptr, nullptr, nullptr);
        r != CUDA_SUCCESS)
      return gpu() + ": cuStreamGetCaptureInfo failed: " + cuStatusText(*cu, r);
    if (status != CU_STREAM_CAPTURE_STATUS_ACTIVE || !graph)
      return "";
    auto *held = new std::shared_ptr<void>(std::move(owner));
    CUuserObject object = nullptr;
    if (CUresult r =
            cu->cuUserObjectCreate(&object, held, &queueCapturedOwner, 1,
                                   CU_USER_OBJECT_NO_DESTRUCTOR_SYNC);
        r != CUDA_SUCCESS) {
      delete held;
      return gpu() + ": cuUserObjectCreate failed: " + cuStatusText(*cu, r);
    }
    // The graph takes our one reference: the owner goes with the graph.
    if (CUresult r = cu->cuGraphRetainUserObject(graph, object, 1,
                                                 CU_GRAPH_USER_OBJECT_MOVE);
        r != CUDA_SUCCESS)
      return gpu() +
             ": cuGraphRetainUserObject failed: " + cuStatusText(*cu, r);
    return "";
  }
  void *cudnnHandle() const override { return handle; }

  std::mutex buildHandlesMutex;
  std::vector<cudnnHandle_t> extraHandles; // buildHandles' second and on

  std::string buildHandles(unsigned count,
                           std::vector<void *> &handles) override {
    std::lock_guard<std::mutex> lock(buildHandlesMutex);
    std::string error;
    while (error.empty() && extraHandles.size() + 1 < count) {
      if (error = activate(); !error.empty())
        break;
      std::string thread = std::to_string(extraHandles.size() + 1);
      cudnnHandle_t extra = nullptr;
      if (cudnnStatus_t status = dnn->cudnnCreate(&extra);
          status != CUDNN_STATUS_SUCCESS) {
        error = gpu() + ": cudnnCreate for plan build thread " + thread +
                " failed: " + cudnnStatusText(*dnn, status);
        break;
      }
      // A finalize queues nothing, but should cuDNN ever do so it goes to
      // the device's own stream, never the legacy default stream.
      if (cudnnStatus_t status = dnn->cudnnSetStream(
              extra, reinterpret_cast<cudaStream_t>(ownStream));
          status != CUDNN_STATUS_SUCCESS) {
        dnn->cudnnDestroy(extra);
        error = gpu() + ": cudnnSetStream for plan build thread " + thread +
                " failed: " + cudnnStatusText(*dnn, status);
        break;
      }
      extraHandles.push_back(extra);
    }
    handles.assign(1, handle);
    for (size_t k = 0; k + 1 < count && k < extraHandles.size(); ++k)
      handles.push_back(extraHandles[k]);
    return error;
  }

  /// While recording: the stream and capture mode to go back to, restored
  /// (and the capture ended) however the body leaves, a throw included.
  struct Recording {
    CudaDevice &device;
    CUstream callers;
    bool capturing = false;
    bool modeExchanged = false;
    CUstreamCaptureMode callersMode = CU_STREAM_CAPTURE_MODE_GLOBAL;
    CUgraph graph = nullptr;
    CUresult ended = CUDA_SUCCESS;

    explicit Recording(CudaDevice &device)
        : device(device), callers(device.cuStream) {}
    ~Recording() {
      (void)finish();
      if (graph) // a throwing body's: nobody took it
        device.cu->cuGraphDestroy(graph);
    }
    Recording(const Recording &) = delete;
    Recording &operator=(const Recording &) = delete;
    /// Ends the capture and restores the stream and mode: "" or why the
    /// cuDNN handle could not go back to the caller's stream.
    std::string finish() {
      const DriverApi &cu = *device.cu;
      if (capturing) {
        capturing = false;
        ended = cu.cuStreamEndCapture(device.captureStream, &graph);
      }
      if (modeExchanged) {
        modeExchanged = false;
        cu.cuThreadExchangeStreamCaptureMode(&callersMode);
      }
      if (device.cuStream == callers)
        return "";
      device.cuStream = callers;
      if (cudnnStatus_t status = device.dnn->cudnnSetStream(
              device.handle, reinterpret_cast<cudaStream_t>(callers));
          status != CUDNN_STATUS_SUCCESS)
        return device.gpu() +
               ": cudnnSetStream back to the caller's stream failed: " +
               cudnnStatusText(*device.dnn, status);
      return "";
    }
  };

  std::string record(const std::function<std::string()> &body,
                     std::unique_ptr<RecordedWork> &recorded) override {
    if (!cu->cuStreamBeginCapture || !cu->cuStreamEndCapture ||
        !cu->cuGraphInstantiateWithFlags || !cu->cuGraphLaunch ||
        !cu->cuGraphExecDestroy || !cu->cuGraphDestroy)
      return gpu() + ": the driver cannot record CUDA graphs";
    DeviceUse use(*this);
    if (!captureStream)
      if (CUresult r =
              cu->cuStreamCreate(&captureStream, CU_STREAM_NON_BLOCKING);
          r != CUDA_SUCCESS)
        return gpu() + ": cuStreamCreate failed: " + cuStatusText(*cu, r);
    Recording recording(*this);
    if (cudnnStatus_t status = dnn->cudnnSetStream(
            handle, reinterpret_cast<cudaStream_t>(captureStream));
        status != CUDNN_STATUS_SUCCESS)
      return gpu() +
             ": cudnnSetStream failed: " + cudnnStatusText(*dnn, status);
    cuStream = captureStream;
    // Thread-local modes, the capture's and this thread's (a caller's
    // relaxed mode would let calls through): a call of this thread that a
    // capture cannot hold (a wait, a synchronous copy) fails the recording
    // instead of running outside it.
    if (cu->cuThreadExchangeStreamCaptureMode) {
      recording.callersMode = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
      recording.modeExchanged = cu->cuThreadExchangeStreamCaptureMode(
                                    &recording.callersMode) == CUDA_SUCCESS;
    }
    if (CUresult r = cu->cuStreamBeginCapture(
            captureStream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
        r != CUDA_SUCCESS)
      return gpu() + ": cuStreamBeginCapture failed: " + cuStatusText(*cu, r);
    recording.capturing = true;
    std::string error = body();
    std::string restored = recording.finish();
    CUgraph graph = recording.graph;
    recording.graph = nullptr; // ours from here
    if (error.empty())
      error = restored;
    if (error.empty() && recording.ended != CUDA_SUCCESS)
      error = gpu() + ": cuStreamEndCapture failed: " +
              cuStatusText(*cu, recording.ended);
    if (error.empty() && !graph)
      error = gpu() + ": the recording holds no graph";
    if (!error.empty()) {
      if (graph)
        cu->cuGraphDestroy(graph);
      return error;
    }
    auto *work = static_cast<CudaRecordedWork *>(recorded.get());
    CUgraphExecUpdateResultInfo info{};
    if (work && work->exec && cu->cuGraphExecUpdate &&
        cu->cuGraphExecUpdate(work->exec, graph, &info) == CUDA_SUCCESS) {
      cu->cuGraphDestroy(graph);
      return "";
    }
    recorded.reset(); // an update that failed leaves it unusable
    CUgraphExec exec = nullptr;
    CUresult made = cu->cuGraphInstantiateWithFlags(&exec, graph, 0);
    cu->cuGraphDestroy(graph);
    if (made != CUDA_SUCCESS)
      return gpu() +
             ": cuGraphInstantiateWithFlags failed: " + cuStatusText(*cu, made);
    auto fresh = std::make_unique<CudaRecordedWork>();
    fresh->cu = cu;
    fresh->exec = exec;
    recorded = std::move(fresh);
    return "";
  }

  void lockUse() override { useMutex.lock(); }
  void unlockUse() override { useMutex.unlock(); }

  std::string replay(RecordedWork &recorded) override {
    auto &work = static_cast<CudaRecordedWork &>(recorded);
    if (CUresult r = cu->cuGraphLaunch(work.exec, cuStream); r != CUDA_SUCCESS)
      return gpu() + ": cuGraphLaunch failed: " + cuStatusText(*cu, r);
    return "";
  }

  int pointerOrdinal(const void *pointer) const override {
    if (!pointer)
      return -1;
    CUdeviceptr address = reinterpret_cast<CUdeviceptr>(pointer);
    unsigned int type = 0;
    if (cu->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                  address) != CUDA_SUCCESS ||
        type != CU_MEMORYTYPE_DEVICE)
      return -1;
    unsigned int managed = 0;
    if (cu->cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                  address) == CUDA_SUCCESS &&
        managed)
      return -1;
    int owner = -1;
    if (cu->cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                  address) != CUDA_SUCCESS)
      return -1;
    return owner;
  }
};

/// The thread's explicit choice (Device::select); -1: none.
thread_local int selectedOrdinal = -1;

} // namespace

bool graph::rt::tracingRuntime() {
  const char *trace = std::getenv("GRAPH_TRACE_RUNTIME");
  return trace && *trace;
}

Device::Device() : rankings(std::make_unique<PlanRankings>()) {}
Device::~Device() = default;

int Device::count(std::string &error) {
  const DriverApi *cu = nullptr;
  return deviceCount(cu, error);
}

int Device::selected() { return selectedOrdinal; }

std::string Device::select(int ordinal) {
  if (ordinal == -1) {
    selectedOrdinal = -1;
    return "";
  }
  std::string error;
  if (std::string why = checkOrdinal(ordinal, error); !why.empty())
    return why;
  selectedOrdinal = ordinal;
  return "";
}

int Device::current(std::string &error) {
  const DriverApi *cu = initializedDriver(error);
  if (!cu)
    return -1;
  if (selectedOrdinal >= 0)
    return selectedOrdinal;
  // Follow the caller: the device of the context current on this thread.
  CUcontext context = nullptr;
  if (cu->cuCtxGetCurrent(&context) != CUDA_SUCCESS || !context)
    return 0;
  CUdevice device = 0;
  if (cu->cuCtxGetDevice(&device) != CUDA_SUCCESS)
    return 0;
  int count = 0;
  cu->cuDeviceGetCount(&count);
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUdevice handle = 0;
    if (cu->cuDeviceGet(&handle, ordinal) == CUDA_SUCCESS && handle == device)
      return ordinal;
  }
  return 0;
}

Device *Device::get(std::string &error) {
  int ordinal = current(error);
  if (ordinal < 0)
    return nullptr;
  return get(ordinal, error);
}

Device *Device::get(int ordinal, std::string &error) {
  // One entry per ordinal asked for. A device that failed to initialize is
  // kept, never freed (its handles may be half made), with its error; the
  // map is reachable from a static pointer so LeakSanitizer does not count
  // the entries as leaks.
  struct Entry {
    std::unique_ptr<CudaDevice> device;
    std::string error; // empty: ready
  };
  static std::mutex mutex;
  static auto *devices = new std::map<int, Entry>();
  CudaDevice *device = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = devices->find(ordinal);
    if (it == devices->end()) {
      Entry entry;
      std::string countError;
      entry.error = checkOrdinal(ordinal, countError);
      if (entry.error.empty()) {
        entry.device = std::make_unique<CudaDevice>(ordinal);
        entry.error = entry.device->init();
      }
      it = devices->emplace(ordinal, std::move(entry)).first;
    }
    if (!it->second.error.empty()) {
      error = it->second.error;
      return nullptr;
    }
    device = it->second.device.get();
  }
  if (std::string e = device->activate(); !e.empty()) {
    error = e;
    return nullptr;
  }
  return device;
}

CallerContext::CallerContext(bool keepIfNone) : keepIfNone(keepIfNone) {
  std::string error;
  const DriverApi *cu = initializedDriver(error);
  if (!cu)
    return;
  CUcontext current = nullptr;
  if (cu->cuCtxGetCurrent(&current) != CUDA_SUCCESS)
    return;
  context = current;
  saved = true;
}

CallerContext::~CallerContext() {
  if (!saved || (!context && keepIfNone))
    return;
  std::string error;
  if (const DriverApi *cu = initializedDriver(error))
    cu->cuCtxSetCurrent(static_cast<CUcontext>(context));
}

void graph::rt::releaseCapturedOwners() {
  if (!ownersQueued.load()) // the common case: one atomic load
    return;
  std::vector<std::shared_ptr<void> *> owners;
  {
    std::lock_guard<std::mutex> lock(capturedOwnersMutex);
    owners.swap(releasedOwners);
    ownersQueued.store(false);
  }
  if (owners.empty())
    return;
  // Their teardown frees device memory, maybe while another capture runs.
  RelaxedCaptureMode relaxed;
  for (std::shared_ptr<void> *owner : owners)
    delete owner;
}

RelaxedCaptureMode::RelaxedCaptureMode() {
  const DriverApi *cu = readyDriver.load();
  if (!cu || !cu->cuThreadExchangeStreamCaptureMode)
    return;
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  if (cu->cuThreadExchangeStreamCaptureMode(&mode) != CUDA_SUCCESS)
    return;
  previous = static_cast<int>(mode);
  exchanged = true;
}

RelaxedCaptureMode::~RelaxedCaptureMode() {
  if (!exchanged)
    return;
  CUstreamCaptureMode mode = static_cast<CUstreamCaptureMode>(previous);
  readyDriver.load()->cuThreadExchangeStreamCaptureMode(&mode);
}
