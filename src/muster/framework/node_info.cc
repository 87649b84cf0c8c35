#include "muster/framework/node_info.h"

#include <algorithm>
#include <atomic>
#include <cstddef>

#include "muster/api/pod_resources.h"

namespace muster::framework {

std::shared_ptr<const PodInfo> PodInfo::Make(api::PodPtr object) {
  const api::Pod& pod = *object;
  PodFacts facts;
  facts.priority = pod.Priority();
  facts.gang = api::GangOf(pod);
  facts.requests = api::PodRequests(pod);
  const api::Resource non_zero = api::PodNonZeroRequests(pod);
  facts.non_zero_requests = {non_zero.milli_cpu, non_zero.memory};
  if (pod.spec.affinity) {
    const auto& a = *pod.spec.affinity;
    const bool affinity =
        a.pod_affinity && (!a.pod_affinity->required.empty() || !a.pod_affinity->preferred.empty());
    const bool anti = a.pod_anti_affinity && (!a.pod_anti_affinity->required.empty() ||
                                              !a.pod_anti_affinity->preferred.empty());
    facts.has_affinity = affinity || anti;
    facts.has_required_anti_affinity =
        a.pod_anti_affinity && !a.pod_anti_affinity->required.empty();
    if (a.pod_affinity) {
      facts.required_affinity_parses = api::TermsParse(a.pod_affinity->required);
      facts.preferred_affinity_parses = api::TermsParse(a.pod_affinity->preferred);
    }
    if (a.pod_anti_affinity) {
      facts.required_anti_affinity_parses = api::TermsParse(a.pod_anti_affinity->required);
      facts.preferred_anti_affinity_parses = api::TermsParse(a.pod_anti_affinity->preferred);
    }
    auto add_key = [&](api::Symbol key) {
      std::vector<api::Symbol>& keys = facts.affinity_term_keys;
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    };
    for (const auto* terms : {a.pod_affinity ? &*a.pod_affinity : nullptr,
                              a.pod_anti_affinity ? &*a.pod_anti_affinity : nullptr}) {
      if (terms == nullptr) continue;
      for (const api::PodAffinityTerm& t : terms->required) add_key(t.topology_key);
      for (const api::WeightedPodAffinityTerm& w : terms->preferred) add_key(w.term.topology_key);
    }
  }
  return std::make_shared<const PodInfo>(std::move(facts), std::move(object));
}

std::shared_ptr<const PodInfo> PodInfo::OnNode(const PodInfo& info, api::Symbol node) {
  auto pod = std::make_shared<api::Pod>(info.pod);
  pod->spec.node_name = node;
  return std::make_shared<const PodInfo>(info, std::move(pod));
}

void HostPortInfo::Remove(const HostPort& p) {
  auto it = std::find(ports_.begin(), ports_.end(), p);
  if (it != ports_.end()) ports_.erase(it);
}

bool HostPortInfo::Conflicts(const HostPort& p) const {
  static const api::Symbol kAnyAddress("0.0.0.0");
  auto any = [](api::Symbol ip) { return ip.empty() || ip == kAnyAddress; };
  for (const HostPort& used : ports_) {
    if (used.port != p.port || used.protocol != p.protocol) continue;
    if (any(used.ip) || any(p.ip) || used.ip == p.ip) return true;
  }
  return false;
}

uint64_t NewScoreMemoKey() {
  static std::atomic<uint64_t> next{1};
  // Wrapped round after 2^40 keys (not within a process's life); 0 is never a key.
  constexpr uint64_t kMask = (uint64_t{1} << NodeInfo::kScoreMemoKeyBits) - 1;
  const uint64_t key = next.fetch_add(1, std::memory_order_relaxed) & kMask;
  return key != 0 ? key : NewScoreMemoKey();
}

// One list of the fields: a copy is an empty NodeInfo assigned over.
NodeInfo::NodeInfo(const NodeInfo& other) : NodeInfo() { *this = other; }

NodeInfo& NodeInfo::operator=(const NodeInfo& other) {
  if (this == &other) return *this;
  summary_ = other.summary_;
  node_ = other.node_;
  taints_ = other.taints_;
  // The rest is assigned in place: a snapshot assigns a node over its older copy after every
  // change, and its lists keep their capacity (PodList's assignment).
  if (rest_ == nullptr) {
    rest_ = std::make_unique<Rest>(*other.rest_);
  } else {
    *rest_ = *other.rest_;
  }
  num_taints_ = other.num_taints_;
  num_image_states_ = other.num_image_states_;
  name_ = other.name_;
  flags_ = other.flags_;
  cpu_memory_balance_ = other.cpu_memory_balance_;
  score_memo_ = other.score_memo_;
  return *this;
}

void NodeInfo::SetImageStates(std::vector<ImageState> states) {
  num_image_states_ = static_cast<uint32_t>(states.size());
  rest_->image_states =
      states.empty() ? nullptr : std::make_shared<const std::vector<ImageState>>(std::move(states));
}

void NodeInfo::SetNode(std::shared_ptr<const api::Node> node) {
  rest_->node_owner = std::move(node);
  node_ = rest_->node_owner.get();
  name_ = api::Symbol(node_->metadata.name);
  flags_ = static_cast<uint8_t>((flags_ & ~kUnschedulable) |
                                (node_->spec.unschedulable ? kUnschedulable : 0));
  taints_ = node_->spec.taints.data();
  num_taints_ = static_cast<uint32_t>(node_->spec.taints.size());
  rest_->allocatable = api::Resource::FromList(node_->status.allocatable);
  Summarize();
}

void NodeInfo::RemoveNode() {
  rest_->node_owner.reset();
  node_ = nullptr;
  flags_ &= static_cast<uint8_t>(~kUnschedulable);
  taints_ = nullptr;
  num_taints_ = 0;
  score_memo_ = {};
}

void PodList::Iterator::Seek() {
  if (i_ >= list_->size()) return;
  if (i_ < kChunkSize) {
    p_ = list_->head_.data() + i_;
    segment_end_ = list_->head_.data() + list_->head_.size();
    return;
  }
  const Chunk& chunk = *list_->tail_[(i_ - kChunkSize) / kChunkSize];
  p_ = chunk.data() + (i_ - kChunkSize) % kChunkSize;
  segment_end_ = chunk.data() + chunk.size();
}

PodList& PodList::operator=(const PodList& other) {
  if (this == &other) return *this;
  // reserve moves the entries it keeps: no count changes.
  if (head_.capacity() < other.head_.size()) head_.reserve(other.head_.capacity());
  head_ = other.head_;
  tail_ = other.tail_;
  tail_size_ = other.tail_size_;
  return *this;
}

void PodList::PushBack(PodInfoPtr pod) {
  if (head_.size() < kChunkSize) {
    head_.push_back(std::move(pod));
    return;
  }
  if (tail_size_ % kChunkSize == 0) tail_.push_back(std::make_shared<Chunk>());
  MutableLastChunk().push_back(std::move(pod));
  ++tail_size_;
}

void PodList::SwapRemove(size_t i) {
  const size_t last = size() - 1;
  if (i != last) Mutable(i) = (*this)[last];
  if (tail_size_ == 0) {
    head_.pop_back();
    return;
  }
  Chunk& chunk = MutableLastChunk();
  chunk.pop_back();
  --tail_size_;
  if (chunk.empty()) tail_.pop_back();
}

size_t PodList::Find(const PodInfo* pod) const {
  for (size_t i = size(); i-- > 0;) {
    if ((*this)[i].get() == pod) return i;
  }
  return size();
}

PodInfoPtr& PodList::Mutable(size_t i) {
  if (i < kChunkSize) return head_[i];
  i -= kChunkSize;
  std::shared_ptr<Chunk>& chunk = tail_[i / kChunkSize];
  if (chunk.use_count() > 1) chunk = std::make_shared<Chunk>(*chunk);
  return (*chunk)[i % kChunkSize];
}

PodList::Chunk& PodList::MutableLastChunk() {
  std::shared_ptr<Chunk>& chunk = tail_.back();
  if (chunk.use_count() > 1) chunk = std::make_shared<Chunk>(*chunk);
  return *chunk;
}

void NodeInfo::AddPod(PodInfoPtr pod) {
  Rest& r = *rest_;
  r.pod_count_memo.Clear();
  CountPriority(pod->pod.Priority());
  r.requested.Add(pod->requests);
  r.requested.allowed_pod_number += 1;
  summary_.non_zero_milli_cpu += pod->non_zero_requests.milli_cpu;
  summary_.non_zero_memory += pod->non_zero_requests.memory;
  Summarize();
  for (const HostPort& p : PodHostPorts(pod->pod)) r.used_ports.Add(p);
  if (pod->has_affinity) {
    AddAffinityTermKeys(*pod);
    r.pods_with_affinity.PushBack(pod);
  }
  if (pod->has_required_anti_affinity) r.pods_with_required_anti_affinity.PushBack(pod);
  r.pods.PushBack(std::move(pod));
  FlagAffinity();
}

void NodeInfo::FlagAffinity() {
  const Rest& r = *rest_;
  flags_ = static_cast<uint8_t>(
      (flags_ & kUnschedulable) | (r.pods_with_affinity.empty() ? 0 : kHasPodsWithAffinity) |
      (r.pods_with_required_anti_affinity.empty() ? 0 : kHasPodsWithRequiredAntiAffinity));
}

bool NodeInfo::RemovePod(const api::Pod& pod) {
  const PodList& pods = rest_->pods;
  for (size_t i = 0; i < pods.size(); ++i) {
    const api::ObjectMeta& m = pods[i]->pod.metadata;
    if (m.uid == pod.metadata.uid && m.namespace_ == pod.metadata.namespace_ &&
        m.name == pod.metadata.name) {
      RemovePodAt(i);
      return true;
    }
  }
  return false;
}

bool NodeInfo::RemovePodInfo(const PodInfo* pod) {
  const size_t i = rest_->pods.Find(pod);
  if (i == rest_->pods.size()) return false;
  RemovePodAt(i);
  return true;
}

void NodeInfo::RemovePodAt(size_t i) {
  Rest& r = *rest_;
  const PodInfoPtr info = r.pods[i];
  r.pods.SwapRemove(i);
  r.pod_count_memo.Clear();
  if (info->has_affinity) {
    r.pods_with_affinity.SwapRemove(r.pods_with_affinity.Find(info.get()));
    r.affinity_term_keys.clear();
    for (const PodInfoPtr& p : r.pods_with_affinity) AddAffinityTermKeys(*p);
  }
  if (info->has_required_anti_affinity) {
    r.pods_with_required_anti_affinity.SwapRemove(
        r.pods_with_required_anti_affinity.Find(info.get()));
  }
  FlagAffinity();
  r.requested.Sub(info->requests);
  r.requested.allowed_pod_number -= 1;
  summary_.non_zero_milli_cpu -= info->non_zero_requests.milli_cpu;
  summary_.non_zero_memory -= info->non_zero_requests.memory;
  Summarize();
  for (const HostPort& p : PodHostPorts(info->pod)) r.used_ports.Remove(p);
  // The minimum is looked for again only when the last pod at it leaves.
  if (info->pod.Priority() == r.min_pod_priority && --r.pods_at_min_priority == 0) {
    r.min_pod_priority = std::numeric_limits<int32_t>::max();
    for (const PodInfoPtr& p : r.pods) CountPriority(p->pod.Priority());
  }
}

void NodeInfo::Summarize() {
  // The remembered scores share the second cache line with what every filter reads.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
  static_assert(offsetof(NodeInfo, score_memo_) >= 64 &&
                    offsetof(NodeInfo, score_memo_) + sizeof(score_memo_) <= 128,
                "NodeInfo's second line");
#pragma GCC diagnostic pop
  static_assert(sizeof(NodeInfo) == 128, "NodeInfo is its two lines");
  score_memo_ = {};
  const api::Resource& requested = rest_->requested;
  const api::Resource& allocatable = rest_->allocatable;
  summary_.allocatable_milli_cpu = allocatable.milli_cpu;
  summary_.allocatable_memory = allocatable.memory;
  summary_.requested_milli_cpu = requested.milli_cpu;
  summary_.requested_memory = requested.memory;
  summary_.free_ephemeral_storage = allocatable.ephemeral_storage - requested.ephemeral_storage;
  summary_.free_pods = allocatable.allowed_pod_number - requested.allowed_pod_number;
  cpu_memory_balance_ = static_cast<uint8_t>(CpuMemoryBalance(
      requested.milli_cpu, allocatable.milli_cpu, requested.memory, allocatable.memory));
}

void NodeInfo::CountPriority(int32_t priority) {
  Rest& r = *rest_;
  if (priority < r.min_pod_priority) {
    r.min_pod_priority = priority;
    r.pods_at_min_priority = 1;
  } else if (priority == r.min_pod_priority) {
    ++r.pods_at_min_priority;
  }
}

void NodeInfo::AddAffinityTermKeys(const PodInfo& pod) {
  std::vector<api::Symbol>& keys = rest_->affinity_term_keys;
  for (api::Symbol key : pod.affinity_term_keys) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
}

std::vector<HostPort> PodHostPorts(const api::Pod& pod) {
  std::vector<HostPort> ports;
  auto collect = [&](const api::Container& c) {
    for (const api::ContainerPort& p : c.ports) {
      if (p.host_port > 0) ports.push_back(HostPort{p.host_ip, p.protocol, p.host_port});
    }
  };
  // App containers and sidecars hold their ports for the pod's life; ordinary init containers
  // have finished before the app starts (upstream util.GetHostPorts).
  for (const api::Container& c : pod.spec.containers) collect(c);
  for (const api::Container& c : pod.spec.init_containers) {
    if (c.restart_policy_always) collect(c);
  }
  return ports;
}

}  // namespace muster::framework
