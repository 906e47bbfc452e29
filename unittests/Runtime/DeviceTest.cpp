//===- DeviceTest.cpp - Per-device runtime and memory checks --------------===//
//
// Runs on any machine: the memory messages are pure functions, and the
// per-device logic runs against FakeCuda.cpp's driver and cuDNN stand-ins
// (two devices, 1 GiB each), opened through GRAPH_LIBCUDA / GRAPH_LIBCUDNN.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Runtime/Device.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace graph::rt;

namespace {

// Before any test: the runtime opens the fakes, never a real driver.
struct UseFakes {
  UseFakes() {
    setenv("GRAPH_LIBCUDA", FAKE_LIBCUDA, 1);
    setenv("GRAPH_LIBCUDNN", FAKE_LIBCUDNN, 1);
    setenv("FAKE_CUDA_DEVICES", "2", 1);
    setenv("FAKE_CUDA_TOTAL_BYTES", "1073741824", 1);
    unsetenv("CUDA_VISIBLE_DEVICES");
    unsetenv("GRAPH_TEST_GPU_FREE_BYTES");
  }
} useFakes;

template <typename Fn> Fn fakeSymbol(const char *library, const char *name) {
  void *lib = dlopen(library, RTLD_NOW | RTLD_NOLOAD);
  return lib ? reinterpret_cast<Fn>(dlsym(lib, name)) : nullptr;
}

int fakeCurrentDevice() {
  auto fn = fakeSymbol<int (*)()>(FAKE_LIBCUDA, "fakeCudaCurrentDevice");
  return fn ? fn() : -2;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

} // namespace

//===----------------------------------------------------------------------===//
// Messages (no driver)
//===----------------------------------------------------------------------===//

TEST(DeviceMemoryMessage, FitsIsEmpty) {
  DeviceMemory memory{1000, 4000};
  EXPECT_EQ(memoryShortage("tensor uid 1", 1000, memory, 0), "");
  EXPECT_EQ(memoryShortage("tensor uid 1", 0, memory, 0), "");
}

TEST(DeviceMemoryMessage, ShortageNamesWhatBytesAndFree) {
  DeviceMemory memory{1048576, uint64_t(140) << 30};
  std::string message =
      memoryShortage("tensor uid 5 ('x')", uint64_t(40) << 30, memory, 1);
  EXPECT_EQ(message,
            "GPU 1: tensor uid 5 ('x') needs 42949672960 bytes (40.0 GiB), "
            "more than the device has free (1048576 bytes (1.0 MiB) free of "
            "150323855360 bytes (140.0 GiB))");
  // One byte over is a shortage too.
  EXPECT_NE(memoryShortage("the workspace of group 'g0'", 1001,
                           DeviceMemory{1000, 2000}, 0),
            "");
}

TEST(DeviceMemoryMessage, TotalOfSeveralNamesTheLargest) {
  DeviceMemory memory{100, 1000};
  std::vector<MemoryNeed> needs = {{"tensor uid 1", 30},
                                   {"tensor uid 2", 50},
                                   {"the workspace of group 'g'", 40},
                                   {"tensor uid 3", 10}};
  std::string message =
      memoryShortage("the intermediates of graph @g", needs, memory, 0, 2);
  EXPECT_EQ(message, "GPU 0: the intermediates of graph @g (4 buffers) need "
                     "130 bytes, more than the device has free (100 bytes "
                     "free of 1000 bytes); largest: tensor uid 2 50 bytes, "
                     "the workspace of group 'g' 40 bytes, ...");
  needs.pop_back();
  needs.pop_back();
  EXPECT_EQ(memoryShortage("x", needs, memory, 0), "");
}

TEST(DeviceMemoryMessage, TotalSaturatesInsteadOfWrapping) {
  // 2^63 + 2^63 wraps to 0 in 64 bits: it must still be a shortage.
  std::vector<MemoryNeed> needs = {{"tensor uid 1", uint64_t(1) << 63},
                                   {"tensor uid 2", uint64_t(1) << 63}};
  std::string message =
      memoryShortage("the buffers", needs, DeviceMemory{100, 1000}, 0);
  EXPECT_TRUE(contains(message, "need more than 18446744073709551615 bytes"))
      << message;
}

TEST(DeviceMemoryMessage, FormatBytes) {
  EXPECT_EQ(formatBytes(0), "0 bytes");
  EXPECT_EQ(formatBytes(1023), "1023 bytes");
  EXPECT_EQ(formatBytes(1536), "1536 bytes (1.5 KiB)");
  EXPECT_EQ(formatBytes(UINT64_MAX), "18446744073709551615 bytes (16.0 EiB)");
}

//===----------------------------------------------------------------------===//
// Devices (fake driver)
//===----------------------------------------------------------------------===//

TEST(Devices, CountAndOneDevicePerOrdinal) {
  std::string error;
  ASSERT_EQ(Device::count(error), 2) << error;
  Device *first = Device::get(0, error);
  ASSERT_NE(first, nullptr) << error;
  Device *second = Device::get(1, error);
  ASSERT_NE(second, nullptr) << error;
  EXPECT_NE(first, second);
  EXPECT_EQ(first->ordinal(), 0);
  EXPECT_EQ(second->ordinal(), 1);
  EXPECT_EQ(Device::get(1, error), second);
  // Each cuDNN handle was created with its own device current.
  auto handleDevice =
      fakeSymbol<int (*)(void *)>(FAKE_LIBCUDNN, "fakeCudnnHandleDevice");
  ASSERT_NE(handleDevice, nullptr);
  EXPECT_EQ(handleDevice(first->cudnnHandle()), 0);
  EXPECT_EQ(handleDevice(second->cudnnHandle()), 1);
  // get makes the device's context current.
  Device::get(0, error);
  EXPECT_EQ(fakeCurrentDevice(), 0);
  Device::get(1, error);
  EXPECT_EQ(fakeCurrentDevice(), 1);
}

// Threads that finalize plans at once each get a cuDNN handle of the device
// (cuDNN allows threads on distinct handles only): the device's own first,
// the others made once with that device current, on its own stream.
TEST(Devices, BuildHandlesAreTheDevicesAndMadeOnce) {
  std::string error;
  Device *second = Device::get(1, error);
  ASSERT_NE(second, nullptr) << error;
  ASSERT_NE(Device::get(0, error), nullptr) << error; // another is current
  auto handleDevice =
      fakeSymbol<int (*)(void *)>(FAKE_LIBCUDNN, "fakeCudnnHandleDevice");
  auto handleStream =
      fakeSymbol<void *(*)(void *)>(FAKE_LIBCUDNN, "fakeCudnnHandleStream");
  ASSERT_TRUE(handleDevice && handleStream);
  std::vector<void *> handles;
  ASSERT_EQ(second->buildHandles(3, handles), "");
  ASSERT_EQ(handles.size(), 3u);
  EXPECT_EQ(handles[0], second->cudnnHandle());
  EXPECT_NE(handles[1], handles[0]);
  EXPECT_NE(handles[2], handles[1]);
  EXPECT_NE(handles[2], handles[0]);
  for (void *handle : handles) {
    EXPECT_EQ(handleDevice(handle), 1);
    EXPECT_EQ(handleStream(handle), second->stream());
  }
  std::vector<void *> again;
  ASSERT_EQ(second->buildHandles(2, again), "");
  EXPECT_EQ(again, std::vector<void *>(handles.begin(), handles.begin() + 2));
  ASSERT_EQ(second->buildHandles(1, again), "");
  EXPECT_EQ(again, std::vector<void *>{second->cudnnHandle()});

  // A handle that cannot be made: the error names the device and the
  // thread, and the handles made before are still handed out (fewer
  // threads build); a later ask makes the rest.
  auto failCreates =
      fakeSymbol<void (*)(int)>(FAKE_LIBCUDNN, "fakeCudnnFailCreates");
  ASSERT_NE(failCreates, nullptr);
  failCreates(1);
  std::vector<void *> fewer;
  std::string why = second->buildHandles(5, fewer);
  EXPECT_TRUE(contains(why, "GPU 1: cudnnCreate for plan build thread 3"))
      << why;
  EXPECT_EQ(fewer, handles);
  std::vector<void *> all;
  ASSERT_EQ(second->buildHandles(5, all), "");
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(std::vector<void *>(all.begin(), all.begin() + 3), handles);
}

TEST(Devices, MissingOrdinalIsNamed) {
  std::string error;
  EXPECT_EQ(Device::get(2, error), nullptr);
  EXPECT_EQ(error, "GPU device 2 does not exist: this machine has 2 CUDA "
                   "devices (ordinals 0-1)");
  error.clear();
  EXPECT_EQ(Device::get(-3, error), nullptr);
  EXPECT_EQ(error, "GPU device ordinal -3 is not valid (ordinals start at 0)");
  // The same answer again (the entry is kept).
  std::string again;
  EXPECT_EQ(Device::get(2, again), nullptr);
  EXPECT_TRUE(contains(again, "GPU device 2 does not exist")) << again;
}

TEST(Devices, SelectionIsPerThread) {
  ASSERT_EQ(Device::select(1), "");
  EXPECT_EQ(Device::selected(), 1);
  std::string error;
  Device *device = Device::get(error);
  ASSERT_NE(device, nullptr) << error;
  EXPECT_EQ(device->ordinal(), 1);
  // Another thread has its own (no) selection.
  int other = -2;
  std::thread([&] { other = Device::selected(); }).join();
  EXPECT_EQ(other, -1);
  // A bad ordinal leaves the selection as it was.
  std::string why = Device::select(7);
  EXPECT_EQ(why, "GPU device 7 does not exist: this machine has 2 CUDA "
                 "devices (ordinals 0-1)");
  EXPECT_EQ(Device::selected(), 1);
  setenv("CUDA_VISIBLE_DEVICES", "2,3", 1);
  why = Device::select(9);
  unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_TRUE(contains(why, "(ordinals 0-1) (CUDA_VISIBLE_DEVICES=2,3)"))
      << why;
  EXPECT_EQ(Device::select(-1), "");
  EXPECT_EQ(Device::selected(), -1);
}

TEST(Devices, WithoutSelectionFollowsTheCurrentContext) {
  ASSERT_EQ(Device::select(-1), "");
  std::string error;
  // The caller made device 1 current (as cudaSetDevice(1) would).
  ASSERT_NE(Device::get(1, error), nullptr) << error;
  EXPECT_EQ(Device::current(error), 1);
  EXPECT_EQ(Device::get(error)->ordinal(), 1);
  ASSERT_NE(Device::get(0, error), nullptr) << error;
  EXPECT_EQ(Device::current(error), 0);
  // A thread with no current context gets device 0.
  int fresh = -2;
  std::thread([&] {
    std::string e;
    fresh = Device::current(e);
  }).join();
  EXPECT_EQ(fresh, 0);
}

TEST(Devices, CallerContextIsRestored) {
  std::string error;
  ASSERT_NE(Device::get(0, error), nullptr) << error;
  ASSERT_EQ(fakeCurrentDevice(), 0);
  {
    CallerContext keep;
    Device *device = Device::get(1, error);
    ASSERT_NE(device, nullptr) << error;
    void *p = device->alloc(64, "tensor uid 1", error);
    ASSERT_NE(p, nullptr) << error;
    device->free(p);
    EXPECT_EQ(fakeCurrentDevice(), 1);
  }
  EXPECT_EQ(fakeCurrentDevice(), 0);
}

TEST(Devices, BuffersLiveOnTheirDevice) {
  std::string error;
  Device *first = Device::get(0, error);
  Device *second = Device::get(1, error);
  ASSERT_TRUE(first && second) << error;
  void *a = first->alloc(256, "tensor uid 1", error);
  void *b = second->alloc(256, "tensor uid 2", error);
  ASSERT_TRUE(a && b) << error;
  EXPECT_EQ(first->pointerOrdinal(a), 0);
  EXPECT_EQ(first->pointerOrdinal(b), 1);
  EXPECT_EQ(second->pointerOrdinal(static_cast<char *>(b) + 100), 1);
  int host = 0;
  EXPECT_EQ(first->pointerOrdinal(&host), -1);
  EXPECT_EQ(first->pointerOrdinal(nullptr), -1);
  // Each device's memory is its own.
  DeviceMemory before, after;
  ASSERT_EQ(second->memory(before), "");
  void *c = first->alloc(1 << 20, "tensor uid 3", error);
  ASSERT_NE(c, nullptr) << error;
  ASSERT_EQ(second->memory(after), "");
  EXPECT_EQ(before.freeBytes, after.freeBytes);
  first->free(a);
  first->free(c);
  second->free(b);
}

TEST(Devices, AllocationOverFreeMemoryNamesWhatAndBytes) {
  std::string error;
  Device *device = Device::get(1, error);
  ASSERT_NE(device, nullptr) << error;
  void *p = device->alloc(size_t(2) << 30, "tensor uid 9 ('big')", error);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(error, "GPU 1: tensor uid 9 ('big') needs 2147483648 bytes (2.0 "
                   "GiB), more than the device has free (1073741824 bytes "
                   "(1.0 GiB) free of 1073741824 bytes (1.0 GiB))");
  // Without a name the message still has the numbers.
  error.clear();
  EXPECT_EQ(device->alloc(size_t(2) << 30, error), nullptr);
  EXPECT_TRUE(contains(error, "GPU 1: an allocation needs 2147483648 bytes"))
      << error;
}

TEST(Devices, TestFreeBytesCapsTheFreeMemory) {
  std::string error;
  Device *device = Device::get(0, error);
  ASSERT_NE(device, nullptr) << error;
  setenv("GRAPH_TEST_GPU_FREE_BYTES", "4096", 1);
  void *p = device->alloc(8192, "the workspace of group 'g0'", error);
  DeviceMemory memory;
  std::string memoryError = device->memory(memory);
  unsetenv("GRAPH_TEST_GPU_FREE_BYTES");
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(error, "GPU 0: the workspace of group 'g0' needs 8192 bytes (8.0 "
                   "KiB), more than the device has free (4096 bytes (4.0 KiB) "
                   "free of 1073741824 bytes (1.0 GiB))");
  EXPECT_EQ(memoryError, "");
  EXPECT_EQ(memory.freeBytes, 4096u);
  // Unset again: the same size fits.
  error.clear();
  p = device->alloc(8192, "the workspace of group 'g0'", error);
  EXPECT_NE(p, nullptr) << error;
  device->free(p);
}

TEST(Devices, StreamOfAnotherDeviceIsRefused) {
  std::string error;
  Device *first = Device::get(0, error);
  Device *second = Device::get(1, error);
  ASSERT_TRUE(first && second) << error;
  std::string why = second->setStream(first->stream());
  EXPECT_TRUE(contains(why, "GPU 1: the stream belongs to another CUDA "
                            "context"))
      << why;
  EXPECT_FALSE(second->hasCallerStream());
  // Its own stream, and back to the own one, are fine.
  void *own = second->stream();
  EXPECT_EQ(second->setStream(own), "");
  EXPECT_EQ(second->setStream(nullptr), "");
  EXPECT_FALSE(second->hasCallerStream());
}

TEST(Devices, RelaxedCaptureModeLetsSetUpAndTearDownRunDuringACapture) {
  constexpr int kRelaxed = 2; // CU_STREAM_CAPTURE_MODE_RELAXED
  auto setCapture =
      fakeSymbol<void (*)(int)>(FAKE_LIBCUDA, "fakeCudaSetGlobalCapture");
  auto captureMode = fakeSymbol<int (*)()>(FAKE_LIBCUDA, "fakeCudaCaptureMode");
  std::string error;
  Device *device = Device::get(0, error);
  ASSERT_NE(device, nullptr) << error;
  ASSERT_TRUE(setCapture && captureMode);
  void *before = device->alloc(64, "tensor uid 1", error);
  ASSERT_NE(before, nullptr) << error;
  DeviceMemory start;
  ASSERT_EQ(device->memory(start), "");
  int callerMode = captureMode();
  ASSERT_NE(callerMode, kRelaxed);

  setCapture(1); // someone captures in global mode from here on
  // Outside the scope the driver refuses the allocation, as a real capture
  // in global mode does.
  EXPECT_EQ(device->alloc(64, "tensor uid 2", error), nullptr);
  EXPECT_TRUE(contains(error, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"))
      << error;
  void *during = nullptr;
  {
    RelaxedCaptureMode relaxed;
    EXPECT_EQ(captureMode(), kRelaxed);
    during = device->alloc(64, "tensor uid 3", error);
    EXPECT_NE(during, nullptr) << error;
    device->free(before); // a teardown during the capture
    before = nullptr;
  }
  // The caller's own mode is back.
  EXPECT_EQ(captureMode(), callerMode);
  setCapture(0);
  // One block freed, one allocated inside the scope.
  DeviceMemory end;
  ASSERT_EQ(device->memory(end), "");
  EXPECT_EQ(end.freeBytes, start.freeBytes);
  device->free(during);
}

TEST(Devices, ACapturedProgramLivesAsLongAsItsCudaGraph) {
  auto setCapturing =
      fakeSymbol<void (*)(int)>(FAKE_LIBCUDA, "fakeCudaSetCapturing");
  auto destroyGraph =
      fakeSymbol<void (*)()>(FAKE_LIBCUDA, "fakeCudaDestroyCapturedGraph");
  auto held = fakeSymbol<int (*)()>(FAKE_LIBCUDA, "fakeCudaCapturedObjects");
  ASSERT_TRUE(setCapturing && destroyGraph && held);
  std::string error;
  Device *device = Device::get(0, error);
  ASSERT_NE(device, nullptr) << error;
  bool released = false;
  auto program = std::shared_ptr<int>(new int(7), [&](int *p) {
    released = true;
    delete p;
  });

  // Not capturing: nothing holds the program.
  EXPECT_FALSE(device->isCapturing());
  EXPECT_EQ(device->keepWhileCaptured(program), "");
  EXPECT_EQ(held(), 0);
  EXPECT_EQ(program.use_count(), 1);

  setCapturing(1);
  EXPECT_TRUE(device->isCapturing());
  EXPECT_EQ(device->keepWhileCaptured(program), "");
  setCapturing(0);
  EXPECT_EQ(held(), 1);
  program.reset(); // the program's session is dropped before its graph
  EXPECT_FALSE(released);
  releaseCapturedOwners(); // its graph still exists: nothing to release
  EXPECT_FALSE(released);
  // The driver destroys the graph on its own thread, where no CUDA call is
  // allowed: the program is only queued there.
  destroyGraph();
  EXPECT_FALSE(released);
  releaseCapturedOwners(); // the next entry point of the library
  EXPECT_TRUE(released);
}

TEST(Devices, RecordRunsTheBodyOnAPrivateCaptureStream) {
  auto recordingStream =
      fakeSymbol<void *(*)()>(FAKE_LIBCUDA, "fakeCudaRecordingStream");
  auto failNext =
      fakeSymbol<void (*)()>(FAKE_LIBCUDA, "fakeCudaFailNextRecording");
  auto counts = fakeSymbol<void (*)(int *, int *, int *, void **)>(
      FAKE_LIBCUDA, "fakeCudaGraphCounts");
  auto handleStream =
      fakeSymbol<void *(*)(void *)>(FAKE_LIBCUDNN, "fakeCudnnHandleStream");
  ASSERT_TRUE(recordingStream && failNext && counts && handleStream);
  std::string error;
  Device *device = Device::get(0, error);
  ASSERT_NE(device, nullptr) << error;
  void *callers = device->stream();
  int live = 0, updates = 0, launches = 0;
  void *launchedOn = nullptr;
  counts(&live, &updates, &launches, &launchedOn);
  int liveBefore = live, updatesBefore = updates, launchesBefore = launches;

  // The body queues on a stream being recorded, not on the caller's, and
  // cuDNN's handle goes with it; both come back afterwards.
  std::unique_ptr<RecordedWork> recorded;
  auto captureMode = fakeSymbol<int (*)()>(FAKE_LIBCUDA, "fakeCudaCaptureMode");
  ASSERT_TRUE(captureMode);
  int callersMode = captureMode(), modeInside = -1;
  void *seen = nullptr, *seenByCudnn = nullptr, *seenRecording = nullptr;
  EXPECT_EQ(device->record(
                [&] {
                  seen = device->stream();
                  seenByCudnn = handleStream(device->cudnnHandle());
                  seenRecording = recordingStream();
                  modeInside = captureMode();
                  return std::string();
                },
                recorded),
            "");
  // The thread records in thread-local mode (1), its own mode comes back.
  EXPECT_EQ(modeInside, 1);
  EXPECT_EQ(captureMode(), callersMode);
  ASSERT_NE(recorded, nullptr);
  EXPECT_NE(seen, callers);
  EXPECT_EQ(seenByCudnn, seen);
  EXPECT_EQ(seenRecording, seen);
  EXPECT_EQ(device->stream(), callers);
  EXPECT_EQ(handleStream(device->cudnnHandle()), callers);
  EXPECT_EQ(recordingStream(), nullptr);
  counts(&live, &updates, &launches, &launchedOn);
  EXPECT_EQ(live, liveBefore + 1);

  // A replay launches on the caller's stream.
  EXPECT_EQ(device->replay(*recorded), "");
  counts(&live, &updates, &launches, &launchedOn);
  EXPECT_EQ(launches, launchesBefore + 1);
  EXPECT_EQ(launchedOn, callers);

  // Recording again updates the executable graph in place.
  RecordedWork *first = recorded.get();
  EXPECT_EQ(device->record([] { return std::string(); }, recorded), "");
  counts(&live, &updates, &launches, &launchedOn);
  EXPECT_EQ(recorded.get(), first);
  EXPECT_EQ(live, liveBefore + 1);
  EXPECT_EQ(updates, updatesBefore + 1);

  // The body's error is the answer; the capture ends and the stream is back.
  EXPECT_EQ(device->record([] { return std::string("group 'g1': refused"); },
                           recorded),
            "group 'g1': refused");
  EXPECT_EQ(recordingStream(), nullptr);
  EXPECT_EQ(device->stream(), callers);
  EXPECT_EQ(handleStream(device->cudnnHandle()), callers);

  // A body that throws: the capture ends and the stream comes back too.
  EXPECT_THROW(
      device->record([]() -> std::string { throw std::runtime_error("boom"); },
                     recorded),
      std::runtime_error);
  EXPECT_EQ(recordingStream(), nullptr);
  EXPECT_EQ(device->stream(), callers);
  EXPECT_EQ(handleStream(device->cudnnHandle()), callers);
  EXPECT_EQ(captureMode(), callersMode);

  // A recording the driver invalidated (a wait inside the body) is named.
  failNext();
  std::string why = device->record([] { return std::string(); }, recorded);
  EXPECT_TRUE(contains(why, "GPU 0: cuStreamEndCapture failed")) << why;
  EXPECT_EQ(device->stream(), callers);
  recorded.reset();
  counts(&live, &updates, &launches, &launchedOn);
  EXPECT_EQ(live, liveBefore);
}
