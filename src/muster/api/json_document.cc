#include "muster/api/json_document.h"

#include <cstdint>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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

namespace {

// Builds the document from nlohmann's parse events, the open objects and arrays on a stack.
class DocumentBuilder final : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return Add(YAML::Node(YAML::NodeType::Null)); }
  bool boolean(bool value) override { return Add(Scalar(value ? "true" : "false", kPlain)); }
  bool number_integer(number_integer_t value) override {
    return Add(Scalar(fmt::format("{}", value), kPlain));
  }
  bool number_unsigned(number_unsigned_t value) override {
    return Add(Scalar(fmt::format("{}", value), kPlain));
  }
  // `text` is the number as written (1.50, 1e3), as the YAML reader keeps it.
  bool number_float(number_float_t /*value*/, const string_t& text) override {
    return Add(Scalar(text, kPlain));
  }
  bool string(string_t& value) override { return Add(Scalar(std::move(value), kQuoted)); }
  bool binary(binary_t& /*value*/) override { return false; }  // not in a JSON text
  bool start_object(size_t /*elements*/) override { return Open(YAML::NodeType::Map); }
  bool key(string_t& value) override {
    // reset, not =: a Node's = writes into the node it refers to (the last key).
    open_.back().key.reset(Scalar(std::move(value), kQuoted));
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(size_t /*elements*/) override { return Open(YAML::NodeType::Sequence); }
  bool end_array() override { return Close(); }
  bool parse_error(size_t /*position*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& e) override {
    // A number beyond a double's range (1e400) is JSON all the same: the YAML reader keeps its
    // text, and the decoders name the field it is in.
    if (e.id != kNumberOverflow) error_ = e.what();
    return false;
  }

  const YAML::Node& root() const { return root_; }
  const std::string& error() const { return error_; }

 private:
  static constexpr int kNumberOverflow = 406;  // nlohmann's out_of_range.406
  static constexpr const char* kPlain = "?";
  static constexpr const char* kQuoted = "!";

  struct Collection {
    YAML::Node node;
    YAML::Node key;  // an object's key awaiting its value
  };

  static YAML::Node Scalar(std::string text, const char* tag) {
    YAML::Node n(std::move(text));
    n.SetTag(tag);
    return n;
  }
  bool Add(const YAML::Node& n) {
    if (open_.empty()) {
      root_.reset(n);
    } else if (open_.back().node.IsMap()) {
      open_.back().node.force_insert(open_.back().key, n);
    } else {
      open_.back().node.push_back(n);
    }
    return true;
  }
  bool Open(YAML::NodeType::value type) {
    if (open_.size() >= kMaxJsonDepth) return false;  // error_ stays empty
    YAML::Node n(type);
    n.SetTag(kPlain);
    Add(n);
    open_.push_back(Collection{n, YAML::Node()});
    return true;
  }
  bool Close() {
    open_.pop_back();
    return true;
  }

  YAML::Node root_;
  std::vector<Collection> open_;
  std::string error_;
};

}  // namespace

std::optional<YAML::Node> JsonToDocument(std::string_view text, std::string* error) {
  DocumentBuilder builder;
  error->clear();
  if (!nlohmann::json::sax_parse(text.begin(), text.end(), &builder)) {
    *error = builder.error();
    return std::nullopt;
  }
  return builder.root();
}

}  // namespace muster::api
