//===- RuntimeApi.h - CUDA driver and cuDNN entry points (dlopen) -*- C++ -*-//
//
// Internal to lib/Runtime. The CUDA driver and cuDNN are opened with dlopen
// at first use; every entry point the runtime calls is a function pointer
// resolved with dlsym. Only types come from the CUDA/cuDNN headers.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_LIB_RUNTIME_RUNTIMEAPI_H
#define GRAPHDIALECT_LIB_RUNTIME_RUNTIMEAPI_H

#include "GraphDialect/Runtime/DeviceLimits.h"

#include <cuda.h>
#include <cudnn_backend.h>

#include <string>

namespace graph::rt::detail {

struct DriverApi {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxGetDevice)(CUdevice *);
  CUresult (*cuMemGetInfo)(size_t *, size_t *);
  CUresult (*cuPointerGetAttribute)(void *, CUpointer_attribute, CUdeviceptr);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamSynchronize)(CUstream);
  /// Optional (nullptr when the driver lacks it): the stream's context.
  CUresult (*cuStreamGetCtx)(CUstream, CUcontext *);
  /// Optional: whether a stream is being captured into a CUDA graph.
  CUresult (*cuStreamIsCapturing)(CUstream, CUstreamCaptureStatus *);
  /// Optional: the calling thread's stream capture mode, exchanged.
  CUresult (*cuThreadExchangeStreamCaptureMode)(CUstreamCaptureMode *);
  /// Optional: the graph a capturing stream records into (CUDA 12.3's
  /// signature), and user objects a graph keeps alive.
  CUresult (*cuStreamGetCaptureInfo)(CUstream, CUstreamCaptureStatus *,
                                     cuuint64_t *, CUgraph *,
                                     const CUgraphNode **,
                                     const CUgraphEdgeData **, size_t *);
  CUresult (*cuUserObjectCreate)(CUuserObject *, void *, CUhostFn, unsigned,
                                 unsigned);
  CUresult (*cuGraphRetainUserObject)(CUgraph, CUuserObject, unsigned,
                                      unsigned);
  /// Optional: recording work into CUDA graphs and launching them
  /// (Device::record and replay).
  CUresult (*cuStreamBeginCapture)(CUstream, CUstreamCaptureMode);
  CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph,
                                          unsigned long long);
  CUresult (*cuGraphExecUpdate)(CUgraphExec, CUgraph,
                                CUgraphExecUpdateResultInfo *);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec);
  CUresult (*cuGraphDestroy)(CUgraph);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  // Generated kernels (codegen engine).
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
};

struct CudnnApi {
  size_t (*cudnnGetVersion)();
  const char *(*cudnnGetErrorString)(cudnnStatus_t);
  void (*cudnnGetLastErrorString)(char *, size_t);
  cudnnStatus_t (*cudnnCreate)(cudnnHandle_t *);
  cudnnStatus_t (*cudnnDestroy)(cudnnHandle_t);
  cudnnStatus_t (*cudnnSetStream)(cudnnHandle_t, cudaStream_t);
  cudnnStatus_t (*cudnnBackendCreateDescriptor)(cudnnBackendDescriptorType_t,
                                                cudnnBackendDescriptor_t *);
  cudnnStatus_t (*cudnnBackendDestroyDescriptor)(cudnnBackendDescriptor_t);
  cudnnStatus_t (*cudnnBackendFinalize)(cudnnBackendDescriptor_t);
  cudnnStatus_t (*cudnnBackendSetAttribute)(cudnnBackendDescriptor_t,
                                            cudnnBackendAttributeName_t,
                                            cudnnBackendAttributeType_t,
                                            int64_t, const void *);
  cudnnStatus_t (*cudnnBackendGetAttribute)(cudnnBackendDescriptor_t const,
                                            cudnnBackendAttributeName_t,
                                            cudnnBackendAttributeType_t,
                                            int64_t, int64_t *, void *);
  cudnnStatus_t (*cudnnBackendExecute)(cudnnHandle_t, cudnnBackendDescriptor_t,
                                       cudnnBackendDescriptor_t);
};

/// The loaded libraries; nullptr and `error` when either is missing.
/// `cudaLibrary` / `cudnnLibrary` override the sonames (tests).
const DriverApi *driverApi(std::string &error);
const CudnnApi *cudnnApi(std::string &error);

/// "CUDA_ERROR_OUT_OF_MEMORY: out of memory".
std::string cuStatusText(const DriverApi &api, CUresult status);
/// "CUDNN_STATUS_NOT_SUPPORTED (cuDNN: <last error string>)".
std::string cudnnStatusText(const CudnnApi &api, cudnnStatus_t status);

/// Reads the launch limits of `device` into `out`: "" or why not, `out`
/// then unchanged (Device fills its limits() with it when it opens).
std::string readDeviceLimits(const DriverApi &cu, CUdevice device,
                             DeviceLimits &out);

/// Library names opened by driverApi/cudnnApi; settable before first use
/// (from GRAPH_LIBCUDA / GRAPH_LIBCUDNN, defaults libcuda.so.1 and
/// libcudnn.so.9).
std::string libcudaName();
std::string libcudnnName();

} // namespace graph::rt::detail

#endif // GRAPHDIALECT_LIB_RUNTIME_RUNTIMEAPI_H
