//===- RuntimeNoGpuTest.cpp - The runtime without a driver ----------------===//

#include "GraphDialect/Runtime/CudnnGraph.h"
#include "GraphDialect/Runtime/PlanRankings.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

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

// Ranking choices kept for later processes in GRAPH_PLAN_CACHE_DIR.
TEST(RuntimeNoGpu, RankedPlansRoundTripThroughTheCacheDirectory) {
  char pattern[] = "/tmp/graph-rank-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  std::string dir = pattern;
  RankedPlan plan{"codegen_v2_t256_i2",
                  {"ranked by time in 1.2 s (builds included): "
                   "codegen_v2_t256_i2 first",
                   "eng4_k24=4: 0.281 ms"},
                  "eng4_k24=4"};
  RankedPlan loaded;
  unsetenv("GRAPH_PLAN_CACHE_DIR");
  storeRankedPlan("key-a", plan);
  EXPECT_FALSE(loadRankedPlan("key-a", loaded)) << "no directory, no cache";

  setenv("GRAPH_PLAN_CACHE_DIR", dir.c_str(), 1);
  EXPECT_FALSE(loadRankedPlan("key-a", loaded));
  storeRankedPlan("key-a", plan);
  ASSERT_TRUE(loadRankedPlan("key-a", loaded));
  EXPECT_EQ(loaded.first, plan.first);
  EXPECT_EQ(loaded.cudnnFirst, plan.cudnnFirst);
  EXPECT_EQ(loaded.notes, plan.notes);
  EXPECT_FALSE(loadRankedPlan("key-b", loaded));

  // An empty cuDNN choice and no notes survive too.
  storeRankedPlan("key-b", {"eng7_k3=1", {}, ""});
  ASSERT_TRUE(loadRankedPlan("key-b", loaded));
  EXPECT_EQ(loaded.first, "eng7_k3=1");
  EXPECT_EQ(loaded.cudnnFirst, "");
  EXPECT_TRUE(loaded.notes.empty());

  // A field with a line break is not stored (it would shift the lines).
  storeRankedPlan("key-c", {"eng0", {"two\nlines"}, ""});
  EXPECT_FALSE(loadRankedPlan("key-c", loaded));

  // A file cut short, or one holding another key under the same name, is
  // no choice.
  FILE *list = popen(("ls " + dir + "/*.rank").c_str(), "r");
  ASSERT_NE(list, nullptr);
  char line[512];
  std::vector<std::string> paths;
  while (fgets(line, sizeof(line), list)) {
    paths.emplace_back(line);
    paths.back().pop_back();
  }
  pclose(list);
  ASSERT_EQ(paths.size(), 2u);
  for (const std::string &path : paths) {
    FILE *file = fopen(path.c_str(), "w");
    ASSERT_NE(file, nullptr);
    fputs("key-a\n", file);
    fclose(file);
  }
  EXPECT_FALSE(loadRankedPlan("key-a", loaded)) << "cut short";
  EXPECT_FALSE(loadRankedPlan("key-b", loaded)) << "another key";
  unsetenv("GRAPH_PLAN_CACHE_DIR");
  std::system(("rm -rf " + dir).c_str());
}
