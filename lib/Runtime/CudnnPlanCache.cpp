//===- CudnnPlanCache.cpp - Canonical group keys and the plan cache -------===//
//
// The canonical text of a GraphSpec, the in-process cache of built groups
// keyed by it, and the on-disk caches (GRAPH_PLAN_CACHE_DIR) of plan JSON
// and of the plan choices GroupPlans::rankByTime made by time.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Runtime/CudnnGraph.h"
#include "GraphDialect/Runtime/PlanRankings.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include <unistd.h>

using namespace graph::rt;

std::string graph::rt::canonicalKey(const GraphSpec &spec) {
  std::ostringstream os;
  os.precision(17);
  auto list = [&](const Shape &s) {
    os << '[';
    for (size_t i = 0; i < s.size(); ++i)
      os << (i ? "," : "") << s[i];
    os << ']';
  };
  os << "T";
  for (const TensorSpec &t : spec.tensors) {
    os << '{' << t.uid << ':' << dtypeName(t.dtype);
    list(t.dims);
    list(t.strides.empty() ? rowMajorStrides(t.dims) : t.strides);
    if (t.isVirtual)
      os << 'v';
    if (t.isByValue)
      os << "=" << t.byValue;
    if (t.readByValue)
      os << 'h';
    os << '}';
  }
  os << "O";
  for (const OpSpec &o : spec.ops) {
    os << '{' << o.kind << '/' << o.mode << '/' << dtypeName(o.computeType);
    for (auto &[port, uid] : o.inputs)
      os << " i" << port << '=' << uid;
    for (auto &[port, uid] : o.outputs)
      os << " o" << port << '=' << uid;
    for (auto &[name, v] : o.intAttrs) {
      os << ' ' << name << '=';
      list(v);
    }
    for (auto &[name, v] : o.floatAttrs)
      os << ' ' << name << '=' << v;
    os << '}';
  }
  return os.str();
}

namespace {

uint64_t fnv1a(const std::string &text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

/// The cache file of `key` with `suffix`, "" when GRAPH_PLAN_CACHE_DIR is
/// unset.
std::string cachePath(const std::string &key, const char *suffix) {
  const char *dir = std::getenv("GRAPH_PLAN_CACHE_DIR");
  if (!dir || !*dir)
    return "";
  char name[40];
  std::snprintf(name, sizeof(name), "%016llx%s",
                static_cast<unsigned long long>(fnv1a(key)), suffix);
  return std::string(dir) + "/" + name;
}

/// Writes `text` to `path` through a temporary file renamed into place.
void writeWhole(const std::string &path, const std::string &text) {
  // The process id and a count keep the temporaries of two processes, and
  // of two devices of one process, apart.
  static std::atomic<unsigned> written{0};
  std::string tmp = path + ".tmp" + std::to_string(::getpid()) + "." +
                    std::to_string(written++);
  std::ofstream file(tmp, std::ios::binary);
  file << text;
  file.close();
  if (!file || std::rename(tmp.c_str(), path.c_str()) != 0)
    std::remove(tmp.c_str());
}

struct CacheEntry {
  std::unique_ptr<CudnnGroup> group;
  size_t planIndex = 0;
};

} // namespace

bool graph::rt::rankedPlansOnDisk() {
  const char *dir = std::getenv("GRAPH_PLAN_CACHE_DIR");
  return dir && *dir;
}

std::string graph::rt::getCachedPlan(Device &device, const GraphSpec &spec,
                                     CudnnGroup *&group, size_t &planIndex) {
  static std::mutex mutex;
  static std::map<std::string, CacheEntry> cache;
  std::lock_guard<std::mutex> lock(mutex);
  std::string key = canonicalKey(spec) + "|" + device.version();
  // In memory a group belongs to its device (its handle and context); on
  // disk a plan's JSON serves every device of the same version.
  std::string memoryKey = key + "|gpu" + std::to_string(device.ordinal());
  auto it = cache.find(memoryKey);
  if (it != cache.end()) {
    group = it->second.group.get();
    planIndex = it->second.planIndex;
    return "";
  }
  std::string error;
  std::unique_ptr<CudnnGroup> g = CudnnGroup::create(device, spec, error);
  if (!g)
    return error;
  std::string path = cachePath(key, ".json");
  if (!path.empty()) {
    std::ifstream file(path, std::ios::binary);
    if (file) {
      // The file starts with the key line so a hash collision is detected.
      std::string storedKey, json;
      std::getline(file, storedKey);
      std::ostringstream rest;
      rest << file.rdbuf();
      json = rest.str();
      if (storedKey == key && g->addPlanFromJson(json).empty()) {
        planIndex = g->plans().size() - 1;
        group = g.get();
        cache[memoryKey] = CacheEntry{std::move(g), planIndex};
        return "";
      }
    }
  }
  std::string heurError =
      g->createPlans({HeurMode::A, HeurMode::Fallback});
  std::string reasons;
  for (size_t i = 0; i < g->plans().size(); ++i) {
    std::string why = g->buildPlan(i);
    if (why.empty()) {
      planIndex = i;
      if (!path.empty()) {
        std::string json;
        if (g->planJson(i, json).empty())
          writeWhole(path, key + '\n' + json);
      }
      group = g.get();
      cache[memoryKey] = CacheEntry{std::move(g), planIndex};
      return "";
    }
    reasons += "\n  " + g->plans()[i].name + ": " + why;
  }
  return "group '" + spec.name + "': no plan could be built" +
         (heurError.empty() ? "" : " (" + heurError + ")") + reasons;
}

// A ranking's file: the key, the plan listed first, cuDNN's plan listed
// first, then the notes, one per line.
bool graph::rt::loadRankedPlan(const std::string &key, RankedPlan &out) {
  std::string path = cachePath(key, ".rank");
  if (path.empty())
    return false;
  std::ifstream file(path, std::ios::binary);
  std::string storedKey;
  RankedPlan plan;
  if (!std::getline(file, storedKey) || storedKey != key ||
      !std::getline(file, plan.first) || plan.first.empty() ||
      !std::getline(file, plan.cudnnFirst))
    return false;
  for (std::string note; std::getline(file, note);)
    plan.notes.push_back(note);
  out = std::move(plan);
  return true;
}

void graph::rt::storeRankedPlan(const std::string &key,
                                const RankedPlan &plan) {
  std::string path = cachePath(key, ".rank");
  std::string text = key + '\n' + plan.first + '\n' + plan.cudnnFirst + '\n';
  for (const std::string &note : plan.notes)
    text += note + '\n';
  // A line break inside a field would shift every line after it.
  size_t lines = 3 + plan.notes.size();
  if (path.empty() || plan.first.empty() ||
      static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) != lines)
    return;
  writeWhole(path, text);
}
