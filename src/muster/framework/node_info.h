#pragma once

// The scheduler's view of a pod and of a node with the pods on it (upstream framework.PodInfo and
// framework.NodeInfo). Built once per change by the cache and shared, immutable, with snapshots:
// a snapshot holds its own copy of a NodeInfo only for nodes that changed since it was taken.

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "muster/api/gang.h"
#include "muster/api/resources.h"
#include "muster/api/types.h"

namespace muster::framework {

// What PodInfo derives from its pod, once, for the hot path.
struct PodFacts {
  // pod.Priority() and api::GangOf(pod), first: the queue's sort reads them in every
  // comparison, and the pod's own fields lie cache lines in (the gang behind its labels).
  int32_t priority = 0;
  api::GangRef gang;
  api::Resource requests;  // PodRequests: what Fit checks and the node accounts
  // PodRequests' cpu and memory with defaults for containers that request none, for scoring.
  struct CpuMemory {
    int64_t milli_cpu = 0;
    int64_t memory = 0;
  } non_zero_requests;
  bool has_affinity = false;  // required or preferred pod affinity/anti-affinity
  bool has_required_anti_affinity = false;
  // Whether each affinity term list has only well-formed selectors, checked once here rather
  // than for every existing pod in every cycle (upstream's PodInfo parses its terms once too).
  // A list that does not parse is ignored where other pods' terms are considered.
  bool required_affinity_parses = true;
  bool required_anti_affinity_parses = true;
  bool preferred_affinity_parses = true;
  bool preferred_anti_affinity_parses = true;
  // The distinct topology keys of all its pod affinity and anti-affinity terms.
  std::vector<api::Symbol> affinity_term_keys;
};

// A pod with what the hot path needs precomputed. The pod itself is the shared, immutable
// object the cluster holds (or one made for it): a PodInfo does not copy it.
struct PodInfo : PodFacts {
  PodInfo(PodFacts facts, api::PodPtr object)
      : PodFacts(std::move(facts)), object(std::move(object)), pod(*this->object) {}
  PodInfo(const PodInfo& other) : PodInfo(other, other.object) {}
  PodInfo& operator=(const PodInfo&) = delete;

  api::PodPtr object;
  const api::Pod& pod;  // *object

  static std::shared_ptr<const PodInfo> Make(api::PodPtr pod);
  static std::shared_ptr<const PodInfo> Make(api::Pod pod) {
    return Make(std::make_shared<const api::Pod>(std::move(pod)));
  }
  // The same pod on `node` (an assumed pod): what PodInfo derives does not depend on the node,
  // so it is copied, not derived again.
  static std::shared_ptr<const PodInfo> OnNode(const PodInfo& info, api::Symbol node);

  std::string Key() const { return pod.metadata.Key(); }
};

using PodInfoPtr = std::shared_ptr<const PodInfo>;

// The pods on a node. A snapshot copies a NodeInfo every time the node changes, and a node may
// hold tens of thousands of pods (a real node rarely more than 110). So the first kChunkSize
// entries live in a plain vector, copied with the NodeInfo and read without indirection, and
// the rest in fixed-size chunks that copies share: a copy costs one pointer per chunk, and a
// write clones only the chunk it touches (when a copy still shares it). Removal moves the last
// pod into the hole, as upstream's NodeInfo does.
class PodList {
 public:
  static constexpr size_t kChunkSize = 128;

  PodList() = default;
  PodList(const PodList&) = default;
  PodList(PodList&&) noexcept = default;
  // A snapshot assigns the node's list over its older copy after every change to the node.
  // std::vector's assignment would size the copy exactly, so each pod added to the node would
  // reallocate it and count every entry again (a cache miss on each pod's control block). The
  // copy keeps the source's capacity instead, and entries that did not change cost a compare.
  PodList& operator=(const PodList& other);
  PodList& operator=(PodList&&) noexcept = default;

  // Walks a contiguous segment at a time.
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = PodInfoPtr;
    using difference_type = std::ptrdiff_t;
    using pointer = const PodInfoPtr*;
    using reference = const PodInfoPtr&;

    Iterator() = default;
    Iterator(const PodList* list, size_t i) : list_(list), i_(i) { Seek(); }
    reference operator*() const { return *p_; }
    pointer operator->() const { return p_; }
    Iterator& operator++() {
      ++i_;
      if (++p_ == segment_end_) Seek();
      return *this;
    }
    Iterator operator++(int) {
      Iterator old = *this;
      ++*this;
      return old;
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.i_ == b.i_; }

   private:
    void Seek();

    const PodList* list_ = nullptr;
    size_t i_ = 0;
    const PodInfoPtr* p_ = nullptr;
    const PodInfoPtr* segment_end_ = nullptr;
  };

  size_t size() const { return head_.size() + tail_size_; }
  bool empty() const { return head_.empty(); }
  const PodInfoPtr& operator[](size_t i) const {
    if (i < kChunkSize) return head_[i];
    i -= kChunkSize;
    return (*tail_[i / kChunkSize])[i % kChunkSize];
  }
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, size()); }

  void PushBack(PodInfoPtr pod);
  // Removes the entry at i; the last entry takes its place.
  void SwapRemove(size_t i);
  // The position of `pod` (by identity), searching from the newest; size() when absent.
  size_t Find(const PodInfo* pod) const;

 private:
  // Up to kChunkSize entries; grown as needed.
  using Chunk = std::vector<PodInfoPtr>;
  // Entry i for writing: in a tail chunk, cloned first when another copy shares it.
  PodInfoPtr& Mutable(size_t i);
  // The last tail chunk for writing.
  Chunk& MutableLastChunk();

  std::vector<PodInfoPtr> head_;
  std::vector<std::shared_ptr<Chunk>> tail_;
  size_t tail_size_ = 0;
};

// Counts derived from a node's pods (how many pods of a namespace a selector picks, say), kept
// with the pods they were counted from: every change to the node's pods forgets them, and a copy
// of the node carries them along. Plugins walk every pod of every node each cycle while only the
// nodes touched since the last cycle differ, so a count survives from one cycle to the next.
//
// A caller names what it counted by a nonzero 32-bit key that it alone hands out (the id of an
// api::Symbol interned from a description of the count, for instance). Each slot packs key and
// count into one word, so the threads of a parallel loop may read and fill it concurrently; two
// keys that share a slot evict each other, which costs a recount and nothing else.
class PodCountMemo {
 public:
  static constexpr size_t kSlots = 8;

  PodCountMemo() = default;
  PodCountMemo(const PodCountMemo& other) { *this = other; }
  PodCountMemo& operator=(const PodCountMemo& other) {
    for (size_t i = 0; i < kSlots; ++i) {
      slots_[i].store(other.slots_[i].load(std::memory_order_relaxed), std::memory_order_relaxed);
    }
    return *this;
  }

  // The count recorded under `key`; false when there is none (always for key 0).
  bool Find(uint32_t key, uint32_t* count) const {
    if (key == 0) return false;
    const uint64_t word = slots_[key % kSlots].load(std::memory_order_relaxed);
    if (word >> 32 != key) return false;
    *count = static_cast<uint32_t>(word);
    return true;
  }
  // Records `count` under `key` (nonzero). Const: what it records follows from the pods.
  void Record(uint32_t key, uint32_t count) const {
    slots_[key % kSlots].store(uint64_t{key} << 32 | count, std::memory_order_relaxed);
  }
  void Clear() {
    for (auto& slot : slots_) slot.store(0, std::memory_order_relaxed);
  }

 private:
  mutable std::array<std::atomic<uint64_t>, kSlots> slots_{};
};

// A used host port: (ip, protocol, port). An empty ip means 0.0.0.0 (every address).
struct HostPort {
  api::Symbol ip;
  api::Protocol protocol = api::Protocol::kTCP;
  int32_t port = 0;
  friend bool operator==(const HostPort&, const HostPort&) = default;
};

// Host ports in use on a node, with upstream HostPortInfo's conflict rule: same protocol and port,
// and either address is 0.0.0.0 or they are equal.
class HostPortInfo {
 public:
  void Add(const HostPort& p) { ports_.push_back(p); }
  void Remove(const HostPort& p);
  bool Conflicts(const HostPort& p) const;
  size_t size() const { return ports_.size(); }

 private:
  std::vector<HostPort> ports_;
};

// An image on a node and how many nodes of the cluster have it (for ImageLocality's spread).
struct ImageState {
  std::string name;
  int64_t size_bytes = 0;
  int32_t num_nodes = 0;
};

// The numbers the filters and scores read on every node, taken from NodeInfo's requested() and
// allocatable() and kept with them, so that they share one cache line.
struct ResourceSummary {
  int64_t allocatable_milli_cpu = 0;
  int64_t allocatable_memory = 0;
  int64_t requested_milli_cpu = 0;
  int64_t requested_memory = 0;
  // The cpu and memory requests with upstream's defaults for containers that request none, as
  // scoring counts them (upstream NodeInfo.NonZeroRequested).
  int64_t non_zero_milli_cpu = 0;
  int64_t non_zero_memory = 0;
  int64_t free_ephemeral_storage = 0;  // allocatable minus requested
  int64_t free_pods = 0;               // allocatable pods minus pods()
};
static_assert(sizeof(ResourceSummary) == 64, "NodeInfo's first line");

// How balanced cpu and memory are at these requests, 50 to 100: (1 - the standard deviation of
// the two requested/allocatable fractions, each at most 1) * 100, truncated; 100 when either
// resource has no allocatable (one fraction, no deviation). Upstream's balancedResourceScore for
// the default resources, NodeResourcesBalancedAllocation's and NodeInfo's alike, so that the two
// agree to the bit.
inline int64_t CpuMemoryBalance(int64_t cpu_requested, int64_t cpu_allocatable,
                                int64_t memory_requested, int64_t memory_allocatable) {
  if (cpu_allocatable == 0 || memory_allocatable == 0) return 100;
  auto fraction = [](int64_t requested, int64_t allocatable) {
    return std::min(1.0, static_cast<double>(requested) / static_cast<double>(allocatable));
  };
  const double deviation = std::abs(
      (fraction(cpu_requested, cpu_allocatable) - fraction(memory_requested, memory_allocatable)) /
      2);
  return static_cast<int64_t>((1 - deviation) * 100.0);  // upstream's MaxNodeScore
}

// Two cache lines, aligned: what the filters and scores read on every node (the resource
// summary, then the node's name, taints, unschedulable flag and the scores it remembers), and a
// pointer to the rest (the node object, its pods, their ports and counts). The per-node loops
// stream through thousands of nodes per pod: nodes allocated one after another lie 128 bytes
// apart, so a loop reads every byte of each line it loads, where the whole object (576 bytes)
// left seven lines in nine unread between one node's two and the next's.
class alignas(64) NodeInfo {
 public:
  NodeInfo() : rest_(std::make_unique<Rest>()) {}
  explicit NodeInfo(std::shared_ptr<const api::Node> node) : NodeInfo() {
    SetNode(std::move(node));
  }
  NodeInfo(const NodeInfo& other);
  NodeInfo& operator=(const NodeInfo& other);
  // A NodeInfo moved from may only be assigned to or destroyed.
  NodeInfo(NodeInfo&&) noexcept = default;
  NodeInfo& operator=(NodeInfo&&) noexcept = default;
  ~NodeInfo() = default;

  const api::Node* node() const { return node_; }
  const std::shared_ptr<const api::Node>& node_ptr() const { return rest_->node_owner; }
  api::Symbol name() const { return name_; }
  void SetNode(std::shared_ptr<const api::Node> node);
  void RemoveNode();

  // The node's spec.unschedulable and spec.taints, held here so that the filters read them
  // without following node() to another cache line.
  bool unschedulable() const { return (flags_ & kUnschedulable) != 0; }
  std::span<const api::Taint> taints() const { return {taints_, num_taints_}; }
  // The lowest priority among pods(); the largest int32_t when there are none. Preemption reads
  // it to pass over nodes where nothing could be a victim.
  int32_t min_pod_priority() const { return rest_->min_pod_priority; }

  const PodList& pods() const { return rest_->pods; }
  // Whether pods_with_affinity() and pods_with_required_anti_affinity() have pods, read from
  // the second line: the snapshot lists the nodes that do after every change to either.
  bool has_pods_with_affinity() const { return (flags_ & kHasPodsWithAffinity) != 0; }
  bool has_pods_with_required_anti_affinity() const {
    return (flags_ & kHasPodsWithRequiredAntiAffinity) != 0;
  }
  const PodList& pods_with_affinity() const { return rest_->pods_with_affinity; }
  // The distinct topology keys of the affinity terms of pods_with_affinity().
  const std::vector<api::Symbol>& affinity_term_keys() const { return rest_->affinity_term_keys; }
  const PodList& pods_with_required_anti_affinity() const {
    return rest_->pods_with_required_anti_affinity;
  }
  // Counts over pods(), forgotten when they change.
  const PodCountMemo& pod_count_memo() const { return rest_->pod_count_memo; }
  const HostPortInfo& used_ports() const { return rest_->used_ports; }
  const api::Resource& requested() const { return rest_->requested; }
  // pods().size(), which requested() counts as its pods.
  int64_t num_pods() const { return rest_->requested.allowed_pod_number; }
  int64_t non_zero_milli_cpu() const { return summary_.non_zero_milli_cpu; }
  int64_t non_zero_memory() const { return summary_.non_zero_memory; }
  const api::Resource& allocatable() const { return rest_->allocatable; }
  // Parts of requested() and allocatable(), in the node's first cache line.
  const ResourceSummary& summary() const { return summary_; }
  // CpuMemoryBalance of the pods' requests here (not their non-zero sums): what
  // NodeResourcesBalancedAllocation compares a pod's placement with (1.36), kept up to date
  // with the pods rather than computed per pod and node.
  int64_t cpu_memory_balance() const { return cpu_memory_balance_; }
  // (A node without images is answered from the second line.)
  std::span<const ImageState> image_states() const {
    if (num_image_states_ == 0) return {};
    return {rest_->image_states->data(), num_image_states_};
  }
  void SetImageStates(std::vector<ImageState> states);

  void AddPod(PodInfoPtr pod);
  // False when the pod (by namespace/name and uid) is not on this node.
  bool RemovePod(const api::Pod& pod);
  // Removes the entry that is `pod` itself (the pointer AddPod was given), without comparing
  // names: the cache's removal. False when absent.
  bool RemovePodInfo(const PodInfo* pod);

  // Scores worked out on this node for pods, remembered until the node's resources change: the
  // replicas of a Deployment, the workers of a Job, ask for the same, and score a node the same
  // way until a pod lands on it or leaves it. An entry is 48 bits: a key (NewScoreMemoKey: one
  // scorer, one pod shape) in its high 40 bits and the score, 0 to 255, in its low 8; 0 is an
  // empty entry. Every entry is forgotten whenever what a score is worked out from changes: the
  // node's allocatable, its pods' requests (Summarize). Scoring writes entries through a const
  // NodeInfo: they are a cache, invisible to anything that reads the node, and each node is
  // scored by one thread at a time. They share the node's second cache line, which the filters
  // have read already.
  static constexpr size_t kScoreMemoSlots = 4;
  static constexpr int kScoreMemoKeyBits = 40;
  // (Each entry is read and written as a whole word, the entry and the next two bytes: one load,
  // where six bytes on their own would go through the stack.)
  uint64_t score_memo(size_t slot) const {
    uint64_t word;
    std::memcpy(&word, score_memo_.data() + slot * kScoreMemoEntryBytes, sizeof word);
    return word & kScoreMemoEntryMask;
  }
  // `entry` (key << 8 | score) below 2^48.
  void set_score_memo(size_t slot, uint64_t entry) const {
    uint8_t* const at = score_memo_.data() + slot * kScoreMemoEntryBytes;
    uint64_t word;
    std::memcpy(&word, at, sizeof word);
    word = (word & ~kScoreMemoEntryMask) | entry;
    std::memcpy(at, &word, sizeof word);
  }

  // Bumped on every change; the snapshot copies nodes whose generation moved.
  uint64_t generation() const { return rest_->generation; }
  void set_generation(uint64_t g) { rest_->generation = g; }

 private:
  // Removes pods()[i] and its accounting.
  void RemovePodAt(size_t i);
  void AddAffinityTermKeys(const PodInfo& pod);
  // Counts a pod of this priority into min_pod_priority and pods_at_min_priority.
  void CountPriority(int32_t priority);
  // Brings summary_ up to date with requested and allocatable.
  void Summarize();

  // Brings the affinity bits of flags_ up to date with the lists.
  void FlagAffinity();

  static constexpr uint8_t kUnschedulable = 1;
  static constexpr uint8_t kHasPodsWithAffinity = 2;
  static constexpr uint8_t kHasPodsWithRequiredAntiAffinity = 4;
  static constexpr size_t kScoreMemoEntryBytes = 6;
  static constexpr uint64_t kScoreMemoEntryMask = (uint64_t{1} << 48) - 1;

  // What the per-node loops do not read on every node.
  struct Rest {
    std::shared_ptr<const api::Node> node_owner;
    std::shared_ptr<const std::vector<ImageState>> image_states;
    api::Resource requested;
    api::Resource allocatable;
    int32_t min_pod_priority = std::numeric_limits<int32_t>::max();
    uint32_t pods_at_min_priority = 0;
    PodList pods;
    PodCountMemo pod_count_memo;
    PodList pods_with_affinity;
    std::vector<api::Symbol> affinity_term_keys;
    PodList pods_with_required_anti_affinity;
    HostPortInfo used_ports;
    uint64_t generation = 0;
  };

  // The first line: the resource summary. The second: the node itself and the scores
  // remembered on it.
  ResourceSummary summary_;
  const api::Node* node_ = nullptr;     // rest_->node_owner
  const api::Taint* taints_ = nullptr;  // node_->spec.taints
  std::unique_ptr<Rest> rest_;
  uint32_t num_taints_ = 0;
  uint32_t num_image_states_ = 0;  // rest_->image_states->size()
  api::Symbol name_;
  uint8_t flags_ = 0;                 // kUnschedulable, kHasPodsWith...
  uint8_t cpu_memory_balance_ = 100;  // set by Summarize
  // Two bytes more than the entries, read with the last one (score_memo).
  mutable std::array<uint8_t, kScoreMemoSlots * kScoreMemoEntryBytes + 2> score_memo_{};
};

// Asks the core to start loading the two cache lines of `node` that every filter and score
// reads (the resource summary, then the node's name, taints, flags and remembered scores). The
// per-node loops issue it for a whole block of nodes before the first plugin reads any: on a
// cluster whose nodes do not fit in cache the block's misses then overlap, where each node would
// otherwise wait for its own in turn.
inline void PrefetchHotLines(const NodeInfo* node) {
  __builtin_prefetch(node);
  __builtin_prefetch(reinterpret_cast<const char*>(node) + 64);
}

// A key of the nodes' score memos no other scorer or shape has had (never 0): 2^40 of them, more
// than a process hands out.
uint64_t NewScoreMemoKey();

// How many pods on `node` satisfy `selects`, remembered in the node's memo under `key`: the
// caller guarantees that `key` names this very predicate, and that it depends on the pods alone.
// A zero key counts without the memo.
template <typename Selects>
uint32_t CountPods(const NodeInfo& node, uint32_t key, Selects&& selects) {
  uint32_t count = 0;
  if (key != 0 && node.pod_count_memo().Find(key, &count)) return count;
  for (const PodInfoPtr& pod : node.pods()) {
    if (selects(*pod)) ++count;
  }
  if (key != 0) node.pod_count_memo().Record(key, count);
  return count;
}

// The host ports a pod holds: its app containers' and its sidecars' (restartable init containers).
std::vector<HostPort> PodHostPorts(const api::Pod& pod);

}  // namespace muster::framework
