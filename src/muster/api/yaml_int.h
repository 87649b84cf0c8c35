#pragma once

// An integer field read from YAML, as both of muster's strict readers read one: the object
// decoders (decoding::ReadInt, api/decoder.h) and the plugins' args decoders
// (plugins::ReadArgsInt, plugins/args.h). An integer is a plain scalar, with an optional leading
// '+'; a quoted scalar is a string whatever it looks like, in YAML and in JSON alike, and the API
// server refuses it for an integer.

#include <cstdint>
#include <optional>
#include <string>

#include <yaml-cpp/yaml.h>

namespace muster::api {

// How an integer too big for 64 bits is reported. The object decoders call it text that is not
// an integer ("expected an integer, got \"99999999999999999999\""); the args decoders call it out
// of range ("integer 99999999999999999999 out of range [0, 10]").
enum class IntOverflow { kNotAnInteger, kOutOfRange };

// The node's value when it is an integer in [min, max]. Otherwise nullopt, with *error set to
// "expected an integer, got <describe(node)>" or "integer <n> out of range [<min>, <max>]".
// `describe` names what was found; the node may be null or invalid only if `describe` takes it.
std::optional<int64_t> ReadYamlInt(const YAML::Node& node, int64_t min, int64_t max,
                                   IntOverflow overflow, std::string (*describe)(const YAML::Node&),
                                   std::string* error);

}  // namespace muster::api
