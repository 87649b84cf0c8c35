#include "muster/scheduler/group_placement.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "muster/scheduler/cycle.h"

namespace muster::scheduler {

double FreeShare(const framework::Snapshot& snapshot, const std::vector<api::Symbol>& nodes,
                 const std::vector<api::Symbol>& scalars) {
  api::Resource allocatable, requested;
  for (api::Symbol name : nodes) {
    if (const framework::NodeInfo* node = snapshot.Get(name)) {
      allocatable.Add(node->allocatable());
      requested.Add(node->requested());
    }
  }
  double sum = 0;
  int count = 0;
  auto add = [&](int64_t total, int64_t used) {
    if (total <= 0) return;
    sum += static_cast<double>(std::max<int64_t>(total - used, 0)) / static_cast<double>(total);
    ++count;
  };
  add(allocatable.milli_cpu, requested.milli_cpu);
  add(allocatable.memory, requested.memory);
  for (api::Symbol name : scalars) add(allocatable.Scalar(name), requested.Scalar(name));
  return count == 0 ? 0 : sum / count;
}

std::map<std::string, std::vector<api::Symbol>> DomainsOf(
    const framework::Snapshot& snapshot, api::Symbol key,
    const std::unordered_set<uint32_t>& within, const std::vector<const api::Pod*>& members,
    std::set<std::string>* held) {
  std::map<std::string, std::vector<api::Symbol>> domains;
  for (const framework::NodeInfo* node : snapshot.List()) {
    if (!within.empty() && !within.contains(node->name().id())) continue;
    if (const api::Symbol* value = node->node()->metadata.labels.Get(key)) {
      domains[value->string()].push_back(node->name());
    }
  }
  for (const api::Pod* p : members) {
    const framework::NodeInfo* node =
        p->spec.node_name.empty() ? nullptr : snapshot.Get(p->spec.node_name);
    if (node == nullptr) continue;
    if (const api::Symbol* value = node->node()->metadata.labels.Get(key)) {
      held->insert(value->string());
    }
  }
  if (held->size() == 1) {
    std::erase_if(domains, [&](const auto& d) { return d.first != *held->begin(); });
  }
  return domains;
}

void Restrict(std::unordered_set<uint32_t>& placement, std::string& placement_name, api::Symbol key,
              const std::string& value, const std::vector<api::Symbol>& nodes) {
  placement.clear();
  for (api::Symbol name : nodes) placement.insert(name.id());
  placement_name = fmt::format("{}={}", key.str(), value);
}

void AddScalars(const framework::PodInfo& pod, std::vector<api::Symbol>* scalars) {
  for (const auto& [name, value] : pod.requests.scalar) {
    if (std::find(scalars->begin(), scalars->end(), name) == scalars->end()) {
      scalars->push_back(name);
    }
  }
}

Scheduler::TreePlacer::TreePlacer(Scheduler& scheduler, const framework::Gang& root, Hooks hooks)
    : s_(scheduler), root_(root), hooks_(std::move(hooks)) {
  root_.ForEachGroup([&](const framework::Gang& leaf) {
    Group& g = groups_[leaf.name];
    for (const api::Pod* p : leaf.members) {
      if (!p->spec.node_name.empty() || s_.cache_.IsAssumedPod(*p)) ++g.assigned;
    }
  });
}

void Scheduler::TreePlacer::Add(size_t member, const framework::PodInfo& pod) {
  if (pods_.size() <= member) pods_.resize(member + 1);
  pods_[member] = &pod;
  Group& g = GroupOf(member);
  ++g.attempted;
  g.pool.push_back(member);
}

bool Scheduler::TreePlacer::Place(std::string* why) { return PlaceNode(root_, why); }

Scheduler::TreePlacer::Group& Scheduler::TreePlacer::GroupOf(size_t member) {
  // (A gang that is no tree is its own one group.)
  return groups_[root_.composite() ? pods_[member]->gang.name : root_.name];
}

void Scheduler::TreePlacer::UndoTo(size_t mark) {
  while (placed_.size() > mark) {
    const size_t member = placed_.back();
    placed_.pop_back();
    hooks_.undo(member);
    GroupOf(member).pool.push_back(member);
  }
}

void Scheduler::TreePlacer::Unplace(const framework::Gang& node, size_t mark,
                                    const std::string& why) {
  UndoTo(mark);
  node.ForEachGroup([&](const framework::Gang& leaf) {
    Group& g = groups_[leaf.name];
    if (g.placed) g.message = "fit, but " + why;
    g.placed = false;
  });
}

bool Scheduler::TreePlacer::PlaceGroup(const framework::Gang& leaf, std::string* why) {
  Group& g = groups_[leaf.name];
  std::sort(g.pool.begin(), g.pool.end());
  const size_t mark = placed_.size();
  std::vector<size_t> left;
  for (const size_t member : g.pool) {
    switch (hooks_.place(member)) {
      case Tried::kPlaced:
        placed_.push_back(member);
        break;
      case Tried::kFailed:
        left.push_back(member);
        break;
      case Tried::kGone:
        break;
    }
  }
  g.pool = std::move(left);
  const int32_t fit = g.assigned + static_cast<int32_t>(placed_.size() - mark);
  if (fit >= leaf.min_count) {
    g.placed = true;
    g.message = fmt::format("{}/{} members placed ({} {})", fit, g.assigned + g.attempted,
                            leaf.quorum_name, leaf.min_count);
    *why = g.message;
    return true;
  }
  g.message = fmt::format("{}/{} members fit ({} {})", fit, g.assigned + g.attempted,
                          leaf.quorum_name, leaf.min_count);
  if (!g.pool.empty()) {
    if (std::string not_fit = hooks_.why_not(g.pool); !not_fit.empty()) {
      g.message += "; " + not_fit;
    }
  }
  UndoTo(mark);
  *why = fmt::format("pod group {}: {}", leaf.name.str(), g.message);
  return false;
}

bool Scheduler::TreePlacer::PlaceComposite(const framework::Gang& node, std::string* why) {
  const size_t mark = placed_.size();
  const auto children = static_cast<int32_t>(node.children.size());
  int32_t done = 0;
  int32_t remaining = children;
  std::string first_failure;
  for (const framework::Gang& child : node.children) {
    if (remaining + done < node.min_count) break;  // the quorum is out of reach
    std::string w;
    const bool ok = PlaceNode(child, &w);
    --remaining;
    if (ok) {
      ++done;
    } else if (first_failure.empty()) {
      first_failure = std::move(w);
    }
  }
  if (done >= node.min_count) {
    *why = fmt::format("{}/{} groups placed ({} {})", done, children, node.quorum_name,
                       node.min_count);
    return true;
  }
  *why = fmt::format("composite pod group {}: {}/{} groups fit ({} {}){}", node.name.str(), done,
                     children, node.quorum_name, node.min_count,
                     first_failure.empty() ? "" : "; " + first_failure);
  Unplace(node, mark, *why);
  return false;
}

bool Scheduler::TreePlacer::PlaceBody(const framework::Gang& node, std::string* why) {
  return node.composite() ? PlaceComposite(node, why) : PlaceGroup(node, why);
}

bool Scheduler::TreePlacer::PlaceNode(const framework::Gang& node, std::string* why) {
  if (node.topology_key.empty()) return PlaceBody(node, why);
  const api::Symbol key = node.topology_key;
  s_.cache_.UpdateSnapshot(s_.snapshot_);
  const std::unordered_set<uint32_t> outer = s_.placement_;
  const std::string outer_name = s_.placement_name_;
  // Within the parent's domain; members on a node already hold the subtree to theirs.
  std::set<std::string> held;
  std::map<std::string, std::vector<api::Symbol>> domains =
      DomainsOf(s_.snapshot_, key, outer, node.members, &held);
  if (held.size() > 1) {
    *why = fmt::format("{}: more than 1 domain of {} found: {}", node.name.str(), key.str(),
                       fmt::join(held, ", "));
    return false;
  }
  if (domains.empty()) {
    *why = fmt::format("{}: no node{} has the label {} of its topology constraint", node.name.str(),
                       outer.empty() ? "" : " in " + outer_name, key.str());
    return false;
  }
  std::vector<api::Symbol> scalars;
  node.ForEachGroup([&](const framework::Gang& leaf) {
    for (const size_t member : groups_[leaf.name].pool) {
      AddScalars(*pods_[member], &scalars);
    }
  });
  auto restrict = [&](const std::string& value, const std::vector<api::Symbol>& nodes) {
    Restrict(s_.placement_, s_.placement_name_, key, value, nodes);
  };
  // Each domain tried with the subtree placed in it, then undone; the tightest that places it
  // wins (ties to the first by name), as a gang's domain is chosen.
  const std::string* best = nullptr;
  double best_share = 0;
  std::string first_why;
  for (const auto& [value, nodes] : domains) {
    restrict(value, nodes);
    const size_t mark = placed_.size();
    std::string w;
    const bool ok = PlaceBody(node, &w);
    if (ok) {
      s_.cache_.UpdateSnapshot(s_.snapshot_);
      const double share = FreeShare(s_.snapshot_, nodes, scalars);
      if (best == nullptr || share < best_share) {
        best = &value;
        best_share = share;
      }
    } else if (first_why.empty()) {
      first_why = fmt::format("in {}: {}", s_.placement_name_, w);
    }
    Unplace(node, mark, w);
  }
  bool ok = false;
  if (best == nullptr) {
    *why =
        fmt::format("no domain of {} has room for {}; {}", key.str(), node.name.str(), first_why);
  } else {
    restrict(*best, domains[*best]);
    ok = PlaceBody(node, why);
    if (ok) *why += " in " + s_.placement_name_;
  }
  s_.placement_ = outer;
  s_.placement_name_ = outer_name;
  return ok;
}

}  // namespace muster::scheduler
