//===- RuntimeNoGpuTest.cpp - The runtime without a driver ----------------===//

#include "GraphDialect/Runtime/CudnnGraph.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace graph::rt;

TEST(RuntimeNoGpu, MissingDriverIsAClearError) {
  // Point the loader at a library that cannot exist: Device::get must fail
  // with a message naming it, whatever this machine has installed.
  setenv("GRAPH_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  std::string error;
  Device *device = Device::get(error);
  EXPECT_EQ(device, nullptr);
  EXPECT_NE(error.find("the GPU runtime needs /nonexistent/libcuda.so.1 "
                       "(the NVIDIA driver)"),
            std::string::npos)
      << error;
  // Asking again gives the same answer.
  std::string again;
  EXPECT_EQ(Device::get(again), nullptr);
  EXPECT_EQ(again, error);
}

TEST(RuntimeNoGpu, CanonicalKeyIgnoresNames) {
  GraphSpec a;
  a.name = "g0";
  a.tensors.push_back({1, graph::DType::F16, {2, 3}, {}, false, false, 0});
  a.tensors.push_back({2, graph::DType::F16, {2, 3}, {3, 1}, false, false,
                       0});
  OpSpec op;
  op.kind = "pointwise";
  op.mode = "relu";
  op.name = "act";
  op.inputs["in0"] = 1;
  op.outputs["output"] = 2;
  a.ops.push_back(op);
  GraphSpec b = a;
  b.name = "other";
  b.ops[0].name = "other";
  EXPECT_EQ(canonicalKey(a), canonicalKey(b));
  b.tensors[0].dims = {2, 4};
  EXPECT_NE(canonicalKey(a), canonicalKey(b));
  b = a;
  b.ops[0].floatAttrs["upper_clip"] = 6.0;
  EXPECT_NE(canonicalKey(a), canonicalKey(b));
}
