#include "muster/framework/interface.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace muster::framework {

size_t FilterPlugin::FilterNodes(const CycleState& state, const PodInfo& pod,
                                 std::span<const NodeInfo* const> nodes,
                                 std::span<Status> statuses) const {
  return FilterEachNode(nodes, statuses,
                        [&](const NodeInfo& node) { return Filter(state, pod, node); });
}

Status FilterOneNode(const FilterPlugin& plugin, const CycleState& state, const PodInfo& pod,
                     const NodeInfo& node) {
  const NodeInfo* const one = &node;
  Status s;
  plugin.FilterNodes(state, pod, std::span<const NodeInfo* const>(&one, 1),
                     std::span<Status>(&s, 1));
  return s;
}

Status ScorePlugin::ScoreNodes(const CycleState& state, const PodInfo& pod,
                               std::span<NodeInfo* const> nodes,
                               std::span<NodeScore> scores) const {
  for (size_t i = 0; i < nodes.size(); ++i) {
    int64_t score = 0;
    Status s = Score(state, pod, *nodes[i], &score);
    if (!s.IsSuccess()) return s;
    scores[i] = NodeScore{nodes[i]->name(), score};
  }
  return Status::OK();
}

Status ScoreOneNode(const ScorePlugin& plugin, const CycleState& state, const PodInfo& pod,
                    const NodeInfo& node, int64_t* score) {
  // ScoreNodes takes the framework's list of mutable nodes; it only reads them.
  NodeInfo* const one = const_cast<NodeInfo*>(&node);
  NodeScore out;
  Status s = plugin.ScoreNodes(state, pod, std::span<NodeInfo* const>(&one, 1),
                               std::span<NodeScore>(&out, 1));
  *score = out.score;
  return s;
}

size_t NodeToStatus::Slot(api::Symbol node) const {
  const size_t mask = index_.size() - 1;
  // Fibonacci hashing spreads the dense ids; linear probing from there.
  size_t slot = static_cast<size_t>((uint64_t{node.id()} * 0x9E3779B97F4A7C15ull) >> 32) & mask;
  while (index_[slot] != 0 && entries_[index_[slot] - 1].first != node) slot = (slot + 1) & mask;
  return slot;
}

void NodeToStatus::Rehash(size_t slots) {
  index_.assign(slots, 0);
  for (size_t i = 0; i < entries_.size(); ++i) {
    index_[Slot(entries_[i].first)] = static_cast<uint32_t>(i + 1);
  }
}

void NodeToStatus::Reserve(size_t n) {
  entries_.reserve(n);
  size_t slots = 16;
  while (slots < 2 * n) slots *= 2;
  if (slots > index_.size()) Rehash(slots);
}

const Status& NodeToStatus::Get(api::Symbol node) const {
  if (entries_.empty()) return absent;
  const uint32_t at = index_[Slot(node)];
  return at == 0 ? absent : entries_[at - 1].second;
}

void NodeToStatus::Set(api::Symbol node, Status status) {
  // At most half full.
  if (2 * (entries_.size() + 1) > index_.size()) Rehash(std::max<size_t>(16, 2 * index_.size()));
  const size_t slot = Slot(node);
  if (index_[slot] != 0) {
    entries_[index_[slot] - 1].second = std::move(status);
    return;
  }
  entries_.emplace_back(node, std::move(status));
  index_[slot] = static_cast<uint32_t>(entries_.size());
}

std::vector<std::string> NodeToStatus::ReasonCounts(int32_t num_all_nodes) const {
  // Nodes mostly fail with copies of a few statuses: count those first, by identity, and look
  // their reasons up once each.
  constexpr size_t kMaxDistinct = 16;
  std::vector<std::pair<const Status*, int>> distinct;
  std::map<std::string, int> histogram;
  for (const auto& [node, status] : entries_) {
    if (status.identity() == nullptr) continue;  // no reasons
    auto same = [identity = status.identity()](const auto& d) {
      return d.first->identity() == identity;
    };
    if (auto it = std::find_if(distinct.begin(), distinct.end(), same); it != distinct.end()) {
      ++it->second;
    } else if (distinct.size() < kMaxDistinct) {
      distinct.emplace_back(&status, 1);
    } else {
      for (const std::string& r : status.reasons()) ++histogram[r];
    }
  }
  for (const auto& [status, count] : distinct) {
    for (const std::string& r : status->reasons()) histogram[r] += count;
  }
  const int64_t without = int64_t{num_all_nodes} - static_cast<int64_t>(entries_.size());
  if (without > 0) {
    for (const std::string& r : absent.reasons()) histogram[r] += static_cast<int>(without);
  }
  std::vector<std::string> parts;
  parts.reserve(histogram.size());
  for (const auto& [reason, count] : histogram) {
    parts.push_back(fmt::format("{} {}", count, reason));
  }
  // As strings, as upstream sorts them: "10 ..." before "2 ...".
  std::sort(parts.begin(), parts.end());
  return parts;
}

void PreFilterResult::Merge(const PreFilterResult& other) {
  if (other.AllNodes()) return;
  if (AllNodes()) {
    node_names = other.node_names;
    return;
  }
  std::vector<api::Symbol> kept;
  for (api::Symbol name : *node_names) {
    if (std::find(other.node_names->begin(), other.node_names->end(), name) !=
        other.node_names->end()) {
      kept.push_back(name);
    }
  }
  node_names = std::move(kept);
}

}  // namespace muster::framework
