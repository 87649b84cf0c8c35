#pragma once

// The readers that several kinds' decoders share (objects_common.cc), for the objects_*.cc files
// that decode each group of kinds. Each kind's own decoder is declared beside its row in
// kinds.h.

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "muster/api/decoder.h"
#include "muster/api/kinds.h"

namespace muster::api::decoding {

// The metadata fields of the API that nothing in muster reads.
inline constexpr std::string_view kUnreadMetadata[] = {
    "selfLink", "generation", "deletionGracePeriodSeconds", "managedFields"};

// "Unsupported value" with the supported ones sorted, as the API server lists a set.
void Unsupported(Decoder& d, const std::string& path, std::string_view value,
                 std::span<const std::string_view> supported);

// The value of a string field that is one of `names`, as its index.
template <typename Enum>
std::optional<Enum> ReadEnum(Decoder& d, const YAML::Node& n, const std::string& path,
                             std::span<const std::string_view> names) {
  const std::optional<std::string> s = ReadString(d, n, path);
  if (!s) return std::nullopt;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == *s) return static_cast<Enum>(i);
  }
  Unsupported(d, path, *s, names);
  return std::nullopt;
}

// A string field that must be set: "Required value" when it is missing or empty.
std::string Required(Decoder& d, Map& m, std::string_view field);

// metadata at `path`; `namespaced`: a name without a namespace gets the default one.
ObjectMeta ReadMeta(Decoder& d, const YAML::Node& n, const std::string& path, bool namespaced,
                    bool require_name);
// An object's own metadata, namespaced or not as Kinds() says of its kind T.
template <typename T>
ObjectMeta ReadObjectMeta(Decoder& d, Map& m) {
  return ReadMeta(d, m.Get("metadata"), "metadata", KindOf<T>().namespaced, true);
}
LabelSet ReadLabels(Decoder& d, const YAML::Node& n, const std::string& path);
std::map<std::string, std::string> ReadAnnotations(Decoder& d, const YAML::Node& n,
                                                   const std::string& path);
LabelSelector ReadLabelSelector(Decoder& d, const YAML::Node& n, const std::string& path);
std::optional<LabelSelector> ReadOptionalLabelSelector(Decoder& d, const YAML::Node& n,
                                                       const std::string& path);
NodeSelectorTerm ReadNodeSelectorTerm(Decoder& d, const YAML::Node& n, const std::string& path);
ResourceList ReadResourceList(Decoder& d, const YAML::Node& n, const std::string& path,
                              bool container);
std::optional<TaintEffect> ReadEffect(Decoder& d, const YAML::Node& n, const std::string& path);
PodSpec ReadPodSpec(Decoder& d, const YAML::Node& n, const std::string& path);
// pod.spec.volumes (objects_storage.cc).
std::vector<Volume> ReadPodVolumes(Decoder& d, const YAML::Node& n, const std::string& path);
// A PersistentVolumeClaim's spec, or an ephemeral volume's or a StatefulSet's claim template's.
PersistentVolumeClaimSpec ReadClaimSpec(Decoder& d, const YAML::Node& n, const std::string& path);
// A claim template (an ephemeral volume's, unnamed; a StatefulSet's, `named`).
ClaimTemplate ReadClaimTemplate(Decoder& d, const YAML::Node& n, const std::string& path,
                                bool named);
// A pod's or a PodGroup's condition.
Condition ReadCondition(Decoder& d, const YAML::Node& item, const std::string& path);

}  // namespace muster::api::decoding
