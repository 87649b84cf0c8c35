// The structured allocator (k8s.io/dynamic-resource-allocation/structured: allocator.go and its
// incubating variant's order), written from its behaviour and messages.

#include "muster/plugins/dynamicresources/allocator.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "muster/api/cel/cel.h"
#include "muster/plugins/dynamicresources/args.h"

namespace muster::plugins::dynamicresources {

using api::Symbol;

// Upstream's AllocationResultsMaxSize: the devices one claim may get.
constexpr int64_t kMaxDevicesPerClaim = 32;

std::string DeviceId::String() const {
  return api::DeviceName(driver.str(), pool.str(), device.str());
}

std::string ClaimName(const api::ResourceClaim& claim) {
  if (claim.metadata.namespace_.empty()) return claim.metadata.name;
  return fmt::format("{}/{}", claim.metadata.namespace_.str(), claim.metadata.name);
}

void AddAllocated(const api::ResourceClaim& claim, DeviceSet* set) {
  if (!claim.status.allocation) return;
  for (const api::DeviceRequestAllocationResult& r : claim.status.allocation->devices) {
    if (!r.admin_access) set->insert(DeviceId{r.driver, r.pool, r.device});
  }
}

void RemoveAllocated(const api::ResourceClaim& claim, DeviceSet* set) {
  if (!claim.status.allocation) return;
  for (const api::DeviceRequestAllocationResult& r : claim.status.allocation->devices) {
    if (!r.admin_access) set->erase(DeviceId{r.driver, r.pool, r.device});
  }
}

// ---- Inventory ----

namespace {

// Whether the slice reaches the node: by its own node fields, or (perDeviceNodeSelection) when
// one of its devices does.
bool SliceReaches(const api::ResourceSlice& s, const api::LabelSet& labels, Symbol node) {
  if (!s.spec.shared_counters.empty()) return true;
  if (!s.spec.per_device_node_selection) return s.spec.nodes.Reaches(labels, node);
  return std::any_of(s.spec.devices.begin(), s.spec.devices.end(), [&](const api::Device& d) {
    return d.nodes && d.nodes->Reaches(labels, node);
  });
}

bool ByName(const api::ResourceSlice* a, const api::ResourceSlice* b) {
  return a->metadata.name < b->metadata.name;
}

}  // namespace

Inventory::Inventory(std::vector<const api::ResourceSlice*> slices) : slices_(std::move(slices)) {
  for (const api::ResourceSlice* s : slices_) {
    const uint64_t key = api::PairId(s->spec.driver, s->spec.pool.name);
    Pool& pool = pools_[key];
    if (pool.slices_at_generation == 0 || s->spec.pool.generation > pool.generation) {
      pool = Pool{s->spec.pool.generation, 0, s->spec.pool.resource_slice_count, {}};
    }
    if (s->spec.pool.generation == pool.generation) {
      ++pool.slices_at_generation;
      if (!s->spec.shared_counters.empty()) pool.counter_slices.push_back(s);
    }
    if (!s->spec.nodes.node_name.empty() && s->spec.shared_counters.empty()) {
      by_node_[s->spec.nodes.node_name].push_back(s);
    } else {
      elsewhere_.push_back(s);
    }
  }
  for (const api::ResourceSlice* s : slices_) {
    const Pool& pool = pools_[api::PairId(s->spec.driver, s->spec.pool.name)];
    if (s->spec.pool.generation != pool.generation) continue;
    for (const api::Device& d : s->spec.devices) {
      devices_.emplace(DeviceId{s->spec.driver, s->spec.pool.name, d.name}, &d);
      consumes_counters_ |= !d.consumes_counters.empty();
      binding_conditions_ |= !d.binding_conditions.empty();
    }
  }
  // Every slice on a named node: what a node sees depends on nothing else.
  if (elsewhere_.empty()) {
    const api::LabelSet none;
    for (const auto& [node, list] : by_node_) by_node_views_.emplace(node, Gather(none, node));
  }
}

const api::Device* Inventory::Find(const DeviceId& id) const {
  auto it = devices_.find(id);
  return it == devices_.end() ? nullptr : it->second;
}

const Inventory::NodeView& Inventory::For(const api::LabelSet& labels, Symbol node,
                                          NodeView* scratch) const {
  if (elsewhere_.empty()) {
    static const NodeView kNone;
    auto it = by_node_views_.find(node);
    return it == by_node_views_.end() ? kNone : it->second;
  }
  *scratch = Gather(labels, node);
  return *scratch;
}

Inventory::NodeView Inventory::Gather(const api::LabelSet& labels, Symbol node) const {
  std::vector<const api::ResourceSlice*> reaching;
  if (auto it = by_node_.find(node); it != by_node_.end()) reaching = it->second;
  for (const api::ResourceSlice* s : elsewhere_) {
    if (SliceReaches(*s, labels, node)) reaching.push_back(s);
  }
  // By pool, the newest generation among the node's slices.
  std::map<std::pair<std::string_view, std::string_view>, std::vector<const api::ResourceSlice*>>
      by_pool;
  for (const api::ResourceSlice* s : reaching) {
    auto& list = by_pool[{s->spec.driver.str(), s->spec.pool.name.str()}];
    if (!list.empty() && list.front()->spec.pool.generation < s->spec.pool.generation) {
      list.clear();
    }
    if (list.empty() || list.front()->spec.pool.generation == s->spec.pool.generation) {
      list.push_back(s);
    }
  }
  std::vector<PoolView> out;
  out.reserve(by_pool.size());
  for (auto& [name, list] : by_pool) {
    const api::ResourceSlice& first = *list.front();
    PoolView view{first.spec.driver, first.spec.pool.name};
    const Pool& pool = pools_.at(api::PairId(first.spec.driver, first.spec.pool.name));
    const int64_t generation = first.spec.pool.generation;
    if (static_cast<int64_t>(list.size()) != first.spec.pool.resource_slice_count) {
      // What the node sees is not the whole pool: a newer generation elsewhere makes these
      // obsolete; otherwise count the generation's slices wherever they are.
      if (pool.generation > generation) continue;
      view.incomplete = pool.slices_at_generation != first.spec.pool.resource_slice_count;
    }
    for (const api::ResourceSlice* s : list) {
      if (s->spec.shared_counters.empty()) view.slices.push_back(s);
    }
    std::sort(view.slices.begin(), view.slices.end(), ByName);
    for (const api::ResourceSlice* s : pool.counter_slices) {
      for (const api::CounterSet& set : s->spec.shared_counters) {
        for (const api::CounterSet* other : view.counter_sets) {
          if (other->name == set.name && view.invalid.empty()) {
            view.invalid = fmt::format("duplicate counter set name {}", set.name.str());
          }
        }
        view.counter_sets.push_back(&set);
      }
    }
    if (view.incomplete) {
      view.slices.clear();
    } else {
      std::unordered_set<Symbol> names;
      for (const api::ResourceSlice* s : view.slices) {
        for (const api::Device& d : s->spec.devices) {
          if (!names.insert(d.name).second && view.invalid.empty()) {
            view.invalid = fmt::format("duplicate device name {}", d.name.str());
          }
          for (const api::DeviceCounterConsumption& c : d.consumes_counters) {
            auto set =
                std::find_if(view.counter_sets.begin(), view.counter_sets.end(),
                             [&](const api::CounterSet* cs) { return cs->name == c.counter_set; });
            if (set == view.counter_sets.end()) {
              if (view.invalid.empty()) {
                view.invalid = fmt::format("counter set {} not found", c.counter_set.str());
              }
              continue;
            }
            for (const api::Counter& counter : c.counters) {
              const bool known =
                  std::any_of((*set)->counters.begin(), (*set)->counters.end(),
                              [&](const api::Counter& k) { return k.name == counter.name; });
              if (!known && view.invalid.empty()) {
                view.invalid = fmt::format("counter {} not found in counter set {}",
                                           counter.name.str(), c.counter_set.str());
              }
            }
          }
        }
      }
    }
    out.push_back(std::move(view));
  }
  // Pools whose devices wait for binding conditions come after the others (upstream's
  // GatherPools since 1.36): a device that is ready at once is preferred.
  if (binding_conditions_) {
    std::stable_partition(out.begin(), out.end(), [](const PoolView& view) {
      return std::none_of(view.slices.begin(), view.slices.end(), [](const api::ResourceSlice* s) {
        return std::any_of(s->spec.devices.begin(), s->spec.devices.end(),
                           [](const api::Device& d) { return !d.binding_conditions.empty(); });
      });
    });
  }
  NodeView view{std::move(out), {}};
  for (const PoolView& pool : view.pools) {
    for (const api::ResourceSlice* s : pool.slices) {
      for (const api::Device& d : s->spec.devices) {
        view.candidates.push_back(
            Candidate{&pool, s, &d, DeviceId{s->spec.driver, s->spec.pool.name, d.name}});
      }
    }
  }
  return view;
}

// ---- Allocator ----

Allocator::Allocator(const Inventory& inventory, const DeviceSet& allocated,
                     const DeviceSet& pending,
                     std::function<const api::DeviceClass*(Symbol)> classes)
    : inventory_(inventory),
      allocated_(allocated),
      pending_(pending),
      classes_(std::move(classes)),
      binding_conditions_(BindingConditionsEnabled()) {
  if (!inventory_.consumes_counters()) return;
  for (const DeviceSet* set : {&allocated_, &pending_}) {
    set->ForEach([&](const DeviceId& id) {
      if (set == &pending_ && allocated_.contains(id)) return;
      const api::Device* d = inventory_.Find(id);
      if (d == nullptr) return;
      for (const api::DeviceCounterConsumption& c : d->consumes_counters) {
        for (const api::Counter& counter : c.counters) {
          api::Quantity& used =
              consumed_[CounterKey{{id.driver, id.pool, c.counter_set}, counter.name}];
          used.Add(counter.value);
        }
      }
    });
  }
}

// The depth-first search over one node's devices, for the claims' requests.
class Search {
 public:
  Search(const Allocator& a, const api::LabelSet& labels, Symbol node, const ClaimRequests& claims,
         const std::function<bool()>* stop = nullptr)
      : a_(a), labels_(labels), node_(node), claims_(claims), stop_(stop) {}

  AllocationOutcome Run(Allocator::Answer answer);
  std::string Diagnose();

 private:
  using Candidate = Inventory::Candidate;
  using Request = ClaimRequests::Request;
  // An alternative as this node sees it.
  struct Alternative {
    int64_t count = 0;                // devices to find: the request's, or All's on this node
    std::vector<size_t> all_devices;  // All: every selectable device, by candidate index
  };
  // A matchAttribute constraint: the value the first device set, if any.
  struct Match {
    const api::DeviceConstraint* constraint;
    std::optional<api::AttributeValue> value;
    int devices = 0;
  };
  struct Chosen {
    size_t claim;
    const Request* request;
    size_t candidate;
  };

  const std::vector<Candidate>& candidates() const { return view_->candidates; }
  // The alternative of claim `c`'s request `r` being tried.
  const Request& Current(size_t c, size_t r) const {
    const ClaimRequests::Claim& cl = claims_.claims_[c];
    return cl.requests[r][chosen_alternative_[cl.first_request + r]];
  }
  // "claim <ns/name>", for messages only (built when one is).
  std::string Owner(size_t c) const { return "claim " + ClaimName(*claims_.claims_[c].claim); }

  bool Prepare();
  // Whether the rest of the search finds a solution from request `r` of claim `c` (trying each
  // of its alternatives), or from its device `d`, the next taken from candidate `start` on.
  // A fatal error sets error_ and returns false.
  bool Step(size_t c, size_t r);
  bool Devices(size_t c, size_t r, int64_t d, size_t start);
  bool TryDevice(size_t c, size_t r, size_t i, int64_t d, bool* constraint_failed);
  // Whether candidate `i` is one `req` (of claim `c`) may have: -1 error (error_ set), 0 no,
  // 1 yes. Kept per alternative and candidate.
  int Selectable(size_t c, const Request& req, size_t i);
  // Whether every selector picks the candidate (the class's when `cls` is set, else claim
  // `c`'s request's): -1 error, 0 no, 1 yes.
  int Selects(const std::vector<api::DeviceSelector>& selectors, const Candidate& cand,
              const api::DeviceClass* cls, size_t c);
  // Whether candidate `i` is taken for `req` of claim `c`: by the cluster, by a claim being
  // allocated, or earlier in this search.
  bool InUse(size_t c, const Request& req, size_t i) const;
  bool CountersFit(const Candidate& cand) const;
  void Consume(const Candidate& cand, bool add);
  static bool Tolerated(const Request& req, const api::Device& device);
  static const api::AttributeValue* Attribute(const api::Device& device, Symbol domain,
                                              Symbol name);
  api::AllocationResult Result(size_t c) const;

  const Allocator& a_;
  const api::LabelSet& labels_;
  Symbol node_;
  const ClaimRequests& claims_;
  Inventory::NodeView scratch_;  // the node's view when gathered per node
  const Inventory::NodeView* view_ = &scratch_;
  std::vector<int8_t> selectable_;  // by alternative, then candidate: -1 unknown, 0 no, 1 yes
  std::vector<Alternative> alternatives_;
  std::vector<uint32_t> chosen_alternative_;  // by request
  std::vector<Match> matches_;                // by constraint
  std::vector<Chosen> chosen_;
  std::unordered_map<Allocator::CounterKey, api::Quantity, Allocator::CounterKeyHash> consumed_;
  std::string error_;
  const std::function<bool()>* stop_;
  uint64_t tries_ = 0;  // devices tried, for asking stop_ now and then
  bool stopped_ = false;
};

ClaimRequests Allocator::Prepare(std::span<const api::ResourceClaim* const> claims) const {
  ClaimRequests out;
  out.claims_.reserve(claims.size());
  for (const api::ResourceClaim* claim : claims) {
    ClaimRequests::Claim& cd = out.claims_.emplace_back();
    cd.claim = claim;
    cd.first_request = out.requests_;
    cd.first_constraint = out.constraints_;
    out.constraints_ += claim->spec.constraints.size();
    auto cname = [&] { return ClaimName(*claim); };
    // The class of `req`, looked up; false (with the claim's error) when it cannot be.
    auto prepare = [&](ClaimRequests::Request& req, std::string_view request_name) -> bool {
      const api::DeviceRequestSpec& spec = *req.spec;
      if (spec.device_class_name.empty()) {
        cd.error = fmt::format(
            "claim {}, request {}: missing device class name (unsupported "
            "request type?)",
            cname(), request_name);
        return false;
      }
      req.cls = classes_(spec.device_class_name);
      if (req.cls == nullptr) {
        cd.error = fmt::format(
            "claim {}, request {}: could not retrieve device class {}: "
            "deviceclass.resource.k8s.io \"{}\" not found",
            cname(), request_name, spec.device_class_name.str(), spec.device_class_name.str());
        return false;
      }
      req.all = spec.allocation_mode != api::DeviceAllocationMode::kExactCount;
      if (!req.all) req.count = spec.count;
      req.index = out.alternatives_++;
      return true;
    };
    for (const api::DeviceRequest& r : claim->spec.requests) {
      std::vector<ClaimRequests::Request> alternatives;
      bool failed = false;
      if (r.exactly) {
        ClaimRequests::Request req;
        req.name = r.name.string();
        req.symbol = r.name;
        req.label = req.name;
        req.parent = r.name;
        req.spec = &*r.exactly;
        failed = !prepare(req, req.label);
        if (!failed) alternatives.push_back(std::move(req));
      } else {
        for (const api::DeviceSubRequest& sub : r.first_available) {
          ClaimRequests::Request req;
          req.name = fmt::format("{}/{}", r.name.str(), sub.name.str());
          req.symbol = Symbol(req.name);
          req.label = sub.name.string();
          req.parent = r.name;
          req.spec = &sub.spec;
          failed = !prepare(req, req.label);
          if (failed) break;
          alternatives.push_back(std::move(req));
        }
      }
      if (!failed && alternatives.empty()) {
        cd.error = fmt::format("claim {}, request {}: unknown request type", cname(), r.name.str());
        failed = true;
      }
      // A request that failed keeps the alternatives before it: a search checks them on its
      // node before it meets the error, as it meets them in order.
      if (failed && alternatives.empty()) return out;
      ++out.requests_;
      cd.requests.push_back(std::move(alternatives));
      if (failed) return out;
    }
  }
  return out;
}

std::string Allocator::Diagnose(const api::LabelSet& labels, Symbol node,
                                std::span<const api::ResourceClaim* const> claims) const {
  const ClaimRequests requests = Prepare(claims);
  Search search(*this, labels, node, requests);
  return search.Diagnose();
}

AllocationOutcome Allocator::Allocate(const api::LabelSet& labels, Symbol node,
                                      const ClaimRequests& claims,
                                      const std::function<bool()>* stop, Answer answer) const {
  Search search(*this, labels, node, claims, stop);
  return search.Run(answer);
}

bool Search::InUse(size_t c, const Request& req, size_t i) const {
  if (req.spec->admin_access) {
    return std::any_of(chosen_.begin(), chosen_.end(),
                       [&](const Chosen& ch) { return ch.claim == c && ch.candidate == i; });
  }
  const bool chosen = std::any_of(chosen_.begin(), chosen_.end(), [&](const Chosen& ch) {
    return ch.candidate == i && !ch.request->spec->admin_access;
  });
  if (chosen) return true;
  const DeviceId& id = candidates()[i].id;
  return a_.allocated_.contains(id) || (!a_.pending_.empty() && a_.pending_.contains(id));
}

int Search::Selects(const std::vector<api::DeviceSelector>& selectors, const Candidate& cand,
                    const api::DeviceClass* cls, size_t c) {
  // Who the selector belongs to, as messages name it: built only for a message.
  auto owner = [&] { return cls != nullptr ? "class " + cls->metadata.name : Owner(c); };
  for (size_t i = 0; i < selectors.size(); ++i) {
    const api::DeviceSelector& s = selectors[i];
    if (s.program == nullptr) {
      error_ = s.error.empty()
                   ? fmt::format(
                         "{}, selector #{}: CEL expression empty (unsupported selector "
                         "type?)",
                         owner(), i)
                   : fmt::format("{}: selector #{}: CEL compile error: {}", owner(), i, s.error);
      return -1;
    }
    const api::cel::Result r = api::cel::Evaluate(
        *s.program,
        cand.slice->View(static_cast<size_t>(cand.device - cand.slice->spec.devices.data())));
    if (!r.error.empty()) {
      error_ = fmt::format("{}: selector #{}: CEL runtime error: {}", owner(), i, r.error);
      return -1;
    }
    if (!r.matches) return 0;
  }
  return 1;
}

int Search::Selectable(size_t c, const Request& req, size_t i) {
  int8_t& known = selectable_[req.index * candidates().size() + i];
  if (known >= 0) return known;
  const Candidate& cand = candidates()[i];
  int verdict = 1;
  // The class's selectors first, then the request's, each in order.
  verdict = Selects(req.cls->spec.selectors, cand, req.cls, c);
  if (verdict == 1) verdict = Selects(req.spec->selectors, cand, nullptr, c);
  if (verdict == 1 && cand.device->nodes && !cand.device->nodes->Reaches(labels_, node_)) {
    verdict = 0;
  }
  // Devices that wait for binding conditions are passed over with the feature off.
  if (verdict == 1 && !a_.binding_conditions_ && !cand.device->binding_conditions.empty()) {
    verdict = 0;
  }
  if (verdict < 0) return -1;
  known = static_cast<int8_t>(verdict);
  return verdict;
}

bool Search::Tolerated(const Request& req, const api::Device& device) {
  for (const api::DeviceTaint& taint : device.taints) {
    if (taint.effect != api::DeviceTaintEffect::kNoSchedule &&
        taint.effect != api::DeviceTaintEffect::kNoExecute) {
      continue;
    }
    const bool ok = std::any_of(req.spec->tolerations.begin(), req.spec->tolerations.end(),
                                [&](const api::DeviceToleration& t) { return t.Tolerates(taint); });
    if (!ok) return false;
  }
  return true;
}

bool Search::CountersFit(const Candidate& cand) const {
  for (const api::DeviceCounterConsumption& c : cand.device->consumes_counters) {
    auto set = std::find_if(cand.pool->counter_sets.begin(), cand.pool->counter_sets.end(),
                            [&](const api::CounterSet* s) { return s->name == c.counter_set; });
    if (set == cand.pool->counter_sets.end()) return false;
    for (const api::Counter& need : c.counters) {
      auto have = std::find_if((*set)->counters.begin(), (*set)->counters.end(),
                               [&](const api::Counter& k) { return k.name == need.name; });
      if (have == (*set)->counters.end()) return false;
      const Allocator::CounterKey key{{cand.id.driver, cand.id.pool, c.counter_set}, need.name};
      api::Quantity left = have->value;
      if (auto it = a_.consumed_.find(key); it != a_.consumed_.end()) left.Sub(it->second);
      if (auto it = consumed_.find(key); it != consumed_.end()) left.Sub(it->second);
      if (left < need.value) return false;
    }
  }
  return true;
}

void Search::Consume(const Candidate& cand, bool add) {
  for (const api::DeviceCounterConsumption& c : cand.device->consumes_counters) {
    for (const api::Counter& need : c.counters) {
      api::Quantity& used = consumed_[Allocator::CounterKey{
          {cand.id.driver, cand.id.pool, c.counter_set}, need.name}];
      if (add) {
        used.Add(need.value);
      } else {
        used.Sub(need.value);
      }
    }
  }
}

// Attributes are stored qualified (a name without a domain has the driver's), sorted.
const api::AttributeValue* Search::Attribute(const api::Device& device, Symbol domain,
                                             Symbol name) {
  for (const api::DeviceAttribute& a : device.attributes) {
    if (a.domain == domain && a.name == name) return &a.value;
  }
  return nullptr;
}

bool Search::Prepare() {
  view_ = &a_.inventory_.For(labels_, node_, &scratch_);
  const size_t n = candidates().size();
  selectable_.assign(claims_.alternatives_ * n, -1);
  alternatives_.resize(claims_.alternatives_);
  chosen_alternative_.assign(claims_.requests_, 0);
  if (claims_.constraints_ > 0) {
    for (const ClaimRequests::Claim& cd : claims_.claims_) {
      for (const api::DeviceConstraint& k : cd.claim->spec.constraints) {
        matches_.push_back({&k, std::nullopt, 0});
      }
    }
  }
  for (size_t c = 0; c < claims_.claims_.size(); ++c) {
    const ClaimRequests::Claim& cd = claims_.claims_[c];
    int64_t minimum = 0;
    for (const std::vector<Request>& alternatives : cd.requests) {
      int64_t least = std::numeric_limits<int64_t>::max();
      for (const Request& req : alternatives) {
        Alternative& alt = alternatives_[req.index];
        alt.count = req.count;
        if (req.all) {
          for (const Inventory::PoolView& pool : view_->pools) {
            if (pool.incomplete || !pool.invalid.empty()) {
              error_ = fmt::format(
                  "claim {}, request {}: asks for all devices, but resource pool "
                  "{}/{} is currently {}",
                  ClaimName(*cd.claim), req.label, pool.driver.str(), pool.name.str(),
                  pool.incomplete ? "being updated" : "invalid");
              return false;
            }
          }
          for (size_t i = 0; i < n; ++i) {
            const int s = Selectable(c, req, i);
            if (s < 0) return false;
            if (s == 1) alt.all_devices.push_back(i);
          }
          alt.count = static_cast<int64_t>(alt.all_devices.size());
        }
        least = std::min(least, alt.count);
      }
      minimum += least;
    }
    if (!cd.error.empty()) {
      error_ = cd.error;
      return false;
    }
    if (minimum > kMaxDevicesPerClaim) {
      error_ = fmt::format("claim {}: number of requested devices {} exceeds the claim limit of {}",
                           ClaimName(*cd.claim), minimum, kMaxDevicesPerClaim);
      return false;
    }
  }
  return true;
}

bool Search::TryDevice(size_t c, size_t r, size_t i, int64_t d, bool* constraint_failed) {
  if (stop_ != nullptr && tries_++ % 256 == 0 && (*stop_)()) {
    // Every loop above ends on an error: the search unwinds at once.
    stopped_ = true;
    error_ = "stopped";
    return false;
  }
  const ClaimRequests::Claim& cd = claims_.claims_[c];
  const Request& req = Current(c, r);
  const Candidate& cand = candidates()[i];
  if (InUse(c, req, i)) return false;
  if (!cand.device->consumes_counters.empty() && !CountersFit(cand)) return false;
  if (!Tolerated(req, *cand.device)) return false;
  // The constraints over this request: the first device sets the value, the rest must have it.
  const std::span<Match> matches(matches_.data() + cd.first_constraint,
                                 cd.claim->spec.constraints.size());
  std::vector<size_t> counted;
  auto undo = [&] {
    for (size_t k : counted) {
      if (--matches[k].devices == 0) matches[k].value.reset();
    }
  };
  for (size_t k = 0; k < matches.size(); ++k) {
    Match& m = matches[k];
    const std::vector<Symbol>& only = m.constraint->requests;
    if (!only.empty() && std::find(only.begin(), only.end(), req.parent) == only.end() &&
        std::find(only.begin(), only.end(), req.symbol) == only.end()) {
      continue;
    }
    const api::AttributeValue* v =
        Attribute(*cand.device, m.constraint->domain, m.constraint->attribute);
    bool fits = v != nullptr;
    if (fits && m.value) {
      if (v->index() != m.value->index()) {
        fits = false;
      } else if (const auto* version = std::get_if<api::SemVer>(v)) {
        // Versions compare as the strings they were published as.
        fits = version->String() == std::get<api::SemVer>(*m.value).String();
      } else {
        fits = *v == *m.value;
      }
    }
    if (!fits) {
      undo();
      *constraint_failed = true;
      return false;
    }
    if (m.devices++ == 0) m.value = *v;
    counted.push_back(k);
  }
  chosen_.push_back(Chosen{c, &req, i});
  Consume(cand, true);
  if (Devices(c, r, d + 1, i + 1)) return true;
  Consume(cand, false);
  chosen_.pop_back();
  undo();
  return false;
}

bool Search::Devices(size_t c, size_t r, int64_t d, size_t start) {
  const Request& req = Current(c, r);
  const Alternative& alt = alternatives_[req.index];
  if (d == alt.count) return Step(c, r + 1);
  bool constraint_failed = false;
  if (req.all) {
    // Every selectable device, in order: one that cannot be had means no solution here.
    const size_t i = alt.all_devices[static_cast<size_t>(d)];
    if (TryDevice(c, r, i, d, &constraint_failed)) return true;
    if (constraint_failed && error_.empty()) {
      error_ = fmt::format(
          "{}, request {}: cannot add device {} because a claim constraint "
          "would not be satisfied",
          Owner(c), req.label, candidates()[i].id.String());
    }
    return false;
  }
  for (size_t i = start; i < candidates().size(); ++i) {
    const Candidate& cand = candidates()[i];
    if (cand.pool->incomplete || !cand.pool->invalid.empty()) continue;
    if (InUse(c, req, i)) continue;
    const int selectable = Selectable(c, req, i);
    if (selectable < 0) return false;
    if (selectable == 0) continue;
    if (TryDevice(c, r, i, d, &constraint_failed)) return true;
    if (!error_.empty()) return false;
  }
  return false;
}

bool Search::Step(size_t c, size_t r) {
  if (c == claims_.claims_.size()) return true;
  const ClaimRequests::Claim& cd = claims_.claims_[c];
  if (r == cd.requests.size()) return Step(c + 1, 0);
  int64_t taken = 0;
  for (const Chosen& ch : chosen_) taken += ch.claim == c;
  // Each alternative in order (one for an exact request); the first that lets the whole rest of
  // the search succeed is kept.
  uint32_t& chosen = chosen_alternative_[cd.first_request + r];
  for (size_t k = 0; k < cd.requests[r].size(); ++k) {
    chosen = static_cast<uint32_t>(k);
    const Request& req = cd.requests[r][k];
    const Alternative& alt = alternatives_[req.index];
    if (taken + alt.count > kMaxDevicesPerClaim) continue;
    if (req.all && alt.count == 0) continue;  // All of nothing is no solution
    if (Devices(c, r, 0, 0)) return true;
    if (!error_.empty()) return false;
  }
  chosen = 0;
  return false;
}

namespace {

api::NodeSelector LocalSelector(Symbol node) {
  api::NodeSelectorTerm term;
  term.match_fields.push_back(
      api::SelectorRequirement{Symbol(api::kNodeNameField), api::SelectorOperator::kIn, {node}, 0});
  api::PrepareNodeSelectorTerm(term);
  return api::NodeSelector{{std::move(term)}};
}

bool SameRequirement(const api::SelectorRequirement& a, const api::SelectorRequirement& b) {
  return a.key == b.key && a.op == b.op && a.values == b.values;
}

}  // namespace

api::AllocationResult Search::Result(size_t c) const {
  const ClaimRequests::Claim& cd = claims_.claims_[c];
  api::AllocationResult result;
  std::optional<api::NodeSelector> local;
  api::NodeSelectorTerm combined;
  for (const Chosen& ch : chosen_) {
    if (ch.claim != c) continue;
    const Candidate& cand = candidates()[ch.candidate];
    api::DeviceRequestAllocationResult r;
    r.request = ch.request->name;
    r.driver = cand.id.driver;
    r.pool = cand.id.pool;
    r.device = cand.id.device;
    r.admin_access = ch.request->spec->admin_access;
    r.tolerations = ch.request->spec->tolerations;
    const bool binds = a_.binding_conditions_;
    if (binds && !cand.device->binding_conditions.empty()) {
      r.binding_conditions = cand.device->binding_conditions;
      r.binding_failure_conditions = cand.device->binding_failure_conditions;
    }
    result.devices.push_back(std::move(r));
    // Where the device is reachable: one node ends the question (a device that binds to the
    // node it is allocated for, too); a selector narrows it.
    const api::DeviceNodes& nodes =
        cand.device->nodes ? *cand.device->nodes : cand.slice->spec.nodes;
    const Symbol only = !nodes.node_name.empty()              ? nodes.node_name
                        : binds && cand.device->binds_to_node ? node_
                                                              : Symbol();
    if (!local && !only.empty()) local = LocalSelector(only);
    if (nodes.node_selector && !nodes.node_selector->terms.empty()) {
      const api::NodeSelectorTerm& t = nodes.node_selector->terms.front();
      for (const auto& [from, to] : {std::pair{&t.match_expressions, &combined.match_expressions},
                                     std::pair{&t.match_fields, &combined.match_fields}}) {
        for (const api::SelectorRequirement& req : *from) {
          if (std::none_of(to->begin(), to->end(), [&](const api::SelectorRequirement& o) {
                return SameRequirement(o, req);
              })) {
            to->push_back(req);
          }
        }
      }
    }
  }
  if (local) {
    result.node_selector = std::move(local);
  } else if (!combined.match_expressions.empty() || !combined.match_fields.empty()) {
    api::PrepareNodeSelectorTerm(combined);
    result.node_selector = api::NodeSelector{{std::move(combined)}};
  }
  // The classes' configuration, each class's once, for the requests that used it; then the
  // claim's own. A configuration for every request of the claim names none.
  std::vector<std::pair<const api::DeviceClass*, std::vector<size_t>>> by_class;
  std::vector<Symbol> all_requests;
  for (size_t r = 0; r < cd.requests.size(); ++r) {
    const Request& req = Current(c, r);
    all_requests.push_back(req.symbol);
    auto it = std::find_if(by_class.begin(), by_class.end(),
                           [&](const auto& e) { return e.first == req.cls; });
    if (it != by_class.end()) {
      for (size_t entry : it->second) result.config[entry].requests.push_back(req.symbol);
      continue;
    }
    std::vector<size_t> entries;
    for (const api::OpaqueDeviceConfiguration& config : req.cls->spec.config) {
      entries.push_back(result.config.size());
      result.config.push_back(api::DeviceAllocationConfiguration{true, {req.symbol}, config});
    }
    by_class.emplace_back(req.cls, std::move(entries));
  }
  for (const api::DeviceClaimConfiguration& config : cd.claim->spec.config) {
    result.config.push_back(
        api::DeviceAllocationConfiguration{false, config.requests, config.opaque});
  }
  for (api::DeviceAllocationConfiguration& config : result.config) {
    const bool covers_all = std::all_of(all_requests.begin(), all_requests.end(), [&](Symbol n) {
      return std::find(config.requests.begin(), config.requests.end(), n) != config.requests.end();
    });
    if (config.from_class && covers_all) config.requests.clear();
  }
  return result;
}

std::string Search::Diagnose() {
  if (!Prepare()) return error_;
  for (size_t c = 0; c < claims_.claims_.size(); ++c) {
    const ClaimRequests::Claim& cd = claims_.claims_[c];
    for (size_t r = 0; r < cd.requests.size(); ++r) {
      std::string why;
      for (const Request& req : cd.requests[r]) {
        int64_t match = 0, free = 0;
        for (size_t i = 0; i < candidates().size(); ++i) {
          const Candidate& cand = candidates()[i];
          if (cand.pool->incomplete || !cand.pool->invalid.empty()) continue;
          const int s = Selectable(c, req, i);
          if (s < 0) return error_;
          if (s == 0) continue;
          ++match;
          free += !InUse(c, req, i) && Tolerated(req, *cand.device) &&
                  (cand.device->consumes_counters.empty() || CountersFit(cand));
        }
        const int64_t needed = req.all ? match : req.count;
        if (match > 0 && free >= needed) {
          why.clear();
          break;  // this alternative could be met alone
        }
        if (!why.empty()) continue;  // firstAvailable: the first alternative's reason stands
        why = match == 0 ? fmt::format("{}, request {}: no device of class {} on the node{}",
                                       Owner(c), req.name, req.cls->metadata.name,
                                       req.spec->selectors.empty() ? "" : " matches its selectors")
                         : fmt::format(
                               "{}, request {}: {} device(s) of class {} match on the "
                               "node, {} free, {} needed",
                               Owner(c), req.name, match, req.cls->metadata.name, free, needed);
      }
      if (!why.empty()) return why;
    }
  }
  const bool incomplete = std::any_of(view_->pools.begin(), view_->pools.end(),
                                      [](const auto& p) { return p.incomplete; });
  return incomplete ? "a resource pool on the node is being updated (not all its slices are "
                      "published), and the rest cannot meet every request"
                    : "each request can be met alone, but not all together (the claims' "
                      "constraints, or requests competing for the same devices)";
}

AllocationOutcome Search::Run(Allocator::Answer answer) {
  AllocationOutcome out;
  if (!Prepare() || !Step(0, 0)) {
    if (stopped_) {
      out.stopped = true;
      return out;
    }
    out.error = std::move(error_);
    if (out.error.empty()) {
      const bool invalid = std::any_of(view_->pools.begin(), view_->pools.end(),
                                       [](const auto& p) { return !p.invalid.empty(); });
      if (invalid) {
        out.error = "invalid resource pools were encountered";
        out.node_error = true;
      }
    }
    return out;
  }
  out.found = true;
  if (answer == Allocator::Answer::kVerdict) return out;
  for (size_t c = 0; c < claims_.claims_.size(); ++c) out.results.push_back(Result(c));
  return out;
}

}  // namespace muster::plugins::dynamicresources
