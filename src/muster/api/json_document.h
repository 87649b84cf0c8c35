#pragma once

// JSON parsed with simdjson (an API server's lists and watch streams, a cluster snapshot: the
// bulk of what muster reads) handed to the decoders as the document tree they read.

#include <optional>
#include <string>
#include <string_view>

#include <simdjson.h>
#include <yaml-cpp/yaml.h>

namespace muster::api {

// The tree of `element`, for DecodeAs. Integers keep their JSON spelling.
YAML::Node ToDocument(simdjson::dom::element element);

// The tree YAML::Load builds of a JSON text, built without the YAML reader (a cluster exported
// with `kubectl get -o json`, 24 MB, validates in 2.6 s rather than 5.9): strings, keys
// included, are quoted scalars (tag "!"); numbers and booleans plain ones (tag "?") spelt as in
// the text; null a null node; objects and arrays tagged "?"; a key given twice kept twice, in
// order. Unlike yaml-cpp 0.7, it takes a surrogate pair (\ud83d\ude00), as JSON does.
// Fails, with `error` set to nlohmann's message, when the text is not one JSON value. Fails with
// `error` empty, to leave the text to the YAML reader, when it nests deeper than kMaxJsonDepth
// (the reader has its own limit) or holds a number beyond a double's range (1e400), which the
// reader keeps as text for the decoders to refuse by field.
inline constexpr size_t kMaxJsonDepth = 256;
std::optional<YAML::Node> JsonToDocument(std::string_view text, std::string* error);

}  // namespace muster::api
