// The structured allocator (k8s.io/dynamic-resource-allocation/structured: allocator.go and its
// incubating variant's order), written from its behaviour and messages.

#include "muster/plugins/dynamicresources/allocator.h"

#include <algorithm>
#include <map>
#include <optional>
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
    for (const auto& [node, list] : by_node_) by_node_pools_.emplace(node, Gather(none, node));
  }
}

const api::Device* Inventory::Find(const DeviceId& id) const {
  auto it = devices_.find(id);
  return it == devices_.end() ? nullptr : it->second;
}

const std::vector<Inventory::PoolView>& Inventory::PoolsFor(const api::LabelSet& labels,
                                                            Symbol node,
                                                            std::vector<PoolView>* scratch) const {
  if (elsewhere_.empty()) {
    static const std::vector<PoolView> kNone;
    auto it = by_node_pools_.find(node);
    return it == by_node_pools_.end() ? kNone : it->second;
  }
  *scratch = Gather(labels, node);
  return *scratch;
}

std::vector<Inventory::PoolView> Inventory::Gather(const api::LabelSet& labels, Symbol node) const {
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
  return out;
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
    for (const DeviceId& id : *set) {
      if (set == &pending_ && allocated_.contains(id)) continue;
      const api::Device* d = inventory_.Find(id);
      if (d == nullptr) continue;
      for (const api::DeviceCounterConsumption& c : d->consumes_counters) {
        for (const api::Counter& counter : c.counters) {
          api::Quantity& used =
              consumed_[CounterKey{{id.driver, id.pool, c.counter_set}, counter.name}];
          used.Add(counter.value);
        }
      }
    }
  }
}

// One Allocate call: the depth-first search over one node's devices.
class Search {
 public:
  Search(const Allocator& a, const api::LabelSet& labels, Symbol node,
         std::span<const api::ResourceClaim* const> claims,
         const std::function<bool()>* stop = nullptr)
      : a_(a), labels_(labels), node_(node), claims_(claims), stop_(stop) {}

  AllocationOutcome Run();
  std::string Diagnose();

 private:
  // A device that reaches the node.
  struct Candidate {
    const Inventory::PoolView* pool;
    const api::ResourceSlice* slice;
    const api::Device* device;
    DeviceId id;
  };
  // A request (or one subrequest of a firstAvailable) ready to search.
  struct Request {
    std::string name;   // "req" or "req/sub"
    Symbol symbol;      // the same, interned (constraints and configurations name it)
    std::string label;  // how messages name it: the request's or the subrequest's name
    Symbol parent;      // the request's name
    const api::DeviceRequestSpec* spec = nullptr;
    const api::DeviceClass* cls = nullptr;
    bool all = false;
    int64_t count = 0;                // devices to find
    std::vector<size_t> all_devices;  // All: every selectable device, by candidate index
    std::vector<int8_t> selectable;   // by candidate: -1 unknown, 0 no, 1 yes
  };
  struct ClaimData {
    const api::ResourceClaim* claim = nullptr;
    // "claim <ns/name>", for messages only (built when one is).
    std::string owner() const { return "claim " + ClaimName(*claim); }
    std::vector<std::vector<Request>> requests;  // alternatives per request
    std::vector<size_t> chosen;                  // the alternative being tried, per request
    // matchAttribute constraints: the value the first device set, if any.
    struct Match {
      const api::DeviceConstraint* constraint;
      std::optional<api::AttributeValue> value;
      int devices = 0;
    };
    std::vector<Match> matches;
  };
  struct Chosen {
    size_t claim;
    const Request* request;
    size_t candidate;
  };

  bool Prepare();
  // Whether the rest of the search finds a solution from request `r` of claim `c` (trying each
  // of its alternatives), or from its device `d`, the next taken from candidate `start` on.
  // A fatal error sets error_ and returns false.
  bool Step(size_t c, size_t r);
  bool Devices(size_t c, size_t r, int64_t d, size_t start);
  bool TryDevice(size_t c, size_t r, size_t i, int64_t d, bool* constraint_failed);
  // Whether candidate `i` is one `req` (of claim `c`) may have: -1 error (error_ set), 0 no,
  // 1 yes. Cached per request and candidate.
  int Selectable(size_t c, Request& req, size_t i);
  // Whether every selector picks the candidate (the class's when `cls` is set, else claim
  // `c`'s request's): -1 error, 0 no, 1 yes.
  int Selects(const std::vector<api::DeviceSelector>& selectors, const Candidate& cand,
              const api::DeviceClass* cls, size_t c);
  bool InUse(size_t c, const Request& req, const DeviceId& id) const;
  bool CountersFit(const Candidate& cand) const;
  void Consume(const Candidate& cand, bool add);
  static bool Tolerated(const Request& req, const api::Device& device);
  static const api::AttributeValue* Attribute(const api::Device& device, Symbol domain,
                                              Symbol name);
  api::AllocationResult Result(size_t c) const;

  const Allocator& a_;
  const api::LabelSet& labels_;
  Symbol node_;
  std::span<const api::ResourceClaim* const> claims_;
  std::vector<Inventory::PoolView> scratch_;  // the node's pools when gathered per node
  const std::vector<Inventory::PoolView>* pools_ = &scratch_;
  std::vector<Candidate> candidates_;
  std::vector<ClaimData> data_;
  std::vector<Chosen> chosen_;
  DeviceSet in_use_;  // chosen in this search, admin access aside
  std::unordered_map<Allocator::CounterKey, api::Quantity, Allocator::CounterKeyHash> consumed_;
  std::string error_;
  const std::function<bool()>* stop_;
  uint64_t tries_ = 0;  // devices tried, for asking stop_ now and then
  bool stopped_ = false;
};

std::string Allocator::Diagnose(const api::LabelSet& labels, Symbol node,
                                std::span<const api::ResourceClaim* const> claims) const {
  Search search(*this, labels, node, claims);
  return search.Diagnose();
}

AllocationOutcome Allocator::Allocate(const api::LabelSet& labels, Symbol node,
                                      std::span<const api::ResourceClaim* const> claims,
                                      const std::function<bool()>* stop) const {
  Search search(*this, labels, node, claims, stop);
  return search.Run();
}

bool Search::InUse(size_t c, const Request& req, const DeviceId& id) const {
  if (req.spec->admin_access) {
    return std::any_of(chosen_.begin(), chosen_.end(), [&](const Chosen& ch) {
      return ch.claim == c && candidates_[ch.candidate].id == id;
    });
  }
  return a_.allocated_.contains(id) || a_.pending_.contains(id) || in_use_.contains(id);
}

int Search::Selects(const std::vector<api::DeviceSelector>& selectors, const Candidate& cand,
                    const api::DeviceClass* cls, size_t c) {
  // Who the selector belongs to, as messages name it: built only for a message.
  auto owner = [&] { return cls != nullptr ? "class " + cls->metadata.name : data_[c].owner(); };
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

int Search::Selectable(size_t c, Request& req, size_t i) {
  int8_t& known = req.selectable[i];
  if (known >= 0) return known;
  const Candidate& cand = candidates_[i];
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
  pools_ = &a_.inventory_.PoolsFor(labels_, node_, &scratch_);
  for (const Inventory::PoolView& pool : *pools_) {
    for (const api::ResourceSlice* s : pool.slices) {
      for (const api::Device& d : s->spec.devices) {
        candidates_.push_back(
            Candidate{&pool, s, &d, DeviceId{s->spec.driver, s->spec.pool.name, d.name}});
      }
    }
  }
  data_.resize(claims_.size());
  for (size_t c = 0; c < claims_.size(); ++c) {
    const api::ResourceClaim& claim = *claims_[c];
    auto cname = [&] { return ClaimName(claim); };
    ClaimData& cd = data_[c];
    cd.claim = &claim;
    int64_t minimum = 0;
    auto prepare = [&](Request& req, std::string_view request_name) -> bool {
      const api::DeviceRequestSpec& spec = *req.spec;
      if (spec.device_class_name.empty()) {
        error_ = fmt::format(
            "claim {}, request {}: missing device class name (unsupported "
            "request type?)",
            cname(), request_name);
        return false;
      }
      req.cls = a_.classes_(spec.device_class_name);
      if (req.cls == nullptr) {
        error_ = fmt::format(
            "claim {}, request {}: could not retrieve device class {}: "
            "deviceclass.resource.k8s.io \"{}\" not found",
            cname(), request_name, spec.device_class_name.str(), spec.device_class_name.str());
        return false;
      }
      req.selectable.assign(candidates_.size(), -1);
      if (spec.allocation_mode == api::DeviceAllocationMode::kExactCount) {
        req.count = spec.count;
        return true;
      }
      req.all = true;
      for (const Inventory::PoolView& pool : *pools_) {
        if (pool.incomplete || !pool.invalid.empty()) {
          error_ = fmt::format(
              "claim {}, request {}: asks for all devices, but resource pool "
              "{}/{} is currently {}",
              cname(), request_name, pool.driver.str(), pool.name.str(),
              pool.incomplete ? "being updated" : "invalid");
          return false;
        }
      }
      for (size_t i = 0; i < candidates_.size(); ++i) {
        const int s = Selectable(c, req, i);
        if (s < 0) return false;
        if (s == 1) req.all_devices.push_back(i);
      }
      req.count = static_cast<int64_t>(req.all_devices.size());
      return true;
    };
    for (const api::DeviceRequest& r : claim.spec.requests) {
      std::vector<Request> alternatives;
      if (r.exactly) {
        Request req;
        req.name = r.name.string();
        req.symbol = r.name;
        req.label = req.name;
        req.parent = r.name;
        req.spec = &*r.exactly;
        alternatives.push_back(std::move(req));
        if (!prepare(alternatives.back(), alternatives.back().label)) return false;
      } else {
        for (const api::DeviceSubRequest& sub : r.first_available) {
          Request req;
          req.name = fmt::format("{}/{}", r.name.str(), sub.name.str());
          req.symbol = Symbol(req.name);
          req.label = sub.name.string();
          req.parent = r.name;
          req.spec = &sub.spec;
          alternatives.push_back(std::move(req));
          if (!prepare(alternatives.back(), alternatives.back().label)) return false;
        }
      }
      if (alternatives.empty()) {
        error_ = fmt::format("claim {}, request {}: unknown request type", cname(), r.name.str());
        return false;
      }
      int64_t least = alternatives.front().count;
      for (const Request& alt : alternatives) least = std::min(least, alt.count);
      minimum += least;
      cd.requests.push_back(std::move(alternatives));
    }
    if (minimum > kMaxDevicesPerClaim) {
      error_ = fmt::format("claim {}: number of requested devices {} exceeds the claim limit of {}",
                           cname(), minimum, kMaxDevicesPerClaim);
      return false;
    }
    cd.chosen.assign(cd.requests.size(), 0);
    for (const api::DeviceConstraint& k : claim.spec.constraints) {
      cd.matches.push_back({&k, std::nullopt, 0});
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
  ClaimData& cd = data_[c];
  const Request& req = cd.requests[r][cd.chosen[r]];
  const Candidate& cand = candidates_[i];
  if (InUse(c, req, cand.id)) return false;
  if (!cand.device->consumes_counters.empty() && !CountersFit(cand)) return false;
  if (!Tolerated(req, *cand.device)) return false;
  // The constraints over this request: the first device sets the value, the rest must have it.
  std::vector<size_t> counted;
  auto undo = [&] {
    for (size_t k : counted) {
      if (--cd.matches[k].devices == 0) cd.matches[k].value.reset();
    }
  };
  for (size_t k = 0; k < cd.matches.size(); ++k) {
    ClaimData::Match& m = cd.matches[k];
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
  if (!req.spec->admin_access) in_use_.insert(cand.id);
  Consume(cand, true);
  if (Devices(c, r, d + 1, i + 1)) return true;
  Consume(cand, false);
  if (!req.spec->admin_access) in_use_.erase(cand.id);
  chosen_.pop_back();
  undo();
  return false;
}

bool Search::Devices(size_t c, size_t r, int64_t d, size_t start) {
  ClaimData& cd = data_[c];
  Request& req = cd.requests[r][cd.chosen[r]];
  if (d == req.count) return Step(c, r + 1);
  bool constraint_failed = false;
  if (req.all) {
    // Every selectable device, in order: one that cannot be had means no solution here.
    const size_t i = req.all_devices[static_cast<size_t>(d)];
    if (TryDevice(c, r, i, d, &constraint_failed)) return true;
    if (constraint_failed && error_.empty()) {
      error_ = fmt::format(
          "{}, request {}: cannot add device {} because a claim constraint "
          "would not be satisfied",
          cd.owner(), req.label, candidates_[i].id.String());
    }
    return false;
  }
  for (size_t i = start; i < candidates_.size(); ++i) {
    const Candidate& cand = candidates_[i];
    if (cand.pool->incomplete || !cand.pool->invalid.empty()) continue;
    if (InUse(c, req, cand.id)) continue;
    const int selectable = Selectable(c, req, i);
    if (selectable < 0) return false;
    if (selectable == 0) continue;
    if (TryDevice(c, r, i, d, &constraint_failed)) return true;
    if (!error_.empty()) return false;
  }
  return false;
}

bool Search::Step(size_t c, size_t r) {
  if (c == data_.size()) return true;
  ClaimData& cd = data_[c];
  if (r == cd.requests.size()) return Step(c + 1, 0);
  int64_t taken = 0;
  for (const Chosen& ch : chosen_) taken += ch.claim == c;
  // Each alternative in order (one for an exact request); the first that lets the whole rest of
  // the search succeed is kept.
  for (size_t k = 0; k < cd.requests[r].size(); ++k) {
    cd.chosen[r] = k;
    const Request& alt = cd.requests[r][k];
    if (taken + alt.count > kMaxDevicesPerClaim) continue;
    if (alt.all && alt.count == 0) continue;  // All of nothing is no solution
    if (Devices(c, r, 0, 0)) return true;
    if (!error_.empty()) return false;
  }
  cd.chosen[r] = 0;
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
  const ClaimData& cd = data_[c];
  api::AllocationResult result;
  std::optional<api::NodeSelector> local;
  api::NodeSelectorTerm combined;
  for (const Chosen& ch : chosen_) {
    if (ch.claim != c) continue;
    const Candidate& cand = candidates_[ch.candidate];
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
    const Request& req = cd.requests[r][cd.chosen[r]];
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
  for (size_t c = 0; c < data_.size(); ++c) {
    const ClaimData& cd = data_[c];
    for (size_t r = 0; r < cd.requests.size(); ++r) {
      std::string why;
      for (Request& req : data_[c].requests[r]) {
        int64_t match = 0, free = 0;
        for (size_t i = 0; i < candidates_.size(); ++i) {
          const Candidate& cand = candidates_[i];
          if (cand.pool->incomplete || !cand.pool->invalid.empty()) continue;
          const int s = Selectable(c, req, i);
          if (s < 0) return error_;
          if (s == 0) continue;
          ++match;
          free += !InUse(c, req, cand.id) && Tolerated(req, *cand.device) &&
                  (cand.device->consumes_counters.empty() || CountersFit(cand));
        }
        const int64_t needed = req.all ? match : req.count;
        if (match > 0 && free >= needed) {
          why.clear();
          break;  // this alternative could be met alone
        }
        if (!why.empty()) continue;  // firstAvailable: the first alternative's reason stands
        why = match == 0 ? fmt::format("{}, request {}: no device of class {} on the node{}",
                                       cd.owner(), req.name, req.cls->metadata.name,
                                       req.spec->selectors.empty() ? "" : " matches its selectors")
                         : fmt::format(
                               "{}, request {}: {} device(s) of class {} match on the "
                               "node, {} free, {} needed",
                               cd.owner(), req.name, match, req.cls->metadata.name, free, needed);
      }
      if (!why.empty()) return why;
    }
  }
  const bool incomplete =
      std::any_of(pools_->begin(), pools_->end(), [](const auto& p) { return p.incomplete; });
  return incomplete ? "a resource pool on the node is being updated (not all its slices are "
                      "published), and the rest cannot meet every request"
                    : "each request can be met alone, but not all together (the claims' "
                      "constraints, or requests competing for the same devices)";
}

AllocationOutcome Search::Run() {
  AllocationOutcome out;
  if (!Prepare() || !Step(0, 0)) {
    if (stopped_) {
      out.stopped = true;
      return out;
    }
    out.error = std::move(error_);
    if (out.error.empty()) {
      const bool invalid = std::any_of(pools_->begin(), pools_->end(),
                                       [](const auto& p) { return !p.invalid.empty(); });
      if (invalid) {
        out.error = "invalid resource pools were encountered";
        out.node_error = true;
      }
    }
    return out;
  }
  for (size_t c = 0; c < data_.size(); ++c) out.results.push_back(Result(c));
  return out;
}

}  // namespace muster::plugins::dynamicresources
