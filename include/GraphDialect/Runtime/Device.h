//===- Device.h - One GPU: context, stream, cuDNN handle, memory -*- C++
//-*-===//
//
// The runtime's view of the GPUs of the process. Each CUDA device ordinal
// gets its own Device: the primary context of that device, a stream of its
// own (or the caller's), a cuDNN handle bound to it, and its memory. The
// device a call runs on is chosen per thread: explicitly (Device::select, as
// graph-run --gpu-device, graphSetDevice and the Python handles do) or, when
// nothing was selected, the device of the CUDA context current on the
// calling thread (what cudaSetDevice / torch.cuda.set_device chose), like a
// cuDNN handle that binds to the device current at its creation.
//
// Every allocation is checked against the device's free memory first, so an
// oversized tensor or workspace is a message with the bytes needed and the
// bytes free, never a raw CUDA out-of-memory error.
//
// CUDA and cuDNN are opened with dlopen on first use; no MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_RUNTIME_DEVICE_H
#define GRAPHDIALECT_RUNTIME_DEVICE_H

#include "GraphDialect/Runtime/DeviceLimits.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace graph::rt {

/// A device's memory as cuMemGetInfo reports it.
struct DeviceMemory {
  uint64_t freeBytes = 0;
  uint64_t totalBytes = 0;
};

/// "40000000000 bytes (37.3 GiB)".
std::string formatBytes(uint64_t bytes);

/// Whether `bytes` for `what` (e.g. "tensor uid 5 ('x')", "the workspace of
/// group 'g0'") fit in the free memory of GPU `ordinal`: "" when they do,
/// else "GPU 0: <what> needs N bytes (..), only M bytes (..) are free (of T
/// bytes (..))".
std::string memoryShortage(const std::string &what, uint64_t bytes,
                           const DeviceMemory &memory, int ordinal);

/// One of several allocations made together.
struct MemoryNeed {
  std::string what;
  uint64_t bytes = 0;
};

/// Whether `needs` fit together in the free memory of GPU `ordinal`: "" when
/// they do, else the total (saturating, never wrapping) against the free
/// bytes, with the largest needs named first (at most `named` of them).
std::string memoryShortage(const std::string &what,
                           const std::vector<MemoryNeed> &needs,
                           const DeviceMemory &memory, int ordinal,
                           size_t named = 3);

struct PlanRankings;

/// An executable CUDA graph of a device's work (Device::record); destroying
/// it lets work already launched finish.
class RecordedWork {
public:
  virtual ~RecordedWork() = default;
};

/// One CUDA device: its primary context, a stream, a cuDNN handle bound to
/// both, and its memory. Devices live as long as the process.
class Device {
public:
  /// The calling thread's device (see current); nullptr with `error` naming
  /// the missing library, the failing call or the ordinal that does not
  /// exist. Makes the device's context current on the calling thread.
  static Device *get(std::string &error);
  /// The device of CUDA ordinal `ordinal`, opened on first use; nullptr and
  /// "GPU device 3 does not exist: this machine has 2 CUDA devices (0-1)"
  /// for an ordinal out of range. Makes its context current.
  static Device *get(int ordinal, std::string &error);
  /// The number of CUDA devices the driver sees; -1 and `error` without a
  /// driver.
  static int count(std::string &error);
  /// Selects the device `get(error)` returns on the calling thread; -1
  /// clears the selection (back to following the CUDA current device).
  /// Fails, naming the ordinal and the device count, for an ordinal that
  /// does not exist; the selection is then unchanged.
  static std::string select(int ordinal);
  /// The calling thread's device ordinal: the selected one, else the device
  /// of the CUDA context current on this thread, else 0. -1 and `error`
  /// without a driver.
  static int current(std::string &error);
  /// The thread's explicit selection, -1 when none.
  static int selected();

  virtual ~Device();

  /// The CUDA device ordinal.
  virtual int ordinal() const = 0;
  /// The launch limits codegen plans compile for, read once when the device
  /// opened (the H200's defaults stay where the driver cannot say).
  const DeviceLimits &limits() const { return deviceLimits; }
  /// "cuDNN 9.19.0, driver 13000, sm_90".
  virtual std::string version() const = 0;
  /// Makes this device's context current on the calling thread (cuDNN
  /// handles and kernel launches run in the current context).
  virtual std::string activate() = 0;
  /// Free and total bytes of the device. GRAPH_TEST_GPU_FREE_BYTES, when
  /// set to a number, caps the free bytes reported (to test the memory
  /// checks on a large GPU).
  virtual std::string memory(DeviceMemory &out) = 0;
  /// `bytes` of device memory for `what` (named in the error: "tensor uid
  /// 5", "the workspace of group 'g0'"); nullptr and an error with the bytes
  /// needed and free when they do not fit.
  virtual void *alloc(size_t bytes, const std::string &what,
                      std::string &error) = 0;
  void *alloc(size_t bytes, std::string &error) {
    return alloc(bytes, "", error);
  }
  virtual void free(void *pointer) = 0;
  virtual std::string copyToDevice(void *dst, const void *src,
                                   size_t bytes) = 0;
  virtual std::string copyToHost(void *dst, const void *src, size_t bytes) = 0;
  virtual std::string synchronize() = 0;
  /// Sets `bytes` bytes at `dst` to `value` (on the stream).
  virtual std::string memset(void *dst, unsigned char value, size_t bytes) = 0;
  /// The CUstream (a cudaStream_t) work is queued on.
  virtual void *stream() const = 0;
  /// Queues work on the caller's stream (e.g. PyTorch's current stream)
  /// instead of the device's own; nullptr goes back to the own stream. The
  /// stream must belong to this device.
  virtual std::string setStream(void *stream) = 0;
  /// Whether work goes to a stream the caller set.
  virtual bool hasCallerStream() const = 0;
  /// Whether the stream is being captured into a CUDA graph (e.g. inside
  /// torch.cuda.graph): then no call may wait for it or copy synchronously.
  virtual bool isCapturing() const = 0;
  /// While the stream is being captured into a CUDA graph: ties `owner` to
  /// that graph, so what the captured work reads and writes (a program's
  /// intermediates, workspaces, kernel modules) outlives the program that
  /// launched it until the graph and every executable graph made from it
  /// are destroyed. "" or why not (the capture then cannot be trusted).
  virtual std::string keepWhileCaptured(std::shared_ptr<void> owner) = 0;
  /// Records the work `body` queues on stream() into an executable CUDA
  /// graph instead of running it: while `body` runs, stream() (cuDNN's
  /// handle with it) is a private stream of the device in capture mode, so
  /// the caller's stream may be one no capture is allowed on (the legacy
  /// default stream). `recorded` is updated in place when it holds a graph
  /// the new one can update, else replaced. "" or why not: `body`'s error
  /// or the driver's (then nothing ran, `recorded` may be empty, and the
  /// stream is the caller's again either way).
  virtual std::string record(const std::function<std::string()> &body,
                             std::unique_ptr<RecordedWork> &recorded) = 0;
  /// Launches work `record` made on stream().
  virtual std::string replay(RecordedWork &recorded) = 0;
  /// Taken (re-entrantly, see DeviceUse) by an execute from its first
  /// launch to its last, and by setStream, time and record: the stream and
  /// cuDNN handle are the device's, so the work of two threads must not
  /// interleave on them (a recording would take in the other's launches).
  virtual void lockUse() = 0;
  virtual void unlockUse() = 0;
  /// The cudnnHandle_t, bound to stream().
  virtual void *cudnnHandle() const = 0;
  /// `count` cuDNN handles of this device for threads that finalize plans
  /// at once (cuDNN allows threads only on distinct handles): the first is
  /// cudnnHandle(), the others are made on first demand and live as long
  /// as the device, so plans built with them stay valid and execute on
  /// cudnnHandle(). "" or why not (then `handles` holds those made).
  virtual std::string buildHandles(unsigned count,
                                   std::vector<void *> &handles) = 0;
  /// Milliseconds `body` takes on the stream, measured with events.
  virtual std::string time(const std::function<std::string()> &body,
                           double &milliseconds) = 0;
  /// The ordinal of the device whose memory `pointer` is (device memory of
  /// any device of the process); -1 for host memory, managed memory and
  /// pointers the driver does not know.
  virtual int pointerOrdinal(const void *pointer) const = 0;

  /// The choices of plans ranked by time on this device, kept as long as
  /// the device (PlanRankings.h).
  PlanRankings &planRankings() { return *rankings; }

protected:
  Device();
  DeviceLimits deviceLimits;

private:
  std::unique_ptr<PlanRankings> rankings;
};

/// Holds a device's use (Device::lockUse) while it lives.
class DeviceUse {
public:
  explicit DeviceUse(Device &device) : device(device) { device.lockUse(); }
  ~DeviceUse() { device.unlockUse(); }
  DeviceUse(const DeviceUse &) = delete;
  DeviceUse &operator=(const DeviceUse &) = delete;

private:
  Device &device;
};

/// Keeps the CUDA context that was current on the calling thread when it
/// was made and makes it current again when it goes: an entry point of the
/// library that runs work on some device leaves the caller's current device
/// (e.g. torch.cuda.current_device()) as it found it. With `keepIfNone`
/// (an execute), a thread that had no current context keeps the one the
/// library made current, as after a first CUDA runtime call on that thread
/// (the frontend's execute on a fresh thread leaves the device's primary
/// context current). Does nothing when the driver cannot be loaded.
class CallerContext {
public:
  explicit CallerContext(bool keepIfNone = false);
  ~CallerContext();
  CallerContext(const CallerContext &) = delete;
  CallerContext &operator=(const CallerContext &) = delete;

private:
  void *context = nullptr;
  bool saved = false;
  bool keepIfNone = false;
};

/// Whether GRAPH_TRACE_RUNTIME is set (non-empty): the runtime then tells
/// on stderr when it loads kernels, waits for a stream or records an
/// execute.
bool tracingRuntime();

/// Releases the owners keepWhileCaptured tied to CUDA graphs that are gone.
/// The driver tells of a destroyed graph on its own thread, where no CUDA
/// call is allowed, so their release waits for the next entry point of the
/// library that may call CUDA (an execute, a plan call, a graph's teardown).
void releaseCapturedOwners();

/// While it lives, the calling thread may make the driver calls that a
/// CUDA graph capture in global mode forbids (allocating, freeing, loading
/// modules); the thread's own capture mode is restored when it goes. The
/// runtime sets a graph up at its first execute and tears it down when the
/// graph is destroyed, and either may happen while the caller captures (a
/// first execute inside torch.cuda.graph, a graph garbage-collected during
/// another stream's capture): in global mode those calls would fail and
/// invalidate the caller's capture. Does nothing before the driver is
/// loaded (no GPU state exists then) or when it lacks
/// cuThreadExchangeStreamCaptureMode.
class RelaxedCaptureMode {
public:
  RelaxedCaptureMode();
  ~RelaxedCaptureMode();
  RelaxedCaptureMode(const RelaxedCaptureMode &) = delete;
  RelaxedCaptureMode &operator=(const RelaxedCaptureMode &) = delete;

private:
  int previous = 0;
  bool exchanged = false;
};

} // namespace graph::rt

#endif // GRAPHDIALECT_RUNTIME_DEVICE_H
