// DynamicResources (upstream dynamicresources.go), written from its behaviour and messages.

#include "muster/plugins/dynamicresources/dynamic_resources.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "muster/api/pod_claims.h"
#include "muster/framework/framework.h"
#include "muster/framework/metrics.h"
#include "muster/framework/trace.h"
#include "muster/plugins/helper/normalize_score.h"

namespace muster::plugins::dynamicresources {
namespace {

using framework::ClusterEvent;
using framework::Code;
using framework::EventObjects;
using framework::QueueingHint;
using framework::Status;
using ClaimPtr = std::shared_ptr<const api::ResourceClaim>;

// Upstream's FirstAvailableDeviceRequestMaxSize: a subrequest's score is this less its place.
constexpr int64_t kMaxSubRequests = 8;

}  // namespace

struct DynamicResources::State final : framework::StateData {
  // The pod's claims as PreFilter found them, in the pod's order.
  std::vector<ClaimPtr> claims;
  // The pod's extended resources that devices serve (DRAExtendedResource), by name; and whether
  // their claim is one an earlier attempt made (`extended_claim`: it fails this one, and
  // PostFilter deletes it). Beside `claims`: Filter reads them for every node.
  std::vector<ExtendedResource> extended;
  bool left_over = false;
  // Per claim: the nodes an allocated claim's devices reach (nullopt: every node).
  std::vector<std::optional<api::NodeSelector>> available_on;
  // The claims to allocate (indices into `claims`), and what allocates them.
  std::vector<size_t> to_allocate;
  std::vector<const api::ResourceClaim*> to_allocate_claims;
  std::shared_ptr<const Inventory> inventory;
  std::shared_ptr<const DeviceSet> allocated;
  std::shared_ptr<const DeviceSet> pending;
  std::shared_ptr<const Allocator> allocator;
  // The requests of the claims to allocate, prepared once for every node's search.
  std::shared_ptr<const ClaimRequests> requests;
  // Whether a claim to allocate has firstAvailable requests: only then does Score run, and
  // Filter keep each fitting node's allocation for it.
  bool scores = false;
  // Filled by Filter from several threads: each fitting node's allocation (with `scores`), and
  // the claims that kept some node out.
  mutable std::mutex mu;
  mutable std::map<api::Symbol, std::vector<api::AllocationResult>> by_node;
  mutable std::set<size_t> unavailable;
  // Allocated claims whose devices' binding failed or timed out: no node may use them.
  std::vector<size_t> unbindable;
  // Reserve's allocation (one per claim to allocate), for PreBind.
  std::vector<api::AllocationResult> reserved;
  // PreBind waits for binding conditions.
  bool awaiting_binding = false;

  // The claim for the extended resources: the template each node's variant is made from, or
  // the one left over.
  ClaimPtr extended_claim;
  // Reserve's variant, allocated, for PreBind; and the claim PreBind made of it.
  ExtendedClaim reserved_extended;
  ClaimPtr extended_written;

  State() = default;
  State(const State& o)
      : claims(o.claims),
        extended(o.extended),
        left_over(o.left_over),
        available_on(o.available_on),
        to_allocate(o.to_allocate),
        to_allocate_claims(o.to_allocate_claims),
        inventory(o.inventory),
        allocated(o.allocated),
        pending(o.pending),
        allocator(o.allocator),
        requests(o.requests),
        scores(o.scores),
        unbindable(o.unbindable),
        reserved(o.reserved),
        awaiting_binding(o.awaiting_binding),
        extended_claim(o.extended_claim),
        reserved_extended(o.reserved_extended),
        extended_written(o.extended_written) {
    std::lock_guard lock(o.mu);
    by_node = o.by_node;
    unavailable = o.unavailable;
  }
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<State>(*this);
  }
};

namespace {

using DraState = DynamicResources::State;

std::string PodName(const api::Pod& pod) { return pod.metadata.Key(); }

// The pod's claim for its extended resources as `node` needs it: asking for those the node has
// none of (a device plugin's count of 0 too), which devices serve there; nullopt when the
// node's device plugins serve them all, or the pod asks for none.
std::optional<ExtendedClaim> VariantFor(const DraState& s, const api::Pod& pod,
                                        const framework::NodeInfo& node) {
  std::vector<ExtendedResource> here;
  for (const ExtendedResource& r : s.extended) {
    if (node.allocatable().Scalar(r.resource) <= 0) here.push_back(r);
  }
  if (here.empty()) return std::nullopt;
  auto variant = std::make_shared<api::ResourceClaim>(*s.extended_claim);
  ExtendedClaim out;
  ExtendedResourceRequests(pod, here, &variant->spec.requests, &out.mappings);
  out.claim = std::move(variant);
  return out;
}

// The claims a node's search allocates: the pod's to allocate, and its claim for extended
// resources as that node needs it.
std::vector<const api::ResourceClaim*> WithVariant(const DraState& s,
                                                   const ExtendedClaim& extended) {
  std::vector<const api::ResourceClaim*> claims = s.to_allocate_claims;
  claims.push_back(extended.claim.get());
  return claims;
}

// Whether `claim` was made for `pod`: the pod is its controlling owner.
bool MadeFor(const api::ResourceClaim& claim, const api::Pod& pod) {
  const api::OwnerReference* owner = claim.metadata.ControllerRef();
  return owner != nullptr && owner->kind == "Pod" && owner->uid == pod.metadata.uid;
}

api::ResourceClaimConsumerReference ConsumerOf(const api::Pod& pod) {
  return api::ResourceClaimConsumerReference{"", "pods", pod.metadata.name, pod.metadata.uid};
}

bool WaitsForBinding(const api::DeviceRequestAllocationResult& r) {
  return !r.binding_conditions.empty();
}

// Upstream's isClaimReadyForBinding: ready when each allocated device with binding conditions
// has them all True in the claim's status.devices; an Error (the binding failed) when one of
// its failure conditions is True, which is looked at first.
Status BindingReadiness(const api::ResourceClaim& claim, bool* ready) {
  *ready = false;
  if (!claim.status.allocation) return Status::OK();
  for (const api::DeviceRequestAllocationResult& r : claim.status.allocation->devices) {
    if (!WaitsForBinding(r)) continue;
    auto status =
        std::find_if(claim.status.devices.begin(), claim.status.devices.end(),
                     [&](const api::AllocatedDeviceStatus& d) {
                       return d.driver == r.driver && d.pool == r.pool && d.device == r.device;
                     });
    if (status == claim.status.devices.end()) return Status::OK();
    for (const std::string& type : r.binding_failure_conditions) {
      const api::Condition* c = api::FindCondition(status->conditions, type);
      if (c != nullptr && c->status.str() == "True") {
        return Status::Error(
            fmt::format("device binding failed: claim={}, reason={}, message=\"{}\"",
                        claim.metadata.name, c->reason, c->message));
      }
    }
    for (const std::string& type : r.binding_conditions) {
      const api::Condition* c = api::FindCondition(status->conditions, type);
      if (c == nullptr || c->status.str() != "True") return Status::OK();
    }
  }
  *ready = true;
  return Status::OK();
}

// Upstream's isClaimTimeout: the claim was allocated with devices that wait for binding
// conditions longer than `timeout` ago.
bool BindingTimedOut(const api::ResourceClaim& claim, api::Time now, api::Duration timeout) {
  const std::optional<api::AllocationResult>& a = claim.status.allocation;
  if (!a || !a->allocation_timestamp) return false;
  return std::any_of(a->devices.begin(), a->devices.end(), WaitsForBinding) &&
         *a->allocation_timestamp + timeout < now;
}

}  // namespace

void ExtendedResourceRequests(const api::Pod& pod, std::span<const ExtendedResource> resources,
                              std::vector<api::DeviceRequest>* requests,
                              std::vector<api::ContainerExtendedResourceRequest>* mappings) {
  std::vector<const api::Container*> containers;
  for (const api::Container& c : pod.spec.init_containers) containers.push_back(&c);
  for (const api::Container& c : pod.spec.containers) containers.push_back(&c);
  const size_t inits = pod.spec.init_containers.size();
  struct Made {
    api::Symbol name;
    int64_t count = 0;
  };
  std::vector<api::DeviceRequest> out;
  for (const ExtendedResource& r : resources) {
    // What container i asks for: a whole number of devices (upstream's AsInt64), or none.
    auto wanted = [&](size_t i) -> int64_t {
      const api::Quantity* q = containers[i]->resources.requests.Get(r.resource);
      if (q == nullptr || q->Sign() <= 0) return 0;
      const int64_t n = q->Value();
      return api::Quantity::FromValue(n, q->format()).Cmp(*q) == 0 ? n : 0;
    };
    auto request_name = [&](size_t i) {
      std::vector<std::string_view> names;
      for (const auto& [name, q] : containers[i]->resources.requests) names.push_back(name.str());
      std::sort(names.begin(), names.end());
      const auto at = std::find(names.begin(), names.end(), r.resource.str());
      return api::Symbol(fmt::format("container-{}-request-{}", i, at - names.begin()));
    };
    auto mapping = [&](size_t i, api::Symbol request) {
      return api::ContainerExtendedResourceRequest{containers[i]->name, r.resource, request};
    };
    auto device_request = [&](const Made& m) {
      api::DeviceRequest d;
      d.name = m.name;
      d.exactly.emplace();
      d.exactly->device_class_name = r.device_class;
      d.exactly->count = m.count;
      return d;
    };
    // Sidecars and regular containers run together: each its own devices.
    std::vector<std::optional<Made>> long_lived(containers.size());
    std::vector<api::ContainerExtendedResourceRequest> long_mappings;
    for (size_t i = 0; i < containers.size(); ++i) {
      if (i < inits && !containers[i]->restart_policy_always) continue;
      const int64_t n = wanted(i);
      if (n == 0) continue;
      long_lived[i] = Made{request_name(i), n};
      long_mappings.push_back(mapping(i, long_lived[i]->name));
    }
    // A plain init container runs before the containers after it start: it may use theirs.
    std::optional<Made> largest;
    std::set<api::Symbol> own_names;
    std::vector<api::ContainerExtendedResourceRequest> short_mappings;
    for (size_t i = 0; i < inits; ++i) {
      if (containers[i]->restart_policy_always) continue;
      const int64_t n = wanted(i);
      if (n == 0) continue;
      int64_t reused = 0;
      for (size_t j = i; j < containers.size() && reused < n; ++j) {
        if (!long_lived[j]) continue;
        reused += long_lived[j]->count;
        short_mappings.push_back(mapping(i, long_lived[j]->name));
      }
      if (reused >= n) continue;
      const Made own{request_name(i), n - reused};
      short_mappings.push_back(mapping(i, own.name));
      own_names.insert(own.name);
      if (!largest || largest->count < own.count) largest = own;
    }
    if (largest) {
      for (api::ContainerExtendedResourceRequest& m : short_mappings) {
        if (own_names.contains(m.request_name)) m.request_name = largest->name;
      }
      out.push_back(device_request(*largest));
    }
    for (const std::optional<Made>& m : long_lived) {
      if (m) out.push_back(device_request(*m));
    }
    mappings->insert(mappings->end(), long_mappings.begin(), long_mappings.end());
    mappings->insert(mappings->end(), short_mappings.begin(), short_mappings.end());
  }
  std::sort(out.begin(), out.end(), [](const api::DeviceRequest& a, const api::DeviceRequest& b) {
    return a.name.str() < b.name.str();
  });
  *requests = std::move(out);
}

ClaimPtr DynamicResources::FindExtendedClaim(const api::Pod& pod) const {
  for (const api::ResourceClaim* claim :
       handle_.lister().List<api::ResourceClaim>(pod.metadata.namespace_)) {
    const auto& a = claim->metadata.annotations;
    auto it = a.find(std::string(api::kExtendedResourceClaimAnnotation));
    if (it == a.end() || it->second != "true") continue;
    const api::OwnerReference* owner = claim->metadata.ControllerRef();
    if (owner != nullptr && owner->name == pod.metadata.name && owner->uid == pod.metadata.uid) {
      return FindClaim(claim->metadata.namespace_, api::Symbol(claim->metadata.name));
    }
  }
  return nullptr;
}

std::string DynamicResources::ExtendedKey(const api::Pod& pod) {
  return fmt::format("{}/{}{}", pod.metadata.namespace_.str(), api::kExtendedClaimInMemoryName,
                     pod.metadata.uid);
}

std::unique_ptr<framework::Plugin> DynamicResources::New(const framework::PluginArgs& args,
                                                         framework::Handle& handle,
                                                         std::string* error) {
  DynamicResourcesArgs decoded;
  if (!LoadDynamicResourcesArgs(args, &decoded, error)) return nullptr;
  return std::make_unique<DynamicResources>(handle, decoded);
}

DynamicResourcesArgs DynamicResources::DefaultArgs() {
  DynamicResourcesArgs args;
  SetDefaults(args);
  return args;
}

DynamicResources::DynamicResources(framework::Handle& handle, const DynamicResourcesArgs& args)
    : handle_(handle),
      filter_timeout_(args.filter_timeout),
      binding_timeout_(BindingConditionsEnabled()
                           ? std::optional(args.binding_timeout.value_or(kDefaultBindingTimeout))
                           : std::nullopt) {
  framework::Metrics* metrics = handle.metrics();
  if (metrics == nullptr || !binding_timeout_) return;
  prometheus::Registry& r = metrics->registry();
  binding_allocations_ =
      &prometheus::BuildCounter()
           .Name("scheduler_dra_bindingconditions_allocations_total")
           .Help(
               "Number of allocations using devices with BindingConditions, counted per driver "
               "per scheduling attempt")
           .Register(r);
  binding_wait_ = &prometheus::BuildHistogram()
                       .Name("scheduler_dra_bindingconditions_wait_duration_seconds")
                       .Help(
                           "Time in seconds spent waiting for BindingConditions to be satisfied "
                           "during PreBind.")
                       .Register(r);
}

std::shared_ptr<const api::ResourceClaim> DynamicResources::FindClaim(api::Symbol ns,
                                                                      api::Symbol name) const {
  const framework::ObjectTable<api::ResourceClaim>& table =
      handle_.lister().objects().Of<api::ResourceClaim>();
  const api::ResourceClaim* stored = table.Get(ns, name);
  if (stored == nullptr) return nullptr;
  {
    std::lock_guard lock(mu_);
    if (!assumed_.empty()) {
      // A claim being allocated (Reserve, not yet written) is still the cluster's: other pods
      // are told so at PreFilter.
      auto it = assumed_.find(stored->metadata.Key());
      if (it != assumed_.end() && it->second.written &&
          it->second.base_version == stored->metadata.resource_version) {
        return it->second.claim;
      }
    }
  }
  return std::make_shared<const api::ResourceClaim>(*stored);
}

void DynamicResources::ForgetStale() {
  const framework::ObjectTable<api::ResourceClaim>& table =
      handle_.lister().objects().Of<api::ResourceClaim>();
  std::lock_guard lock(mu_);
  for (auto it = assumed_.begin(); it != assumed_.end();) {
    if (it->second.unborn) {
      ++it;
      continue;
    }
    const api::ObjectMeta& meta = it->second.claim->metadata;
    const api::ResourceClaim* stored = table.Get(meta.namespace_, api::Symbol(meta.name));
    if (stored == nullptr || stored->metadata.resource_version != it->second.base_version) {
      it = assumed_.erase(it);
    } else {
      ++it;
    }
  }
}

Status DynamicResources::PodClaims(const api::Pod& pod, std::vector<ClaimPtr>* out) const {
  for (const api::PodResourceClaim& pc : pod.spec.resource_claims) {
    const bool from_template = pc.resource_claim_name.empty();
    const std::optional<api::Symbol> name = api::ClaimNameOf(pod, pc);
    if (!name) {
      return Status::Unresolvable(
          fmt::format("pod \"{}\": ResourceClaim not created yet", PodName(pod)));
    }
    if (name->empty()) continue;  // the controller made none: none needed
    ClaimPtr claim = FindClaim(pod.metadata.namespace_, *name);
    if (claim == nullptr) {
      return Status::Unresolvable(fmt::format("could not find ResourceClaim \"{}/{}\"",
                                              pod.metadata.namespace_.str(), name->str()));
    }
    if (claim->metadata.deletion_timestamp) {
      return Status::Unresolvable(
          fmt::format("resourceclaim \"{}\" is being deleted", claim->metadata.name));
    }
    if (from_template && !MadeFor(*claim, pod)) {
      return Status::Unresolvable(
          fmt::format("ResourceClaim {} was not created for pod {} (pod is not owner)",
                      claim->metadata.Key(), PodName(pod)));
    }
    out->push_back(std::move(claim));
  }
  return Status::OK();
}

std::shared_ptr<const Inventory> DynamicResources::CurrentInventory() {
  const auto& table = handle_.lister().objects().Of<api::ResourceSlice>();
  if (inventory_ == nullptr || slices_version_ != table.version()) {
    inventory_ = std::make_shared<const Inventory>(table.List());
    slices_version_ = table.version();
  }
  return inventory_;
}

std::shared_ptr<const DeviceSet> DynamicResources::CurrentAllocated() {
  const auto& table = handle_.lister().objects().Of<api::ResourceClaim>();
  if (allocated_ != nullptr && claims_version_ == table.version()) return allocated_;
  table.KeepChanges();
  // A cycle still holding the set (until its Reserve) sees it as it was at its PreFilter: the
  // changes go to a copy.
  if (allocated_ != nullptr && allocated_.use_count() > 1) {
    allocated_ = std::make_shared<DeviceSet>(*allocated_);
  }
  const bool caught_up =
      allocated_ != nullptr &&
      table.ChangesSince(claims_version_,
                         [this](const api::ResourceClaim* before, const api::ResourceClaim* after) {
                           if (before != nullptr) RemoveAllocated(*before, allocated_.get());
                           if (after != nullptr) AddAllocated(*after, allocated_.get());
                         });
  if (!caught_up) {
    allocated_ = std::make_shared<DeviceSet>();
    for (const api::ResourceClaim* claim : table.List()) AddAllocated(*claim, allocated_.get());
  }
  claims_version_ = table.version();
  return allocated_;
}

Status DynamicResources::PreEnqueue(const api::Pod& pod) {
  if (pod.spec.resource_claims.empty()) return Status::OK();
  std::vector<ClaimPtr> claims;
  return PodClaims(pod, &claims);
}

Status DynamicResources::PreFilter(framework::CycleState& state, const framework::PodInfo& info,
                                   std::span<framework::NodeInfo* const>,
                                   framework::PreFilterResult*) {
  const api::Pod& pod = info.pod;
  // A pod without claims or extended resources pays two tests.
  if (pod.spec.resource_claims.empty() && info.requests.scalar.empty()) {
    return Status(Code::kSkip);
  }
  std::vector<ExtendedResource> extended =
      helper::DeviceBackedResources(handle_.lister(), info.requests);
  if (pod.spec.resource_claims.empty() && extended.empty()) return Status(Code::kSkip);
  ForgetStale();
  auto s = std::make_unique<DraState>();
  DraState& st = *s;
  state.Write(kStateKey, std::move(s));
  // The claims are the state's once they all pass: PostFilter has none to deallocate before.
  std::vector<ClaimPtr> claims;
  if (Status err = PodClaims(pod, &claims); !err.IsSuccess()) return err;
  if (claims.empty() && extended.empty()) return Status(Code::kSkip);
  if (!extended.empty()) {
    // One claim for all of them, made by PreBind for the node chosen.
    ClaimPtr found = FindExtendedClaim(pod);
    if (found != nullptr && found->Allocated() && found->ReservedFor(pod.metadata.uid)) {
      // Allocated and reserved for the pod: one of its claims, which keeps it to the nodes its
      // devices reach. (The pod is bound, or being bound: what the invariant checker asks of
      // it. Upstream deletes it as below when a binding failure left it.)
      claims.push_back(std::move(found));
    } else if (found != nullptr) {
      // Made by an attempt whose binding failed after PreBind: PostFilter deletes it before
      // the pod tries anew.
      st.extended_claim = std::move(found);
      st.left_over = true;
      st.extended = std::move(extended);
    } else {
      auto made = std::make_shared<api::ResourceClaim>();
      made->metadata.name = api::kExtendedClaimInMemoryName;
      made->metadata.namespace_ = pod.metadata.namespace_;
      made->metadata.generate_name = pod.metadata.name + "-extended-resources-";
      made->metadata.owner_references.push_back(
          api::OwnerReference{"v1", "Pod", pod.metadata.name, pod.metadata.uid, true, false});
      made->metadata.annotations[std::string(api::kExtendedResourceClaimAnnotation)] = "true";
      st.extended_claim = std::move(made);
      st.extended = std::move(extended);
    }
  }
  const framework::ObjectLister& lister = handle_.lister();
  st.available_on.resize(claims.size());
  for (size_t i = 0; i < claims.size(); ++i) {
    const api::ResourceClaim& claim = *claims[i];
    // Reserved for as many consumers as a claim may have, none of them this pod: it waits.
    if (claim.Allocated() && claim.status.reserved_for.size() >= api::kReservedForMaxSize &&
        !claim.ReservedFor(pod.metadata.uid)) {
      return Status::Unresolvable("resourceclaim in use");
    }
    if (claim.Allocated()) {
      st.available_on[i] = claim.status.allocation->node_selector;
      // Devices whose binding failed, or that waited too long: upstream's Filter finds this of
      // every node alike, so it is found once here.
      if (binding_timeout_) {
        bool ready = false;
        const Status failed = BindingReadiness(claim, &ready);
        if (!failed.IsSuccess() ||
            (!ready && BindingTimedOut(claim, handle_.clock().Now(), *binding_timeout_))) {
          st.unbindable.push_back(i);
        }
      }
      continue;
    }
    {
      std::lock_guard lock(mu_);
      auto it = assumed_.find(claim.metadata.Key());
      if (it != assumed_.end() && !it->second.written) {
        return Status::Unresolvable(fmt::format(
            "resource claim {} is in the process of being allocated", claim.metadata.Key()));
      }
    }
    auto check_class = [&](api::Symbol cls, std::string_view request) -> Status {
      if (cls.empty())
        return Status::Error(fmt::format("request {}: unsupported request type", request));
      if (lister.Get<api::DeviceClass>(cls) == nullptr) {
        return Status::Unresolvable(
            fmt::format("request {}: device class {} does not exist", request, cls.str()));
      }
      return Status::OK();
    };
    for (const api::DeviceRequest& r : claim.spec.requests) {
      if (r.exactly) {
        if (Status c = check_class(r.exactly->device_class_name, r.name.str()); !c.IsSuccess()) {
          return c;
        }
      } else if (!r.first_available.empty()) {
        for (const api::DeviceSubRequest& sub : r.first_available) {
          const std::string name = fmt::format("{}/{}", r.name.str(), sub.name.str());
          if (Status c = check_class(sub.spec.device_class_name, name); !c.IsSuccess()) return c;
        }
      } else {
        return Status::Unresolvable(
            fmt::format("resource claim {}, request {}: unknown request type", claim.metadata.Key(),
                        r.name.str()));
      }
    }
    st.to_allocate.push_back(i);
    st.to_allocate_claims.push_back(&claim);
  }
  st.claims = std::move(claims);
  st.scores = std::any_of(
      st.to_allocate_claims.begin(), st.to_allocate_claims.end(),
      [](const api::ResourceClaim* claim) {
        return std::any_of(claim->spec.requests.begin(), claim->spec.requests.end(),
                           [](const api::DeviceRequest& r) { return !r.first_available.empty(); });
      });
  if (!st.to_allocate.empty() || (!st.extended.empty() && !st.left_over)) {
    st.inventory = CurrentInventory();
    st.allocated = CurrentAllocated();
    auto pending = std::make_shared<DeviceSet>();
    {
      std::lock_guard lock(mu_);
      for (const auto& [key, a] : assumed_) AddAllocated(*a.claim, pending.get());
    }
    st.pending = std::move(pending);
    st.allocator = std::make_shared<const Allocator>(
        *st.inventory, *st.allocated, *st.pending,
        [&lister](api::Symbol name) { return lister.Get<api::DeviceClass>(name); });
    st.requests =
        std::make_shared<const ClaimRequests>(st.allocator->Prepare(st.to_allocate_claims));
  }
  return Status::OK();
}

Status DynamicResources::Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                                const framework::NodeInfo& node) const {
  const auto* s = state.Read<DraState>(kStateKey);
  if (s == nullptr || (s->claims.empty() && s->extended.empty())) return Status::OK();
  if (s->left_over) return Status::Unresolvable(std::string(kErrLeftOverExtendedClaim));
  if (!s->extended.empty()) {
    // Where devices serve some of the extended resources here, their claim is searched for
    // with the pod's own (a list of its own; none is made for other nodes or pods).
    if (std::optional<ExtendedClaim> extended = VariantFor(*s, pod.pod, node)) {
      const ClaimRequests requests = s->allocator->Prepare(WithVariant(*s, *extended));
      return FilterClaims(*s, node, &requests);
    }
  }
  return FilterClaims(*s, node, s->requests.get());
}

Status DynamicResources::FilterClaims(const State& s, const framework::NodeInfo& node,
                                      const ClaimRequests* to_allocate) const {
  const api::LabelSet& labels = node.node()->metadata.labels;
  std::vector<size_t> unavailable;
  for (size_t i = 0; i < s.claims.size(); ++i) {
    const std::optional<api::NodeSelector>& on = s.available_on[i];
    if (on && !on->Matches(labels, node.name())) unavailable.push_back(i);
  }
  unavailable.insert(unavailable.end(), s.unbindable.begin(), s.unbindable.end());
  std::vector<api::AllocationResult> results;
  if (to_allocate != nullptr && to_allocate->size() > 0) {
    std::function<bool()> timed_out;
    if (filter_timeout_ && *filter_timeout_ > api::Duration::zero()) {
      const std::chrono::steady_clock::time_point deadline = monotonic_() + *filter_timeout_;
      timed_out = [this, deadline] { return monotonic_() >= deadline; };
    }
    AllocationOutcome outcome =
        s.allocator->Allocate(labels, node.name(), *to_allocate, timed_out ? &timed_out : nullptr,
                              s.scores ? Allocator::Answer::kResults : Allocator::Answer::kVerdict);
    if (outcome.stopped) {
      return Status::Error(
          fmt::format("node {}: timed out trying to allocate devices", node.name().str()));
    }
    if (!outcome.error.empty()) {
      return outcome.node_error ? Status::Unresolvable(std::move(outcome.error))
                                : Status::Error(std::move(outcome.error));
    }
    if (!outcome.found) return Status::Unresolvable(std::string(kErrCannotAllocate));
    results = std::move(outcome.results);
  }
  if (unavailable.empty() && !s.scores) return Status::OK();  // nothing to record
  std::lock_guard lock(s.mu);
  if (!unavailable.empty()) {
    s.unavailable.insert(unavailable.begin(), unavailable.end());
    return Status::Unresolvable(std::string(kErrNotAvailable));
  }
  s.by_node[node.name()] = std::move(results);
  return Status::OK();
}

Status DynamicResources::PostFilter(framework::CycleState& state, const framework::PodInfo& info,
                                    const framework::NodeToStatus& statuses,
                                    framework::PostFilterResult*) {
  const auto* s = state.Read<DraState>(kStateKey);
  if (s == nullptr || (s->claims.empty() && s->extended.empty())) {
    // On a cluster that serves no resource.k8s.io (before 1.34, or turned off) there are no
    // claims to speak of: the plugin stands aside, as upstream's does with DRA turned off, and
    // `muster run` says once at start that the API is missing.
    if (!handle_.client().Serves("resourceclaims")) return Status(Code::kUnschedulable);
    return Status::Unschedulable("no new claims to deallocate");
  }
  std::set<size_t> unavailable;
  {
    std::lock_guard lock(s->mu);
    unavailable = s->unavailable;
  }
  // For `muster explain`: why no devices on each node that had none, nodes alike together.
  if (framework::AttemptTrace* trace = state.trace.get();
      trace != nullptr && s->allocator != nullptr) {
    std::map<std::string, std::vector<std::string>> why;
    for (const auto& [name, status] : statuses.entries()) {
      if (status.Message() != kErrCannotAllocate) continue;
      const framework::NodeInfo* node = handle_.snapshot().Get(name);
      if (node == nullptr) continue;
      const std::optional<ExtendedClaim> extended = VariantFor(*s, info.pod, *node);
      const std::vector<const api::ResourceClaim*> claims =
          extended ? WithVariant(*s, *extended) : s->to_allocate_claims;
      why[s->allocator->Diagnose(node->node()->metadata.labels, name, claims)].push_back(
          name.string());
    }
    for (auto& [reason, nodes] : why) {
      const size_t n = nodes.size();
      if (n > 5) nodes.resize(5);
      trace->post_filter_notes.push_back(
          fmt::format("{}{}: {}", fmt::join(nodes, ", "),
                      n > 5 ? fmt::format(" and {} more", n - 5) : "", reason));
    }
  }
  // An allocated claim kept the pod off some nodes and none fits: unless another pod uses it,
  // deallocate it, so that the next attempt may allocate it where the pod fits.
  for (size_t i : unavailable) {
    const api::ResourceClaim& claim = *s->claims[i];
    const auto& reserved = claim.status.reserved_for;
    const bool others = std::any_of(reserved.begin(), reserved.end(),
                                    [&](const auto& r) { return r.uid != info.pod.metadata.uid; });
    if (others) continue;
    api::ResourceClaim updated = claim;
    updated.status.reserved_for.clear();
    updated.status.allocation.reset();
    updated.status.devices.clear();
    if (Status w = handle_.client().UpdateClaimStatus(updated); !w.IsSuccess()) {
      return Status::Error(w.Message());
    }
    return Status::Unschedulable("deallocation of ResourceClaim completed");
  }
  // A claim for the extended resources left by an attempt whose binding failed: deleted, so
  // that the next attempt makes one anew.
  if (s->left_over) {
    if (Status w = handle_.client().DeleteClaim(*s->extended_claim); !w.IsSuccess()) {
      return Status::Error(w.Message());
    }
    return Status::Unschedulable("deletion of ResourceClaim completed");
  }
  return Status::Unschedulable("still not schedulable");
}

Status DynamicResources::PreScore(framework::CycleState& state, const framework::PodInfo& info,
                                  std::span<framework::NodeInfo* const>) {
  // A pod without claims pays no lookup.
  if (info.pod.spec.resource_claims.empty()) return Status(Code::kSkip);
  const auto* s = state.Read<DraState>(kStateKey);
  return s != nullptr && s->scores ? Status::OK() : Status(Code::kSkip);
}

Status DynamicResources::Score(const framework::CycleState& state, const framework::PodInfo&,
                               const framework::NodeInfo& node, int64_t* score) const {
  *score = 0;
  const auto* s = state.Read<DraState>(kStateKey);
  if (s == nullptr) return Status::OK();
  std::lock_guard lock(s->mu);
  auto it = s->by_node.find(node.name());
  if (it == s->by_node.end()) return Status::OK();
  const std::vector<api::AllocationResult>& results = it->second;
  for (size_t k = 0; k < s->to_allocate_claims.size() && k < results.size(); ++k) {
    for (const api::DeviceRequest& r : s->to_allocate_claims[k]->spec.requests) {
      for (size_t j = 0; j < r.first_available.size(); ++j) {
        const std::string name =
            fmt::format("{}/{}", r.name.str(), r.first_available[j].name.str());
        const bool used = std::any_of(
            results[k].devices.begin(), results[k].devices.end(),
            [&](const api::DeviceRequestAllocationResult& d) { return d.request == name; });
        if (used) *score += kMaxSubRequests - static_cast<int64_t>(j);
      }
    }
  }
  return Status::OK();
}

Status DynamicResources::NormalizeScore(const framework::CycleState&, const framework::PodInfo&,
                                        std::span<framework::NodeScore> scores) const {
  helper::DefaultNormalizeScore(framework::kMaxNodeScore, false, scores);
  return Status::OK();
}

Status DynamicResources::Reserve(framework::CycleState& state, const framework::PodInfo& info,
                                 api::Symbol node) {
  auto* s = state.Read<DraState>(kStateKey);
  if (s == nullptr || (s->to_allocate.empty() && s->extended.empty())) return Status::OK();
  // Filter kept verdicts, not allocations: the devices are found again on the chosen node, by
  // the same search against the cluster as PreFilter saw it, so with the same outcome.
  const framework::NodeInfo* here = handle_.snapshot().Get(node);
  std::optional<ExtendedClaim> extended;
  if (here != nullptr && !s->extended.empty()) extended = VariantFor(*s, info.pod, *here);
  // Only the extended resources, and the node's device plugins serve them all.
  if (s->to_allocate.empty() && !extended) return Status::OK();
  std::vector<api::AllocationResult> results;
  if (here != nullptr && s->allocator != nullptr) {
    const api::LabelSet& labels = here->node()->metadata.labels;
    if (extended) {
      results = s->allocator->Allocate(labels, node, WithVariant(*s, *extended)).results;
    } else {
      results = s->allocator->Allocate(labels, node, *s->requests).results;
    }
  }
  // The cycle is done with the devices in use as PreFilter saw them: the claims' next changes
  // need not copy them for it.
  s->requests.reset();
  s->allocator.reset();
  s->allocated.reset();
  if (results.empty()) return Status::Error("claim allocation not found for node");
  const size_t want = s->to_allocate.size() + (extended ? 1 : 0);
  if (results.size() != want) {
    return Status::Error(
        fmt::format("internal error, have {} allocations, {} claims to allocate, want {} claims",
                    results.size(), want, want));
  }
  std::lock_guard lock(mu_);
  if (extended) {
    // Held in memory under the pod's own key until PreBind creates it: its devices are in use
    // for the other pods' cycles from now on.
    auto held = std::make_shared<api::ResourceClaim>(*extended->claim);
    held->metadata.finalizers.emplace_back(api::kClaimFinalizer);
    held->status.allocation = std::move(results.back());
    results.pop_back();
    extended->claim = held;
    assumed_[ExtendedKey(info.pod)] =
        Assumed{"", std::move(held), info.pod.metadata.uid, false, /*unborn=*/true};
    s->reserved_extended = std::move(*extended);
  }
  for (size_t k = 0; k < s->to_allocate.size(); ++k) {
    const api::ResourceClaim& claim = *s->claims[s->to_allocate[k]];
    auto held = std::make_shared<api::ResourceClaim>(claim);
    if (!api::HasClaimFinalizer(*held))
      held->metadata.finalizers.emplace_back(api::kClaimFinalizer);
    held->status.allocation = results[k];
    assumed_[claim.metadata.Key()] =
        Assumed{claim.metadata.resource_version, std::move(held), info.pod.metadata.uid, false};
  }
  s->reserved = std::move(results);
  return Status::OK();
}

void DynamicResources::Unreserve(framework::CycleState& state, const framework::PodInfo& info,
                                 api::Symbol) {
  auto* s = state.Read<DraState>(kStateKey);
  if (s == nullptr) return;
  // The claims as they are now (what PreBind wrote, and what drivers wrote since), before the
  // assumptions go.
  std::vector<ClaimPtr> current;
  for (const ClaimPtr& claim : s->claims) {
    current.push_back(FindClaim(claim->metadata.namespace_, api::Symbol(claim->metadata.name)));
  }
  {
    std::lock_guard lock(mu_);
    for (const ClaimPtr& claim : s->claims) {
      auto it = assumed_.find(claim->metadata.Key());
      if (it != assumed_.end() && it->second.pod_uid == info.pod.metadata.uid) assumed_.erase(it);
    }
    assumed_.erase(ExtendedKey(info.pod));
    if (s->extended_written != nullptr) assumed_.erase(s->extended_written->metadata.Key());
  }
  // The claim made for the extended resources goes with the attempt.
  if (s->extended_written != nullptr) {
    static_cast<void>(handle_.client().DeleteClaim(*s->extended_written));
    s->extended_written = nullptr;
  }
  s->reserved_extended = {};
  // PreBind reserved the claims for the pod: the binding failed after, so the reservation goes
  // (the allocation stays, for the pod's next attempt).
  for (const ClaimPtr& claim : current) {
    if (claim == nullptr || !claim->ReservedFor(info.pod.metadata.uid)) continue;
    api::ResourceClaim updated = *claim;
    std::erase(updated.status.reserved_for, ConsumerOf(info.pod));
    static_cast<void>(handle_.client().UpdateClaimStatus(updated));
  }
  s->reserved.clear();
}

Status DynamicResources::PreBindPreFlight(const framework::CycleState& state,
                                          const framework::PodInfo&, api::Symbol) const {
  const auto* s = state.Read<DraState>(kStateKey);
  return s != nullptr && (!s->claims.empty() || s->reserved_extended.claim != nullptr)
             ? Status::OK()
             : Status(Code::kSkip);
}

Status DynamicResources::PreBind(framework::CycleState& state, const framework::PodInfo& info,
                                 api::Symbol node) {
  auto* s = state.Read<DraState>(kStateKey);
  if (s == nullptr || (s->claims.empty() && s->reserved_extended.claim == nullptr)) {
    return Status(Code::kSkip);
  }
  const api::Pod& pod = info.pod;
  // Whether a device of the pod's claims waits for binding conditions (found here, from the
  // claims as written: PreBind runs off the scheduler's thread, away from the listers).
  bool waits = false;
  auto note_waits = [&](const api::ResourceClaim& claim) {
    const std::optional<api::AllocationResult>& a = claim.status.allocation;
    waits |= a && std::any_of(a->devices.begin(), a->devices.end(), WaitsForBinding);
  };
  for (size_t i = 0; i < s->claims.size(); ++i) {
    const api::ResourceClaim& claim = *s->claims[i];
    if (claim.ReservedFor(pod.metadata.uid)) {
      note_waits(claim);
      continue;
    }
    if (claim.metadata.deletion_timestamp) {
      return Status::Error(
          fmt::format("claim {} got deleted in the meantime", claim.metadata.Key()));
    }
    auto updated = std::make_shared<api::ResourceClaim>(claim);
    auto k = std::find(s->to_allocate.begin(), s->to_allocate.end(), i);
    const bool allocating = k != s->to_allocate.end();
    if (allocating) {
      if (!api::HasClaimFinalizer(*updated))
        updated->metadata.finalizers.emplace_back(api::kClaimFinalizer);
      updated->status.allocation = s->reserved[static_cast<size_t>(k - s->to_allocate.begin())];
      // When the allocation was made: binding conditions' time runs from it.
      if (binding_timeout_)
        updated->status.allocation->allocation_timestamp = handle_.clock().Now();
    }
    updated->status.reserved_for.push_back(ConsumerOf(pod));
    if (Status w = handle_.client().UpdateClaimStatus(*updated); !w.IsSuccess()) {
      return Status::Error(fmt::format(
          "{} to claim {}: {}", allocating ? "add allocation and reservation" : "add reservation",
          claim.metadata.Key(), w.Message()));
    }
    note_waits(*updated);
    std::lock_guard lock(mu_);
    assumed_[claim.metadata.Key()] =
        Assumed{claim.metadata.resource_version, std::move(updated), pod.metadata.uid, true};
  }
  // The claim for the extended resources: created (the API server names it), then allocated
  // and reserved for the pod, then named in the pod's status, as upstream's PreBind makes it.
  if (const ClaimPtr& reserved = s->reserved_extended.claim; reserved != nullptr) {
    api::ResourceClaim to_create = *reserved;
    to_create.metadata.name.clear();
    to_create.status = {};
    api::ResourceClaim created;
    if (Status w = handle_.client().CreateClaim(to_create, &created); !w.IsSuccess()) {
      return Status::Error(fmt::format("create claim for extended resources {}/{}: {}",
                                       pod.metadata.namespace_.str(),
                                       to_create.metadata.generate_name, w.Message()));
    }
    s->extended_written = std::make_shared<const api::ResourceClaim>(created);
    auto updated = std::make_shared<api::ResourceClaim>(std::move(created));
    if (!api::HasClaimFinalizer(*updated))
      updated->metadata.finalizers.emplace_back(api::kClaimFinalizer);
    updated->status.allocation = reserved->status.allocation;
    if (binding_timeout_) updated->status.allocation->allocation_timestamp = handle_.clock().Now();
    updated->status.reserved_for.push_back(ConsumerOf(pod));
    if (Status w = handle_.client().UpdateClaimStatus(*updated); !w.IsSuccess()) {
      return Status::Error(fmt::format("add allocation and reservation to claim {}: {}",
                                       updated->metadata.Key(), w.Message()));
    }
    note_waits(*updated);
    {
      std::lock_guard lock(mu_);
      assumed_.erase(ExtendedKey(pod));
      assumed_[updated->metadata.Key()] =
          Assumed{s->extended_written->metadata.resource_version, updated, pod.metadata.uid, true};
    }
    const api::PodExtendedResourceClaimStatus status{s->reserved_extended.mappings,
                                                     api::Symbol(updated->metadata.name)};
    if (Status w = handle_.client().SetExtendedResourceClaimStatus(pod, status); !w.IsSuccess()) {
      return Status::Error(fmt::format("update pod {} ExtendedResourceClaimStatus: {}",
                                       pod.metadata.Key(), w.Message()));
    }
  }
  // Devices that wait for binding conditions: the binding waits for their drivers.
  if (!binding_timeout_ || !waits) return Status::OK();
  handle_.client().RecordEvent(framework::EventRecord{
      framework::ReferenceTo(pod), "Normal", "BindingConditionsPending", "Scheduling",
      fmt::format("waiting for binding conditions for device on node {}", node.str()), std::nullopt,
      handle_.framework().scheduler_name()});
  s->awaiting_binding = true;
  return Status(Code::kWait);
}

// Upstream's isPodReadyForBinding, asked as the binding waits: each claim as the cluster has
// it now. Its outcome is counted in the binding conditions' metrics.
Status DynamicResources::PreBindWait(framework::CycleState& state, const framework::PodInfo&,
                                     api::Symbol, api::Duration waited) {
  auto* s = state.Read<DraState>(kStateKey);
  if (s == nullptr || !s->awaiting_binding) return Status::OK();
  const api::Time now = handle_.clock().Now();
  std::vector<ClaimPtr> claims;
  Status outcome;
  std::string_view label = "success";
  for (const ClaimPtr& c : s->claims) {
    ClaimPtr claim = FindClaim(c->metadata.namespace_, api::Symbol(c->metadata.name));
    if (claim == nullptr) {
      outcome = Status::Error(fmt::format("resourceclaim \"{}\" not found", c->metadata.Key()));
      label = "error";
      break;
    }
    claims.push_back(std::move(claim));
  }
  for (size_t i = 0; i < claims.size() && outcome.IsSuccess(); ++i) {
    const api::ResourceClaim& claim = *claims[i];
    bool ready = false;
    if (Status failed = BindingReadiness(claim, &ready); !failed.IsSuccess()) {
      outcome = failed;
      label = "failure";
    } else if (!ready && BindingTimedOut(claim, now, *binding_timeout_)) {
      outcome = Status::Error(fmt::format("device binding timeout: claim={}", claim.metadata.name));
      label = "timeout";
    } else if (!ready && waited < *binding_timeout_) {
      return Status(Code::kWait);
    } else if (!ready) {
      outcome = Status::Error("device binding timeout: context deadline exceeded");
      label = "timeout";
    }
  }
  if (binding_allocations_ != nullptr) {
    const std::string profile = handle_.framework().scheduler_name();
    const double seconds = std::chrono::duration<double>(waited).count();
    for (const ClaimPtr& claim : claims) {
      if (!claim->status.allocation) continue;
      for (const api::DeviceRequestAllocationResult& r : claim->status.allocation->devices) {
        const std::map<std::string, std::string> labels = {
            {"profile", profile}, {"driver", r.driver.string()}, {"status", std::string(label)}};
        if (WaitsForBinding(r)) binding_allocations_->Add(labels).Increment();
        binding_wait_->Add(labels, framework::ExponentialBuckets(0.1, 2, 14)).Observe(seconds);
      }
    }
  }
  return outcome;
}

std::vector<framework::ClusterEventWithHint> DynamicResources::EventsToRegister() const {
  // A claim of the pod's created, changed, or any claim deallocated.
  auto claim_changed = [](const api::Pod& pod, const EventObjects& e, Status*) {
    const api::ResourceClaim* before = e.Old<api::ResourceClaim>();
    const api::ResourceClaim* after = e.New<api::ResourceClaim>();
    if (after == nullptr) return QueueingHint::kSkip;
    if (before != nullptr && before->Allocated() && !after->Allocated())
      return QueueingHint::kQueue;
    const bool mine =
        std::any_of(pod.spec.resource_claims.begin(), pod.spec.resource_claims.end(),
                    [&](const api::PodResourceClaim& pc) {
                      if (after->metadata.namespace_ != pod.metadata.namespace_) return false;
                      const std::optional<api::Symbol> name = api::ClaimNameOf(pod, pc);
                      return name && !name->empty() && name->str() == after->metadata.name;
                    });
    if (!mine) return QueueingHint::kSkip;
    if (before == nullptr) return QueueingHint::kQueue;
    const bool status_same =
        before->status.allocation.has_value() == after->status.allocation.has_value() &&
        before->status.reserved_for == after->status.reserved_for;
    return status_same ? QueueingHint::kSkip : QueueingHint::kQueue;
  };
  // The pod's own update: the claims made for it from templates recorded in its status.
  auto pod_claims_changed = [](const api::Pod&, const EventObjects& e, Status*) {
    if (e.old_pod == nullptr || e.new_pod == nullptr) return QueueingHint::kQueue;
    const auto& before = e.old_pod->status.resource_claim_statuses;
    const auto& after = e.new_pod->status.resource_claim_statuses;
    const bool same =
        before.size() == after.size() &&
        std::equal(before.begin(), before.end(), after.begin(), [](const auto& a, const auto& b) {
          return a.name == b.name && a.resource_claim_name == b.resource_claim_name;
        });
    return same ? QueueingHint::kSkip : QueueingHint::kQueue;
  };
  using framework::EventResource;
  const uint32_t add_update = framework::kAdd | framework::kUpdateOther;
  return {
      {ClusterEvent{EventResource::kPod, framework::kUpdatePodOther,
                    "UpdatePodGeneratedResourceClaim"},
       pod_claims_changed},
      {ClusterEvent{EventResource::kNode,
                    framework::kAdd | framework::kUpdateNodeLabel | framework::kUpdateNodeTaint |
                        framework::kUpdateNodeAllocatable,
                    "NodeAdd|UpdateNodeLabel|UpdateNodeTaint|UpdateNodeAllocatable"},
       {}},
      {ClusterEvent{EventResource::Of<api::ResourceClaim>(), add_update, "ResourceClaimAdd|Update"},
       claim_changed},
      {ClusterEvent{EventResource::Of<api::DeviceClass>(), add_update, "DeviceClassAdd|Update"},
       {}},
      {ClusterEvent{EventResource::Of<api::ResourceSlice>(), add_update, "ResourceSliceAdd|Update"},
       {}},
  };
}

std::string DynamicResources::Describe(const api::AllocationResult& result) {
  std::string out;
  for (const api::DeviceRequestAllocationResult& d : result.devices) {
    out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", d.request, d.DeviceName());
  }
  return out;
}

}  // namespace muster::plugins::dynamicresources
