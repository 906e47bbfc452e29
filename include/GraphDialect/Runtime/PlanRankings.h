//===- PlanRankings.h - Plan choices ranked by time on a device -*- C++ -*-===//
//
// What GroupPlans::rankByTime keeps per device (Device::planRankings): the
// plan it listed first for each group, so that every plan list made for the
// group in the process gives each plan the index the first list gave it.
// With $GRAPH_PLAN_CACHE_DIR set, the choices are also kept on disk for
// later processes (loadRankedPlan / storeRankedPlan).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_RUNTIME_PLANRANKINGS_H
#define GRAPHDIALECT_RUNTIME_PLANRANKINGS_H

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace graph::rt {

/// The plan listed first for a group whose plans were ranked by time, with
/// the notes of its timing.
struct RankedPlan {
  std::string first;
  std::vector<std::string> notes;
  /// When `first` is a generated plan: the cuDNN plan listed first among
  /// cuDNN's ("" for the heuristics' first).
  std::string cudnnFirst;
};

/// Ranking choices keyed by heuristics modes and group. Lock the mutex
/// around a lookup and the timing that fills a missing choice.
struct PlanRankings {
  std::mutex mutex;
  std::map<std::string, RankedPlan> chosen;
};

/// Whether $GRAPH_PLAN_CACHE_DIR is set: whether choices are kept on disk
/// (a caller skips making their keys otherwise).
bool rankedPlansOnDisk();
/// The choice stored under `key` in $GRAPH_PLAN_CACHE_DIR by an earlier
/// process; false when the variable is unset, no file is there, or the file
/// holds another key (a hash collision) or is cut short.
bool loadRankedPlan(const std::string &key, RankedPlan &out);
/// Stores `plan` under `key` in $GRAPH_PLAN_CACHE_DIR (a file named by the
/// key's hash, written whole and renamed into place, so processes sharing
/// the directory never read half a file). Does nothing when the variable
/// is unset or the directory cannot be written: the cache only saves time.
void storeRankedPlan(const std::string &key, const RankedPlan &plan);

} // namespace graph::rt

#endif // GRAPHDIALECT_RUNTIME_PLANRANKINGS_H
