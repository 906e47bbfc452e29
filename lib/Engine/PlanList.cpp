//===- PlanList.cpp - One group's ranked plan list over both engines ------===//

#include "GraphDialect/Engine/PlanList.h"

#include "GraphDialect/Conversion/GraphToCodegen.h"

#include <algorithm>
#include <cstdio>

using namespace mlir::graph;
namespace rt = ::graph::rt;

std::vector<PlanEntry>
mlir::graph::groupPlanList(const std::vector<std::string> &cudnnNames,
                           size_t numHeuristic,
                           const std::vector<std::string> &codegenNames) {
  numHeuristic = std::min(numHeuristic, cudnnNames.size());
  std::vector<PlanEntry> list;
  for (size_t i = 0; i < numHeuristic; ++i)
    list.push_back({false, i, cudnnNames[i]});
  for (size_t i = 0; i < codegenNames.size(); ++i)
    list.push_back({true, i, codegenNames[i]});
  for (size_t i = numHeuristic; i < cudnnNames.size(); ++i)
    list.push_back({false, i, cudnnNames[i]});
  return list;
}

std::vector<std::string>
mlir::graph::codegenPlansFor(const rt::GraphSpec &spec,
                             std::vector<std::string> *declined) {
  std::vector<std::string> names;
  // From the spec (buildSpecGraphOps): the plan lists are made where only
  // specs exist (an artifact's groups, the pieces execute splits a group
  // into), graph-generate-kernels and graph-lower-to-executable build
  // theirs from the group region (buildGroupOps).
  std::string v2Declines = codegenV2Declines(spec);
  std::string v1Declines; // computed when first needed
  bool v1Asked = false;
  for (const std::string &name : codegenPlanNames()) {
    std::string why;
    if (name == kCodegenEngine) {
      if (!v1Asked) {
        v1Declines = codegenDeclines(spec);
        v1Asked = true;
      }
      why = v1Declines;
    } else {
      why = v2Declines;
    }
    if (why.empty()) {
      names.push_back(name);
      continue;
    }
    if (!declined)
      continue;
    // The codegen_v2 plans share one reason.
    std::string line =
        (name == kCodegenEngine ? name : std::string("codegen_v2")) + ": " +
        why;
    if (std::find(declined->begin(), declined->end(), line) == declined->end())
      declined->push_back(line);
  }
  return names;
}

int64_t
mlir::graph::codegenEngineOf(const std::string &name,
                             std::vector<std::pair<int64_t, int64_t>> &knobs) {
  knobs.clear();
  long threads = 0, items = 0;
  int used = 0;
  if (std::sscanf(name.c_str(), "codegen_v2_t%ld_i%ld%n", &threads, &items,
                  &used) == 2) {
    knobs = {{kCodegenKnobThreads, threads},
             {kCodegenKnobItems, items},
             {kCodegenKnobPrefetch, name.substr(used) == "_p" ? 1 : 0}};
    return kCodegenV2EngineId;
  }
  return kCodegenV1EngineId;
}

bool mlir::graph::planDeselected(const PlanEntry &entry,
                                 const std::vector<std::string> &deselect) {
  for (const std::string &needle : deselect) {
    if (needle.empty())
      continue;
    if (entry.name.find(needle) != std::string::npos)
      return true;
    if (!entry.codegen && needle == "cudnn")
      return true;
  }
  return false;
}

std::string mlir::graph::planWalk(const std::vector<PlanEntry> &list,
                                  int planIndex,
                                  const std::vector<std::string> &deselect,
                                  std::vector<size_t> &order,
                                  std::vector<std::string> &declined) {
  order.clear();
  if (planIndex >= 0) {
    if (static_cast<size_t>(planIndex) >= list.size())
      return "plan index " + std::to_string(planIndex) +
             " is out of range for " + std::to_string(list.size()) + " plan(s)";
    const PlanEntry &pinned = list[planIndex];
    if (planDeselected(pinned, deselect))
      return "plan " + std::to_string(planIndex) + " (" + pinned.name +
             ") is pinned but deselected";
    order.push_back(planIndex);
    return "";
  }
  for (size_t i = 0; i < list.size(); ++i) {
    if (planDeselected(list[i], deselect)) {
      declined.push_back(list[i].name + ": deselected");
      continue;
    }
    order.push_back(i);
  }
  return "";
}

namespace {
/// How many ops of a group are principal (not pointwise, reduction or a view).
size_t principalOps(const rt::GraphSpec &group) {
  size_t count = 0;
  for (const rt::OpSpec &op : group.ops)
    if (!op.kind.isOneOf({::graph::OpKind::Pointwise,
                          ::graph::OpKind::Reduction, ::graph::OpKind::Reshape,
                          ::graph::OpKind::Transpose, ::graph::OpKind::Slice,
                          ::graph::OpKind::Concatenate}))
      ++count;
  return count;
}
} // namespace

std::vector<size_t>
mlir::graph::anchorOrder(const std::vector<rt::GraphSpec> &groups) {
  std::vector<size_t> order(groups.size());
  std::vector<size_t> principal(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) {
    order[i] = i;
    principal[i] = principalOps(groups[i]);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (principal[a] != principal[b])
      return principal[a] > principal[b];
    return groups[a].ops.size() > groups[b].ops.size();
  });
  return order;
}

size_t mlir::graph::anchorGroup(const std::vector<rt::GraphSpec> &groups) {
  return groups.empty() ? 0 : anchorOrder(groups).front();
}
