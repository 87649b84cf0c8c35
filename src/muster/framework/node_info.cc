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

void NodeInfo::SetImageStates(std::vector<ImageState> states) {
  num_image_states_ = static_cast<uint32_t>(states.size());
  image_states_owner_ =
      states.empty() ? nullptr : std::make_shared<const std::vector<ImageState>>(std::move(states));
  image_states_ = image_states_owner_ == nullptr ? nullptr : image_states_owner_->data();
}

void NodeInfo::SetNode(std::shared_ptr<const api::Node> node) {
  node_owner_ = std::move(node);
  node_ = node_owner_.get();
  name_ = api::Symbol(node_->metadata.name);
  unschedulable_ = node_->spec.unschedulable;
  taints_ = node_->spec.taints.data();
  num_taints_ = static_cast<uint32_t>(node_->spec.taints.size());
  allocatable_ = api::Resource::FromList(node_->status.allocatable);
  Summarize();
}

void NodeInfo::RemoveNode() {
  node_owner_.reset();
  node_ = nullptr;
  unschedulable_ = false;
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
  pod_count_memo_.Clear();
  CountPriority(pod->pod.Priority());
  requested_.Add(pod->requests);
  requested_.allowed_pod_number += 1;
  summary_.non_zero_milli_cpu += pod->non_zero_requests.milli_cpu;
  summary_.non_zero_memory += pod->non_zero_requests.memory;
  Summarize();
  for (const HostPort& p : PodHostPorts(pod->pod)) used_ports_.Add(p);
  if (pod->has_affinity) {
    AddAffinityTermKeys(*pod);
    pods_with_affinity_.PushBack(pod);
  }
  if (pod->has_required_anti_affinity) pods_with_required_anti_affinity_.PushBack(pod);
  pods_.PushBack(std::move(pod));
}

bool NodeInfo::RemovePod(const api::Pod& pod) {
  for (size_t i = 0; i < pods_.size(); ++i) {
    const api::ObjectMeta& m = pods_[i]->pod.metadata;
    if (m.uid == pod.metadata.uid && m.namespace_ == pod.metadata.namespace_ &&
        m.name == pod.metadata.name) {
      RemovePodAt(i);
      return true;
    }
  }
  return false;
}

bool NodeInfo::RemovePodInfo(const PodInfo* pod) {
  const size_t i = pods_.Find(pod);
  if (i == pods_.size()) return false;
  RemovePodAt(i);
  return true;
}

void NodeInfo::RemovePodAt(size_t i) {
  const PodInfoPtr info = pods_[i];
  pods_.SwapRemove(i);
  pod_count_memo_.Clear();
  if (info->has_affinity) {
    pods_with_affinity_.SwapRemove(pods_with_affinity_.Find(info.get()));
    affinity_term_keys_.clear();
    for (const PodInfoPtr& p : pods_with_affinity_) AddAffinityTermKeys(*p);
  }
  if (info->has_required_anti_affinity) {
    pods_with_required_anti_affinity_.SwapRemove(
        pods_with_required_anti_affinity_.Find(info.get()));
  }
  requested_.Sub(info->requests);
  requested_.allowed_pod_number -= 1;
  summary_.non_zero_milli_cpu -= info->non_zero_requests.milli_cpu;
  summary_.non_zero_memory -= info->non_zero_requests.memory;
  Summarize();
  for (const HostPort& p : PodHostPorts(info->pod)) used_ports_.Remove(p);
  // The minimum is looked for again only when the last pod at it leaves.
  if (info->pod.Priority() == min_pod_priority_ && --pods_at_min_priority_ == 0) {
    min_pod_priority_ = std::numeric_limits<int32_t>::max();
    for (const PodInfoPtr& p : pods_) CountPriority(p->pod.Priority());
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
  score_memo_ = {};
  summary_.allocatable_milli_cpu = allocatable_.milli_cpu;
  summary_.allocatable_memory = allocatable_.memory;
  summary_.requested_milli_cpu = requested_.milli_cpu;
  summary_.requested_memory = requested_.memory;
  summary_.free_ephemeral_storage = allocatable_.ephemeral_storage - requested_.ephemeral_storage;
  summary_.free_pods = allocatable_.allowed_pod_number - requested_.allowed_pod_number;
  cpu_memory_balance_ = static_cast<uint8_t>(CpuMemoryBalance(
      requested_.milli_cpu, allocatable_.milli_cpu, requested_.memory, allocatable_.memory));
}

void NodeInfo::CountPriority(int32_t priority) {
  if (priority < min_pod_priority_) {
    min_pod_priority_ = priority;
    pods_at_min_priority_ = 1;
  } else if (priority == min_pod_priority_) {
    ++pods_at_min_priority_;
  }
}

void NodeInfo::AddAffinityTermKeys(const PodInfo& pod) {
  for (api::Symbol key : pod.affinity_term_keys) {
    if (std::find(affinity_term_keys_.begin(), affinity_term_keys_.end(), key) ==
        affinity_term_keys_.end()) {
      affinity_term_keys_.push_back(key);
    }
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
