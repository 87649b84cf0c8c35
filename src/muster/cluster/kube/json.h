#pragma once

// The API server's JSON, parsed with simdjson (lists and watch streams are the bulk of what
// muster reads) and handed to the api layer's decoders as the document tree they read.

#include <simdjson.h>
#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

namespace muster::cluster::kube {

// The tree of `element`, for api::DecodeAs. Numbers keep their JSON spelling.
YAML::Node ToDocument(simdjson::dom::element element);

}  // namespace muster::cluster::kube
