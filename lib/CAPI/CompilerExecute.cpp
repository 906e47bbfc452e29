//===- CompilerExecute.cpp - Execution through the C++ API ------*- C++ -*-===//
//
// CompiledGraph::execute: the caller's buffers are matched to the selected
// graph's (or program's) tensors by uid and checked, then the graph runs on
// the CPU reference executor (strided copies in and out) or on the GPU
// through the engine layer's session. Also the process-wide GPU entry
// points: setGpuStream, setGpuDevice, gpuDevice and gpuDeviceCount.
//
//===----------------------------------------------------------------------===//

#include "CompilerInternal.h"

#ifdef GRAPH_HAVE_GPU_RUNTIME
#include "GraphDialect/Engine/GpuExecutor.h"
#include "GraphDialect/Runtime/Device.h"
#endif
#include "GraphDialect/Reference/Executor.h"
#include "GraphDialect/Support/Shape.h"

#include <cstring>
#include <map>
#include <optional>

using namespace mlir;
using ::graph::Buffer;
using ::graph::CompiledGraph;
using ::graph::dimsMessageText;
using ::graph::Status;
using ::graph::TensorDesc;
using ::graph::capi::describeInputs;
using ::graph::capi::describeOutputs;
using ::graph::capi::describeProgram;
using ::graph::capi::dtypeText;
using ::graph::capi::emptyGraph;
using ::graph::capi::toRefDType;
using ::graph::capi::who;
using mlir::graph::GraphOp;
namespace capi = ::graph::capi;
namespace ref = ::graph::ref;

namespace {

//===----------------------------------------------------------------------===//
// Strided copies
//===----------------------------------------------------------------------===//

/// Copies every element of a `dims` tensor of `width`-byte elements from
/// `src` (strides `srcStrides`) to `dst` (strides `dstStrides`), bit-exactly.
void copyStrided(const uint8_t *src, const std::vector<int64_t> &srcStrides,
                 uint8_t *dst, const std::vector<int64_t> &dstStrides,
                 const std::vector<int64_t> &dims, size_t width,
                 const std::vector<char> *only = nullptr) {
  size_t rank = dims.size();
  for (int64_t d : dims)
    if (d == 0)
      return;
  std::vector<int64_t> index(rank, 0);
  int64_t srcOffset = 0, dstOffset = 0;
  // `only`: a flag per element in row-major order; unflagged ones are left.
  bool masked = only && !only->empty();
  for (size_t element = 0;; ++element) {
    if (!masked || (*only)[element])
      std::memcpy(dst + dstOffset * width, src + srcOffset * width, width);
    size_t k = rank;
    while (k > 0) {
      --k;
      if (++index[k] < dims[k]) {
        srcOffset += srcStrides[k];
        dstOffset += dstStrides[k];
        break;
      }
      srcOffset -= srcStrides[k] * (dims[k] - 1);
      dstOffset -= dstStrides[k] * (dims[k] - 1);
      index[k] = 0;
      if (k == 0)
        return;
    }
    if (rank == 0)
      return;
  }
}

/// Elements of `dims`, or nullopt when the count overflows 2^48.
std::optional<int64_t> checkedElements(const std::vector<int64_t> &dims) {
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count) ||
        count > (int64_t(1) << 48))
      return std::nullopt;
  }
  return count;
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

/// A caller's buffer checked against the tensor it is bound to.
struct Binding {
  const Buffer *buffer = nullptr;
  std::vector<int64_t> strides; // the buffer's, row-major when not given
};

/// Checks `buffer` against `desc` (dtype, rank, static dims) and its own
/// layout. Dynamic dims of `desc` take any size.
Status bindBuffer(const char *kind, size_t index, const TensorDesc &desc,
                  const Buffer &buffer, Binding &binding) {
  std::string name = who(kind, index, desc);
  if (buffer.dtype != desc.dtype)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  name + ": the graph expects " + dtypeText(desc.dtype) +
                      " but the buffer holds " + dtypeText(buffer.dtype));
  bool match = buffer.dims.size() == desc.dims.size();
  for (size_t d = 0; match && d < desc.dims.size(); ++d)
    match = desc.dims[d] < 0 || desc.dims[d] == buffer.dims[d];
  if (!match)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  name + ": the graph expects dims " +
                      dimsMessageText(desc.dims) + " but the buffer has " +
                      dimsMessageText(buffer.dims));
  std::optional<int64_t> count = checkedElements(buffer.dims);
  if (!count)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  name + ": the buffer's dims " + dimsMessageText(buffer.dims) +
                      " are negative or too large");
  if (buffer.strides.empty()) {
    binding.strides = ref::rowMajorStrides(buffer.dims);
  } else {
    if (buffer.strides.size() != buffer.dims.size())
      return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                    name + ": the buffer has " +
                        std::to_string(buffer.dims.size()) + " dims but " +
                        std::to_string(buffer.strides.size()) + " strides");
    for (int64_t s : buffer.strides)
      if (s < 0)
        return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                      name + ": the buffer has a negative stride");
    binding.strides = buffer.strides;
  }
  if (!buffer.data && *count > 0)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  name + ": the buffer's data pointer is NULL");
  binding.buffer = &buffer;
  return Status();
}

#ifdef GRAPH_HAVE_GPU_RUNTIME
/// The buffers as given, as the session's variant pack sees them.
llvm::SmallVector<mlir::graph::PackBuffer, 8>
packOf(const std::vector<Buffer> &buffers) {
  llvm::SmallVector<mlir::graph::PackBuffer, 8> pack(buffers.size());
  for (size_t j = 0; j < buffers.size(); ++j)
    pack[j] = {buffers[j].uid, static_cast<int>(buffers[j].dtype),
               buffers[j].dims, buffers[j].strides, buffers[j].data};
  return pack;
}

/// Runs the selected graph on the GPU with the caller's device pointers,
/// through the session (GpuSession.h).
Status executeOnDevice(CompiledGraph::Impl &impl,
                       const std::vector<Buffer> &buffers,
                       const std::vector<TensorDesc> &ins,
                       const std::vector<TensorDesc> &outs,
                       const std::vector<Binding> &inBindings,
                       const std::vector<Binding> &outBindings) {
  auto bound = [](const char *kind, const std::vector<TensorDesc> &descs,
                  const std::vector<Binding> &bindings) {
    std::vector<mlir::graph::BoundTensor> tensors(descs.size());
    for (size_t i = 0; i < descs.size(); ++i)
      tensors[i] = {who(kind, i, descs[i]), *descs[i].uid,
                    bindings[i].buffer->dims, bindings[i].strides,
                    bindings[i].buffer->data};
    return tensors;
  };
  capi::LowerFn lower = [&](OwningOpRef<ModuleOp> &clone, GraphOp &graph) {
    return capi::lowerForGpu(impl, clone, graph);
  };
  return capi::fromSession(impl.gpu.execute(
      capi::sessionSource(impl, lower), packOf(buffers),
      bound("input", ins, inBindings), bound("output", outs, outBindings)));
}
#endif

} // namespace

//===----------------------------------------------------------------------===//
// Execute
//===----------------------------------------------------------------------===//

#ifdef GRAPH_HAVE_GPU_RUNTIME
Status capi::fromSession(mlir::graph::SessionStatus status) {
  using Code = mlir::graph::SessionStatus::Code;
  switch (status.code) {
  case Code::Ok:
    return Status();
  case Code::NoDevice:
    return Status(GRAPH_ERROR_NO_DEVICE, std::move(status.message));
  case Code::InvalidArgument:
    return Status(GRAPH_ERROR_INVALID_ARGUMENT, std::move(status.message));
  case Code::NotSupported:
    return Status(GRAPH_ERROR_NOT_SUPPORTED, std::move(status.message));
  case Code::Execution:
    break;
  }
  return Status(GRAPH_ERROR_EXECUTION, std::move(status.message));
}
#endif

Status CompiledGraph::execute(GraphDevice device,
                              const std::vector<Buffer> &buffers) {
  if (!impl)
    return emptyGraph("execute");
#ifndef GRAPH_HAVE_GPU_RUNTIME
  if (device == GRAPH_DEVICE_GPU)
    return Status(GRAPH_ERROR_NO_DEVICE,
                  "GRAPH_DEVICE_GPU: the GPU runtime is not linked into this "
                  "build; execute on GRAPH_DEVICE_CPU");
#endif
  if (device != GRAPH_DEVICE_CPU && device != GRAPH_DEVICE_GPU)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  "execute: unknown device " +
                      std::to_string(static_cast<int>(device)));

  std::lock_guard<std::mutex> lock(impl->compiler->mutex);
#ifdef GRAPH_HAVE_GPU_RUNTIME
  // The caller's current CUDA device is theirs: restored on return (a
  // thread that had none keeps the device's, as the frontend leaves it).
  std::optional<::graph::rt::CallerContext> keep;
  if (device == GRAPH_DEVICE_GPU) {
    keep.emplace(/*keepIfNone=*/true);
    ::graph::rt::releaseCapturedOwners();
  }
  // The hot path: the same buffers as last time, other data pointers.
  if (device == GRAPH_DEVICE_GPU) {
    llvm::SmallVector<mlir::graph::PackBuffer, 8> pack = packOf(buffers);
    if (impl->gpu.repeats(impl->selected, pack))
      return capi::fromSession(impl->gpu.runRepeated(pack));
  }
  // Past the hot path an execute may set the graph up (allocations, module
  // loads): allowed inside the caller's CUDA graph capture.
  std::optional<::graph::rt::RelaxedCaptureMode> relaxed;
  if (device == GRAPH_DEVICE_GPU)
    relaxed.emplace();
#endif
  GraphOp graph = impl->graph();
  std::string graphName = "graph @" + impl->selected;
  std::vector<TensorDesc> ins, outs;
  if (impl->artifact) {
    graphName = "exec.program @" + impl->selected;
    if (device == GRAPH_DEVICE_CPU)
      return Status(
          GRAPH_ERROR_NOT_SUPPORTED,
          "GRAPH_DEVICE_CPU: " + graphName +
              " is a compiled artifact that runs only on the GPU "
              "(GRAPH_DEVICE_GPU); the CPU reference runs graph.graph "
              "modules");
#ifdef GRAPH_HAVE_GPU_RUNTIME
    // A missing GPU is the answer before any buffer question.
    std::string why;
    if (!::graph::rt::Device::get(why))
      return Status(GRAPH_ERROR_NO_DEVICE,
                    "GRAPH_DEVICE_GPU: " + graphName +
                        " runs only on the GPU and the GPU device is not "
                        "available: " +
                        why);
#endif
    if (Status s = describeProgram(impl->program(), true, ins); !s)
      return s;
    if (Status s = describeProgram(impl->program(), false, outs); !s)
      return s;
  } else {
    if (Status s = describeInputs(graph, ins); !s)
      return s;
    if (Status s = describeOutputs(graph, outs); !s)
      return s;
  }

  auto uidList = [&]() {
    std::string text;
    auto add = [&](const char *kind, const std::vector<TensorDesc> &descs) {
      text += text.empty() ? "" : "; ";
      text += kind;
      for (size_t i = 0; i < descs.size(); ++i) {
        text += (i ? ", " : " ") +
                (descs[i].uid ? std::to_string(*descs[i].uid) : "none");
        if (!descs[i].name.empty())
          text += " \"" + descs[i].name + "\"";
      }
      if (descs.empty())
        text += " none";
    };
    add("inputs", ins);
    add("outputs", outs);
    return text;
  };

  // Every tensor needs a uid to be bound.
  for (size_t i = 0; i < ins.size(); ++i)
    if (!ins[i].uid)
      return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                    who("input", i, ins[i]) + " of " + graphName +
                        " has no uid: run prepare (graphModulePrepare) "
                        "before execute");
  for (size_t i = 0; i < outs.size(); ++i)
    if (!outs[i].uid)
      return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                    who("output", i, outs[i]) + " of " + graphName +
                        " has no uid: run prepare (graphModulePrepare) "
                        "before execute");

  // Match buffers to tensors by uid: no unknown uid, no duplicate.
  std::map<int64_t, size_t> byUid;
  for (size_t j = 0; j < buffers.size(); ++j) {
    const Buffer &b = buffers[j];
    ref::DType unused;
    if (!toRefDType(b.dtype, unused))
      return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                    "buffer " + std::to_string(j) + " (uid " +
                        std::to_string(b.uid) + ") has an unknown dtype " +
                        std::to_string(static_cast<int>(b.dtype)));
    auto known = [&](const std::vector<TensorDesc> &descs) {
      for (const TensorDesc &d : descs)
        if (d.uid == b.uid)
          return true;
      return false;
    };
    if (!known(ins) && !known(outs))
      return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                    "buffer " + std::to_string(j) + ": no input or output of " +
                        graphName + " has uid " + std::to_string(b.uid) +
                        " (its uids: " + uidList() + ")");
    auto [it, inserted] = byUid.emplace(b.uid, j);
    if (!inserted)
      return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                    "buffers " + std::to_string(it->second) + " and " +
                        std::to_string(j) + " both have uid " +
                        std::to_string(b.uid) +
                        ": every input and output takes exactly one buffer");
  }

  auto bindAll = [&](const char *kind, const std::vector<TensorDesc> &descs,
                     std::vector<Binding> &bindings) -> Status {
    bindings.resize(descs.size());
    for (size_t i = 0; i < descs.size(); ++i) {
      auto it = byUid.find(*descs[i].uid);
      if (it == byUid.end())
        return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                      who(kind, i, descs[i]) + " of " + graphName +
                          " has no buffer; the graph expects " +
                          dtypeText(descs[i].dtype) + " " +
                          dimsMessageText(descs[i].dims));
      if (Status s =
              bindBuffer(kind, i, descs[i], buffers[it->second], bindings[i]);
          !s)
        return s;
    }
    return Status();
  };
  std::vector<Binding> inBindings, outBindings;
  if (Status s = bindAll("input", ins, inBindings); !s)
    return s;
  if (Status s = bindAll("output", outs, outBindings); !s)
    return s;

#ifdef GRAPH_HAVE_GPU_RUNTIME
  if (device == GRAPH_DEVICE_GPU)
    return executeOnDevice(*impl, buffers, ins, outs, inBindings, outBindings);
#endif

  // Copy the inputs into dense host tensors.
  std::vector<ref::HostTensor> hostInputs;
  hostInputs.reserve(ins.size());
  for (size_t i = 0; i < ins.size(); ++i) {
    const Buffer &b = *inBindings[i].buffer;
    ref::DType dtype;
    (void)toRefDType(b.dtype, dtype);
    ref::HostTensor tensor = ref::HostTensor::zeros(dtype, b.dims);
    tensor.strides = ref::rowMajorStrides(b.dims);
    copyStrided(static_cast<const uint8_t *>(b.data), inBindings[i].strides,
                tensor.bytes.data(), tensor.strides, b.dims,
                ref::byteWidth(dtype));
    hostInputs.push_back(std::move(tensor));
  }

  std::vector<ref::HostTensor> results;
  std::string error = ref::execute(graph, hostInputs, results);
  if (!error.empty()) {
    bool unsupported =
        error.find("has no CPU reference implementation") != std::string::npos;
    return Status(unsupported ? GRAPH_ERROR_NOT_SUPPORTED
                              : GRAPH_ERROR_EXECUTION,
                  graphName + ": " + error);
  }
  if (results.size() != outs.size())
    return Status(GRAPH_ERROR_EXECUTION,
                  graphName + ": the reference executor returned " +
                      std::to_string(results.size()) + " outputs for " +
                      std::to_string(outs.size()));

  // Check every output's computed dims before writing any.
  for (size_t i = 0; i < outs.size(); ++i) {
    const Buffer &b = *outBindings[i].buffer;
    if (results[i].shape != b.dims)
      return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                    who("output", i, outs[i]) + ": the graph computed dims " +
                        dimsMessageText(results[i].shape) +
                        " but the buffer has " + dimsMessageText(b.dims));
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    const Buffer &b = *outBindings[i].buffer;
    const ref::HostTensor &result = results[i];
    std::vector<int64_t> srcStrides = result.strides.empty()
                                          ? ref::rowMajorStrides(result.shape)
                                          : result.strides;
    // A ragged output writes its packed positions only: the buffer's gaps
    // between batches keep what the caller had there, as on the GPU.
    copyStrided(result.bytes.data(), srcStrides, static_cast<uint8_t *>(b.data),
                outBindings[i].strides, b.dims, ref::byteWidth(result.dtype),
                &result.written);
  }
  return Status();
}

//===----------------------------------------------------------------------===//
// GPU device
//===----------------------------------------------------------------------===//

::graph::Status(::graph::setGpuStream)(void *stream) {
#ifdef GRAPH_HAVE_GPU_RUNTIME
  std::string error;
  ::graph::rt::CallerContext keep;
  // A device's first use creates its cuDNN handle and stream.
  ::graph::rt::RelaxedCaptureMode relaxed;
  ::graph::rt::releaseCapturedOwners();
  ::graph::rt::Device *device = ::graph::rt::Device::get(error);
  if (!device)
    return Status(GRAPH_ERROR_NO_DEVICE,
                  "setting the stream: the GPU device is not available: " +
                      error);
  if (std::string e = device->setStream(stream); !e.empty())
    return Status(GRAPH_ERROR_EXECUTION, "setting the stream: " + e);
  return Status();
#else
  (void)stream;
  return Status(GRAPH_ERROR_NO_DEVICE,
                "setting the stream: the GPU runtime is not linked into this "
                "build");
#endif
}

::graph::Status(::graph::setGpuWorkspace)(void *memory, int64_t bytes) {
  if (memory && bytes < 0)
    return Status(GRAPH_ERROR_INVALID_ARGUMENT,
                  "lending a workspace: " + std::to_string(bytes) +
                      " bytes is not a size");
#ifdef GRAPH_HAVE_GPU_RUNTIME
  mlir::graph::lendGpuWorkspace(memory, bytes);
  return Status();
#else
  if (!memory)
    return Status();
  return Status(GRAPH_ERROR_NO_DEVICE,
                "lending a workspace: the GPU runtime is not linked into this "
                "build");
#endif
}

::graph::Status(::graph::setGpuDevice)(int ordinal) {
#ifdef GRAPH_HAVE_GPU_RUNTIME
  if (std::string error = ::graph::rt::Device::select(ordinal); !error.empty())
    return Status(error.find("does not exist") != std::string::npos ||
                          error.find("is not valid") != std::string::npos
                      ? GRAPH_ERROR_INVALID_ARGUMENT
                      : GRAPH_ERROR_NO_DEVICE,
                  "selecting the GPU: " + error);
  return Status();
#else
  if (ordinal == -1)
    return Status();
  return Status(GRAPH_ERROR_NO_DEVICE,
                "selecting GPU " + std::to_string(ordinal) +
                    ": the GPU runtime is not linked into this build");
#endif
}

::graph::Status(::graph::gpuDevice)(int &ordinal) {
#ifdef GRAPH_HAVE_GPU_RUNTIME
  std::string error;
  ordinal = ::graph::rt::Device::current(error);
  if (ordinal < 0)
    return Status(GRAPH_ERROR_NO_DEVICE,
                  "the current GPU: the GPU device is not available: " + error);
  return Status();
#else
  ordinal = -1;
  return Status(GRAPH_ERROR_NO_DEVICE,
                "the current GPU: the GPU runtime is not linked into this "
                "build");
#endif
}

::graph::Status(::graph::gpuDeviceCount)(int &count) {
#ifdef GRAPH_HAVE_GPU_RUNTIME
  std::string error;
  count = ::graph::rt::Device::count(error);
  if (count < 0) {
    count = 0;
    return Status(GRAPH_ERROR_NO_DEVICE,
                  "counting the GPUs: the GPU runtime is not available: " +
                      error);
  }
  return Status();
#else
  count = 0;
  return Status(GRAPH_ERROR_NO_DEVICE,
                "counting the GPUs: the GPU runtime is not linked into this "
                "build");
#endif
}
