// Labels and selectors (api/labels.h, api/node_selector.h), two ways, chosen by the first byte:
//  - built from the bytes: keys, values, operators and label sets of any text. The checks agree
//    with each other (IsValidLabelKey with LabelKeyErrors, a prepared selector with an unprepared
//    one, a selector that validates is one that converts, ParseLabelInt with Go's ParseInt).
//  - decoded from YAML: the rest of the input is the selector of a PodDisruptionBudget or a node
//    selector term of a pod's node affinity, and a manifest accepted whole holds selectors that
//    convert.
// Any violation traps.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "muster/api/labels.h"
#include "muster/api/manifests.h"
#include "muster/api/node_selector.h"

namespace api = muster::api;

namespace {

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

// Go's strconv.ParseInt(text, 10, 64), written plainly.
std::optional<int64_t> GoParseInt(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  unsigned __int128 magnitude = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    magnitude = magnitude * 10 + static_cast<unsigned>(c - '0');
    if (magnitude > static_cast<unsigned __int128>(INT64_MAX) + 1) return std::nullopt;
  }
  if (!negative && magnitude > INT64_MAX) return std::nullopt;
  return negative ? static_cast<int64_t>(-magnitude) : static_cast<int64_t>(magnitude);
}

// Mostly short strings over the characters the label grammar cares about, sometimes any bytes.
std::string Text(FuzzedDataProvider& in) {
  if (in.ConsumeBool()) return in.ConsumeRandomLengthString(300);
  static constexpr std::string_view kAlphabet = "ab.-_/Z09+ ";
  std::string s;
  const size_t length = in.ConsumeIntegralInRange<size_t>(0, 70);
  for (size_t i = 0; i < length; ++i) {
    s.push_back(kAlphabet[in.ConsumeIntegralInRange<size_t>(0, kAlphabet.size() - 1)]);
  }
  return s;
}

void CheckText(std::string_view text) {
  Check(api::IsValidLabelKey(text) == api::LabelKeyErrors(text).empty());
  Check(api::IsValidLabelValue(text) == api::LabelValueErrors(text).empty());
  Check(api::ParseLabelInt(text) == GoParseInt(text));
  api::Dns1123SubdomainErrors(text);
  api::Dns1123LabelErrors(text);
  const std::string quoted = api::GoQuote(text);
  Check(quoted.size() >= 2 && quoted.front() == '"' && quoted.back() == '"');
}

api::SelectorRequirement Requirement(FuzzedDataProvider& in) {
  api::SelectorRequirement r;
  r.key = api::Symbol(Text(in));
  r.op = static_cast<api::SelectorOperator>(in.ConsumeIntegralInRange<int>(0, 5));
  const int values = in.ConsumeIntegralInRange<int>(0, 3);
  for (int i = 0; i < values; ++i) r.values.emplace_back(Text(in));
  return r;
}

void CheckSelectors(FuzzedDataProvider& in) {
  api::LabelSet labels;
  const int label_count = in.ConsumeIntegralInRange<int>(0, 6);
  for (int i = 0; i < label_count; ++i) {
    const std::string key = Text(in);
    const std::string value = Text(in);
    CheckText(key);
    CheckText(value);
    labels.Set(api::Symbol(key), api::Symbol(value));
  }

  api::LabelSelector selector;
  const int match_labels = in.ConsumeIntegralInRange<int>(0, 3);
  for (int i = 0; i < match_labels; ++i) {
    selector.match_labels.emplace_back(api::Symbol(Text(in)), api::Symbol(Text(in)));
  }
  api::NodeSelectorTerm term;
  const int expressions = in.ConsumeIntegralInRange<int>(0, 4);
  for (int i = 0; i < expressions; ++i) {
    api::SelectorRequirement r = Requirement(in);
    CheckText(r.key.str());
    for (api::Symbol v : r.values) CheckText(v.str());
    int64_t bound = 0;
    if (api::IsWellFormedRequirement(r, &bound) &&
        (r.op == api::SelectorOperator::kGt || r.op == api::SelectorOperator::kLt)) {
      Check(api::ParseLabelInt(r.values[0].str()) == bound);
    }
    selector.match_expressions.push_back(r);
    term.match_expressions.push_back(r);
  }
  if (in.ConsumeBool()) term.match_fields.push_back(Requirement(in));

  // A prepared selector answers as an unprepared one does.
  api::LabelSelector prepared = selector;
  api::PrepareLabelSelector(prepared);
  Check(api::IsWellFormed(prepared) == api::IsWellFormed(selector));
  Check(prepared.Matches(labels) == selector.Matches(labels));
  if (api::ValidateLabelSelector(selector, "spec.selector").empty()) {
    Check(api::IsWellFormed(selector));
  }
  std::string ids, prepared_ids;
  api::AppendSelectorIds(selector, &ids);
  api::AppendSelectorIds(prepared, &prepared_ids);
  Check(ids == prepared_ids);

  const api::Symbol node_name(Text(in));
  api::NodeSelectorTerm prepared_term = term;
  api::PrepareNodeSelectorTerm(prepared_term);
  Check(api::IsWellFormed(prepared_term) == api::IsWellFormed(term));
  Check(prepared_term.Matches(labels, node_name) == term.Matches(labels, node_name));
  for (const api::FieldError& e : api::ValidateNodeSelectorTerm(term, "terms[0]")) {
    Check(!e.ToString().empty());
  }
}

// The labels of a node that the selector's match_labels and In requirements ask for.
api::LabelSet LabelsFor(const api::LabelSelector& selector) {
  api::LabelSet labels;
  for (const auto& [key, value] : selector.match_labels) labels.Set(key, value);
  for (const api::SelectorRequirement& r : selector.match_expressions) {
    if (r.op == api::SelectorOperator::kIn && !r.values.empty()) labels.Set(r.key, r.values[0]);
  }
  return labels;
}

void CheckDecoded(std::string_view fragment, bool node_term) {
  std::string text;
  if (node_term) {
    text =
        "{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: c, "
        "image: i}], affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
        "{nodeSelectorTerms: [";
    text.append(fragment).append("]}}}}}");
  } else {
    text =
        "{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: p}, spec: "
        "{minAvailable: 1, selector: ";
    text.append(fragment).append("}}");
  }
  api::LoadResult result;
  api::DecodeText(text, "fuzz.yaml", result);
  api::FinishLoad(result);
  for (const std::string& e : result.errors) Check(e.starts_with("fuzz.yaml"));
  if (!result.ok()) return;
  for (const api::PodDisruptionBudget& pdb : result.manifests.pod_disruption_budgets) {
    if (!pdb.selector) continue;
    Check(pdb.selector->prepared == api::Prepared::kValid);
    api::LabelSelector unprepared = *pdb.selector;
    unprepared.prepared = api::Prepared::kNo;
    const api::LabelSet labels = LabelsFor(*pdb.selector);
    Check(unprepared.Matches(labels) == pdb.selector->Matches(labels));
  }
  for (const api::Pod& pod : result.manifests.pods) {
    if (!pod.spec.affinity || !pod.spec.affinity->node_affinity ||
        !pod.spec.affinity->node_affinity->required) {
      continue;
    }
    for (const api::NodeSelectorTerm& term : pod.spec.affinity->node_affinity->required->terms) {
      Check(term.prepared != api::Prepared::kNo);
      api::NodeSelectorTerm unprepared = term;
      unprepared.prepared = api::Prepared::kNo;
      Check(api::IsWellFormed(unprepared) == api::IsWellFormed(term));
      const api::LabelSet labels;
      Check(unprepared.Matches(labels, api::Symbol("n")) == term.Matches(labels, api::Symbol("n")));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0] % 3;
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if (mode == 0) {
    FuzzedDataProvider in(data + 1, size - 1);
    CheckSelectors(in);
  } else {
    CheckDecoded(rest, mode == 2);
  }
  return 0;
}
