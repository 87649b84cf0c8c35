#include "muster/api/types.h"

#include <algorithm>
#include <array>

#include "muster/api/pod_name.h"

namespace muster::api {
namespace {

template <typename Enum, size_t N>
std::optional<Enum> ParseName(const std::array<std::string_view, N>& names, std::string_view s) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == s) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

constexpr std::array<std::string_view, 5> kPodPhaseNames = {"Pending", "Running", "Succeeded",
                                                            "Failed", "Unknown"};
constexpr std::array<std::string_view, 7> kPodGroupPhaseNames = {
    "Pending", "PreScheduling", "Scheduling", "Scheduled", "Running", "Finished", "Failed"};
constexpr std::array<std::string_view, 3> kProtocolNames = {"TCP", "UDP", "SCTP"};

}  // namespace

const OwnerReference* ObjectMeta::ControllerRef() const {
  for (const OwnerReference& ref : owner_references) {
    if (ref.controller) return &ref;
  }
  return nullptr;
}

std::string ObjectMeta::Key() const { return PodName::Of(*this).Key(); }

std::string_view ProtocolName(Protocol p) { return kProtocolNames[static_cast<size_t>(p)]; }

std::string_view PodPhaseName(PodPhase p) { return kPodPhaseNames[static_cast<size_t>(p)]; }

std::optional<PodPhase> ParsePodPhase(std::string_view s) {
  return ParseName<PodPhase>(kPodPhaseNames, s);
}

const Condition* FindCondition(const std::vector<Condition>& conditions, std::string_view type) {
  for (const Condition& c : conditions) {
    if (c.type.str() == type) return &c;
  }
  return nullptr;
}

bool ConditionChanges(const std::vector<Condition>& conditions, const Condition& condition) {
  const Condition* old = FindCondition(conditions, condition.type.str());
  return old == nullptr || old->status != condition.status || old->reason != condition.reason ||
         old->message != condition.message;
}

void SetCondition(std::vector<Condition>& conditions, Condition condition) {
  for (Condition& c : conditions) {
    if (c.type != condition.type) continue;
    if (c.status == condition.status && c.last_transition_time) {
      condition.last_transition_time = c.last_transition_time;
    }
    c = std::move(condition);
    return;
  }
  conditions.push_back(std::move(condition));
}

Symbol PodGroupName(const Pod& pod) {
  static const Symbol label(kPodGroupLabel), legacy(kLegacyPodGroupLabel);
  if (const Symbol* g = pod.metadata.labels.Get(label)) return *g;
  if (const Symbol* g = pod.metadata.labels.Get(legacy)) return *g;
  return Symbol();
}

std::string_view PodGroupPhaseName(PodGroupPhase p) {
  return kPodGroupPhaseNames[static_cast<size_t>(p)];
}

std::optional<PodGroupPhase> ParsePodGroupPhase(std::string_view s) {
  return ParseName<PodGroupPhase>(kPodGroupPhaseNames, s);
}

namespace {

bool TermParses(const PodAffinityTerm& t) {
  return (!t.label_selector || IsWellFormed(*t.label_selector)) &&
         (!t.namespace_selector || IsWellFormed(*t.namespace_selector));
}

}  // namespace

bool TermsParse(std::span<const PodAffinityTerm> terms) {
  return std::all_of(terms.begin(), terms.end(), TermParses);
}

bool TermsParse(std::span<const WeightedPodAffinityTerm> terms) {
  return std::all_of(terms.begin(), terms.end(),
                     [](const WeightedPodAffinityTerm& w) { return TermParses(w.term); });
}

}  // namespace muster::api
