#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <type_traits>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/decoder.h"
#include "muster/api/kinds.h"
#include "muster/api/storage.h"
#include "muster/api/manifests.h"
#include "muster/api/nearest.h"
#include "muster/api/priority.h"

namespace muster::api {

// The toolkit (decoder.h) is this file's own: its names are used unqualified.
using namespace decoding;  // NOLINT(google-build-using-namespace)

namespace {

// ---- documents ----

void DecodeObject(const YAML::Node& doc, const Source& source, LoadResult& result,
                  std::map<std::string, int>& skipped);

void DecodeList(const YAML::Node& doc, const Source& source, LoadResult& result,
                std::map<std::string, int>& skipped) {
  Decoder d(result, source, "List");
  const YAML::Node& items = doc["items"];
  if (!Present(items)) return;
  if (!items.IsSequence()) {
    d.Error("items", fmt::format("expected a list, got {}", Describe(items)));
    return;
  }
  for (size_t i = 0; i < items.size(); ++i) {
    Source item_source = source;
    item_source.item = static_cast<int>(i);
    DecodeObject(items[i], item_source, result, skipped);
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
  result.manifests.order.push_back(ObjectEntry{kind.name, kRowOf<T>, objects.size() - 1, source});
}

void DecodeObject(const YAML::Node& doc, const Source& source, LoadResult& result,
                  std::map<std::string, int>& skipped) {
  if (!Present(doc)) return;  // empty documents are skipped, as kubectl does
  if (!doc.IsMap()) {
    result.errors.push_back(fmt::format("{}: expected an object, got {}", source.ToString(),
                                        Describe(doc)));
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
  void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override { Node(anchor, 1); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    Node(anchor, 1);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    // The parser has checked that the anchor is defined; a size of 0 means it is still open.
    const uint64_t size = anchor < sizes_.size() ? sizes_[anchor] : 0;
    if (size == 0) {
      throw YAML::ParserException(mark, "an alias cannot refer to a node that contains it");
    }
    Count(size);
    if (expanded_ > kMaxExpandedNodes && expanded_ > kMaxExpansion * nodes_) {
      throw YAML::ParserException(
          mark, fmt::format("excessive aliasing: aliases expand the document past {} nodes, more "
                            "than {} times its own {}",
                            kMaxExpandedNodes, kMaxExpansion, nodes_));
    }
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(anchor);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(anchor);
  }
  void OnMapEnd() override { Close(); }

 private:
  struct Collection {
    YAML::anchor_t anchor;
    uint64_t size;  // nodes so far, aliases expanded, itself included
  };

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
  void Open(YAML::anchor_t anchor) {
    ++nodes_;
    ++expanded_;
    if (anchor != YAML::NullAnchor) SetSize(anchor, 0);
    open_.push_back(Collection{anchor, 1});
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
};

// YAML::LoadAll, once StreamCheck has passed the stream.
std::vector<YAML::Node> LoadAll(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  StreamCheck check;
  while (parser.HandleNextDocument(check)) {
  }
  return YAML::LoadAll(text);
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

void DecodeText(std::string_view text, const std::string& name, LoadResult& result) {
  std::vector<YAML::Node> docs;
  try {
    docs = LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    result.errors.push_back(fmt::format("{}: line {}, column {}: invalid YAML: {}", name,
                                        e.mark.line + 1, e.mark.column + 1, e.msg));
    return;
  }
  std::map<std::string, int> skipped;
  for (size_t i = 0; i < docs.size(); ++i) {
    DecodeObject(docs[i], Source{name, static_cast<int>(i) + 1, -1}, result, skipped);
  }
  if (!skipped.empty()) {
    std::string kinds;
    int count = 0;
    for (const auto& [kind, n] : skipped) {
      kinds += (kinds.empty() ? "" : ", ") + kind;
      count += n;
    }
    result.warnings.push_back(fmt::format("{}: skipping {} object(s) of kinds muster does not "
                                          "model: {}",
                                          name, count, kinds));
  }
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

void FinishLoad(LoadResult& result) {
  Manifests& m = result.manifests;
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
      result.errors.push_back(fmt::format("{} ({}): metadata.name: Duplicate value: already "
                                          "defined at {}",
                                          e.source.ToString(), key, it->second->ToString()));
    }
  }
  // Only one PriorityClass may be the global default.
  const PriorityClass* global_default = nullptr;
  for (const PriorityClass& pc : m.priority_classes) {
    if (!pc.global_default) continue;
    if (global_default != nullptr) {
      result.errors.push_back(fmt::format(
          "PriorityClass {}: globalDefault: Forbidden: PriorityClass {} is already marked as "
          "default. Only one default can exist",
          pc.metadata.name, global_default->metadata.name));
    }
    global_default = &pc;
  }
  // Priority admission, as when each pod is created.
  const PriorityResolver resolver(m.priority_classes);
  for (const ObjectEntry& e : m.order) {
    if (e.kind != "Pod") continue;
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
    for (PersistentVolumeClaim& pvc : m.persistent_volume_claims) {
      if (!pvc.spec.storage_class_name &&
          !pvc.metadata.annotations.contains(std::string(kBetaStorageClassAnnotation))) {
        pvc.spec.storage_class_name = default_class->metadata.name;
      }
    }
  }
  // The API server accepts a workload whatever its template says: it is each pod the
  // controller creates from it that admission refuses (simulate records FailedCreate).
  auto check_template = [&](const PodTemplateSpec& t, std::string_view kind,
                            const ObjectMeta& meta, const Source& source) {
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

LoadResult LoadManifests(const std::vector<std::string>& paths, std::istream& stdin_stream,
                         FieldValidation field_validation) {
  namespace fs = std::filesystem;
  LoadResult result;
  result.field_validation = field_validation;
  for (const std::string& path : paths) {
    if (path == "-") {
      std::ostringstream ss;
      ss << stdin_stream.rdbuf();
      DecodeText(ss.str(), "<stdin>", result);
      continue;
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
      continue;
    }
    if (!fs::exists(path, ec)) {
      result.errors.push_back(fmt::format("{}: no such file or directory", path));
      continue;
    }
    std::string error;
    const std::string text = ReadFile(path, &error);
    if (!error.empty()) {
      result.errors.push_back(fmt::format("{}: {}", path, error));
      continue;
    }
    DecodeText(text, path, result);
  }
  FinishLoad(result);
  return result;
}

}  // namespace muster::api
