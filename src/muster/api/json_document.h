#pragma once

// JSON parsed with simdjson (an API server's lists and watch streams, a cluster snapshot: the
// bulk of what muster reads) handed to the decoders as the document tree they read.

#include <string>
#include <string_view>

#include <simdjson.h>
#include <yaml-cpp/yaml.h>

namespace muster::api {

// The tree of `element`, for DecodeAs. Integers keep their JSON spelling.
YAML::Node ToDocument(simdjson::dom::element element);

}  // namespace muster::api
