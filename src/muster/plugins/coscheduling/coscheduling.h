#pragma once

// Coscheduling (kubernetes-sigs/scheduler-plugins pkg/coscheduling): gang scheduling of the pods
// of a PodGroup. Pods join a group with the label scheduling.x-k8s.io/pod-group (or the older
// pod-group.scheduling.sigs.k8s.io of scheduling.sigs.k8s.io PodGroups), naming a PodGroup in
// their namespace. The group's pods are placed together or not at all:
//   QueueSort  keeps a group's pods together in the queue (priority, then the group's creation
//              time, then namespace/name); a group that failed sorts by the time of its last
//              failure instead until it reaches quorum, so that it goes behind the groups that
//              have not failed since (upstream's fix of head-of-line blocking, v0.34);
//   Group      (mode Group, the default) has the scheduler place the group's pending members in
//              one cycle (framework::GroupPlugin): PreFilterGroup makes PreFilter's checks once,
//              for the group, and PreFilter and PostFilter step aside; Permit then finds every
//              member reserved and lets them through at once. The rest of this comment is
//              mode PerPod, upstream's:
//   PreFilter  turns pods away early when the group cannot form (backing off, too few pods, too
//              few ungated pods, minResources beyond the cluster's free capacity);
//   PostFilter rejects the whole group when one of its pods does not fit and the group is not
//              nearly complete;
//   Permit     holds each pod until minMember of the group are assigned, then lets them all bind;
//   Unreserve  rejects the waiting siblings when one pod fails or times out;
//   PostBind   nothing: the PodGroup status controller counts bound pods and sets the phase,
//              as upstream's controller does in its later versions (the plugin wrote the
//              status too before); kept so that configurations naming Coscheduling at postBind
//              stay valid.
//
// In Group mode a member is held at PreEnqueue (as Koordinator's Coscheduling and Kubernetes' own
// GangScheduling hold theirs) until its group has minMember pods that can be scheduled: a gang
// arriving one pod at a time costs no attempt, status write or event per arrival.
//
// Two differences from upstream. When podGroupBackoffSeconds is 0 (upstream: no group backoff,
// pods retry at once), a rejection that released members holding room (PostFilter rejecting
// waiting siblings, Unreserve) backs the group off for the pod initial backoff all the same.
// Without it the next member to reach Permit re-activates the rejected ones at once (activation
// skips the pods' own backoff), and a group that cannot fit goes round in that circle for as
// long as nothing else changes; upstream's sort by last failure lets other groups pass it, but
// it keeps spinning. With podGroupBackoffSeconds set, the backoff is upstream's. And a pod that
// PreFilter turns away because its group is backing off is retried when the backoff ends
// (Handle::RetryAt), where upstream parks it until an event or the unschedulable pods' flush,
// minutes later: the backoff is a time. A pod turned away that way does not restart the backoff.

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "muster/framework/interface.h"
#include "muster/framework/registry.h"

namespace muster::plugins::coscheduling {

inline constexpr std::string_view kName = "Coscheduling";

// How a group's pods are placed.
enum class Mode {
  // muster's whole-group cycle (the default): the group's pending members are placed together
  // against one snapshot and kept only when minMember of them fit; nothing is held otherwise.
  kGroup,
  // Upstream's: pod by pod, each held at Permit until minMember are assigned.
  kPerPod,
};

struct CoschedulingArgs {
  Mode mode = Mode::kGroup;
  int64_t permit_waiting_time_seconds = 60;
  int64_t pod_group_backoff_seconds = 0;  // 0: no group backoff
  int64_t pod_group_reject_percentage = 10;
};

// Decodes and validates the args (upstream's messages); nullopt with *error on bad args.
std::optional<CoschedulingArgs> DecodeArgs(const framework::PluginArgs& args, std::string* error);

class Coscheduling final : public framework::PreEnqueuePlugin,
                           public framework::QueueSortPlugin,
                           public framework::PreFilterPlugin,
                           public framework::PostFilterPlugin,
                           public framework::ReservePlugin,
                           public framework::PermitPlugin,
                           public framework::PostBindPlugin,
                           public framework::EnqueueExtensions,
                           public framework::GroupPlugin {
 public:
  Coscheduling(CoschedulingArgs args, framework::Handle& handle);
  ~Coscheduling() override;

  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  std::string_view Name() const override { return kName; }

  // Group mode: holds the pod out of the queue while its PodGroup has fewer than minMember pods,
  // or fewer than minMember that can be scheduled (bound, or without scheduling gates). A gang
  // arriving one pod at a time is then attempted once, when it is whole, instead of once per
  // member per arrival. PerPod mode lets every pod through (PreFilter rejects, as upstream).
  framework::Status PreEnqueue(const api::Pod& pod) override;
  bool Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override;
  int Compare(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override;
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<framework::NodeInfo* const> nodes,
                              framework::PreFilterResult* result) override;
  framework::Status PostFilter(framework::CycleState& state, const framework::PodInfo& pod,
                               const framework::NodeToStatus& statuses,
                               framework::PostFilterResult* result) override;
  // Remembers the pod as assigned to its group until it is bound or unreserved.
  framework::Status Reserve(framework::CycleState& state, const framework::PodInfo& pod,
                            api::Symbol node) override;
  void Unreserve(framework::CycleState& state, const framework::PodInfo& pod,
                 api::Symbol node) override;
  framework::Status Permit(framework::CycleState& state, const framework::PodInfo& pod,
                           api::Symbol node, api::Duration* timeout) override;
  void PostBind(framework::CycleState&, const framework::PodInfo&, api::Symbol) override {}
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;
  // Group mode: the pod's PodGroup and its members; nullopt in PerPod mode or without a group.
  // The pod's PodGroup as a gang: minMember, minResources, scheduleTimeoutSeconds, its members
  // (by label), and the PodGroup as the object its status goes to.
  std::optional<framework::Gang> GroupOf(const framework::PodInfo& pod) override;
  // scheduler-plugins' PodGroups (in either mode: PerPod's name none in GroupOf).
  bool Handles(const api::GangRef& gang) const override { return gang.Of<api::PodGroup>(); }
  // Group mode's checks of PreFilter, once per group cycle, worded for the group.
  framework::Status PreFilterGroup(const framework::Gang& gang,
                                   std::span<framework::NodeInfo* const> nodes) override;
  // The gang metrics in Group mode: a group short of quorum waits from its first failed cycle.
  void GroupCycleDone(const framework::Gang& gang, bool placed) override;

  // Pods with the group's label in `ns` (terminal pods excluded), assigned or not.
  std::vector<const api::Pod*> GroupPods(api::Symbol ns, api::Symbol group) const;
  // Pods of the group assigned to a node, as upstream counts them in the snapshot: bound, or
  // assumed (reserved, waiting at Permit or binding). O(group size): the bound ones come from the
  // label index, the assumed ones from what Reserve recorded.
  int CountAssigned(api::Symbol ns, api::Symbol group);

 private:
  // The PodGroup the pod names, or nullptr (it names none, or no such group exists).
  const api::PodGroup* PodGroupOf(const framework::PodInfo& pod) const;
  // Whether the group has minMember pods, and of them minMember that can be scheduled (bound, or
  // without scheduling gates): MembersReady, remembered for the cluster's version.
  bool HasMembers(const api::PodGroup& group) const;
  bool MembersReady(const api::PodGroup& group) const;
  // A pod joined `pod`'s group: worth a retry once the group has its minMember pods. (The held
  // members then leave the held set at once: were they left for the group cycle to collect,
  // every pod added meanwhile would visit each of them.)
  framework::QueueingHint OnPodAdded(const api::Pod& pod,
                                     const framework::EventObjects& event) const;
  // What a group sorts by: its creation time, or its last failure's time and sequence number
  // (from 1; 0 for a creation), which orders failures within one instant of a virtual clock.
  struct SortTime {
    api::Time time;
    uint64_t failure = 0;
  };
  // The pod's group's sort time; nullopt when the pod has no group (it then sorts by its own
  // initial attempt).
  std::optional<SortTime> GroupTime(const framework::PodInfo& pod) const;
  // What the cluster lacks for group ns/name's minResources (pods: minMember), counting its own
  // pods' room as free, as "cpu:2 memory:1Gi"; empty when it has room (or none is asked).
  std::string MinResourcesGap(api::Symbol ns, api::Symbol name,
                              const api::ResourceList& min_resources, int32_t min_member,
                              std::span<framework::NodeInfo* const> nodes) const;
  // Rejects the group's pods waiting at Permit; returns how many there were.
  int RejectWaitingSiblings(const api::Pod& pod, api::Symbol group, const char* message);
  // The group was rejected as a whole, `released` whether that freed room its members held: it
  // backs off (see the file comment) unless it is backing off already or has fewer pods than
  // minMember (PreFilter turns those away anyway).
  void BackOff(const api::Pod& pod, const api::PodGroup& group, bool released);
  // The group failed (PostFilter rejected it, a member was unreserved, its group cycle fell
  // short): it sorts by this time from now on, until it reaches quorum (ClearFailed).
  void MarkFailed(api::Symbol ns, api::Symbol group);
  void ClearFailed(api::Symbol ns, api::Symbol group);
  // Asks the queue to re-sort the group's pending pods, whose sort time changed.
  void Reorder(api::Symbol ns, api::Symbol group);
  // How a group's wait at Permit ended: its pods were all let through, or all released.
  enum class WaitEnd {
    kQuorum,
    kRejectedInPostFilter,
    kRejectedInUnreserve,
    kRejectedInGroupCycle
  };
  // The group no longer waits at Permit; the gang metrics hear how that ended.
  void StopWaiting(uint64_t group, WaitEnd end);
  // Whether `until` holds a time for `group` that is still ahead.
  bool Before(const std::unordered_map<uint64_t, api::Time>& until, uint64_t group) const;

  const CoschedulingArgs args_;
  framework::Handle& handle_;
  // Every map is keyed by the group's api::PairId(namespace, name), api::PodGroupId of the group.
  // When the group's backoff ends.
  std::unordered_map<uint64_t, api::Time> backed_off_;
  // The cluster's version (Handle::ClusterVersion) when the group's backoff began.
  std::unordered_map<uint64_t, uint64_t> backed_off_version_;
  // Until when the group's minResources check stands.
  std::unordered_map<uint64_t, api::Time> permitted_;
  // Names of the group's pods reserved on a node and not unreserved (a name is dropped once the
  // lister shows the pod bound).
  std::unordered_map<uint64_t, std::unordered_set<std::string>> reserved_;
  // When each group last failed, until it reaches quorum (its sort time meanwhile).
  std::unordered_map<uint64_t, SortTime> last_failed_;
  uint64_t failures_ = 0;
  // HasMembers' last answer, and for which group, cluster version and minMember.
  struct MembersAnswer {
    uint64_t id = 0;
    uint64_t version = UINT64_MAX;
    int32_t min_member = 0;
    bool answer = false;
  };
  mutable MembersAnswer has_members_;
  // Since when each group has had pods waiting at Permit short of quorum.
  std::unordered_map<uint64_t, api::Time> waiting_since_;
  // muster's gang metrics (muster_podgroup_*), when the scheduler records metrics.
  struct GangMetrics;
  std::unique_ptr<GangMetrics> metrics_;
};

}  // namespace muster::plugins::coscheduling
