#include "muster/api/manifests.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <type_traits>

#include <fmt/format.h>
#include <simdjson.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/decoder.h"
#include "muster/api/generated_name.h"
#include "muster/api/json_document.h"
#include "muster/api/kinds.h"
#include "muster/api/nearest.h"
#include "muster/api/priority.h"
#include "muster/api/storage.h"

namespace muster::api {

// The toolkit (decoder.h) is this file's own: its names are used unqualified.
using namespace decoding;  // NOLINT(google-build-using-namespace)

namespace {

// ---- documents ----

void DecodeObject(const YAML::Node& doc, const Source& source, LoadResult& result,
                  std::map<std::string, int>& skipped);

// While it lives, and `served` is true, objects are decoded as an API server's (a cluster
// snapshot's): `muster run`'s leniency, whatever --validate says.
class ServedScope {
 public:
  ServedScope(LoadResult& result, bool served)
      : result_(result), served_(result.served), validation_(result.field_validation) {
    if (!served) return;
    result.served = true;
    result.field_validation = FieldValidation::kIgnore;
  }
  ~ServedScope() {
    result_.served = served_;
    result_.field_validation = validation_;
  }
  ServedScope(const ServedScope&) = delete;
  ServedScope& operator=(const ServedScope&) = delete;

 private:
  LoadResult& result_;
  const bool served_;
  const FieldValidation validation_;
};

// Decodes one item of a cluster snapshot (under a ServedScope): an object muster cannot read is
// left out with a warning, as `muster run` leaves out what a server sends that it cannot read.
void DecodeServedItem(const YAML::Node& item, const Source& source, LoadResult& result,
                      std::map<std::string, int>& skipped) {
  Manifests& m = result.manifests;
  const size_t errors = result.errors.size();
  const size_t objects = m.order.size();
  DecodeObject(item, source, result, skipped);
  if (result.errors.size() == errors) return;
  result.warnings.push_back(
      fmt::format("leaving out an object muster cannot read: {}", result.errors[errors]));
  result.errors.resize(errors);
  if (m.order.size() > objects) {
    ForKindAt(m.order.back().row, [&](const auto& kind) { (m.*kind.objects).pop_back(); });
    m.order.pop_back();
  }
}

void DecodeList(const YAML::Node& doc, const Source& source, LoadResult& result,
                std::map<std::string, int>& skipped) {
  Decoder d(result, source, "List");
  const YAML::Node& items = doc["items"];
  if (!Present(items)) return;
  if (!items.IsSequence()) {
    d.Error("items", fmt::format("expected a list, got {}", Describe(items)));
    return;
  }
  // A cluster snapshot's items are decoded as served objects, the rest of the input as it is.
  const YAML::Node metadata = doc["metadata"];
  const YAML::Node annotations =
      Present(metadata) && metadata.IsMap() ? metadata["annotations"] : YAML::Node();
  const bool snapshot = Present(annotations) && annotations.IsMap() &&
                        Present(annotations[std::string(kSnapshotOfAnnotation)]);
  const ServedScope scope(result, snapshot);
  for (size_t i = 0; i < items.size(); ++i) {
    Source item_source = source;
    item_source.item = static_cast<int>(i);
    if (snapshot) {
      DecodeServedItem(items[i], item_source, result, skipped);
    } else {
      DecodeObject(items[i], item_source, result, skipped);
    }
  }
}

// Decodes `doc`, whose kind is `kind`, and keeps it in the manifests.
template <typename T>
void DecodeKind(const Kind<T>& kind, const YAML::Node& doc, const std::string& api_version,
                const Source& source, LoadResult& result) {
  Decoder d(result, source, std::string(kind.name));
  if (doc["metadata"] && doc["metadata"].IsMap() && doc["metadata"]["name"] &&
      doc["metadata"]["name"].IsScalar()) {
    // Name the object in errors found before its metadata is read.
    std::string key = doc["metadata"]["name"].Scalar();
    if (doc["metadata"]["namespace"] && doc["metadata"]["namespace"].IsScalar()) {
      key = doc["metadata"]["namespace"].Scalar() + "/" + key;
    } else if (kind.namespaced) {
      key = std::string(kDefaultNamespace) + "/" + key;
    }
    d.SetObjectName(key);
  }
  if (api_version.empty()) {
    d.Error("apiVersion", "Required value");
    return;
  }
  if (std::find(kind.api_versions.begin(), kind.api_versions.end(), api_version) ==
      kind.api_versions.end()) {
    std::string expected;
    for (std::string_view v : ApiVersionsOfKind(kind.name)) {
      expected += (expected.empty() ? "" : ", ") + std::string(v);
    }
    d.Error("apiVersion",
            fmt::format("no kind \"{}\" is registered for version \"{}\" (expected {})", kind.name,
                        api_version, expected));
    return;
  }
  Map m(d, doc, "", kind.strict ? Fields::kStrict : Fields::kAsInput);
  m.Get("apiVersion");
  m.Get("kind");
  std::vector<T>& objects = result.manifests.*kind.objects;
  objects.push_back(kind.decode(d, m, api_version));
  result.manifests.order.push_back(
      ObjectEntry{kind.name, kRowOf<T>, objects.size() - 1, source, result.served});
}

void DecodeObject(const YAML::Node& doc, const Source& source, LoadResult& result,
                  std::map<std::string, int>& skipped) {
  if (!Present(doc)) return;  // empty documents are skipped, as kubectl does
  if (!doc.IsMap()) {
    result.errors.push_back(
        fmt::format("{}: expected an object, got {}", source.ToString(), Describe(doc)));
    return;
  }
  const YAML::Node& kind_node = doc["kind"];
  const YAML::Node& version_node = doc["apiVersion"];
  const std::string kind = kind_node && kind_node.IsScalar() ? kind_node.Scalar() : "";
  const std::string api_version =
      version_node && version_node.IsScalar() ? version_node.Scalar() : "";
  if (kind.empty()) {
    result.errors.push_back(fmt::format("{}: kind: Required value", source.ToString()));
    return;
  }
  if (kind == "List" || (kind.size() > 4 && kind.ends_with("List") && doc["items"])) {
    DecodeList(doc, source, result, skipped);
    return;
  }
  const bool known = ForKindNamed(kind, api_version, [&](const auto& row) {
    DecodeKind(row, doc, api_version, source, result);
  });
  if (known) return;
  // A kind muster does not model is skipped (a Service, a ConfigMap), but one a letter or two
  // from a kind it does is a typo that would make its objects vanish: an error, under --validate.
  static const std::vector<std::string> kKindNames = std::apply(
      [](const auto&... row) { return std::vector<std::string>{std::string(row.name)...}; },
      Kinds());
  if (const std::optional<std::string> near = Nearest(kind, kKindNames);
      near && ReportFieldProblem(
                  result,
                  fmt::format("{}: kind \"{}\" is not one muster knows; did you mean \"{}\"?",
                              source.ToString(), kind, *near),
                  /*always=*/false)) {
    return;
  }
  ++skipped[kind];
}

// A first pass over a stream's parse events, before YAML::LoadAll builds its nodes, that refuses
// what yaml-cpp 0.7 (Debian 12's) accepts but would make LoadAll or the decoders run away:
//  - a document that starts where the previous one started: LoadAll then loops for ever, adding
//    a null document each turn until memory runs out (a stray ','; jbeder/yaml-cpp#1040, fixed
//    after 0.8);
//  - an alias inside the node it names ("&a [*a]"): yaml-cpp builds a cycle, and a decoder that
//    follows it (a List among its own items) recurses until the stack overflows;
//  - aliases that expand a document past kMaxExpandedNodes nodes and kMaxExpansion times its own
//    ("billion laughs"): a few kilobytes could make the decoders visit billions of nodes. The
//    API server refuses such documents too ("excessive aliasing").
// The pass costs about half as much as LoadAll.
class StreamCheck final : public YAML::EventHandler {
 public:
  static constexpr uint64_t kMaxExpandedNodes = 100'000;
  static constexpr uint64_t kMaxExpansion = 10;

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (mark.pos == last_start_) {
      throw YAML::ParserException(mark, "a document cannot start here");
    }
    last_start_ = mark.pos;
    sizes_.clear();
    open_.clear();
    nodes_ = 0;
    expanded_ = 0;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Position(mark, false);
    Node(anchor, 1);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    last_scalar_ = mark;
    if (tag == "?" && value == "<<") merge_keys_ = true;
    Position(mark, false);
    Node(anchor, 1);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    // The parser has checked that the anchor is defined; a size of 0 means it is still open.
    const uint64_t size = anchor < sizes_.size() ? sizes_[anchor] : 0;
    if (size == 0) {
      throw YAML::ParserException(mark, "an alias cannot refer to a node that contains it");
    }
    Position(mark, size > 1);
    Count(size);
    if (expanded_ > kMaxExpandedNodes && expanded_ > kMaxExpansion * nodes_) {
      throw YAML::ParserException(
          mark, fmt::format("excessive aliasing: aliases expand the document past {} nodes, more "
                            "than {} times its own {}",
                            kMaxExpandedNodes, kMaxExpansion, nodes_));
    }
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Position(mark, true);
    Open(anchor, false);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Position(mark, true);
    Open(anchor, true);
  }
  void OnMapEnd() override { Close(); }

  // Where the stream's last scalar starts.
  const std::optional<YAML::Mark>& last_scalar() const { return last_scalar_; }
  // Whether a plain "<<" (a merge key, or so it seems) is among the scalars.
  bool merge_keys() const { return merge_keys_; }

 private:
  struct Collection {
    YAML::anchor_t anchor;
    uint64_t size;  // nodes so far, aliases expanded, itself included
    bool map;
    uint64_t children = 0;  // in a map, keys and values alternately
  };

  // A node starts at `mark`: in a map's key place, it must not be a list or a map (a "? [a, b]"
  // key), which yaml-cpp takes and kubectl refuses, having no JSON for it.
  void Position(const YAML::Mark& mark, bool collection) {
    if (open_.empty()) return;
    Collection& parent = open_.back();
    if (parent.map && parent.children % 2 == 0 && collection) {
      throw YAML::ParserException(mark, "invalid map key: a key is a string, not a list or a map");
    }
    ++parent.children;
  }

  // `size` more nodes in the open collection (or at the top of the document).
  void Count(uint64_t size) {
    expanded_ += size;
    if (!open_.empty()) open_.back().size += size;
  }
  // A node of the text, of `size` nodes once complete.
  void Node(YAML::anchor_t anchor, uint64_t size) {
    ++nodes_;
    if (anchor != YAML::NullAnchor) SetSize(anchor, size);
    Count(size);
  }
  void Open(YAML::anchor_t anchor, bool map) {
    ++nodes_;
    ++expanded_;
    if (anchor != YAML::NullAnchor) SetSize(anchor, 0);
    open_.push_back(Collection{anchor, 1, map});
  }
  void Close() {
    const Collection done = open_.back();
    open_.pop_back();
    if (done.anchor != YAML::NullAnchor) SetSize(done.anchor, done.size);
    if (!open_.empty()) open_.back().size += done.size;
  }
  void SetSize(YAML::anchor_t anchor, uint64_t size) {
    if (anchor >= sizes_.size()) sizes_.resize(anchor + 1, 0);
    sizes_[anchor] = size;
  }

  int last_start_ = -1;
  std::vector<uint64_t> sizes_;  // by anchor id (1, 2... in each document): its node's size
  std::vector<Collection> open_;
  uint64_t nodes_ = 0;     // in the document's text
  uint64_t expanded_ = 0;  // once its aliases are expanded
  std::optional<YAML::Mark> last_scalar_;
  bool merge_keys_ = false;
};

// YAML merge keys ("<<: *base"), which kubectl's YAML reader takes and yaml-cpp 0.7 does not: a
// map's "<<" entry, a map or a sequence of maps, gives it the keys it does not set itself (an
// earlier map of the sequence before a later one). Children are expanded first, so a merged map
// brings its own merges along.
void ExpandMergeKeys(YAML::Node node) {
  if (node.IsSequence()) {
    for (YAML::Node child : node) ExpandMergeKeys(child);
    return;
  }
  if (!node.IsMap()) return;
  YAML::Node merge;  // a default node is a null one, and defined: `found` says whether it is set
  bool found = false;
  for (auto entry : node) {
    if (entry.first.IsScalar() && entry.first.Tag() == "?" && entry.first.Scalar() == "<<") {
      merge = entry.second;
      found = true;
    } else {
      ExpandMergeKeys(entry.second);
    }
  }
  if (!found) return;
  std::vector<YAML::Node> sources;
  if (merge.IsMap()) {
    sources.push_back(merge);
  } else if (merge.IsSequence()) {
    for (YAML::Node source : merge) sources.push_back(source);
  } else {
    sources.push_back(merge);  // refused below
  }
  node.remove("<<");
  for (YAML::Node source : sources) {
    if (!source.IsMap()) {
      throw YAML::ParserException(merge.Mark(), "a merge (<<) takes a map or a sequence of maps");
    }
    ExpandMergeKeys(source);
    const YAML::Node& self = node;
    for (auto entry : source) {
      if (!entry.first.IsScalar()) continue;
      const std::string& key = entry.first.Scalar();
      if (!self[key]) node[key] = entry.second;
    }
  }
}

// Whether the quoted scalar at `at` (if it is one) is left open: yaml-cpp 0.7 takes a quote still
// open at the end of the stream as running to it, newline and all, where libyaml (and so kubectl)
// refuses it. Only the stream's last scalar can be such a one.
bool QuoteLeftOpen(std::string_view text, size_t at) {
  if (at >= text.size() || (text[at] != '"' && text[at] != '\'')) return false;
  const char quote = text[at];
  for (size_t i = at + 1; i < text.size(); ++i) {
    if (quote == '"' && text[i] == '\\') {
      ++i;  // an escape: the next character is not the closing quote
    } else if (text[i] == quote) {
      if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
        ++i;  // '' in a single-quoted scalar is one quote
      } else {
        return false;
      }
    }
  }
  return true;
}

// The first character of `text` that YAML does not allow in a stream, with why, as libyaml's
// reader (and so kubectl's) finds it: invalid UTF-8, or a control character other than tab,
// line feed and carriage return (a NUL among them), which yaml-cpp would misread.
struct BadCharacter {
  size_t offset;
  std::string_view why;
};
std::optional<BadCharacter> FirstBadCharacter(std::string_view text) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = bytes[i];
    if (c < 0x80) {
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
        return BadCharacter{i, "control characters are not allowed"};
      }
      if (c == 0x7f) return BadCharacter{i, "control characters are not allowed"};
      ++i;
      continue;
    }
    const size_t length = (c & 0xe0) == 0xc0   ? 2
                          : (c & 0xf0) == 0xe0 ? 3
                          : (c & 0xf8) == 0xf0 ? 4
                                               : 0;
    if (length == 0) return BadCharacter{i, "invalid leading UTF-8 octet"};
    if (i + length > text.size()) return BadCharacter{i, "incomplete UTF-8 octet sequence"};
    uint32_t value = c & (length == 2 ? 0x1f : length == 3 ? 0x0f : 0x07);
    for (size_t k = 1; k < length; ++k) {
      if ((bytes[i + k] & 0xc0) != 0x80) return BadCharacter{i, "invalid trailing UTF-8 octet"};
      value = (value << 6) | (bytes[i + k] & 0x3f);
    }
    const bool shortest = (length == 2 && value >= 0x80) || (length == 3 && value >= 0x800) ||
                          (length == 4 && value >= 0x10000);
    if (!shortest) return BadCharacter{i, "invalid length of a UTF-8 sequence"};
    if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff) {
      return BadCharacter{i, "invalid Unicode character"};
    }
    const bool printable = value == 0x85 || (value >= 0xa0 && value <= 0xd7ff) ||
                           (value >= 0xe000 && value <= 0xfffd) || value >= 0x10000;
    if (!printable) return BadCharacter{i, "control characters are not allowed"};
    i += length;
  }
  return std::nullopt;
}

// YAML::LoadAll, once StreamCheck has passed the stream.
std::vector<YAML::Node> LoadAll(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  StreamCheck check;
  while (parser.HandleNextDocument(check)) {
  }
  if (const std::optional<YAML::Mark>& last = check.last_scalar();
      last && last->pos >= 0 && QuoteLeftOpen(text, static_cast<size_t>(last->pos))) {
    throw YAML::ParserException(*last, "the quoted value is never closed: the stream ends first");
  }
  std::vector<YAML::Node> docs = YAML::LoadAll(text);
  if (check.merge_keys()) {
    for (YAML::Node& doc : docs) ExpandMergeKeys(doc);
  }
  return docs;
}

std::string ReadFile(const std::filesystem::path& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open file";
    return "";
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::string Source::ToString() const {
  // Document 0 is an object that did not come from a file (an API server's).
  if (document == 0) return file;
  std::string s = fmt::format("{}: document {}", file, document);
  if (item >= 0) s += fmt::format(", items[{}]", item);
  return s;
}

namespace {

// One warning for the objects of kinds muster does not model that `name` held.
void WarnSkipped(const std::string& name, const std::map<std::string, int>& skipped,
                 LoadResult& result) {
  if (skipped.empty()) return;
  std::string kinds;
  int count = 0;
  for (const auto& [kind, n] : skipped) {
    kinds += (kinds.empty() ? "" : ", ") + kind;
    count += n;
  }
  result.warnings.push_back(fmt::format(
      "{}: skipping {} object(s) of kinds muster does not model: {}", name, count, kinds));
}

// A cluster snapshot (a JSON List marked with kSnapshotOfAnnotation), decoded as `muster run`
// decodes what a server sends: parsed with simdjson, each item's tree built on its own
// (ToDocument) and decoded as a served object, so that a snapshot of a large cluster is read in
// seconds and in little more memory than its objects; an item muster cannot read is left out
// with a warning. False, with nothing decoded, when `text` is not one.
bool DecodeSnapshot(std::string_view text, const std::string& name, LoadResult& result) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(text.data(), text.size()).get(doc) != simdjson::SUCCESS) return false;
  std::string_view kind;
  simdjson::dom::element marker;
  simdjson::dom::array items;
  // JSON Pointer spells the '/' of the annotation's key "~1".
  if (doc["kind"].get(kind) != simdjson::SUCCESS || kind != "List" ||
      doc.at_pointer("/metadata/annotations/muster.dev~1snapshot-of").get(marker) !=
          simdjson::SUCCESS ||
      doc["items"].get(items) != simdjson::SUCCESS) {
    return false;
  }
  static_assert(kSnapshotOfAnnotation == "muster.dev/snapshot-of");
  const ServedScope scope(result, true);
  std::map<std::string, int> skipped;
  int i = 0;
  for (simdjson::dom::element item : items) {
    DecodeServedItem(ToDocument(item), Source{name, 1, i++}, result, skipped);
  }
  WarnSkipped(name, skipped, result);
  return true;
}

}  // namespace

void DecodeText(std::string_view text, const std::string& name, LoadResult& result) {
  // The YAML reader would take what JSON refuses (a trailing comma, a single quote): a text that
  // starts as a JSON object (`{"`) is read as JSON, as kubectl decodes it, into the tree the YAML
  // reader would have built. A stream of JSON values one after another is left to the YAML
  // reader, and so is YAML's own flow style (`{apiVersion: v1, ...}`).
  const size_t first = text.find_first_not_of(" \t\r\n");
  const size_t second =
      first == std::string_view::npos ? first : text.find_first_not_of(" \t\r\n", first + 1);
  if (second != std::string_view::npos && text[first] == '{' && text[second] == '"') {
    if (DecodeSnapshot(text, name, result)) return;
    std::string what;
    std::optional<YAML::Node> doc = JsonToDocument(text, &what);
    if (!doc && !what.empty() && what.find("expected end of input") == std::string::npos) {
      // "[json.exception.parse_error.101] parse error at line 1, column 65: syntax error..."
      const size_t at = what.find("parse error");
      result.errors.push_back(fmt::format("{}: invalid JSON: {}", name,
                                          at == std::string::npos ? what : what.substr(at)));
      return;
    }
    // One JSON value is the document the YAML reader would build of it, without the reader's
    // time; the reader still refuses what YAML does not allow in a stream (a character below).
    if (doc && !FirstBadCharacter(text)) {
      std::map<std::string, int> skipped;
      DecodeObject(*doc, Source{name, 1, -1}, result, skipped);
      WarnSkipped(name, skipped, result);
      return;
    }
  }
  std::vector<YAML::Node> docs;
  try {
    if (const std::optional<BadCharacter> bad = FirstBadCharacter(text)) {
      const std::string_view before = text.substr(0, bad->offset);
      const size_t line_start = before.rfind('\n');
      YAML::Mark mark;
      mark.pos = static_cast<int>(bad->offset);
      mark.line = static_cast<int>(std::count(before.begin(), before.end(), '\n'));
      mark.column = static_cast<int>(
          line_start == std::string_view::npos ? bad->offset : bad->offset - line_start - 1);
      throw YAML::ParserException(mark, std::string(bad->why));
    }
    docs = LoadAll(std::string(text));
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp says "bad file" when it stops at its depth limit.
    result.errors.push_back(
        fmt::format("{}: line {}, column {}: invalid YAML: nested too deep (at most {} levels)",
                    name, e.mark.line + 1, e.mark.column + 1, e.depth() - 1));
    return;
  } catch (const YAML::Exception& e) {
    result.errors.push_back(fmt::format("{}: line {}, column {}: invalid YAML: {}", name,
                                        e.mark.line + 1, e.mark.column + 1, e.msg));
    return;
  }
  std::map<std::string, int> skipped;
  for (size_t i = 0; i < docs.size(); ++i) {
    DecodeObject(docs[i], Source{name, static_cast<int>(i) + 1, -1}, result, skipped);
  }
  WarnSkipped(name, skipped, result);
}

template <typename T>
std::optional<T> DecodeAs(const YAML::Node& object, const std::string& api_version,
                          const std::string& what, std::vector<std::string>* errors) {
  LoadResult result;
  // The API server has validated what it serves (and knows fields newer than muster): its
  // objects' fields are not checked, which also keeps the check off the watch's path.
  result.field_validation = FieldValidation::kIgnore;
  result.served = true;
  std::optional<T> decoded;
  {
    Decoder d(result, Source{what, 0, -1}, std::string(KindOf<T>().name));
    Map m(d, object, "", KindOf<T>().strict ? Fields::kStrict : Fields::kAsInput);
    m.Get("apiVersion");
    m.Get("kind");
    decoded = KindOf<T>().decode(d, m, api_version);
  }
  if (result.errors.empty()) return decoded;
  errors->insert(errors->end(), result.errors.begin(), result.errors.end());
  return std::nullopt;
}

// DecodeAs for every kind a cluster delivers and for those `muster run` reads once (its Lease,
// the PriorityClasses), compiled here: an external table of their addresses makes the compiler
// emit each.
template <typename... T>
constexpr auto DecodeAsFor(KindList<T...>) {
  return std::tuple{&DecodeAs<T>...};
}
extern const auto kDecodeAs =
    std::tuple{DecodeAsFor(ClusterKinds{}), DecodeAsFor(KindList<PriorityClass, Lease>{})};

namespace {

// The metadata of the object `e` names, or null for a kind without metadata.
ObjectMeta* MetadataOf(Manifests& m, const ObjectEntry& e) {
  ObjectMeta* meta = nullptr;
  ForKindAt(e.row, [&](const auto& kind) {
    if (kind.metadata != nullptr) meta = &((m.*kind.objects)[e.index].*kind.metadata);
  });
  return meta;
}

// Objects named only by generateName get a name as the API server gives one. The generator's
// seed is fixed and names are drawn in input order, so validate, simulate and explain (whatever
// their --seed) name them alike. A name already taken is drawn again, as the API server retries
// a generated name that exists (RetryGenerateName, on since 1.31, GA in 1.32).
void GenerateNames(Manifests& m) {
  constexpr uint64_t kSeed = 0x6d757374;
  auto key_of = [](const ObjectEntry& e, const ObjectMeta& meta) {
    return fmt::format("{} {}", e.row, meta.Key());
  };
  // Input without generateName pays one look at each object's name.
  const bool any = std::any_of(m.order.begin(), m.order.end(), [&](const ObjectEntry& e) {
    const ObjectMeta* meta = MetadataOf(m, e);
    return meta != nullptr && meta->name.empty() && !meta->generate_name.empty();
  });
  if (!any) return;
  std::set<std::string> taken;
  for (const ObjectEntry& e : m.order) {
    const ObjectMeta* meta = MetadataOf(m, e);
    if (meta != nullptr && !meta->name.empty()) taken.insert(key_of(e, *meta));
  }
  std::mt19937_64 rng(kSeed);
  for (const ObjectEntry& e : m.order) {
    ObjectMeta* meta = MetadataOf(m, e);
    if (meta == nullptr || !meta->name.empty() || meta->generate_name.empty()) continue;
    do {
      meta->name = GenerateName(meta->generate_name, rng);
    } while (!taken.insert(key_of(e, *meta)).second);
  }
}

}  // namespace

void FinishLoad(LoadResult& result) {
  Manifests& m = result.manifests;
  GenerateNames(m);
  // Duplicates: the API server would refuse the second create with AlreadyExists.
  std::map<std::string, const Source*> seen;
  auto key_of = [&](const ObjectEntry& e) {
    return Visit(m, e, [&]<typename T>(const T& object) -> std::string {
      const auto metadata = KindOf<T>().metadata;
      if (metadata == nullptr || (object.*metadata).name.empty()) return "";
      return fmt::format("{} {}", e.kind, (object.*metadata).Key());
    });
  };
  for (const ObjectEntry& e : m.order) {
    const std::string key = key_of(e);
    if (key.empty()) continue;
    // By row, not name: the two PodGroup kinds are objects of two APIs.
    auto [it, inserted] = seen.emplace(fmt::format("{} {}", e.row, key), &e.source);
    if (!inserted) {
      result.errors.push_back(
          fmt::format("{} ({}): metadata.name: Duplicate value: already "
                      "defined at {}",
                      e.source.ToString(), key, it->second->ToString()));
    }
  }
  // Only one PriorityClass may be the global default.
  const ObjectEntry* global_default = nullptr;
  for (const ObjectEntry& e : m.order) {
    if (e.row != kRowOf<PriorityClass> || !m.priority_classes[e.index].global_default) {
      continue;
    }
    if (global_default != nullptr) {
      result.errors.push_back(fmt::format(
          "{} (PriorityClass {}): globalDefault: Forbidden: PriorityClass {} is already marked as "
          "default. Only one default can exist (at {})",
          e.source.ToString(), m.priority_classes[e.index].metadata.name,
          m.priority_classes[global_default->index].metadata.name,
          global_default->source.ToString()));
    } else {
      global_default = &e;
    }
  }
  // Priority admission, as when each pod is created.
  const PriorityResolver resolver(m.priority_classes);
  for (const ObjectEntry& e : m.order) {
    if (e.kind != "Pod" || e.served) continue;
    Pod& pod = m.pods[e.index];
    if (std::string err = resolver.Admit(pod); !err.empty()) {
      result.errors.push_back(fmt::format("{} (Pod {}): spec.priorityClassName: {}",
                                          e.source.ToString(), pod.metadata.Key(), err));
    }
  }
  // DefaultStorageClass admission, as when each claim is created: a claim that names no class
  // gets the default one, the newest if several are marked (then the first by name).
  std::vector<const StorageClass*> classes;
  for (const StorageClass& sc : m.storage_classes) classes.push_back(&sc);
  if (const StorageClass* default_class = DefaultStorageClass(classes)) {
    for (const ObjectEntry& e : m.order) {
      if (e.row != kRowOf<PersistentVolumeClaim> || e.served) continue;
      PersistentVolumeClaim& pvc = m.persistent_volume_claims[e.index];
      if (!pvc.spec.storage_class_name &&
          !pvc.metadata.annotations.contains(std::string(kBetaStorageClassAnnotation))) {
        pvc.spec.storage_class_name = default_class->metadata.name;
      }
    }
  }
  // The API server accepts a workload whatever its template says: it is each pod the
  // controller creates from it that admission refuses (simulate records FailedCreate).
  auto check_template = [&](const PodTemplateSpec& t, std::string_view kind, const ObjectMeta& meta,
                            const Source& source) {
    Pod probe;
    probe.spec = t.spec;
    if (std::string err = resolver.Admit(probe); !err.empty()) {
      result.warnings.push_back(
          fmt::format("{} ({} {}): spec.template.spec.priorityClassName: {}: its pods cannot be "
                      "created",
                      source.ToString(), kind, meta.Key(), err));
    }
  };
  for (const ObjectEntry& e : m.order) {
    Visit(m, e, [&]<typename T>(const T& object) {
      const Kind<T>& kind = KindOf<T>();
      if (kind.pod_template != nullptr) {
        check_template(object.*kind.pod_template, e.kind, object.*kind.metadata, e.source);
      }
    });
  }
}

std::optional<FieldValidation> ParseFieldValidation(std::string_view name) {
  if (name == "strict" || name == "true") return FieldValidation::kStrict;
  if (name == "warn") return FieldValidation::kWarn;
  if (name == "ignore" || name == "false") return FieldValidation::kIgnore;
  return std::nullopt;
}

namespace {

// Decodes PATH (a file, a directory's manifests, or "-" for `stdin_stream`) into `result`.
void DecodePath(const std::string& path, std::istream& stdin_stream, LoadResult& result) {
  namespace fs = std::filesystem;
  if (path == "-") {
    std::ostringstream ss;
    ss << stdin_stream.rdbuf();
    DecodeText(ss.str(), "<stdin>", result);
    return;
  }
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      const std::string ext = entry.path().extension().string();
      if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json")) {
        files.push_back(entry.path());
      }
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      std::string error;
      const std::string text = ReadFile(f, &error);
      if (!error.empty()) {
        result.errors.push_back(fmt::format("{}: {}", f.string(), error));
        continue;
      }
      DecodeText(text, f.string(), result);
    }
    return;
  }
  if (!fs::exists(path, ec)) {
    result.errors.push_back(fmt::format("{}: no such file or directory", path));
    return;
  }
  std::string error;
  const std::string text = ReadFile(path, &error);
  if (!error.empty()) {
    result.errors.push_back(fmt::format("{}: {}", path, error));
    return;
  }
  DecodeText(text, path, result);
}

// The objects from order[from] on take the place of those before `from` of the same kind,
// namespace and name (of the same kind, for a kind without metadata); they leave the order and
// their kind's vector, where they were last.
void ApplyOverrides(LoadResult& result, size_t from) {
  Manifests& m = result.manifests;
  // "<row> <namespace/name>", or "<row>" for a kind without metadata; empty for an object
  // without a name yet (generateName), which replaces nothing.
  auto key_of = [&](const ObjectEntry& e) {
    return Visit(m, e, [&]<typename T>(const T& object) -> std::string {
      const auto metadata = KindOf<T>().metadata;
      if (metadata == nullptr) return std::to_string(e.row);
      if ((object.*metadata).name.empty()) return "";
      return fmt::format("{} {}", e.row, (object.*metadata).Key());
    });
  };
  std::map<std::string, size_t> before;
  for (size_t i = 0; i < from; ++i) {
    if (std::string key = key_of(m.order[i]); !key.empty()) before.emplace(std::move(key), i);
  }
  // Per row, the indexes of the objects that moved into an earlier object's place.
  std::map<size_t, std::vector<size_t>> moved;
  std::vector<ObjectEntry> order;
  order.reserve(m.order.size());
  order.assign(m.order.begin(), m.order.begin() + static_cast<ptrdiff_t>(from));
  for (size_t i = from; i < m.order.size(); ++i) {
    const ObjectEntry& e = m.order[i];
    const std::string key = key_of(e);
    auto it = key.empty() ? before.end() : before.find(key);
    if (it == before.end()) {
      order.push_back(e);
      continue;
    }
    ObjectEntry& target = order[it->second];
    std::string name;
    ForKindAt(e.row, [&](const auto& kind) {
      auto& objects = m.*kind.objects;
      if (kind.metadata != nullptr) name = " " + (objects[e.index].*kind.metadata).Key();
      objects[target.index] = std::move(objects[e.index]);
    });
    result.replaced.push_back(fmt::format("{}{} ({} replaces {})", e.kind, name,
                                          e.source.ToString(), target.source.ToString()));
    target.source = e.source;
    target.served = e.served;
    moved[e.row].push_back(e.index);
    // A second object of the same key among the overrides is a duplicate of the first.
    before.erase(it);
  }
  for (auto& [row, indexes] : moved) {
    std::sort(indexes.begin(), indexes.end());
    ForKindAt(row, [&](const auto& kind) {
      auto& objects = m.*kind.objects;
      for (auto i = indexes.rbegin(); i != indexes.rend(); ++i) {
        objects.erase(objects.begin() + static_cast<ptrdiff_t>(*i));
      }
    });
    for (ObjectEntry& e : order) {
      if (e.row != row) continue;
      e.index -= static_cast<size_t>(std::lower_bound(indexes.begin(), indexes.end(), e.index) -
                                     indexes.begin());
    }
  }
  m.order = std::move(order);
}

}  // namespace

LoadResult LoadManifests(const std::vector<std::string>& paths, std::istream& stdin_stream,
                         FieldValidation field_validation, const std::vector<NamedText>& first,
                         const std::vector<std::string>& overrides) {
  LoadResult result;
  result.field_validation = field_validation;
  for (const NamedText& t : first) DecodeText(t.text, t.name, result);
  for (const std::string& path : paths) DecodePath(path, stdin_stream, result);
  if (!overrides.empty()) {
    const size_t from = result.manifests.order.size();
    for (const std::string& path : overrides) DecodePath(path, stdin_stream, result);
    ApplyOverrides(result, from);
  }
  FinishLoad(result);
  // Nothing at all to act on, as kubectl refuses it ("no objects passed to apply"): an empty
  // file, an empty directory, or stdin closed. Kinds skipped with a warning were objects.
  if (result.errors.empty() && result.warnings.empty() && result.manifests.order.empty()) {
    std::vector<std::string> names;
    for (const std::string& path : paths) names.push_back(path == "-" ? "<stdin>" : path);
    result.errors.push_back(fmt::format("{}: no objects passed", fmt::join(names, ", ")));
  }
  return result;
}

}  // namespace muster::api
