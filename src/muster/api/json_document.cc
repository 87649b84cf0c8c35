#include "muster/api/json_document.h"

#include <fmt/format.h>

namespace muster::api {

YAML::Node ToDocument(simdjson::dom::element element) {
  using simdjson::dom::element_type;
  switch (element.type()) {
    case element_type::OBJECT: {
      YAML::Node n(YAML::NodeType::Map);
      const simdjson::dom::object object = element.get_object().value_unsafe();
      for (auto field : object) {
        n[std::string(field.key)] = ToDocument(field.value);
      }
      return n;
    }
    case element_type::ARRAY: {
      YAML::Node n(YAML::NodeType::Sequence);
      const simdjson::dom::array array = element.get_array().value_unsafe();
      for (simdjson::dom::element item : array) {
        n.push_back(ToDocument(item));
      }
      return n;
    }
    case element_type::STRING:
      return YAML::Node(std::string(element.get_string().value_unsafe()));
    case element_type::INT64:
      return YAML::Node(fmt::format("{}", element.get_int64().value_unsafe()));
    case element_type::UINT64:
      return YAML::Node(fmt::format("{}", element.get_uint64().value_unsafe()));
    case element_type::DOUBLE:
      return YAML::Node(fmt::format("{}", element.get_double().value_unsafe()));
    case element_type::BOOL:
      return YAML::Node(element.get_bool().value_unsafe() ? "true" : "false");
    case element_type::NULL_VALUE:
      break;
  }
  return YAML::Node(YAML::NodeType::Null);
}

}  // namespace muster::api
