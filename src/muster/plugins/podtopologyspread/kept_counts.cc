#include "muster/plugins/podtopologyspread/kept_counts.h"

#include <algorithm>

namespace muster::plugins::podtopologyspread {
namespace {

bool HasRequiredNodeAffinity(const api::Pod& pod) {
  if (!pod.spec.node_selector.empty()) return true;
  const auto& affinity = pod.spec.affinity;
  return affinity && affinity->node_affinity && affinity->node_affinity->required;
}

// Whether every node counts the same for every pod with these constraints.
bool Keepable(const api::Pod& pod, std::span<const Constraint> constraints) {
  const bool affinity = HasRequiredNodeAffinity(pod);
  return std::none_of(constraints.begin(), constraints.end(), [&](const Constraint& c) {
    return c.honor_node_taints || (c.honor_node_affinity && affinity);
  });
}

std::string EntryKey(api::Symbol ns, std::span<const Constraint> constraints,
                     bool require_all_keys) {
  std::string key = std::to_string(ns.id());
  key += require_all_keys ? "|all" : "|any";
  for (const Constraint& c : constraints) {
    // The count key names the namespace and selector; without a selector nothing is counted.
    key += '|';
    key += std::to_string(c.topology_key.id());
    key += c.selector ? ':' : '-';
    key += std::to_string(c.count_key);
  }
  return key;
}

}  // namespace

void CountNode(const framework::NodeInfo& info, std::span<const Constraint> constraints,
               const api::Pod& pod, bool require_all_keys, NodeCount* out) {
  std::fill(out, out + constraints.size(), NodeCount{});
  const api::Node* node = info.node();
  if (node == nullptr) return;
  const api::LabelSet& labels = node->metadata.labels;
  if (require_all_keys && !NodeHasAllTopologyKeys(labels, constraints)) return;
  for (size_t i = 0; i < constraints.size(); ++i) {
    const Constraint& c = constraints[i];
    if (!NodeIncluded(c, pod, *node, info.name())) continue;
    const api::Symbol* value = labels.Get(c.topology_key);
    out[i] = {true, value != nullptr ? *value : api::Symbol(),
              CountMatchingPods(info, c, pod.metadata.namespace_)};
  }
}

const std::vector<KeptDomainCounts::Domains>* KeptDomainCounts::Get(
    const framework::Snapshot& snapshot, const api::Pod& pod,
    std::span<const Constraint> constraints, bool require_all_keys) {
  if (!Keepable(pod, constraints)) return nullptr;
  const std::string key = EntryKey(pod.metadata.namespace_, constraints, require_all_keys);
  auto it =
      std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; });
  if (it == entries_.end()) {
    if (entries_.size() < kMaxEntries) {
      it = entries_.emplace(entries_.end());
    } else {
      it = std::min_element(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
        return a.last_used < b.last_used;
      });
    }
    *it = Entry{key};
  }
  Entry& entry = *it;
  entry.last_used = ++uses_;

  const bool fresh = entry.snapshot_id != snapshot.id() || entry.domains.empty() ||
                     !snapshot.ChangedSince(entry.synced, &changed_);
  if (fresh) {
    entry.snapshot_id = snapshot.id();
    entry.domains.assign(constraints.size(), Domains());
    entry.by_node.clear();
    for (const framework::NodeInfo* info : snapshot.List()) {
      Recount(entry, info->name(), snapshot, pod, constraints, require_all_keys);
    }
  } else {
    for (api::Symbol node : changed_) {
      Recount(entry, node, snapshot, pod, constraints, require_all_keys);
    }
  }
  entry.synced = snapshot.change_count();
  return &entry.domains;
}

void KeptDomainCounts::Recount(Entry& entry, api::Symbol node, const framework::Snapshot& snapshot,
                               const api::Pod& pod, std::span<const Constraint> constraints,
                               bool require_all_keys) {
  const size_t n = constraints.size();
  auto apply = [&](const std::vector<NodeCount>& counts, int sign) {
    for (size_t i = 0; i < n; ++i) {
      if (!counts[i].counted) continue;
      Domain& d = entry.domains[i][counts[i].value];
      d.pods += sign * counts[i].pods;
      d.nodes += sign;
      if (d.nodes == 0) entry.domains[i].erase(counts[i].value);
    }
  };
  if (auto old = entry.by_node.find(node); old != entry.by_node.end()) {
    apply(old->second, -1);
    entry.by_node.erase(old);
  }
  const framework::NodeInfo* info = snapshot.Get(node);
  if (info == nullptr) return;  // removed
  std::vector<NodeCount> counts(n);
  CountNode(*info, constraints, pod, require_all_keys, counts.data());
  if (std::none_of(counts.begin(), counts.end(), [](const NodeCount& c) { return c.counted; })) {
    return;
  }
  apply(counts, 1);
  entry.by_node.emplace(node, std::move(counts));
}

}  // namespace muster::plugins::podtopologyspread
