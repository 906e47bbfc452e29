//===- CudnnGroup.cpp - cuDNN operation graph, plans and execution --------===//
//
// Builds one group's operation graph from the operations Lowering made
// (CudnnGroupInternal.h), queries the heuristics, builds execution plans
// and executes them with a variant pack. Layout-free graphs the heuristics
// refuse are retried relabeled (CudnnRelabel.cpp).
//
//===----------------------------------------------------------------------===//

#include "CudnnGroupInternal.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

using namespace graph::rt;
using namespace graph::rt::detail;
using namespace graph::rt::cudnn;

namespace {

struct Plan {
  PlanInfo info;
  DescPtr engineConfig; // from the heuristics, or made for addPlan
  DescPtr plan;
  int alternate = -1; // index into `alternates`; -1: the group's own graph
};

/// Another operation graph over the same uids and bytes (convAsMatmul):
/// its plans join the group's list and run with its own lowering.
struct Alternate {
  std::string label;
  std::unique_ptr<GraphSpec> spec;
  std::unique_ptr<Lowering> lowering;
  DescPtr opGraph;
};

class CudnnGroupImpl final : public CudnnGroup {
public:
  Device &device;
  const CudnnApi &api;
  GraphSpec spec;
  // The spec the operation graph was lowered from: `spec`, or a relabeling
  // of it (same uids and bytes, other dims/strides) that cuDNN has engines
  // for. `relabel` names the relabeling ("" for none).
  std::unique_ptr<GraphSpec> loweredSpec;
  std::string relabel;
  std::unique_ptr<Lowering> lowering;
  DescPtr opGraph;
  std::vector<Alternate> alternates;
  std::vector<Plan> planList;
  std::vector<PlanInfo> infos;

  CudnnGroupImpl(Device &device, const CudnnApi &api, const GraphSpec &s)
      : device(device), api(api), spec(s) {}

  Builder builder(const std::string &context = "") {
    return Builder{api, spec.name, context};
  }

  // Attention lowers to the composite pattern (set after cuDNN refused the
  // unified SDPA operations for this group).
  bool compositeAttention = false;

  std::string build() {
    std::string error = buildFrom(spec, "");
    if (error.empty() || compositeAttention || !lowering ||
        !lowering->usedUnifiedAttention)
      return error;
    // cuDNN 9.19's unified SDPA operations refuse some graphs the composite
    // pattern runs (a plain d64 backward: buildDAG BAD_PARAM on the H200).
    compositeAttention = true;
    std::string retry = buildFrom(spec, "");
    return retry.empty()
               ? ""
               : error + "; as the composite attention graph: " + retry;
  }

  std::string buildFrom(const GraphSpec &from, const std::string &label) {
    relabel = label;
    return lowerGraph(from, loweredSpec, lowering, opGraph);
  }

  /// Lowers `from` into `lowered` (its copy, uid 0 keyed), `low` and a
  /// finalized operation graph `graph`.
  std::string lowerGraph(const GraphSpec &from,
                         std::unique_ptr<GraphSpec> &lowered,
                         std::unique_ptr<Lowering> &low, DescPtr &graph) {
    graph.reset();
    lowered = std::make_unique<GraphSpec>(from);
    keyUidZero(*lowered);
    low = std::make_unique<Lowering>(api, *lowered, compositeAttention);
    TRY(low->addSpecTensors());
    if (lowered->ops.empty())
      return "group '" + spec.name + "' has no ops";
    for (const OpSpec &o : lowered->ops)
      TRY(low->lowerOp(o));
    Builder b = builder("operation graph");
    TRY(b.create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, graph,
                 "OPERATIONGRAPH"));
    std::vector<cudnnBackendDescriptor_t> raw;
    for (const DescPtr &o : low->ops)
      raw.push_back(o->raw);
    cudnnHandle_t handle = static_cast<cudnnHandle_t>(device.cudnnHandle());
    SET(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        static_cast<int64_t>(raw.size()), raw.data());
    SET(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1,
        &handle);
    return b.finalize(graph, "OPERATIONGRAPH");
  }

  /// The alternate description `index` (0: convAsMatmul) lowered to its
  /// operation graph, made on first use; "" or why the group has none.
  std::string alternate(int64_t index) {
    if (index != 0)
      return "group '" + spec.name + "' has no alternate description " +
             std::to_string(index);
    if (!alternates.empty())
      return "";
    std::optional<std::pair<std::string, GraphSpec>> alt;
    if (relabel.empty() && !compositeAttention)
      alt = convAsMatmul(spec);
    if (!alt)
      return "group '" + spec.name +
             "' is not a 1x1 convolution a matmul can describe";
    Alternate a;
    a.label = alt->first;
    TRY(lowerGraph(alt->second, a.spec, a.lowering, a.opGraph));
    alternates.push_back(std::move(a));
    return "";
  }

  bool alternatesQueried = false;
  size_t addAlternatePlans(const std::vector<HeurMode> &modes) override {
    if (alternatesQueried)
      return 0;
    alternatesQueried = true;
    // No such description, or cuDNN takes none: the own plans stand.
    if (!alternate(0).empty())
      return 0;
    size_t before = planList.size();
    queryHeuristics(modes, 0);
    return planList.size() - before;
  }

  Lowering &loweringOf(const Plan &p) {
    return p.alternate < 0 ? *lowering : *alternates[p.alternate].lowering;
  }
  const Lowering &loweringOf(const Plan &p) const {
    return p.alternate < 0 ? *lowering : *alternates[p.alternate].lowering;
  }

  const std::vector<PlanInfo> &plans() const override { return infos; }

  /// Engine id, knobs and notes of a finalized engine config.
  std::string describe(const DescPtr &cfg, PlanInfo &info) {
    Builder b = builder("engine config");
    DescPtr engine;
    TRY(b.create(CUDNN_BACKEND_ENGINE_DESCRIPTOR, engine, "ENGINE"));
    int64_t count = 0;
    if (cudnnStatus_t s = api.cudnnBackendGetAttribute(
            cfg->raw, CUDNN_ATTR_ENGINECFG_ENGINE,
            CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &engine->raw);
        s != CUDNN_STATUS_SUCCESS)
      return b.fail("cudnnBackendGetAttribute(CUDNN_ATTR_ENGINECFG_ENGINE)", s);
    int64_t id = -1;
    if (cudnnStatus_t s = api.cudnnBackendGetAttribute(
            engine->raw, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1,
            &count, &id);
        s != CUDNN_STATUS_SUCCESS)
      return b.fail("cudnnBackendGetAttribute(CUDNN_ATTR_ENGINE_GLOBAL_INDEX)",
                    s);
    info.engineId = id;
    // Notes (best effort: older libraries may not report them).
    cudnnBackendNumericalNote_t numeric[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
    if (api.cudnnBackendGetAttribute(
            engine->raw, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
            CUDNN_TYPE_NUMERICAL_NOTE, CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &count,
            numeric) == CUDNN_STATUS_SUCCESS) {
      static const char *names[] = {"TENSOR_CORE",
                                    "DOWN_CONVERT_INPUTS",
                                    "REDUCED_PRECISION_REDUCTION",
                                    "FFT",
                                    "NONDETERMINISTIC",
                                    "WINOGRAD",
                                    "WINOGRAD_TILE_4x4",
                                    "WINOGRAD_TILE_6x6",
                                    "WINOGRAD_TILE_13x13",
                                    "STRICT_NAN_PROP"};
      for (int64_t i = 0; i < count; ++i)
        if (numeric[i] >= 0 && numeric[i] < CUDNN_NUMERICAL_NOTE_TYPE_COUNT)
          info.numericNotes.push_back(names[numeric[i]]);
    }
    cudnnBackendBehaviorNote_t behavior[CUDNN_BEHAVIOR_NOTE_TYPE_COUNT];
    if (api.cudnnBackendGetAttribute(
            engine->raw, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
            CUDNN_TYPE_BEHAVIOR_NOTE, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT, &count,
            behavior) == CUDNN_STATUS_SUCCESS) {
      static const char *names[] = {
          "RUNTIME_COMPILATION", "REQUIRES_FILTER_INT8x32_REORDER",
          "REQUIRES_BIAS_INT8x32_REORDER", "SUPPORTS_CUDA_GRAPH_NATIVE_API",
          "CUBLASLT_DEPENDENCY"};
      for (int64_t i = 0; i < count; ++i)
        if (behavior[i] >= 0 && behavior[i] < CUDNN_BEHAVIOR_NOTE_TYPE_COUNT)
          info.behaviorNotes.push_back(names[behavior[i]]);
    }
    // Knob choices.
    constexpr int64_t maxKnobs = CUDNN_KNOB_TYPE_COUNTS;
    std::vector<DescPtr> choices(maxKnobs);
    std::vector<cudnnBackendDescriptor_t> rawChoices(maxKnobs);
    for (int64_t i = 0; i < maxKnobs; ++i) {
      TRY(b.create(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, choices[i],
                   "KNOB_CHOICE"));
      rawChoices[i] = choices[i]->raw;
    }
    if (api.cudnnBackendGetAttribute(
            cfg->raw, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
            CUDNN_TYPE_BACKEND_DESCRIPTOR, maxKnobs, &count,
            rawChoices.data()) == CUDNN_STATUS_SUCCESS) {
      for (int64_t i = 0; i < count && i < maxKnobs; ++i) {
        cudnnBackendKnobType_t type;
        int64_t value = 0, n = 0;
        if (api.cudnnBackendGetAttribute(
                rawChoices[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE,
                CUDNN_TYPE_KNOB_TYPE, 1, &n, &type) != CUDNN_STATUS_SUCCESS ||
            api.cudnnBackendGetAttribute(
                rawChoices[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE,
                CUDNN_TYPE_INT64, 1, &n, &value) != CUDNN_STATUS_SUCCESS)
          continue;
        info.knobs.push_back({static_cast<int64_t>(type), value});
      }
    }
    info.name = planName(info.engineId, info.knobs);
    return "";
  }

  static std::string
  planName(int64_t engine, const std::vector<std::pair<int64_t, int64_t>> &k) {
    std::string name = "eng" + std::to_string(engine);
    for (auto [type, value] : k)
      name += "_k" + std::to_string(type) + "=" + std::to_string(value);
    return name;
  }

  std::string createPlans(const std::vector<HeurMode> &modes) override {
    std::string errors = queryHeuristics(modes);
    if (planList.empty() && !compositeAttention &&
        lowering->usedUnifiedAttention) {
      // No engine config for the unified SDPA graph: try the composite one.
      compositeAttention = true;
      if (build().empty()) {
        std::string composite = queryHeuristics(modes);
        if (!planList.empty())
          return "";
        errors += composite;
      }
    }
    if (!planList.empty() || !relabel.empty())
      return planList.empty() ? noConfigError(errors, {}) : "";
    // cuDNN's runtime-fusion engines take pointwise-only and reduction-only
    // graphs only in some layouts (its own standalone samples use 3-D packed
    // pointwise tensors and channels-last 4-D reductions: cudnn-frontend
    // samples/cpp/pointwise.cpp; NCHW 4-D pointwise graphs get no engine:
    // cudnn-frontend issue #171). Such graphs are layout-free: every tensor
    // may be relabeled alike, so try the layouts those engines take. A
    // matmul graph with two batch dims gets none either: merge them.
    std::vector<std::string> tried;
    for (auto &[label, alt] : relabelings(spec)) {
      tried.push_back(label);
      if (!buildFrom(alt, label).empty())
        continue;
      queryHeuristics(modes);
      if (!planList.empty())
        return "";
    }
    std::string restore = build();
    if (!tried.empty() && restore.empty())
      relabel = "(none)"; // tried; do not retry on a later call
    return noConfigError(errors, tried);
  }

  std::string noConfigError(const std::string &errors,
                            const std::vector<std::string> &tried) const {
    if (!errors.empty())
      return errors;
    std::string kinds;
    bool pointwiseOnly = true, reductionOnly = spec.ops.size() == 1;
    for (const OpSpec &o : spec.ops) {
      pointwiseOnly &= o.kind == graph::OpKind::Pointwise;
      reductionOnly &= o.kind == graph::OpKind::Reduction;
    }
    std::string out =
        "group '" + spec.name + "': the heuristics offered no engine config";
    if (spec.ops.size() == 1 && !pointwiseOnly && !reductionOnly) {
      const OpSpec &o = spec.ops.front();
      out += std::string(" for ") + o.kind.name() +
             (o.name.empty() ? "" : " '" + o.name + "'");
      // Measured on the H200 (cuDNN 9.19): NONE and GATHER plan, SCATTER
      // gets no engine config at any size tried.
      auto mode = o.intAttrs.find("mode");
      if (o.kind == graph::OpKind::MoeGroupedMatmul &&
          mode != o.intAttrs.end() &&
          mode->second ==
              std::vector<int64_t>{CUDNN_MOE_GROUPED_MATMUL_MODE_SCATTER})
        out += " (SCATTER mode: cuDNN 9.19 offered no engine for it on the "
               "H200; route the rows with NONE mode and un-permute them "
               "outside the graph)";
    }
    if (pointwiseOnly || reductionOnly) {
      out += std::string(" for this ") +
             (pointwiseOnly ? "pointwise-only" : "reduction-only") +
             " graph: cuDNN runs such graphs only on its runtime-fusion "
             "engines, which accept only some layouts";
    }
    if (!tried.empty()) {
      out += " (also tried it relabeled as";
      for (size_t i = 0; i < tried.size(); ++i)
        out += (i ? ", " : " ") + tried[i];
      out += ")";
    }
    return out;
  }

  /// Appends the configs the heuristics modes offer for the group's graph
  /// (alternate -1) or for alternates[alternate].
  std::string queryHeuristics(const std::vector<HeurMode> &modes,
                              int alternate = -1) {
    const DescPtr &graph =
        alternate < 0 ? opGraph : alternates[alternate].opGraph;
    size_t first = alternate < 0 ? 0 : planList.size();
    std::string errors;
    for (HeurMode mode : modes) {
      cudnnBackendHeurMode_t m = mode == HeurMode::A ? CUDNN_HEUR_MODE_A
                                 : mode == HeurMode::B
                                     ? CUDNN_HEUR_MODE_B
                                     : CUDNN_HEUR_MODE_FALLBACK;
      const char *modeName = mode == HeurMode::A   ? "A"
                             : mode == HeurMode::B ? "B"
                                                   : "fallback";
      Builder b = builder(std::string("heuristics mode ") + modeName);
      std::string e = [&]() -> std::string {
        DescPtr heur;
        TRY(b.create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, heur, "ENGINEHEUR"));
        SET(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
            CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph->raw);
        SET(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &m);
        TRY(b.finalize(heur, "ENGINEHEUR"));
        int64_t count = 0;
        if (cudnnStatus_t s = api.cudnnBackendGetAttribute(
                heur->raw, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr);
            s != CUDNN_STATUS_SUCCESS)
          return b.fail("cudnnBackendGetAttribute(ENGINEHEUR_RESULTS count)",
                        s);
        std::vector<DescPtr> cfgs(count);
        std::vector<cudnnBackendDescriptor_t> raw(count);
        for (int64_t i = 0; i < count; ++i) {
          TRY(b.create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, cfgs[i],
                       "ENGINECFG"));
          raw[i] = cfgs[i]->raw;
        }
        int64_t got = 0;
        if (count > 0)
          if (cudnnStatus_t s = api.cudnnBackendGetAttribute(
                  heur->raw, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                  CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got, raw.data());
              s != CUDNN_STATUS_SUCCESS)
            return b.fail("cudnnBackendGetAttribute(ENGINEHEUR_RESULTS)", s);
        for (int64_t i = 0; i < got; ++i) {
          Plan p;
          p.engineConfig = cfgs[i];
          p.alternate = alternate;
          if (std::string why = describe(cfgs[i], p.info); !why.empty())
            p.info.error = why;
          if (alternate >= 0) {
            p.info.name += " [as " + alternates[alternate].label + "]";
            p.info.knobs.push_back({kAlternateKnob, alternate});
          }
          bool duplicate = false;
          for (size_t k = first; k < planList.size(); ++k)
            duplicate |= planList[k].info.name == p.info.name &&
                         planList[k].info.engineId == p.info.engineId;
          if (duplicate)
            continue;
          planList.push_back(p);
          infos.push_back(p.info);
        }
        return "";
      }();
      if (!e.empty())
        errors += (errors.empty() ? "" : "; ") + e;
    }
    if (alternate < 0 && !relabel.empty() && relabel != "(none)")
      for (size_t i = 0; i < planList.size(); ++i)
        if (planList[i].info.name.find(" [as ") == std::string::npos) {
          planList[i].info.name += " [as " + relabel + "]";
          infos[i].name = planList[i].info.name;
        }
    return errors;
  }

  std::string
  addPlan(int64_t engineId,
          const std::vector<std::pair<int64_t, int64_t>> &allKnobs) override {
    Builder b = builder("engine " + std::to_string(engineId));
    // kAlternateKnob picks the description the plan runs on; the rest are
    // cuDNN's.
    int alt = -1;
    std::vector<std::pair<int64_t, int64_t>> knobs;
    for (auto [type, value] : allKnobs) {
      if (type != kAlternateKnob) {
        knobs.push_back({type, value});
        continue;
      }
      TRY(alternate(value));
      alt = static_cast<int>(value);
    }
    const DescPtr &graph = alt < 0 ? opGraph : alternates[alt].opGraph;
    DescPtr engine, cfg;
    TRY(b.create(CUDNN_BACKEND_ENGINE_DESCRIPTOR, engine, "ENGINE"));
    SET(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH,
        CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph->raw);
    SET(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &engineId);
    TRY(b.finalize(engine, "ENGINE"));
    std::vector<DescPtr> choices;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (auto [type, value] : knobs) {
      DescPtr c;
      TRY(b.create(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, c, "KNOB_CHOICE"));
      cudnnBackendKnobType_t t = static_cast<cudnnBackendKnobType_t>(type);
      SET(c, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &t);
      SET(c, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &value);
      TRY(b.finalize(c, "KNOB_CHOICE"));
      choices.push_back(c);
      raw.push_back(c->raw);
    }
    TRY(b.create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, cfg, "ENGINECFG"));
    SET(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
        &engine->raw);
    if (!raw.empty())
      SET(cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR,
          static_cast<int64_t>(raw.size()), raw.data());
    TRY(b.finalize(cfg, "ENGINECFG"));
    Plan p;
    p.engineConfig = cfg;
    p.alternate = alt;
    p.info.engineId = engineId;
    p.info.knobs = allKnobs;
    p.info.name = planName(engineId, knobs);
    if (alt >= 0)
      p.info.name += " [as " + alternates[alt].label + "]";
    planList.push_back(p);
    infos.push_back(p.info);
    return "";
  }

  std::string finishPlan(size_t index) {
    Plan &p = planList[index];
    Builder b = builder("plan " + p.info.name);
    int64_t ws = 0, n = 0;
    if (cudnnStatus_t s = api.cudnnBackendGetAttribute(
            p.plan->raw, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
            CUDNN_TYPE_INT64, 1, &n, &ws);
        s != CUDNN_STATUS_SUCCESS)
      return b.fail("cudnnBackendGetAttribute(EXECUTION_PLAN_WORKSPACE_SIZE)",
                    s);
    p.info.workspaceBytes = ws;
    p.info.built = true;
    p.info.error.clear();
    infos[index] = p.info;
    return "";
  }

  std::string buildPlan(size_t index) override {
    return buildPlanWith(index, device.cudnnHandle());
  }

  /// Finalizes plan `index` with `cudnnHandle` (the device's, or a build
  /// thread's own: a plan executes on any handle of its device).
  std::string buildPlanWith(size_t index, void *cudnnHandle) {
    if (index >= planList.size())
      return "group '" + spec.name + "': no plan " + std::to_string(index);
    Plan &p = planList[index];
    if (p.info.built)
      return "";
    Builder b = builder("plan " + p.info.name);
    std::string e = [&]() -> std::string {
      if (!p.engineConfig)
        return "group '" + spec.name + "': plan has no engine config";
      DescPtr plan;
      TRY(b.create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, plan,
                   "EXECUTION_PLAN"));
      cudnnHandle_t handle = static_cast<cudnnHandle_t>(cudnnHandle);
      SET(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1,
          &handle);
      SET(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
          CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &p.engineConfig->raw);
      TRY(b.finalize(plan, "EXECUTION_PLAN"));
      p.plan = plan;
      return finishPlan(index);
    }();
    if (!e.empty()) {
      p.info.error = e;
      infos[index] = p.info;
    }
    return e;
  }

  std::vector<std::string> buildPlans(const std::vector<size_t> &indices,
                                      unsigned threads) override {
    std::vector<std::string> answers(indices.size());
    // Each worker finalizes whole plans: distinct entries of planList and
    // infos (neither grows meanwhile), on the device's context and its own
    // cuDNN handle (cuDNN allows threads on distinct handles only). Fewer
    // handles than asked (a cudnnCreate failed): fewer threads.
    std::vector<void *> handles;
    if (threads > 1 && indices.size() > 1)
      (void)device.buildHandles(
          static_cast<unsigned>(std::min<size_t>(threads, indices.size())),
          handles);
    if (handles.size() <= 1) {
      for (size_t k = 0; k < indices.size(); ++k)
        answers[k] = buildPlan(indices[k]);
      return answers;
    }
    std::atomic<size_t> next{0};
    auto work = [&](void *handle) {
      std::string error = device.activate();
      for (size_t k; (k = next.fetch_add(1)) < indices.size();) {
        try {
          answers[k] =
              error.empty() ? buildPlanWith(indices[k], handle) : error;
        } catch (const std::exception &failure) {
          answers[k] = "group '" + spec.name + "': building plan " +
                       std::to_string(indices[k]) +
                       " failed: " + failure.what();
        }
      }
    };
    std::vector<std::thread> workers;
    try {
      for (size_t t = 1; t < handles.size(); ++t)
        workers.emplace_back(work, handles[t]);
    } catch (const std::system_error &) {
      // Fewer threads than asked: the ones started and this one share the
      // plans.
    }
    work(handles[0]);
    for (std::thread &worker : workers)
      worker.join();
    return answers;
  }

  std::string addPlanFromJson(const std::string &json) override {
    Builder b = builder("plan from JSON");
    DescPtr plan;
    TRY(b.create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, plan,
                 "EXECUTION_PLAN"));
    cudnnHandle_t handle = static_cast<cudnnHandle_t>(device.cudnnHandle());
    SET(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
    SET(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
        static_cast<int64_t>(json.size()), json.data());
    TRY(b.finalize(plan, "EXECUTION_PLAN from JSON"));
    Plan p;
    p.plan = plan;
    p.info.name = "json";
    planList.push_back(p);
    infos.push_back(p.info);
    return finishPlan(planList.size() - 1);
  }

  int64_t workspaceBytes(size_t index) const override {
    if (index >= planList.size())
      return 0;
    int64_t own = (planList[index].info.workspaceBytes + 255) / 256 * 256;
    return own + loweringOf(planList[index]).scratchBytes;
  }

  /// Whether a tensor of the group's lowering or of an alternate's
  /// satisfies `test`.
  template <typename Test> bool anyTensor(Test test) const {
    auto holds = [&](const Lowering *low) {
      return low &&
             std::any_of(low->tensors.begin(), low->tensors.end(),
                         [&](const auto &entry) { return test(entry.second); });
    };
    return holds(lowering.get()) ||
           std::any_of(
               alternates.begin(), alternates.end(),
               [&](const Alternate &a) { return holds(a.lowering.get()); });
  }
  bool workspaceHoldsConstants() const override {
    return anyTensor([](const auto &t) {
      return t.isScratch && !t.scratchInit.empty();
    });
  }
  bool readsValuesOnHost() const override {
    return anyTensor(
        [](const auto &t) { return t.isByValue && t.valueFromBuffer; });
  }

  DescPtr lastPack; // the variant pack of the last execute
  size_t lastPackPlan = 0;
  std::vector<void *> lastPackPointers;
  void *lastPackWorkspace = nullptr;
  // This execute's uids and pointers, kept so a repeated execute allocates
  // nothing.
  std::vector<int64_t> packUids;
  std::vector<void *> packPointers;

  std::string execute(size_t index, const std::map<int64_t, void *> &buffers,
                      void *workspace) override {
    if (index >= planList.size() || !planList[index].info.built)
      return "group '" + spec.name + "': plan " + std::to_string(index) +
             " is not built";
    Plan &p = planList[index];
    Lowering &low = loweringOf(p);
    std::vector<int64_t> &uids = packUids;
    std::vector<void *> &pointers = packPointers;
    uids.clear();
    pointers.clear();
    int64_t scratchBase = (p.info.workspaceBytes + 255) / 256 * 256;
    bool readValues = false;
    // Whether the stream is being captured into a CUDA graph: asked of the
    // driver once per execute, when a by-value or scratch tensor first needs
    // it.
    std::optional<bool> captured;
    auto capturing = [&] {
      if (!captured)
        captured = device.isCapturing();
      return *captured;
    };
    if ((p.info.workspaceBytes > 0 || low.scratchBytes > 0) && !workspace)
      return "group '" + spec.name + "': plan " + p.info.name + " needs " +
             std::to_string(workspaceBytes(index)) +
             " bytes of workspace and none was given";
    for (auto &[uid, t] : low.tensors) {
      if (t.isVirtual)
        continue;
      uids.push_back(uid);
      if (t.isByValue && t.valueFromBuffer) {
        int64_t userUid = uid == kUidZeroKey ? 0 : uid;
        auto it = buffers.find(userUid);
        if (it == buffers.end() || !it->second)
          return "group '" + spec.name +
                 "': no buffer for by-value tensor uid " +
                 std::to_string(userUid);
        if (!capturing()) {
          if (t.valueIsF64) {
            double value = 0;
            TRY(device.copyToHost(&value, it->second, sizeof value));
            float narrowed = static_cast<float>(value);
            std::memcpy(t.value, &narrowed, sizeof narrowed);
          } else {
            TRY(device.copyToHost(t.value, it->second, cudnnTypeBytes(t.type)));
          }
          t.valueRead = true;
        } else if (!t.valueRead) {
          return "group '" + spec.name + "': by-value tensor uid " +
                 std::to_string(userUid) +
                 " is read on the host, which a stream being captured into "
                 "a CUDA graph cannot wait for; execute the graph once "
                 "before capturing it (the capture keeps that value)";
        }
        pointers.push_back(t.value);
        readValues = true;
      } else if (t.isByValue) {
        pointers.push_back(t.value);
      } else if (t.isScratch) {
        char *at =
            static_cast<char *>(workspace) + scratchBase + t.scratchOffset;
        if (!t.scratchInit.empty() && t.scratchUploadedTo != at) {
          if (capturing())
            return "group '" + spec.name +
                   "': its constants are uploaded to the workspace at the "
                   "first execute, which a stream being captured into a CUDA "
                   "graph cannot wait for; execute the graph once before "
                   "capturing it";
          TRY(device.copyToDevice(at, t.scratchInit.data(),
                                  t.scratchInit.size()));
          t.scratchUploadedTo = at;
        }
        pointers.push_back(at);
      } else {
        int64_t userUid = uid == kUidZeroKey ? 0 : uid;
        auto it = buffers.find(userUid);
        if (it == buffers.end() || !it->second)
          return "group '" + spec.name + "': no device buffer for tensor uid " +
                 std::to_string(userUid);
        pointers.push_back(it->second);
      }
    }
    // Repeated executes with the same buffers reuse the variant pack: its
    // creation is most of the host time of a small group.
    // Values read from buffers may differ between runs: a fresh pack.
    if (!lastPack || readValues || lastPackPlan != index ||
        lastPackPointers != pointers || lastPackWorkspace != workspace) {
      Builder b = builder("execute plan " + p.info.name);
      DescPtr pack;
      TRY(b.create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, pack,
                   "VARIANT_PACK"));
      SET(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64,
          static_cast<int64_t>(uids.size()), uids.data());
      SET(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
          static_cast<int64_t>(pointers.size()), pointers.data());
      SET(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1,
          &workspace);
      TRY(b.finalize(pack, "VARIANT_PACK"));
      lastPack = std::move(pack);
      lastPackPlan = index;
      lastPackPointers = pointers;
      lastPackWorkspace = workspace;
    }
    const DescPtr &pack = lastPack;
    if (cudnnStatus_t s = api.cudnnBackendExecute(
            static_cast<cudnnHandle_t>(device.cudnnHandle()), p.plan->raw,
            pack->raw);
        s != CUDNN_STATUS_SUCCESS)
      return builder("execute plan " + p.info.name)
          .fail("cudnnBackendExecute", s);
    return "";
  }

  std::string planJson(size_t index, std::string &json) override {
    if (index >= planList.size() || !planList[index].info.built)
      return "group '" + spec.name + "': plan " + std::to_string(index) +
             " is not built";
    Plan &p = planList[index];
    if (p.alternate >= 0)
      return "group '" + spec.name + "': plan " + p.info.name +
             " runs another description of the group, which its JSON does "
             "not record";
    Builder b = builder("plan " + p.info.name + " JSON");
    int64_t size = 0;
    if (cudnnStatus_t s = api.cudnnBackendGetAttribute(
            p.plan->raw, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
            CUDNN_TYPE_CHAR, 0, &size, nullptr);
        s != CUDNN_STATUS_SUCCESS)
      return b.fail("cudnnBackendGetAttribute(JSON_REPRESENTATION size)", s);
    std::string text(static_cast<size_t>(size), '\0');
    if (cudnnStatus_t s = api.cudnnBackendGetAttribute(
            p.plan->raw, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
            CUDNN_TYPE_CHAR, size, &size, text.data());
        s != CUDNN_STATUS_SUCCESS)
      return b.fail("cudnnBackendGetAttribute(JSON_REPRESENTATION)", s);
    while (!text.empty() && text.back() == '\0')
      text.pop_back();
    json = text;
    return "";
  }
};

} // namespace

std::unique_ptr<CudnnGroup>
CudnnGroup::create(Device &device, const GraphSpec &spec, std::string &error) {
  const CudnnApi *api = cudnnApi(error);
  if (!api)
    return nullptr;
  auto group = std::make_unique<CudnnGroupImpl>(device, *api, spec);
  error = group->build();
  if (!error.empty())
    return nullptr;
  return group;
}
