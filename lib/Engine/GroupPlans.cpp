//===- GroupPlans.cpp - Build one group's ranked plans on the GPU ---------===//

#include "GraphDialect/Engine/GroupPlans.h"

#include "GraphDialect/Conversion/GraphToCodegen.h"
#include "GraphDialect/Engines/Engine.h"
#include "GraphDialect/Reference/NdArray.h"
#include "GraphDialect/Runtime/PlanRankings.h"
#include "GraphDialect/Support/HostTensor.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>

using namespace mlir;
using namespace mlir::graph;
namespace rt = ::graph::rt;

namespace {
/// The engines whose plans a GPU plan list holds.
bool hasGpuPlans(StringRef engine) {
  return engine == "cudnn" || engine == "codegen";
}
} // namespace

std::vector<std::string>
mlir::graph::gpuEngineRanking(const rt::GraphSpec &spec) {
  std::vector<std::string> ranking;
  auto add = [&](StringRef name) {
    if (lookupEngine(name) && hasGpuPlans(name) &&
        std::find(ranking.begin(), ranking.end(), name) == ranking.end())
      ranking.push_back(name.str());
  };
  for (const std::string &name : spec.engines)
    add(name);
  // The engines the group did not choose keep the registry's rank: they
  // are not asked (allows), but the fronts still say why.
  for (StringRef name : getDefaultEngineRanking())
    add(name);
  return ranking;
}

bool mlir::graph::sameGroupSpec(const rt::GraphSpec &a,
                                const rt::GraphSpec &b) {
  if (a.name != b.name || a.engines != b.engines ||
      a.ops.size() != b.ops.size())
    return false;
  for (size_t i = 0; i < a.ops.size(); ++i)
    if (a.ops[i].name != b.ops[i].name)
      return false;
  return rt::canonicalKey(a) == rt::canonicalKey(b);
}

std::pair<rt::GraphSpec, rt::GraphSpec>
mlir::graph::splitGroupSpec(const rt::GraphSpec &spec) {
  std::map<int64_t, const rt::TensorSpec *> tensors;
  for (const rt::TensorSpec &tensor : spec.tensors)
    tensors[tensor.uid] = &tensor;
  auto uidsOf = [&](size_t from, size_t to) {
    std::set<int64_t> uids;
    for (size_t i = from; i < to; ++i) {
      for (auto &[port, uid] : spec.ops[i].inputs)
        uids.insert(uid);
      for (auto &[port, uid] : spec.ops[i].outputs)
        uids.insert(uid);
    }
    return uids;
  };
  const size_t cut = 1, end = spec.ops.size();
  std::set<int64_t> head = uidsOf(0, cut), tail = uidsOf(cut, end);
  auto piece = [&](size_t from, size_t to, const std::set<int64_t> &mine,
                   const std::set<int64_t> &theirs, int number) {
    rt::GraphSpec out;
    out.name = spec.name + "." + std::to_string(number);
    out.ops.assign(spec.ops.begin() + from, spec.ops.begin() + to);
    for (int64_t uid : mine) {
      auto it = tensors.find(uid);
      if (it == tensors.end())
        continue; // an op's uid the group does not describe: lowering's bug
      rt::TensorSpec tensor = *it->second;
      if (tensor.isVirtual && theirs.count(uid))
        tensor.isVirtual = false;
      out.tensors.push_back(tensor);
    }
    return out;
  };
  return {piece(0, cut, head, tail, 0), piece(cut, end, tail, head, 1)};
}

GroupPlans::GroupPlans(rt::Device &device, const rt::GraphSpec &spec,
                       const GroupPlanRequest &request)
    : device(device), asked(request), groupSpec(spec),
      ranking(gpuEngineRanking(spec)) {
  const rt::GroupEngine *recorded = request.recorded;
  bool rankedCudnn =
      std::find(ranking.begin(), ranking.end(), "cudnn") != ranking.end();
  if (!rankedCudnn || !request.askCudnn) {
    state = CudnnPlans::NotAsked;
  } else if (!groupSpec.allows("cudnn")) {
    state = CudnnPlans::NotChosen;
    cudnnWhy = "not chosen by graph-select-engines (its static rules "
               "decline the group)";
  } else if (!(group = rt::CudnnGroup::create(device, groupSpec, cudnnWhy))) {
    state = CudnnPlans::Rejected;
  } else {
    std::string why =
        recorded && recorded->engineId >= 0
            ? group->addPlan(recorded->engineId, recorded->knobs)
            : group->createPlans(recorded && !recorded->heuristics.empty()
                                     ? recorded->heuristics
                                     : request.heuristics);
    // An artifact's recorded engine stands where the heuristics' plans do.
    heuristicCount = group->plans().size();
    heuristicOrder.resize(heuristicCount);
    std::iota(heuristicOrder.begin(), heuristicOrder.end(), size_t(0));
    if (group->plans().empty()) {
      state = CudnnPlans::NoPlan;
      cudnnWhy = why;
    }
  }

  codegenAsked =
      groupSpec.allows("codegen") &&
      std::find(ranking.begin(), ranking.end(), "codegen") != ranking.end();
  if (codegenAsked)
    codegen = codegenPlansFor(groupSpec, &codegenWhy);
  builds.resize(codegen.size());
  if (group && !group->plans().empty() && !recorded)
    rankByTime();
  rebuildEntries();
}

namespace {
// Groups whose device tensors span fewer bytes are not ranked by time: at
// that size a plan runs in microseconds and its build would cost more.
constexpr size_t kRankingMinBytes = size_t(32) << 20;
// How many of the heuristics' engines (each its first plan) are timed: on
// the H100 and H200 the ResNet bottleneck's conv groups list two engines
// (4 and 7) before the fallback's, and each timed plan costs a build and a
// check of full-size outputs on the host.
constexpr size_t kRankingEngines = 2;
// How many plans of the first engine (its first included) are timed: the
// knob variants of cuDNN's runtime-fusion matmul engine (4) differ by up to
// 6% on the Llama block's matmuls at full size on the H100 (down_proj with
// its residual add: the heuristics' first 0.281 ms, its second 0.264 ms).
// GRAPH_RANK_PLANS=engines times only each engine's first plan.
constexpr size_t kRankingVariants = 3;
// How many codegen plans (the first in their order) are timed beside
// cuDNN's when cuDNN ranks first for a group both run: on the H100 the
// Llama backward's SwiGLU gradient group (six pointwise ops, 644 MB) took
// 0.235 ms with cuDNN's best plan, 0.236 / 0.217 / 0.308 ms with the first
// three generated (0.203 ms with the best of all eight). Each costs a
// compile of its kernels (about 2 s there).
constexpr size_t kRankingCodegen = 2;
// Another plan leads only when this much faster (run-to-run noise).
constexpr double kRankingMargin = 0.95;
// Part of a stored ranking's key with the counts above: bump it when what
// is timed or how the choice is made changes otherwise, so later processes
// time again.
constexpr int kRankingFormat = 1;

std::string rankingRules() {
  return "rank-v" + std::to_string(kRankingFormat) + " e" +
         std::to_string(kRankingEngines) + " v" +
         std::to_string(kRankingVariants) + " c" +
         std::to_string(kRankingCodegen) + " m" +
         std::to_string(kRankingMargin);
}

/// How many cuDNN plans are finalized at once (the ranking's candidates,
/// build_plans with the ALL policy), each thread on its own cuDNN handle:
/// GRAPH_PLAN_BUILD_THREADS, at most 64 (1: one after another); unset, 0
/// or not a number: 8, or fewer where the host has fewer cores (a
/// finalize compiles runtime-fusion kernels on the host's CPU).
unsigned planBuildThreads() {
  if (const char *env = std::getenv("GRAPH_PLAN_BUILD_THREADS"))
    if (long n = std::strtol(env, nullptr, 10); n >= 1)
      return static_cast<unsigned>(std::min(n, 64L));
  unsigned cores = std::thread::hardware_concurrency();
  return std::clamp(cores, 1u, 8u);
}

/// Says where a ranking's first note ("ranked by time in 8.8 s ...") came
/// from: "ranked by time" becomes `how`.
void markRanking(std::vector<std::string> &notes, const std::string &how) {
  const std::string timed = "ranked by time";
  if (!notes.empty() && notes.front().rfind(timed, 0) == 0)
    notes.front().replace(0, timed.size(), how);
}

/// What a stored ranking must have been timed on: the cuDNN, driver and
/// architecture, the multiprocessors and the memory (an H100 and an H200
/// share sm_90 and 132 multiprocessors).
std::string deviceIdentity(rt::Device &device) {
  rt::DeviceMemory memory;
  std::string identity = device.version() + ", " +
                         std::to_string(device.limits().multiprocessors) +
                         " multiprocessors";
  if (device.memory(memory).empty())
    identity += ", " + std::to_string(memory.totalBytes >> 30) + " GiB";
  return identity;
}
} // namespace

void GroupPlans::rankByTime() {
  size_t bytes = 0;
  for (const rt::TensorSpec &tensor : groupSpec.tensors)
    if (!tensor.isVirtual && !tensor.isByValue)
      bytes += static_cast<size_t>(
          ::graph::spanBytes(tensor.dtype, tensor.dims, tensor.strides));
  if (bytes < kRankingMinBytes)
    return;
  // Other descriptions of the group (a 1x1 convolution as a matmul) are
  // listed after the heuristics' plans and timed alike. Listed before the
  // recorded choice is looked up, so every list made for the group is the
  // same.
  size_t ownPlans = heuristicCount;
  heuristicCount += group->addAlternatePlans(asked.heuristics);
  for (size_t i = heuristicOrder.size(); i < heuristicCount; ++i)
    heuristicOrder.push_back(i);
  if (heuristicCount + (codegenAsked ? codegen.size() : 0) < 2)
    return;
  // One choice per group and heuristics modes on the device, kept before
  // anything else is asked: a list made again for the group (the
  // executor's after the C API's, one made during a CUDA graph capture,
  // or after GRAPH_RANK_PLANS changed) must give each plan the index the
  // first gave it.
  std::string key;
  for (rt::HeurMode mode : asked.heuristics)
    key += std::to_string(static_cast<int>(mode));
  key += "|" + rt::canonicalKey(groupSpec);
  // The engines listed and their order decide what is timed.
  for (const std::string &engine : ranking)
    key += "|" + engine;
  key += codegenAsked ? "+codegen" : "";
  rt::PlanRankings &rankings = device.planRankings();
  // Held while one group is timed (seconds): lists of large groups are
  // made one at a time on a device.
  std::lock_guard<std::mutex> lock(rankings.mutex);
  // Where plan `name` is in the heuristics' order, else among the
  // generated plans (offset by the order's size); nullopt when in neither.
  auto position = [&](const std::string &name) -> std::optional<size_t> {
    for (size_t k = 0; k < heuristicOrder.size(); ++k)
      if (group->plans()[heuristicOrder[k]].name == name)
        return k;
    for (size_t k = 0; k < codegen.size(); ++k)
      if (codegen[k] == name)
        return heuristicOrder.size() + k;
    return std::nullopt;
  };
  auto promote = [&](const std::string &name) {
    std::optional<size_t> k = position(name);
    if (!k)
      return;
    if (*k < heuristicOrder.size())
      std::rotate(heuristicOrder.begin(), heuristicOrder.begin() + *k,
                  heuristicOrder.begin() + *k + 1);
    else // a generated plan: listed before every other (the rest stay)
      leadingCodegen = *k - heuristicOrder.size();
  };
  if (auto it = rankings.chosen.find(key); it != rankings.chosen.end()) {
    ranked = it->second.notes;
    promote(it->second.cudnnFirst);
    promote(it->second.first);
    return;
  }
  const char *env = std::getenv("GRAPH_RANK_PLANS");
  bool off = env && std::string(env) == "0";
  size_t variants = env && std::string(env) == "engines" ? 1 : kRankingVariants;
  // An earlier process's choice (GRAPH_PLAN_CACHE_DIR), made on a device of
  // the same kind with the same cuDNN and driver, timing the same plans by
  // the same rules (rankingRules). A choice naming a plan this list lacks
  // (plans of another build) is timed again and replaced.
  // Made only when choices are kept on disk: deviceIdentity asks the
  // driver.
  std::string storedKey;
  if (rt::rankedPlansOnDisk())
    storedKey = rankingRules() + "|" + key + "|" + deviceIdentity(device) +
                (variants == 1 ? "|engines" : "");
  if (rt::RankedPlan stored;
      !off && !storedKey.empty() && rt::loadRankedPlan(storedKey, stored) &&
      position(stored.first) &&
      (stored.cudnnFirst.empty() || position(stored.cudnnFirst))) {
    markRanking(stored.notes, "ranked by time (in an earlier process)");
    ranked = stored.notes;
    rankings.chosen[key] = stored;
    promote(stored.cudnnFirst);
    promote(stored.first);
    return;
  }
  // Not timed now (turned off, or the stream is being captured, where
  // timing must not wait on it): the heuristics' order is the group's.
  if (off || device.isCapturing()) {
    rankings.chosen[key] = {group->plans()[0].name, {}};
    return;
  }
  // Of the group's own plans and of an alternate description's alike: the
  // first plan of each of the heuristics' first engines, and the next knob
  // variants of the first engine in the heuristics' order.
  auto start = std::chrono::steady_clock::now();
  std::vector<size_t> candidates, timed;
  auto pick = [&](size_t begin, size_t end) {
    std::set<int64_t> engines;
    size_t ofFirstEngine = 0;
    for (size_t i = begin; i < end; ++i) {
      const rt::PlanInfo &info = group->plans()[i];
      bool firstEngine = info.engineId == group->plans()[begin].engineId;
      if (firstEngine ? ofFirstEngine == variants
                      : engines.count(info.engineId) ||
                            engines.size() == kRankingEngines)
        continue;
      engines.insert(info.engineId);
      ofFirstEngine += firstEngine;
      candidates.push_back(i);
    }
  };
  // The first generated plans, where cuDNN ranks before the codegen engine
  // (the executor then tries cuDNN's plans first): compiled to PTX on
  // threads of their own while cuDNN builds its plans (each compile has its
  // own MLIR context), loaded here, then kept as this list's builds (a PTX
  // build() answers them).
  auto cudnnAt = std::find(ranking.begin(), ranking.end(), "cudnn");
  auto codegenAt = std::find(ranking.begin(), ranking.end(), "codegen");
  size_t compiles = codegenAsked && cudnnAt < codegenAt
                        ? std::min({codegen.size(), kRankingCodegen, variants})
                        : 0;
  std::vector<rt::CodegenSpec> compiled(compiles);
  std::vector<std::future<std::string>> compiling;
  if (compiles)
    prepareCodegenEnvironment();
  for (size_t k = 0; k < compiles; ++k)
    compiling.push_back(std::async(std::launch::async, [&, k] {
      return compilePlan(groupSpec, codegen[k], compiled[k],
                         /*cubin=*/false, device.limits());
    }));
  auto since = [](std::chrono::steady_clock::time_point from) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         from)
        .count();
  };
  pick(0, ownPlans);
  pick(ownPlans, heuristicCount);
  // Built together (on several threads, each with its own cuDNN handle).
  // A plan that does not build stays where it is; the walk skips it.
  std::vector<std::string> built =
      group->buildPlans(candidates, planBuildThreads());
  for (size_t k = 0; k < candidates.size(); ++k)
    if (built[k].empty())
      timed.push_back(candidates[k]);
  double buildSeconds = since(start);
  auto compilesJoined = std::chrono::steady_clock::now();
  std::vector<std::pair<std::string, std::unique_ptr<rt::CodegenKernel>>>
      generated;
  std::vector<size_t> generatedAt; // their indices in `codegen`
  for (size_t k = 0; k < compiles; ++k) {
    std::string error = compiling[k].get();
    std::unique_ptr<rt::CodegenKernel> kernels;
    if (error.empty())
      kernels = rt::CodegenKernel::create(device, compiled[k], error);
    if (kernels) {
      generated.emplace_back(codegen[k], std::move(kernels));
      generatedAt.push_back(k);
    }
  }
  double compileWaitSeconds = since(compilesJoined);
  std::vector<std::string> notes;
  std::vector<double> ms;
  std::string first = group->plans()[0].name;
  // When a generated plan leads, cuDNN's fastest still leads cuDNN's.
  std::string cudnnFirst;
  // Whether the timing ran to a choice (what later processes may reuse).
  bool chose = false;
  if (timed.size() + generated.size() >= 2 && !timed.empty() &&
      timed.front() == 0) {
    std::vector<std::string> lines;
    auto timing = std::chrono::steady_clock::now();
    std::string error =
        timeGroupPlans(device, groupSpec, *group, timed, generated, ms, lines);
    for (const std::string &line : lines)
      if (line.rfind("(", 0) != 0) // the tuner's own remarks
        notes.push_back(line);
    // The fastest of [begin, end) of the timed candidates.
    auto fastestOf = [&](size_t begin, size_t end) {
      size_t fastest = 0;
      for (size_t k = begin; error.empty() && k < end; ++k)
        if (ms[k] >= 0 && (ms[fastest] < 0 || ms[k] < ms[fastest]))
          fastest = k;
      return fastest;
    };
    auto clearlyFaster = [&](size_t k) {
      return k != 0 && ms[0] >= 0 && ms[k] < kRankingMargin * ms[0];
    };
    size_t fastest = fastestOf(1, ms.size());
    chose = error.empty();
    if (!error.empty()) {
      notes.push_back("not ranked: " + error);
    } else if (clearlyFaster(fastest) && fastest < timed.size()) {
      first = group->plans()[timed[fastest]].name;
    } else if (clearlyFaster(fastest)) {
      first = generated[fastest - timed.size()].first;
      size_t cudnnFastest = fastestOf(1, timed.size());
      if (clearlyFaster(cudnnFastest))
        cudnnFirst = group->plans()[timed[cudnnFastest]].name;
    }
    // Where the time went: what to shorten next (generated compiles
    // overlap the plan builds).
    char took[160];
    std::snprintf(took, sizeof(took),
                  "%.1f s (cuDNN plan builds %.1f s, waiting for generated "
                  "compiles and loads %.1f s, timing and checks %.1f s)",
                  since(start), buildSeconds, compileWaitSeconds,
                  since(timing));
    notes.insert(notes.begin(), "ranked by time in " + std::string(took) +
                                    ": " + first + " first");
  }
  for (size_t k = 0; k < generated.size(); ++k) {
    CodegenBuild &kept = builds[generatedAt[k]];
    kept.tried = kept.ptx = true;
    kept.kernels = std::move(generated[k].second);
    kept.launches = compiled[generatedAt[k]].launches.size();
  }
  ranked = notes;
  if (chose && !storedKey.empty())
    rt::storeRankedPlan(storedKey, {first, notes, cudnnFirst});
  markRanking(notes, "ranked by time earlier in this process");
  rankings.chosen[key] = {first, notes, cudnnFirst};
  promote(cudnnFirst);
  promote(first);
}

void GroupPlans::rebuildEntries() {
  list.clear();
  if (leadingCodegen)
    list.push_back({true, *leadingCodegen, codegen[*leadingCodegen]});
  for (const std::string &engine : ranking) {
    if (engine == "cudnn" && group)
      for (size_t i : heuristicOrder)
        list.push_back({false, i, group->plans()[i].name});
    if (engine == "codegen")
      for (size_t i = 0; i < codegen.size(); ++i)
        if (i != leadingCodegen)
          list.push_back({true, i, codegen[i]});
  }
  // Explicit plans last: the indices before them never move.
  if (group)
    for (size_t i = heuristicCount; i < group->plans().size(); ++i)
      list.push_back({false, i, group->plans()[i].name});
}

std::string
GroupPlans::addPlan(int64_t engineId,
                    const std::vector<std::pair<int64_t, int64_t>> &knobs) {
  if (!group)
    return "cuDNN has no operation graph for the group";
  used = true;
  if (std::string error = group->addPlan(engineId, knobs); !error.empty())
    return error;
  if (state == CudnnPlans::NoPlan) { // the explicit plan is cuDNN's first
    state = CudnnPlans::Listed;
    cudnnWhy.clear();
  }
  rebuildEntries();
  return "";
}

std::string GroupPlans::build(size_t index, bool cubin, bool keepKernels) {
  used = true;
  const PlanEntry &entry = list[index];
  if (!entry.codegen)
    return group->buildPlan(entry.index);
  CodegenBuild &plan = builds[entry.index];
  // The ranking's PTX build answers a PTX build only.
  if (plan.tried && !(plan.ptx && cubin)) {
    if (plan.ptx && !keepKernels)
      plan.kernels.reset();
    return plan.error;
  }
  plan = CodegenBuild();
  plan.tried = true;
  rt::CodegenSpec compiled;
  // Launch geometry for this GPU's SMs, threads and registers. From the
  // spec: a GroupPlans holds one (an artifact's group or a split piece has
  // no group region to build from).
  plan.error =
      compilePlan(groupSpec, entry.name, compiled, cubin, device.limits());
  if (plan.error.empty()) {
    plan.kernels = rt::CodegenKernel::create(device, compiled, plan.error);
    if (!plan.kernels && plan.error.empty())
      plan.error = "the kernels did not load";
    plan.launches = compiled.launches.size();
    if (!keepKernels)
      plan.kernels.reset();
  }
  return plan.error;
}

std::vector<std::string>
GroupPlans::buildMany(const std::vector<size_t> &indices, bool cubin,
                      bool keepKernels) {
  std::vector<std::string> answers(indices.size());
  // cuDNN's plans together first (distinct ones: buildPlans takes each
  // once), then the generated ones one by one (each compiles in an MLIR
  // context of its own). A cuDNN plan's answer is its build's: a decline is
  // not finalized again.
  std::vector<size_t> cudnnPlans;
  std::map<size_t, size_t> at; // group plan index -> position in cudnnPlans
  for (size_t index : indices)
    if (index < list.size() && !list[index].codegen && group &&
        at.emplace(list[index].index, cudnnPlans.size()).second)
      cudnnPlans.push_back(list[index].index);
  std::vector<std::string> built;
  if (!cudnnPlans.empty()) {
    used = true;
    built = group->buildPlans(cudnnPlans, planBuildThreads());
  }
  for (size_t k = 0; k < indices.size(); ++k) {
    size_t index = indices[k];
    if (index >= list.size())
      answers[k] = "no plan " + std::to_string(index);
    else if (!list[index].codegen && group)
      answers[k] = built[at[list[index].index]];
    else
      answers[k] = build(index, cubin, keepKernels);
  }
  return answers;
}

std::unique_ptr<rt::CodegenKernel> GroupPlans::takeKernels(size_t index,
                                                           size_t &launches) {
  used = true;
  const PlanEntry &entry = list[index];
  launches = 0;
  if (!entry.codegen)
    return nullptr;
  launches = builds[entry.index].launches;
  return std::move(builds[entry.index].kernels);
}

bool GroupPlans::answers(const rt::Device &on, const rt::GraphSpec &spec,
                         const GroupPlanRequest &request) const {
  return !used && &on == &device && !asked.recorded && !request.recorded &&
         asked.askCudnn == request.askCudnn &&
         asked.heuristics == request.heuristics &&
         sameGroupSpec(groupSpec, spec);
}

PlanDetails GroupPlans::details(size_t index) const {
  const PlanEntry &entry = list[index];
  PlanDetails out;
  if (entry.codegen) {
    const CodegenBuild &plan = builds[entry.index];
    out.name = entry.name;
    out.engineId = codegenEngineOf(entry.name, out.knobs);
    out.built = plan.tried && plan.error.empty();
    out.workspace = 0; // its scratch is the kernels' own
    out.error = plan.error;
    out.behaviorNotes = {"GENERATED_KERNELS"};
    return out;
  }
  const rt::PlanInfo &info = group->plans()[entry.index];
  out.name = info.name;
  out.engineId = info.engineId;
  out.knobs = info.knobs;
  out.built = info.built;
  out.workspace = info.built ? group->workspaceBytes(entry.index) : 0;
  out.error = info.error;
  out.behaviorNotes = info.behaviorNotes;
  out.numericNotes = info.numericNotes;
  return out;
}
