//===- FakeCuda.cpp - A CUDA driver and cuDNN stand-in for tests ----------===//
//
// Built as two shared libraries (FAKE_CUDNN selects the cuDNN half) that the
// runtime opens through GRAPH_LIBCUDA / GRAPH_LIBCUDNN, so the per-device
// logic of lib/Runtime/Device.cpp runs on a machine without a GPU. It models
// only what Device.cpp observes: devices (FAKE_CUDA_DEVICES, default 2),
// one primary context per device and the thread's current one, memory per
// device (FAKE_CUDA_TOTAL_BYTES, default 1 GiB, host-backed), streams that
// remember their context, and cuDNN handles that remember the device
// current at cudnnCreate. Kernels, modules and backend descriptors fail.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

#ifndef FAKE_CUDNN

namespace {

struct FakeContext {
  int device = 0;
};
struct FakeStream {
  FakeContext *context = nullptr;
};

constexpr int kMaxDevices = 8;
FakeContext contexts[kMaxDevices];
thread_local FakeContext *current = nullptr;
bool initialized = false;
std::mutex mutex;
// A stream capture in global mode somewhere in the process (set by a test
// hook), and this thread's capture mode: while it is on, the calls a global
// capture forbids fail on threads that are not in relaxed mode.
bool globalCapture = false;
thread_local CUstreamCaptureMode captureMode = CU_STREAM_CAPTURE_MODE_GLOBAL;
bool captureForbids() {
  return globalCapture && captureMode != CU_STREAM_CAPTURE_MODE_RELAXED;
}
// Allocations: address -> (device, bytes).
std::map<uintptr_t, std::pair<int, size_t>> allocations;
size_t used[kMaxDevices];

int deviceCount() {
  const char *env = std::getenv("FAKE_CUDA_DEVICES");
  int n = env ? std::atoi(env) : 2;
  return n < 0 ? 0 : (n > kMaxDevices ? kMaxDevices : n);
}

size_t totalBytes() {
  const char *env = std::getenv("FAKE_CUDA_TOTAL_BYTES");
  return env ? std::strtoull(env, nullptr, 10) : (size_t(1) << 30);
}

} // namespace

FAKE_EXPORT CUresult cuInit(unsigned) {
  for (int i = 0; i < kMaxDevices; ++i)
    contexts[i].device = i;
  initialized = true;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuDriverGetVersion(int *v) {
  *v = 13000;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuDeviceGetCount(int *count) {
  if (!initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  *count = deviceCount();
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal < 0 || ordinal >= deviceCount())
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute,
                                          CUdevice) {
  *value = 9;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
  if (dev < 0 || dev >= deviceCount())
    return CUDA_ERROR_INVALID_DEVICE;
  *ctx = reinterpret_cast<CUcontext>(&contexts[dev]);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
  current = reinterpret_cast<FakeContext *>(ctx);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuCtxGetCurrent(CUcontext *ctx) {
  if (!initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  *ctx = reinterpret_cast<CUcontext>(current);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuCtxGetDevice(CUdevice *device) {
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  *device = current->device;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuMemGetInfo(size_t *freeBytes, size_t *total) {
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard<std::mutex> lock(mutex);
  *total = totalBytes();
  *freeBytes = *total - used[current->device];
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuMemAlloc(CUdeviceptr *ptr, size_t bytes) {
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (captureForbids())
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  std::lock_guard<std::mutex> lock(mutex);
  if (bytes > totalBytes() - used[current->device])
    return CUDA_ERROR_OUT_OF_MEMORY;
  void *p = std::malloc(bytes);
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  used[current->device] += bytes;
  allocations[reinterpret_cast<uintptr_t>(p)] = {current->device, bytes};
  *ptr = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuMemFree(CUdeviceptr ptr) {
  if (captureForbids())
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = allocations.find(static_cast<uintptr_t>(ptr));
  if (it == allocations.end())
    return CUDA_ERROR_INVALID_VALUE;
  used[it->second.first] -= it->second.second;
  allocations.erase(it);
  std::free(reinterpret_cast<void *>(ptr));
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuPointerGetAttribute(void *data,
                                           CUpointer_attribute attribute,
                                           CUdeviceptr ptr) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = allocations.upper_bound(static_cast<uintptr_t>(ptr));
  if (it == allocations.begin())
    return CUDA_ERROR_INVALID_VALUE;
  --it;
  if (static_cast<uintptr_t>(ptr) >= it->first + it->second.second)
    return CUDA_ERROR_INVALID_VALUE;
  switch (attribute) {
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    *static_cast<unsigned *>(data) = CU_MEMORYTYPE_DEVICE;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_IS_MANAGED:
    *static_cast<unsigned *>(data) = 0;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
    *static_cast<int *>(data) = it->second.first;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}
FAKE_EXPORT CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src,
                                  size_t bytes) {
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes) {
  std::memcpy(dst, reinterpret_cast<void *>(src), bytes);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value,
                                     size_t bytes, CUstream) {
  std::memset(reinterpret_cast<void *>(dst), value, bytes);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned) {
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  *stream = reinterpret_cast<CUstream>(new FakeStream{current});
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuStreamGetCtx(CUstream stream, CUcontext *ctx) {
  if (!stream)
    return CUDA_ERROR_INVALID_HANDLE;
  *ctx = reinterpret_cast<CUcontext>(
      reinterpret_cast<FakeStream *>(stream)->context);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuStreamSynchronize(CUstream) { return CUDA_SUCCESS; }
FAKE_EXPORT CUresult cuEventCreate(CUevent *event, unsigned) {
  *event = reinterpret_cast<CUevent>(new int(0));
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuEventRecord(CUevent, CUstream) { return CUDA_SUCCESS; }
FAKE_EXPORT CUresult cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }
FAKE_EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent, CUevent) {
  *ms = 1.0f;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuEventDestroy(CUevent event) {
  delete reinterpret_cast<int *>(event);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuGetErrorName(CUresult status, const char **name) {
  *name = status == CUDA_ERROR_OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY"
          : status == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
              ? "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"
              : "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuGetErrorString(CUresult, const char **text) {
  *text = "fake driver error";
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuModuleLoadData(CUmodule *, const void *) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
FAKE_EXPORT CUresult cuModuleUnload(CUmodule) { return CUDA_SUCCESS; }
FAKE_EXPORT CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
FAKE_EXPORT CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned,
                                    unsigned, unsigned, unsigned, unsigned,
                                    CUstream, void **, void **) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

FAKE_EXPORT CUresult
cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode) {
  std::swap(captureMode, *mode);
  return CUDA_SUCCESS;
}

// One fake capture: while it is active every stream reports it, and the
// user objects retained by its graph are destroyed with the graph.
bool streamCapturing = false;
struct FakeUserObject {
  void *ptr;
  CUhostFn destroy;
};
std::vector<FakeUserObject> capturedObjects, createdObjects;
int fakeGraph = 0; // its address is the captured graph's handle

FAKE_EXPORT CUresult cuStreamIsCapturing(CUstream, CUstreamCaptureStatus *s) {
  *s = streamCapturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE
                       : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuStreamGetCaptureInfo_v3(
    CUstream, CUstreamCaptureStatus *s, cuuint64_t *id, CUgraph *graph,
    const CUgraphNode **, const CUgraphEdgeData **, size_t *) {
  *s = streamCapturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE
                       : CU_STREAM_CAPTURE_STATUS_NONE;
  if (id)
    *id = 1;
  if (graph)
    *graph = streamCapturing ? reinterpret_cast<CUgraph>(&fakeGraph) : nullptr;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuUserObjectCreate(CUuserObject *object, void *ptr,
                                        CUhostFn destroy, unsigned, unsigned) {
  createdObjects.push_back({ptr, destroy});
  *object = reinterpret_cast<CUuserObject>(createdObjects.size());
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuGraphRetainUserObject(CUgraph graph, CUuserObject object,
                                             unsigned, unsigned) {
  if (graph != reinterpret_cast<CUgraph>(&fakeGraph))
    return CUDA_ERROR_INVALID_VALUE;
  capturedObjects.push_back(
      createdObjects[reinterpret_cast<size_t>(object) - 1]);
  return CUDA_SUCCESS;
}

/// Test hooks: the device streams are being captured (1) or not (0); the
/// captured graph is destroyed (its user objects' destructors run, as the
/// driver runs them, on another thread); how many objects it holds.
FAKE_EXPORT void fakeCudaSetCapturing(int on) { streamCapturing = on != 0; }
FAKE_EXPORT void fakeCudaDestroyCapturedGraph() {
  std::vector<FakeUserObject> objects;
  objects.swap(capturedObjects);
  std::thread([&] {
    for (FakeUserObject &o : objects)
      o.destroy(o.ptr);
  }).join();
}
FAKE_EXPORT int fakeCudaCapturedObjects() {
  return static_cast<int>(capturedObjects.size());
}

// Recording into CUDA graphs (Device::record): one recording at a time, on
// the stream it began on; executable graphs are counted, not run.
CUstream recordingStream = nullptr;
bool failNextRecording = false;
int liveExecs = 0, execUpdates = 0, graphLaunches = 0;
CUstream lastLaunchStream = nullptr;
int fakeGraphs = 0, fakeExecs = 0; // their addresses are the handles

FAKE_EXPORT CUresult cuStreamBeginCapture_v2(CUstream stream,
                                             CUstreamCaptureMode) {
  if (recordingStream)
    return CUDA_ERROR_ILLEGAL_STATE;
  recordingStream = stream;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph) {
  if (stream != recordingStream)
    return CUDA_ERROR_ILLEGAL_STATE;
  recordingStream = nullptr;
  *graph = nullptr;
  if (failNextRecording) {
    failNextRecording = false;
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  *graph = reinterpret_cast<CUgraph>(&fakeGraphs);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph,
                                                 unsigned long long) {
  ++liveExecs;
  *exec = reinterpret_cast<CUgraphExec>(&fakeExecs);
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuGraphExecUpdate_v2(CUgraphExec, CUgraph,
                                          CUgraphExecUpdateResultInfo *) {
  ++execUpdates;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuGraphLaunch(CUgraphExec, CUstream stream) {
  ++graphLaunches;
  lastLaunchStream = stream;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuGraphExecDestroy(CUgraphExec) {
  --liveExecs;
  return CUDA_SUCCESS;
}
FAKE_EXPORT CUresult cuGraphDestroy(CUgraph) { return CUDA_SUCCESS; }

/// Test hooks: the stream being recorded (null when none); the next
/// recording ends invalidated; executable graphs alive, updates made,
/// launches made and the stream of the last launch.
FAKE_EXPORT void *fakeCudaRecordingStream() { return recordingStream; }
FAKE_EXPORT void fakeCudaFailNextRecording() { failNextRecording = true; }
FAKE_EXPORT void fakeCudaGraphCounts(int *live, int *updates, int *launches,
                                     void **lastStream) {
  *live = liveExecs;
  *updates = execUpdates;
  *launches = graphLaunches;
  *lastStream = lastLaunchStream;
}

/// Test hooks: a global-mode capture in progress (1) or not (0); the calling
/// thread's capture mode.
FAKE_EXPORT void fakeCudaSetGlobalCapture(int on) { globalCapture = on != 0; }
FAKE_EXPORT int fakeCudaCaptureMode() { return static_cast<int>(captureMode); }

/// Test hook: the device of the context current on the calling thread, -1
/// when none.
FAKE_EXPORT int fakeCudaCurrentDevice() {
  return current ? current->device : -1;
}

#else // FAKE_CUDNN

#include <cudnn.h>
#include <dlfcn.h>

namespace {
struct FakeHandle {
  int device = -1;
  void *stream = nullptr;
};
} // namespace

// Each stand-in has the exact type of cudnn.h's prototype: the runtime calls
// them through pointers of those types (UBSan's -fsanitize=function checks).
FAKE_EXPORT size_t cudnnGetVersion() { return 91900; }
FAKE_EXPORT const char *cudnnGetErrorString(cudnnStatus_t) {
  return "CUDNN_STATUS_FAKE";
}
FAKE_EXPORT void cudnnGetLastErrorString(char *text, size_t size) {
  if (size)
    text[0] = 0;
}
static int failingCreates = 0; // fakeCudnnFailCreates
FAKE_EXPORT cudnnStatus_t cudnnCreate(cudnnHandle_t *handle) {
  if (failingCreates > 0) {
    --failingCreates;
    return CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
  }
  // The device current now, as the fake driver (already loaded with
  // RTLD_LOCAL by the runtime, opened again here by its path) reports it.
  auto *h = new FakeHandle;
  if (const char *path = std::getenv("GRAPH_LIBCUDA"))
    if (void *lib = dlopen(path, RTLD_NOW | RTLD_NOLOAD))
      if (auto *fn =
              reinterpret_cast<int (*)()>(dlsym(lib, "fakeCudaCurrentDevice")))
        h->device = fn();
  *handle = reinterpret_cast<cudnnHandle_t>(h);
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  delete reinterpret_cast<FakeHandle *>(handle);
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t cudnnSetStream(cudnnHandle_t handle,
                                         cudaStream_t stream) {
  reinterpret_cast<FakeHandle *>(handle)->stream = stream;
  return CUDNN_STATUS_SUCCESS;
}
constexpr cudnnStatus_t kFakeRefusal = CUDNN_STATUS_NOT_SUPPORTED; // 3000
FAKE_EXPORT cudnnStatus_t
cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t,
                             cudnnBackendDescriptor_t *) {
  return kFakeRefusal;
}
FAKE_EXPORT cudnnStatus_t
cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t) {
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t) {
  return kFakeRefusal;
}
FAKE_EXPORT cudnnStatus_t cudnnBackendSetAttribute(
    cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
    cudnnBackendAttributeType_t, int64_t, const void *) {
  return kFakeRefusal;
}
FAKE_EXPORT cudnnStatus_t cudnnBackendGetAttribute(
    cudnnBackendDescriptor_t const, cudnnBackendAttributeName_t,
    cudnnBackendAttributeType_t, int64_t, int64_t *, void *) {
  return kFakeRefusal;
}
FAKE_EXPORT cudnnStatus_t cudnnBackendExecute(cudnnHandle_t,
                                              cudnnBackendDescriptor_t,
                                              cudnnBackendDescriptor_t) {
  return kFakeRefusal;
}

/// Test hook: the device current when `handle` was created.
FAKE_EXPORT int fakeCudnnHandleDevice(void *handle) {
  return static_cast<FakeHandle *>(handle)->device;
}

/// Test hook: the next `count` cudnnCreate calls fail (a host allocation).
FAKE_EXPORT void fakeCudnnFailCreates(int count) { failingCreates = count; }

/// Test hook: the stream `handle` is bound to.
FAKE_EXPORT void *fakeCudnnHandleStream(void *handle) {
  return static_cast<FakeHandle *>(handle)->stream;
}

#endif // FAKE_CUDNN
