#include "muster/api/manifests.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "muster/api/feature_gates.h"
#include "muster/api/pod_resources.h"
#include "muster/api/testing/decode.h"

namespace muster::api {
namespace {

using testing::Decode;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr std::string_view kSeedDemo = R"(
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: nginx
spec:
  scheduleTimeoutSeconds: 10
  minMember: 3
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: nginx
  labels:
    app: nginx
spec:
  replicas: 6
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      name: nginx
      labels:
        app: nginx
        scheduling.x-k8s.io/pod-group: nginx
    spec:
      containers:
      - name: nginx
        image: nginx
        resources:
          limits:
            cpu: 3000m
            memory: 500Mi
          requests:
            cpu: 3000m
            memory: 500Mi
)";

TEST(DecodeTest, SeedDemo) {
  LoadResult r = Decode(kSeedDemo);
  ASSERT_THAT(r.errors, IsEmpty());
  ASSERT_EQ(r.manifests.pod_groups.size(), 1u);
  const PodGroup& pg = r.manifests.pod_groups[0];
  EXPECT_EQ(pg.metadata.Key(), "default/nginx");
  EXPECT_EQ(pg.spec.min_member, 3);
  EXPECT_EQ(pg.spec.schedule_timeout_seconds, 10);
  ASSERT_EQ(r.manifests.replica_sets.size(), 1u);
  const ReplicaSet& rs = r.manifests.replica_sets[0];
  EXPECT_EQ(rs.replicas, 6);
  const Symbol* group = rs.template_.metadata.labels.Get(Symbol(kPodGroupLabel));
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->str(), "nginx");
  Pod pod;
  pod.spec = rs.template_.spec;
  Resource req = PodRequests(pod);
  EXPECT_EQ(req.milli_cpu, 3000);
  EXPECT_EQ(req.memory, 500 * 1024 * 1024);
  ASSERT_EQ(r.manifests.order.size(), 2u);
  EXPECT_EQ(r.manifests.order[0].kind, "PodGroup");
  EXPECT_EQ(r.manifests.order[1].source.document, 2);
}

TEST(DecodeTest, ErrorNamesFileDocumentObjectAndField) {
  constexpr std::string_view text = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-1
spec:
  containers:
  - name: web
    image: nginx
    resources:
      requests:
        cpu: 4 cores
)";
  LoadResult r = Decode(text, "cluster.yaml");
  EXPECT_THAT(r.errors, ElementsAre("cluster.yaml: document 3 (Pod default/web-1): "
                                    "spec.containers[0].resources.requests.cpu: invalid quantity "
                                    "\"4 cores\""));
}

TEST(DecodeTest, MalformedYamlNamesLine) {
  LoadResult r = Decode("apiVersion: v1\nkind: Pod\nmetadata: [unclosed\n", "bad.yaml");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_THAT(r.errors[0], HasSubstr("bad.yaml: line "));
  EXPECT_THAT(r.errors[0], HasSubstr("invalid YAML"));
}

TEST(DecodeTest, NegativeAndZeroMinMemberAreRejected) {
  for (const char* value : {"-1", "0"}) {
    std::string text = std::string(R"(
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: g, namespace: team}
spec: {minMember: )") + value +
                       "}\n";
    LoadResult r = Decode(text, "g.yaml");
    ASSERT_EQ(r.errors.size(), 1u) << value;
    EXPECT_THAT(r.errors[0], HasSubstr("g.yaml: document 1 (PodGroup team/g): spec.minMember: "
                                       "Invalid value: "));
    EXPECT_THAT(r.errors[0], HasSubstr("greater than or equal to 1"));
  }
}

TEST(DecodeTest, QuotedIntegerIsAnError) {
  LoadResult r = Decode(R"(
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: g}
spec: {minMember: "3"}
)");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_THAT(r.errors[0], HasSubstr("spec.minMember: expected an integer, got string \"3\""));
}

TEST(DecodeTest, OlderPodGroupApiGroupIsAccepted) {
  LoadResult r = Decode(R"(
apiVersion: scheduling.sigs.k8s.io/v1alpha1
kind: PodGroup
metadata: {name: nginx}
spec: {minMember: 4, scheduleTimeoutSeconds: 10}
)");
  ASSERT_THAT(r.errors, IsEmpty());
  EXPECT_EQ(r.manifests.pod_groups[0].spec.min_member, 4);
  EXPECT_EQ(r.manifests.pod_groups[0].api_version, "scheduling.sigs.k8s.io/v1alpha1");
}

TEST(DecodeTest, DuplicateObjectIsRejected) {
  constexpr std::string_view node = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n";
  LoadResult r;
  DecodeText(node, "a.yaml", r);
  DecodeText(node, "b.yaml", r);
  FinishLoad(r);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_THAT(r.errors[0], HasSubstr("b.yaml: document 1 (Node n1)"));
  EXPECT_THAT(r.errors[0], HasSubstr("already defined at a.yaml: document 1"));
}

// Objects named only by generateName get a name each, as the API server gives one: the prefix
// and 5 characters of its alphabet, drawn alike on every load, never a name already taken.
TEST(DecodeTest, GenerateNameGivesEachObjectItsOwnName) {
  constexpr std::string_view kPods = R"(
apiVersion: v1
kind: Pod
metadata: {generateName: job-}
spec: {containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Pod
metadata: {generateName: job-}
spec: {containers: [{name: c, image: i}]}
)";
  LoadResult r = Decode(kPods);
  ASSERT_THAT(r.errors, IsEmpty());
  ASSERT_EQ(r.manifests.pods.size(), 2u);
  const std::string first = r.manifests.pods[0].metadata.name;
  const std::string second = r.manifests.pods[1].metadata.name;
  EXPECT_THAT(first, ::testing::MatchesRegex("job-[bcdfghjklmnpqrstvwxz2456789]{5}"));
  EXPECT_THAT(second, ::testing::MatchesRegex("job-[bcdfghjklmnpqrstvwxz2456789]{5}"));
  EXPECT_NE(first, second);
  EXPECT_EQ(r.manifests.pods[0].metadata.generate_name, "job-");

  LoadResult again = Decode(kPods);
  ASSERT_EQ(again.manifests.pods.size(), 2u);
  EXPECT_EQ(again.manifests.pods[0].metadata.name, first);
  EXPECT_EQ(again.manifests.pods[1].metadata.name, second);

  // A pod already named what the first draw gives: the generated one draws again.
  LoadResult taken = Decode(fmt::format(R"(
apiVersion: v1
kind: Pod
metadata: {{generateName: job-}}
spec: {{containers: [{{name: c, image: i}}]}}
---
apiVersion: v1
kind: Pod
metadata: {{name: {}}}
spec: {{containers: [{{name: c, image: i}}]}}
)",
                                        first));
  ASSERT_THAT(taken.errors, IsEmpty());
  ASSERT_EQ(taken.manifests.pods.size(), 2u);
  EXPECT_EQ(taken.manifests.pods[0].metadata.name, second);
  EXPECT_EQ(taken.manifests.pods[1].metadata.name, first);
}

TEST(DecodeTest, GenerateNameIsCutTo58CharactersAndChecked) {
  const std::string long_prefix(70, 'a');
  LoadResult r = Decode(
      fmt::format("apiVersion: v1\nkind: Node\nmetadata: {{generateName: {}}}\n", long_prefix));
  ASSERT_THAT(r.errors, IsEmpty());
  ASSERT_EQ(r.manifests.nodes.size(), 1u);
  EXPECT_EQ(r.manifests.nodes[0].metadata.name.size(), 63u);
  EXPECT_TRUE(r.manifests.nodes[0].metadata.name.starts_with(std::string(58, 'a')));

  LoadResult bad = Decode(R"(
apiVersion: v1
kind: Pod
metadata: {generateName: WEB_}
spec: {containers: [{name: c, image: i}]}
)");
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_THAT(bad.errors[0],
              HasSubstr("metadata.generateName: Invalid value: \"WEB_\": a lowercase RFC 1123 "
                        "subdomain must consist of"));
  // A lone dash is no prefix; a trailing dash after a letter is.
  EXPECT_THAT(Decode("apiVersion: v1\nkind: Node\nmetadata: {generateName: \"-\"}\n").errors,
              ElementsAre(HasSubstr("metadata.generateName: Invalid value: \"-\"")));
  EXPECT_THAT(Decode("apiVersion: v1\nkind: Node\nmetadata: {generateName: a-}\n").errors,
              IsEmpty());
}

// What the API server's validation refuses in metadata and containers, refused with its words.
TEST(DecodeTest, WhatTheApiServerRefusesIsRefused) {
  struct Case {
    std::string name;
    std::string metadata;    // the pod's metadata, in flow style
    std::string containers;  // its containers, in flow style
    std::string error;       // empty: accepted
  };
  const std::string c = "[{name: c, image: i}]";
  const std::vector<Case> cases = {
      {"annotation key", "{name: p, annotations: {\"bad key!\": x}}", c,
       "metadata.annotations: Invalid value: \"bad key!\": name part must consist of"},
      {"annotation key in capitals", "{name: p, annotations: {Example.COM/Key: x}}", c, ""},
      {"annotations over 256 KiB",
       fmt::format("{{name: p, annotations: {{a: {}, b: {}}}}}", std::string(131072, 'x'),
                   std::string(131072, 'y')),
       c, "metadata.annotations: Too long: may not be more than 262144 bytes"},
      {"annotations of 256 KiB",
       fmt::format("{{name: p, annotations: {{a: {}, b: {}}}}}", std::string(131071, 'x'),
                   std::string(131071, 'y')),
       c, ""},
      {"owner without uid", "{name: p, ownerReferences: [{apiVersion: v1, kind: Node, name: n1}]}",
       c, "metadata.ownerReferences.uid: Invalid value: \"\": uid must not be empty"},
      {"owner without version",
       "{name: p, ownerReferences: [{apiVersion: apps/, kind: ReplicaSet, name: r, uid: u}]}", c,
       "metadata.ownerReferences.apiVersion: Invalid value: \"apps/\": version must not be empty"},
      {"two controllers",
       "{name: p, ownerReferences: [{apiVersion: v1, kind: A, name: a, uid: '1', controller: "
       "true}, {apiVersion: v1, kind: B, name: b, uid: '2', controller: true}]}",
       c,
       "metadata.ownerReferences: Invalid value: "
       "[{\"apiVersion\":\"v1\",\"kind\":\"A\",\"name\":\"a\",\"uid\":\"1\",\"controller\":true},"
       "{\"apiVersion\":\"v1\",\"kind\":\"B\",\"name\":\"b\",\"uid\":\"2\",\"controller\":true}]: "
       "Only one reference can have Controller set to true. Found \"true\" in references for A/a "
       "and B/b"},
      {"two containers named alike", "{name: p}", "[{name: c, image: i}, {name: c, image: i}]",
       "spec.containers[1].name: Duplicate value: \"c\""},
      {"half a GPU", "{name: p}",
       "[{name: c, image: i, resources: {limits: {nvidia.com/gpu: \"0.5\"}}}]",
       "Invalid value: \"500m\": must be an integer"},
      {"a whole GPU", "{name: p}",
       "[{name: c, image: i, resources: {limits: {nvidia.com/gpu: \"1\"}}}]", ""},
      {"half a CPU", "{name: p}", "[{name: c, image: i, resources: {limits: {cpu: \"0.5\"}}}]", ""},
      // A number or a boolean where a string belongs, as JSON has it.
      {"a label given a number", "{name: p, labels: {a: 1}}", c,
       "metadata.labels.a: expected a string, got number 1 (quote it: \"1\")"},
      {"a name given a number", "{name: 123}", c,
       "metadata.name: expected a string, got number 123"},
      {"an annotation given yes", "{name: p, annotations: {a: yes}}", c,
       "metadata.annotations.a: expected a string, got boolean yes"},
      {"a label given a version", "{name: p, labels: {v: 1.25}}", c,
       "metadata.labels.v: expected a string, got number 1.25"},
      {"an image given hex", "{name: p}", "[{name: c, image: 0x1F}]",
       "spec.containers[0].image: expected a string, got number 0x1F"},
      {"strings that look like numbers",
       "{name: p, labels: {a: \"1\", b: 1a, c: v1.25, d: 1.2.3, e: 0x}}", c, ""},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    const LoadResult r =
        Decode(fmt::format("apiVersion: v1\nkind: Pod\nmetadata: {}\nspec: {{containers: {}}}\n",
                           tc.metadata, tc.containers));
    if (tc.error.empty()) {
      EXPECT_THAT(r.errors, IsEmpty());
    } else {
      EXPECT_THAT(r.errors, ElementsAre(HasSubstr(tc.error)));
    }
  }
  // An init container shares the pod's container names.
  EXPECT_THAT(Decode("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {initContainers: "
                     "[{name: c, image: i}], containers: [{name: c, image: i}]}\n")
                  .errors,
              ElementsAre(HasSubstr("spec.containers[0].name: Duplicate value: \"c\"")));
}

// The YAML reader takes what JSON refuses, and yaml-cpp takes a quote left open at the end of
// the stream as running to it. Both are refused, as kubectl refuses them.
TEST(DecodeTest, TrailingCommasInJsonAndQuotesLeftOpenAreRefused) {
  const LoadResult comma =
      Decode(R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1",}})", "n.json");
  ASSERT_EQ(comma.errors.size(), 1u);
  EXPECT_THAT(comma.errors[0], HasSubstr("n.json: invalid JSON: parse error at line 1, column"));
  EXPECT_THAT(
      Decode(R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})", "n.json")
          .errors,
      IsEmpty());
  // YAML's flow style is YAML, not JSON.
  EXPECT_THAT(Decode("{apiVersion: v1, kind: Node, metadata: {name: n1, labels: {a: b,}}}").errors,
              IsEmpty());
  // Values one after another, as kubectl takes them.
  EXPECT_THAT(Decode(R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}})",
                     "n.json")
                  .manifests.nodes.size(),
              2u);

  const LoadResult open = Decode(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: "
      "i}]\n  schedulerName: \"default-scheduler\n");
  ASSERT_EQ(open.errors.size(), 1u);
  EXPECT_THAT(open.errors[0], HasSubstr("test.yaml: line 6, column 18: invalid YAML: the quoted "
                                        "value is never closed"));
  EXPECT_THAT(Decode("apiVersion: v1\nkind: Node\nmetadata: {name: 'n1'}\n").errors, IsEmpty());
  EXPECT_THAT(
      Decode("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels: {a: 'it''s'}\n").errors,
      ElementsAre(HasSubstr("labels")));  // a quote is no label value, but it is closed
  EXPECT_THAT(
      Decode("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels: {a: \"x\\\"\"}\n")
          .errors,
      ElementsAre(HasSubstr("labels")));
}

// A JSON text is read without the YAML reader (JsonToDocument): each decodes as the same text
// read as YAML (a comment first sends it there), objects, errors and warnings alike.
TEST(DecodeTest, JsonDecodesAsTheYamlReaderReadsIt) {
  const std::vector<std::string> texts = {
      R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": "1"}},
          "spec": {"containers": [{"name": "c", "image": "i",
                    "resources": {"requests": {"cpu": 0.5, "memory": "1Gi"}}}]}})",
      // A number where a string belongs, a string where an integer does.
      R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": 1}},
          "spec": {"containers": [{"name": "c", "image": "i"}], "priority": "5"}})",
      // A field given twice, a field muster does not know, quantities given as numbers.
      R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "name": "m"},
          "spec": {"podCIDRx": "10.0.0.0/24"}, "status": {"capacity": {"pods": 1.0}}})",
      R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
          "status": {"capacity": {"pods": 1e2, "cpu": 4}}})",
      // Beyond a double's range: left to the YAML reader, which names the field.
      R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
          "status": {"capacity": {"cpu": 1e400}}})",
      R"({"apiVersion": "v1", "kind": "List", "items": [
          {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "labels": {"x": null}}},
          {"apiVersion": "v1", "kind": "Widget", "metadata": {"name": "w"}},
          {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": null}]})",
      R"({"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
          "metadata": {"name": "g"}, "spec": {"minMember": -1}})",
  };
  for (const std::string& text : texts) {
    SCOPED_TRACE(text);
    const LoadResult json = Decode(text, "f.json");
    const LoadResult yaml = Decode("# as YAML\n" + text, "f.json");
    EXPECT_EQ(json.errors, yaml.errors);
    EXPECT_EQ(json.warnings, yaml.warnings);
    EXPECT_EQ(json.manifests.order.size(), yaml.manifests.order.size());
    EXPECT_EQ(json.manifests.pods.size(), yaml.manifests.pods.size());
    EXPECT_EQ(json.manifests.nodes.size(), yaml.manifests.nodes.size());
  }
  // And the first is a pod asking for half a CPU, read through either.
  const LoadResult pod = Decode(texts[0], "f.json");
  ASSERT_THAT(pod.errors, IsEmpty());
  ASSERT_EQ(pod.manifests.pods.size(), 1u);
  EXPECT_EQ(PodRequests(pod.manifests.pods[0]).milli_cpu, 500);
}

// What YAML does not allow in a stream is refused where it is, in libyaml's words (kubectl's):
// a NUL or another control character, invalid UTF-8; and nesting past the reader's depth says so.
TEST(DecodeTest, CharactersYamlRefusesAndDeepNestingAreSaidWhereTheyAre) {
  using namespace std::string_literals;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"apiVersion: v1\nkind: Node\nmetadata: {name: n\0"
       "1}\n"s,
       "test.yaml: line 3, column 19: invalid YAML: control characters are not allowed"},
      {"apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {a: \"\x7f\"}}\n",
       "test.yaml: line 3, column 35: invalid YAML: control characters are not allowed"},
      {"apiVersion: v1\nkind: Node\nmetadata: {name: n1, annotations: {a: \"\xff\"}}\n",
       "test.yaml: line 3, column 40: invalid YAML: invalid leading UTF-8 octet"},
      {"apiVersion: v1\nkind: Node\nmetadata: {name: n1, annotations: {a: \"\xc3\"}}\n",
       "test.yaml: line 3, column 40: invalid YAML: invalid trailing UTF-8 octet"},
      {"apiVersion: v1\nkind: Node\nmetadata: {name: n1, annotations: {a: \"\xc0\xaf\"}}\n",
       "test.yaml: line 3, column 40: invalid YAML: invalid length of a UTF-8 sequence"},
      {"apiVersion: v1\nkind: Node\nmetadata: {name: n1, annotations: {a: \"\xed\xa0\x80\"}}\n",
       "test.yaml: line 3, column 40: invalid YAML: invalid Unicode character"},
      {"apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: " + std::string(600, '[') +
           std::string(600, ']') + "}\n",
       "invalid YAML: nested too deep (at most 499 levels)"},
  };
  for (const auto& [text, error] : cases) {
    SCOPED_TRACE(error);
    EXPECT_THAT(Decode(text).errors, ElementsAre(HasSubstr(error)));
  }
  // A key that is a list or a map has no JSON: kubectl refuses it.
  EXPECT_THAT(Decode("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n    ? [a, "
                     "b]\n    : c\n")
                  .errors,
              ElementsAre(HasSubstr("test.yaml: line 6, column 7: invalid YAML: invalid map key: "
                                    "a key is a string, not a list or a map")));
  // Tabs, carriage returns, the BOM and text beyond ASCII are all fine.
  EXPECT_THAT(Decode("\xef\xbb\xbf"
                     "apiVersion: v1\r\nkind: Node\r\nmetadata: {name: n1, "
                     "annotations: {a: \"\t\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80\"}}\n")
                  .errors,
              IsEmpty());
}

// YAML merge keys, which kubectl takes: the map's own keys win, then the merged maps in order.
TEST(DecodeTest, MergeKeysAreTakenAsKubectlTakesThem) {
  const LoadResult r = Decode(R"(
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: a}
  status:
    allocatable: &base {cpu: "2", memory: 4Gi, pods: "10"}
- apiVersion: v1
  kind: Node
  metadata: {name: b}
  status:
    allocatable:
      <<: [*base, {cpu: "8", example.com/gpu: "1"}]
      memory: 16Gi
)");
  ASSERT_THAT(r.errors, IsEmpty());
  ASSERT_EQ(r.manifests.nodes.size(), 2u);
  const ResourceList& b = r.manifests.nodes[1].status.allocatable;
  ASSERT_NE(b.Get("cpu"), nullptr);
  EXPECT_EQ(b.Get("cpu")->String(), "2");
  EXPECT_EQ(b.Get("memory")->String(), "16Gi");
  EXPECT_EQ(b.Get("pods")->String(), "10");
  EXPECT_EQ(b.Get("example.com/gpu")->String(), "1");
  EXPECT_EQ(r.manifests.nodes[0].status.allocatable.Get("memory")->String(), "4Gi");

  EXPECT_THAT(
      Decode("apiVersion: v1\nkind: Node\nmetadata: {name: n1, <<: x}\n").errors,
      ElementsAre(HasSubstr("invalid YAML: a merge (<<) takes a map or a sequence of maps")));
}

TEST(DecodeTest, SameNameInDifferentNamespacesIsFine) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: a}
spec: {containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: b}
spec: {containers: [{name: c, image: i}]}
)");
  EXPECT_THAT(r.errors, IsEmpty());
  EXPECT_EQ(r.manifests.pods.size(), 2u);
}

TEST(DecodeTest, UnknownKindsAreSkippedWithOneWarning) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: Service
metadata: {name: s}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
---
apiVersion: v1
kind: Service
metadata: {name: s2}
)",
                        "mixed.yaml");
  EXPECT_THAT(r.errors, IsEmpty());
  EXPECT_THAT(r.warnings, ElementsAre("mixed.yaml: skipping 3 object(s) of kinds muster does not "
                                      "model: ConfigMap, Service"));
}

TEST(DecodeTest, ListAndJson) {
  LoadResult r = Decode(R"({"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
     "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": 110}}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
     "spec": {"containers": [{"name": "c", "image": "i",
              "resources": {"requests": {"cpu": 0.5}}}]}}]})",
                        "list.json");
  ASSERT_THAT(r.errors, IsEmpty());
  ASSERT_EQ(r.manifests.nodes.size(), 1u);
  const Node& n = r.manifests.nodes[0];
  EXPECT_EQ(n.status.allocatable.Get("cpu")->MilliValue(), 4000)
      << "allocatable defaults to capacity";
  EXPECT_EQ(n.status.allocatable.Get("pods")->Value(), 110);
  EXPECT_EQ(PodRequests(r.manifests.pods[0]).milli_cpu, 500);
  EXPECT_EQ(r.manifests.order[1].source.ToString(), "list.json: document 1, items[1]");
}

TEST(DecodeTest, ListItemErrorsNameTheItem) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {capacity: {cpu: lots}}
)",
                        "l.yaml");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0],
            "l.yaml: document 1, items[0] (Node n1): status.capacity.cpu: invalid "
            "quantity \"lots\"");
}

TEST(DecodeTest, RequestsDefaultToLimits) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    image: i
    resources:
      limits: {cpu: "2", memory: 1Gi}
      requests: {cpu: "1"}
)");
  ASSERT_THAT(r.errors, IsEmpty());
  const Container& c = r.manifests.pods[0].spec.containers[0];
  EXPECT_EQ(c.resources.requests.Get("cpu")->MilliValue(), 1000);
  EXPECT_EQ(c.resources.requests.Get("memory")->Value(), int64_t{1} << 30);
}

TEST(DecodeTest, RequestAboveLimitIsRejected) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - {name: c, image: i, resources: {limits: {cpu: "1"}, requests: {cpu: "2"}}}
)");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_THAT(r.errors[0], HasSubstr("spec.containers[0].resources.requests.cpu: Invalid value: "
                                     "\"2\": must be less than or equal to cpu limit of 1"));
}

TEST(DecodeTest, NegativeAndUnknownResourcesAreRejected) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - {name: c, image: i, resources: {requests: {cpu: "-1", gpu: "1"}}}
)");
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_THAT(r.errors[0], HasSubstr("requests.cpu: Invalid value: \"-1\": must be greater than "
                                     "or equal to 0"));
  EXPECT_THAT(r.errors[1], HasSubstr("requests.gpu: Invalid value: \"gpu\": must be a standard "
                                     "resource for containers"));
}

TEST(DecodeTest, ImpossibleQuantityIsRejected) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {memory: 1e40}}
)");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_THAT(r.errors[0], HasSubstr("status.capacity.memory: invalid quantity \"1e40\""));
}

// What an API server serves has been validated, and may carry fields newer than muster: `muster
// run` decodes it without checking fields (and without the cost of doing so).
TEST(DecodeTest, UnknownFieldsFromTheApiServerAreIgnored) {
  std::vector<std::string> errors;
  std::optional<Pod> pod = DecodeAs<Pod>(YAML::Load(R"(
metadata: {name: p, namespace: default, somethingNew: 1}
spec:
  containers: [{name: c, image: i, futureField: x, resources: {requests: {cpu: 1}}}]
  dnsPolicy: ClusterFirst
  resources: {requests: {cpu: 2}}
)"),
                                         "v1", "watch pods", &errors);
  EXPECT_THAT(errors, IsEmpty());
  ASSERT_TRUE(pod.has_value());
  EXPECT_EQ(pod->metadata.name, "p");
  // A pod another scheduler bound counts its pod-level requests, not its containers' 1.
  EXPECT_EQ(PodRequests(*pod).milli_cpu, 2000);
}

TEST(DecodeTest, MissingAndWrongApiVersion) {
  LoadResult r = Decode(R"(
kind: Pod
metadata: {name: a}
---
apiVersion: v1
kind: ReplicaSet
metadata: {name: b}
---
metadata: {name: c}
)",
                        "v.yaml");
  ASSERT_EQ(r.errors.size(), 3u);
  EXPECT_EQ(r.errors[0], "v.yaml: document 1 (Pod default/a): apiVersion: Required value");
  EXPECT_THAT(r.errors[1], HasSubstr("(ReplicaSet default/b): apiVersion: no kind \"ReplicaSet\" "
                                     "is registered for version \"v1\""));
  EXPECT_EQ(r.errors[2], "v.yaml: document 3: kind: Required value");
}

TEST(DecodeTest, SelectorMustMatchTemplate) {
  LoadResult r = Decode(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: b}}
    spec: {containers: [{name: c, image: i}]}
)");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_THAT(r.errors[0], HasSubstr("(Deployment default/d): spec.template.metadata.labels: "
                                     "Invalid value: `selector` does not match template `labels`"));
}

TEST(DecodeTest, JobNeedsRestartPolicy) {
  LoadResult r = Decode(R"(
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec: {containers: [{name: c, image: i}]}
)");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_THAT(r.errors[0], HasSubstr("spec.template.spec.restartPolicy: Required value"));
}

// A Job whose spec has `fields` (a YAML flow mapping's entries) beside a one-container template.
std::string JobWith(std::string_view fields, std::string_view restart_policy = "Never") {
  return fmt::format(R"(
apiVersion: batch/v1
kind: Job
metadata: {{name: j}}
spec: {{{}{}template: {{spec: {{restartPolicy: {}, containers: [{{name: main, image: i}}]}}}}}}
)",
                     fields, fields.empty() ? "" : ", ", restart_policy);
}

std::vector<std::string> JobErrors(std::string_view fields, std::string_view restart = "Never") {
  std::vector<std::string> out;
  for (const std::string& e : Decode(JobWith(fields, restart), "j.yaml").errors) {
    out.push_back(e.substr(e.find("): ") + 3));
  }
  return out;
}

TEST(DecodeTest, JobCompletionModeAndBackoffLimit) {
  LoadResult r = Decode(JobWith("completionMode: Indexed, completions: 3, backoffLimit: 0"));
  ASSERT_THAT(r.errors, IsEmpty());
  const Job& job = r.manifests.jobs[0];
  EXPECT_EQ(job.completion_mode, CompletionMode::kIndexed);
  EXPECT_EQ(job.backoff_limit, 0);
  EXPECT_FALSE(job.pod_failure_policy);
  const LoadResult defaults = Decode(JobWith(""));
  ASSERT_THAT(defaults.errors, IsEmpty());
  EXPECT_EQ(defaults.manifests.jobs[0].completion_mode, CompletionMode::kNonIndexed);
  EXPECT_EQ(defaults.manifests.jobs[0].backoff_limit, 6);

  EXPECT_THAT(JobErrors("completionMode: Indexed"),
              ElementsAre("spec.completions: Required value: when completion mode is Indexed"));
  EXPECT_THAT(JobErrors("completionMode: Ordered"),
              ElementsAre("spec.completionMode: Unsupported value: \"Ordered\": supported values: "
                          "\"NonIndexed\", \"Indexed\""));
  EXPECT_THAT(JobErrors("backoffLimit: -1"),
              ElementsAre("spec.backoffLimit: Invalid value: -1: must be greater than or equal "
                          "to 0"));
}

TEST(DecodeTest, AnIndexedJobsHostnamesMustBeDnsLabels) {
  const std::string name(62, 'a');
  LoadResult r = Decode(R"(
apiVersion: batch/v1
kind: Job
metadata: {name: )" + name +
                        R"(}
spec:
  completionMode: Indexed
  completions: 10
  template: {spec: {restartPolicy: Never, containers: [{name: c, image: i}]}}
)");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_THAT(r.errors[0],
              HasSubstr("metadata.name: Invalid value: \"" + name +
                        "\": will not able to create pod with invalid DNS label: " + name + "-9"));
}

TEST(DecodeTest, PodFailurePolicy) {
  LoadResult r = Decode(JobWith(R"(podFailurePolicy: {rules: [
      {action: Ignore, onPodConditions: [{type: DisruptionTarget}]},
      {action: FailJob, onExitCodes: {containerName: main, operator: In, values: [1, 42]}},
      {action: Count, onPodConditions: [{type: ConfigIssue, status: "False"}]}]})"));
  ASSERT_THAT(r.errors, IsEmpty());
  ASSERT_TRUE(r.manifests.jobs[0].pod_failure_policy);
  const std::vector<PodFailurePolicyRule>& rules = r.manifests.jobs[0].pod_failure_policy->rules;
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0].action, PodFailurePolicyAction::kIgnore);
  ASSERT_EQ(rules[0].on_pod_conditions.size(), 1u);
  EXPECT_EQ(rules[0].on_pod_conditions[0].type, "DisruptionTarget");
  EXPECT_EQ(rules[0].on_pod_conditions[0].status, "True") << "the API server's default";
  EXPECT_EQ(rules[1].action, PodFailurePolicyAction::kFailJob);
  ASSERT_TRUE(rules[1].on_exit_codes);
  EXPECT_EQ(rules[1].on_exit_codes->container_name, "main");
  EXPECT_EQ(rules[1].on_exit_codes->values, (std::vector<int32_t>{1, 42}));
  EXPECT_EQ(rules[2].on_pod_conditions[0].status, "False");
}

TEST(DecodeTest, PodFailurePolicyIsValidatedAsTheApiServerDoes) {
  const std::string rule = "spec.podFailurePolicy.rules[0]";
  EXPECT_THAT(JobErrors("podFailurePolicy: {rules: [{action: Ignore, onPodConditions: "
                        "[{type: DisruptionTarget}]}]}",
                        "OnFailure"),
              ElementsAre("spec.template.spec.restartPolicy: Invalid value: \"OnFailure\": only "
                          "\"Never\" is supported when podFailurePolicy is specified"));
  EXPECT_THAT(JobErrors("podFailurePolicy: {rules: [{onPodConditions: [{type: X}]}]}"),
              ElementsAre(rule + ".action: Required value: valid values: [\"Count\" \"FailIndex\" "
                                 "\"FailJob\" \"Ignore\"]"));
  EXPECT_THAT(JobErrors("podFailurePolicy: {rules: [{action: Retry, onPodConditions: "
                        "[{type: X}]}]}"),
              ElementsAre(rule + ".action: Unsupported value: \"Retry\": supported values: "
                                 "\"Count\", \"FailIndex\", \"FailJob\", \"Ignore\""));
  EXPECT_THAT(JobErrors("podFailurePolicy: {rules: [{action: FailIndex, onPodConditions: "
                        "[{type: X}]}]}"),
              ElementsAre(rule + ".action: Invalid value: \"FailIndex\": requires the "
                                 "backoffLimitPerIndex to be set"));
  EXPECT_THAT(JobErrors("podFailurePolicy: {rules: [{action: Count}]}"),
              ElementsAre(rule + ": Invalid value: specifying one of OnExitCodes and "
                                 "OnPodConditions is required"));
  EXPECT_THAT(JobErrors("podFailurePolicy: {rules: [{action: Count, onPodConditions: "
                        "[{type: X, status: Maybe}]}]}"),
              ElementsAre(rule + ".onPodConditions[0].status: Unsupported value: \"Maybe\": "
                                 "supported values: \"False\", \"True\", \"Unknown\""));
  EXPECT_THAT(
      JobErrors("podFailurePolicy: {rules: [{action: FailJob, onExitCodes: {containerName: "
                "side, operator: In, values: [3, 0, 3]}}]}"),
      ElementsAre(rule + ".onExitCodes.containerName: Invalid value: \"side\": must be one of "
                         "the container or initContainer names in the pod template",
                  rule + ".onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In "
                         "operator",
                  rule + ".onExitCodes.values[2]: Duplicate value: 3",
                  rule + ".onExitCodes.values: Invalid value: []int32{3, 0, 3}: must be "
                         "ordered"));
}

TEST(DecodeTest, PerIndexBackoffIsRefusedNotIgnored) {
  EXPECT_THAT(JobErrors("completionMode: Indexed, completions: 2, backoffLimitPerIndex: 1"),
              ElementsAre("spec.backoffLimitPerIndex: not supported: muster does not simulate "
                          "per-index backoff"));
}

TEST(DecodeTest, PriorityClassAdmission) {
  LoadResult r = Decode(R"(
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Pod
metadata: {name: ok}
spec: {priorityClassName: high, containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Pod
metadata: {name: missing}
spec: {priorityClassName: gold, containers: [{name: c, image: i}]}
)",
                        "p.yaml");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0],
            "p.yaml: document 3 (Pod default/missing): spec.priorityClassName: no "
            "PriorityClass with name gold was found");
  EXPECT_EQ(r.manifests.pods[0].Priority(), 1000);
}

TEST(DecodeTest, TwoGlobalDefaultsAreRejected) {
  LoadResult r = Decode(R"(
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: a}
value: 1
globalDefault: true
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: b}
value: 2
globalDefault: true
)");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0],
            "test.yaml: document 2 (PriorityClass b): globalDefault: Forbidden: PriorityClass a is "
            "already marked as default. Only one default can exist (at test.yaml: document 1)");
}

TEST(DecodeTest, PodSchedulingFields) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: ml
  labels: {app: train}
  annotations: {muster.dev/run-for: 20s}
spec:
  schedulerName: my-scheduler
  nodeSelector: {disk: ssd}
  schedulingGates: [{name: example.com/quota}]
  hostNetwork: true
  tolerations:
  - {key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}
  - {operator: Exists}
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: zone, operator: In, values: [a, b]}]
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 10
        preference: {matchExpressions: [{key: gen, operator: Gt, values: ["3"]}]}
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: train}}
        topologyKey: kubernetes.io/hostname
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, minDomains: 2,
     labelSelector: {matchLabels: {app: train}}}
  initContainers:
  - {name: proxy, image: envoy, restartPolicy: Always, resources: {requests: {cpu: 100m}}}
  containers:
  - name: main
    image: trainer
    ports: [{containerPort: 8080}]
    resources: {requests: {cpu: "1", nvidia.com/gpu: "2"}, limits: {nvidia.com/gpu: "2"}}
)");
  ASSERT_THAT(r.errors, IsEmpty());
  const Pod& p = r.manifests.pods[0];
  EXPECT_EQ(p.metadata.Key(), "ml/p");
  EXPECT_EQ(p.spec.scheduler_name.str(), "my-scheduler");
  EXPECT_EQ(p.spec.node_selector.Get(Symbol("disk"))->str(), "ssd");
  EXPECT_THAT(p.spec.scheduling_gates, ElementsAre("example.com/quota"));
  EXPECT_EQ(p.spec.containers[0].ports[0].host_port, 8080) << "hostNetwork defaults hostPort";
  ASSERT_EQ(p.spec.tolerations.size(), 2u);
  EXPECT_EQ(p.spec.tolerations[1].op, TolerationOperator::kExists);
  ASSERT_TRUE(p.spec.affinity.has_value());
  ASSERT_TRUE(p.spec.affinity->node_affinity->required.has_value());
  EXPECT_EQ(p.spec.affinity->node_affinity->required->terms.size(), 1u);
  EXPECT_EQ(p.spec.affinity->node_affinity->preferred[0].weight, 10);
  EXPECT_EQ(p.spec.affinity->pod_anti_affinity->required[0].topology_key.str(),
            "kubernetes.io/hostname");
  EXPECT_EQ(p.spec.topology_spread_constraints[0].min_domains, 2);
  EXPECT_TRUE(p.spec.init_containers[0].restart_policy_always);
  Resource req = PodRequests(p);
  EXPECT_EQ(req.milli_cpu, 1100);
  EXPECT_EQ(req.Scalar(Symbol("nvidia.com/gpu")), 2);
}

TEST(DecodeTest, InvalidSchedulingFieldsAreRejected) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: i}]
  tolerations: [{key: k, operator: Sometimes}]
  topologySpreadConstraints: [{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: Maybe}]
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {}}]
)");
  EXPECT_EQ(r.errors.size(), 4u);
  std::string all;
  for (const std::string& e : r.errors) all += e + "\n";
  EXPECT_THAT(all, HasSubstr("spec.tolerations[0].operator: Unsupported value: \"Sometimes\""));
  EXPECT_THAT(all, HasSubstr("spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0"));
  EXPECT_THAT(all, HasSubstr("whenUnsatisfiable: Unsupported value: \"Maybe\""));
  EXPECT_THAT(all, HasSubstr("requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: "
                             "Required value"));
}

// Containers' restartPolicy and restartPolicyRules as the API server validates them
// (validateContainerRestartPolicy, validateInitContainerRestartPolicy), with ContainerRestartRules
// and RestartAllContainersOnContainerExits on (1.37's defaults) or off.
TEST(DecodeTest, ContainerRestartPoliciesAndRulesAsTheApiServerValidatesThem) {
  struct Case {
    const char* name;
    std::string containers;  // spec's container lists, in flow style
    std::string want;        // the one error, or "" for none
    bool restart_rules = true;
    bool restart_all = true;
  };
  const std::string rule =
      "restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [42]}}]";
  const std::string too_many_rules = [&] {
    std::string rules = "restartPolicyRules: [";
    for (int i = 0; i < 21; ++i) {
      rules +=
          std::string(i ? ", " : "") + "{action: Restart, exitCodes: {operator: In, values: [1]}}";
    }
    return rules + "]";
  }();
  const std::string too_many_codes = [&] {
    std::string values;
    for (int i = 0; i < 256; ++i) values += fmt::format("{}{}", i ? ", " : "", i);
    return "restartPolicyRules: [{action: Restart, exitCodes: {operator: NotIn, values: [" +
           values + "]}}]";
  }();
  const Case cases[] = {
      {"a regular container's Never, with a rule",
       "containers: [{name: c, image: i, restartPolicy: Never, " + rule + "}]", ""},
      {"OnFailure", "containers: [{name: c, image: i, restartPolicy: OnFailure}]", ""},
      {"an unknown policy", "containers: [{name: c, image: i, restartPolicy: Sometimes}]",
       R"(spec.containers[0].restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure")"},
      {"rules without a policy", "containers: [{name: c, image: i, " + rule + "}]",
       "spec.containers[0].restartPolicy: Required value: must specify restartPolicy when restart "
       "rules are used"},
      {"an unknown action",
       "containers: [{name: c, image: i, restartPolicy: Never, restartPolicyRules: [{action: Stop, "
       "exitCodes: {operator: In, values: [1]}}]}]",
       R"(spec.containers[0].restartPolicyRules[0].action: Unsupported value: "Stop": supported values: "Restart", "RestartAllContainers")"},
      {"RestartAllContainers without its gate",
       "containers: [{name: c, image: i, restartPolicy: Never, restartPolicyRules: [{action: "
       "RestartAllContainers, exitCodes: {operator: In, values: [1]}}]}]",
       R"(spec.containers[0].restartPolicyRules[0].action: Unsupported value: "RestartAllContainers": supported values: "Restart")",
       true, false},
      {"no exit codes",
       "containers: [{name: c, image: i, restartPolicy: Never, restartPolicyRules: [{action: "
       "Restart}]}]",
       "spec.containers[0].restartPolicyRules[0].exitCodes: Required value: must be specified"},
      {"an unknown operator",
       "containers: [{name: c, image: i, restartPolicy: Never, restartPolicyRules: [{action: "
       "Restart, exitCodes: {operator: Above, values: [1]}}]}]",
       R"(spec.containers[0].restartPolicyRules[0].exitCodes.operator: Unsupported value: "Above": supported values: "In", "NotIn")"},
      {"21 rules",
       "containers: [{name: c, image: i, restartPolicy: Never, " + too_many_rules + "}]",
       "spec.containers[0].restartPolicyRules: Too many: 21: must have at most 20 items"},
      {"256 exit codes",
       "containers: [{name: c, image: i, restartPolicy: Never, " + too_many_codes + "}]",
       "spec.containers[0].restartPolicyRules[0].exitCodes.values: Too many: 256: must have at "
       "most 255 items"},
      {"an init container that is not a sidecar, with a rule",
       "initContainers: [{name: i, image: i, restartPolicy: OnFailure, " + rule +
           "}], containers: [{name: c, image: i}]",
       ""},
      {"a sidecar's rule",
       "initContainers: [{name: i, image: i, restartPolicy: Always, " + rule +
           "}], containers: [{name: c, image: i}]",
       ""},
      {"a sidecar's rule without RestartAllContainersOnContainerExits",
       "initContainers: [{name: i, image: i, restartPolicy: Always, " + rule +
           "}], containers: [{name: c, image: i}]",
       "spec.initContainers[0].restartPolicyRules: Forbidden: restartPolicyRules are not allowed "
       "for init containers with restart policy Always",
       true, false},
      {"the gate off: a regular container's policy",
       "containers: [{name: c, image: i, restartPolicy: Always}]",
       "spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers",
       false},
      {"the gate off: an init container's Never",
       "initContainers: [{name: i, image: i, restartPolicy: Never}], containers: [{name: c, image: "
       "i}]",
       R"(spec.initContainers[0].restartPolicy: Unsupported value: "Never": supported values: "Always")",
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FeatureGates gates;
    gates.Set(Feature::kContainerRestartRules, c.restart_rules);
    gates.Set(Feature::kRestartAllContainersOnContainerExits, c.restart_all);
    const ScopedFeatures scoped(gates);
    const LoadResult r =
        Decode("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {" + c.containers + "}\n");
    if (c.want.empty()) {
      EXPECT_THAT(r.errors, IsEmpty());
    } else {
      ASSERT_EQ(r.errors.size(), 1u) << ::testing::PrintToString(r.errors);
      EXPECT_THAT(r.errors[0], HasSubstr(c.want));
    }
  }
  // Only an init container's Always is a sidecar, whose requests the pod counts as one.
  const LoadResult r = Decode(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers:
  - {name: sidecar, image: i, restartPolicy: Always, resources: {requests: {cpu: "1"}}}
  - {name: setup, image: i, restartPolicy: OnFailure, resources: {requests: {cpu: "1"}}}
  containers: [{name: c, image: i, restartPolicy: Always, resources: {requests: {cpu: "1"}}}]
)");
  ASSERT_THAT(r.errors, IsEmpty());
  const Pod& pod = r.manifests.pods[0];
  EXPECT_TRUE(pod.spec.init_containers[0].restart_policy_always);
  EXPECT_FALSE(pod.spec.init_containers[1].restart_policy_always);
  EXPECT_FALSE(pod.spec.containers[0].restart_policy_always);
  // The gate off: the rules are dropped with a warning, as the API server drops them.
  FeatureGates off;
  off.Set(Feature::kContainerRestartRules, false);
  const ScopedFeatures scoped(off);
  const LoadResult dropped = Decode(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: "
      "{containers: [{name: c, image: i, " +
      rule + "}]}\n");
  EXPECT_THAT(dropped.errors, IsEmpty());
  ASSERT_EQ(dropped.warnings.size(), 1u);
  EXPECT_THAT(dropped.warnings[0], HasSubstr("ContainerRestartRules"));
}

TEST(DecodeTest, SimulationAnnotationsMustBeDurations) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations: {muster.dev/create-after: soon}
spec: {containers: [{name: c, image: i}]}
)");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_THAT(r.errors[0], HasSubstr("metadata.annotations.muster.dev/create-after: invalid "
                                     "duration \"soon\""));
}

TEST(DecodeTest, NodeTaintsAndImages) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: Node
metadata: {name: gpu-1, labels: {zone: a}}
spec:
  unschedulable: true
  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
status:
  allocatable: {cpu: 7500m, memory: 30Gi, pods: "110", nvidia.com/gpu: "8"}
  capacity: {cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "8"}
  images: [{names: [nginx:1.25], sizeBytes: 187000000}]
)");
  ASSERT_THAT(r.errors, IsEmpty());
  const Node& n = r.manifests.nodes[0];
  EXPECT_TRUE(n.spec.unschedulable);
  ASSERT_EQ(n.spec.taints.size(), 1u);
  EXPECT_EQ(n.spec.taints[0].effect, TaintEffect::kNoSchedule);
  EXPECT_EQ(n.status.allocatable.Get("cpu")->MilliValue(), 7500);
  EXPECT_EQ(n.status.images[0].size_bytes, 187000000);
}

TEST(DecodeTest, TaintWithoutEffectIsRejected) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
spec: {taints: [{key: k}]}
)");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_THAT(r.errors[0], HasSubstr("spec.taints[0].effect: Required value"));
}

TEST(DecodeTest, SchedulerConfigurationIsStrict) {
  LoadResult r = Decode(R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection: {leaderElect: false}
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled: [{name: Coscheduling}]
    queueSort:
      enabled: [{name: Coscheduling}]
      disabled: [{name: "*"}]
    sore:
      enabled: [{name: NodeResourcesFit, weight: 2}]
  pluginConfig:
  - name: Coscheduling
    args: {permitWaitingTimeSeconds: 60}
    extra: 1
)",
                        "cfg.yaml");
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(
      r.errors[0],
      "cfg.yaml: document 1 (KubeSchedulerConfiguration): "
      "unknown field \"profiles[0].plugins.sore\"; did you mean \"profiles[0].plugins.score\"?");
  EXPECT_EQ(r.errors[1],
            "cfg.yaml: document 1 (KubeSchedulerConfiguration): "
            "unknown field \"profiles[0].pluginConfig[0].extra\"");
}

// kubectl's --validate=strict, the default: a field the API does not have, or a field given
// twice, is an error naming it by its whole path; for every kind muster decodes, at every depth.
// The fields of the API that muster does not read (an image, a probe, a rollout strategy,
// status) are accepted.
struct StrictCase {
  const char* what;
  const char* manifest;
  const char* error;  // "" when the manifest is valid
};

class StrictFieldsTest : public ::testing::TestWithParam<StrictCase> {};

TEST_P(StrictFieldsTest, UnknownAndDuplicateFieldsAreErrors) {
  const StrictCase& c = GetParam();
  LoadResult r = Decode(c.manifest, "in.yaml");
  if (std::string_view(c.error).empty()) {
    EXPECT_THAT(r.errors, IsEmpty()) << c.what;
  } else {
    EXPECT_THAT(r.errors, ElementsAre(c.error)) << c.what;
  }
}

constexpr std::string_view kPodHead = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n";

INSTANTIATE_TEST_SUITE_P(
    EveryKind, StrictFieldsTest,
    ::testing::Values(
        StrictCase{"pod spec", R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeSelectr: {zone: a}
  containers: [{name: c, image: nginx}]
)",
                   "in.yaml: document 1 (Pod default/p): unknown field \"spec.nodeSelectr\"; did "
                   "you mean \"spec.nodeSelector\"?"},
        StrictCase{
            "container", R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: nginx, resource: {requests: {cpu: 1}}}]
)",
            "in.yaml: document 1 (Pod default/p): unknown field \"spec.containers[0].resource\"; "
            "did you mean \"spec.containers[0].resources\"?"},
        StrictCase{"container resources", R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, resources: {request: {cpu: 1}}}]
)",
                   "in.yaml: document 1 (Pod default/p): unknown field "
                   "\"spec.containers[0].resources.request\"; did you mean "
                   "\"spec.containers[0].resources.requests\"?"},
        StrictCase{"affinity", R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c}]
  affinity:
    nodeAffinity:
      requiredDuringScheduling: {nodeSelectorTerms: []}
)",
                   "in.yaml: document 1 (Pod default/p): unknown field "
                   "\"spec.affinity.nodeAffinity.requiredDuringScheduling\""},
        StrictCase{
            "toleration", R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c}]
  tolerations: [{key: k, operater: Exists}]
)",
            "in.yaml: document 1 (Pod default/p): unknown field \"spec.tolerations[0].operater\"; "
            "did you mean \"spec.tolerations[0].operator\"?"},
        StrictCase{"metadata", R"(apiVersion: v1
kind: Pod
metadata: {name: p, label: {a: b}}
spec: {containers: [{name: c}]}
)",
                   "in.yaml: document 1 (Pod default/p): unknown field \"metadata.label\"; did you "
                   "mean \"metadata.labels\"?"},
        StrictCase{"duplicate field", R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  schedulerName: a
  schedulerName: b
  containers: [{name: c}]
)",
                   "in.yaml: document 1 (Pod default/p): duplicate field \"spec.schedulerName\""},
        StrictCase{"top level", R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c}]}
stauts: {phase: Running}
)",
                   "in.yaml: document 1 (Pod default/p): unknown field \"stauts\"; did you mean "
                   "\"status\"?"},
        StrictCase{"what the kubelet reads is known", R"(apiVersion: v1
kind: Pod
metadata: {name: p, finalizers: [x], generation: 2}
spec:
  serviceAccountName: sa
  terminationGracePeriodSeconds: 5
  volumes: [{name: v, emptyDir: {}}]
  containers:
  - name: c
    image: nginx
    command: [sh]
    env: [{name: A, value: b}]
    livenessProbe: {httpGet: {path: /, port: 80}}
    volumeMounts: [{name: v, mountPath: /v}]
    imagePullPolicy: Always
status: {phase: Pending, qosClass: BestEffort, hostIP: 10.0.0.1}
)",
                   ""},
        StrictCase{"node", R"(apiVersion: v1
kind: Node
metadata: {name: n1}
spec: {podCIDR: 10.0.0.0/24, taint: []}
status: {allocatable: {cpu: 1}, nodeInfo: {kubeletVersion: v1.35.0}}
)",
                   "in.yaml: document 1 (Node n1): unknown field \"spec.taint\"; did you mean "
                   "\"spec.taints\"?"},
        StrictCase{"node status", R"(apiVersion: v1
kind: Node
metadata: {name: n1}
status: {alocatable: {cpu: 1}}
)",
                   "in.yaml: document 1 (Node n1): unknown field \"status.alocatable\"; did you "
                   "mean \"status.allocatable\"?"},
        StrictCase{"namespace", R"(apiVersion: v1
kind: Namespace
metadata: {name: team, lables: {a: b}}
spec: {finalizers: [kubernetes]}
)",
                   "in.yaml: document 1 (Namespace team): unknown field \"metadata.lables\"; did "
                   "you mean \"metadata.labels\"?"},
        StrictCase{"podgroup", R"(apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: g}
spec: {minMember: 2, minMembers: 3}
)",
                   "in.yaml: document 1 (PodGroup default/g): unknown field \"spec.minMembers\"; "
                   "did you mean \"spec.minMember\"?"},
        StrictCase{
            "podgroup (sigs)", R"(apiVersion: scheduling.sigs.k8s.io/v1alpha1
kind: PodGroup
metadata: {name: g}
spec: {minMember: 2, scheduleTimeout: 3}
)",
            "in.yaml: document 1 (PodGroup default/g): unknown field \"spec.scheduleTimeout\""},
        StrictCase{"priorityclass", R"(apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
globaldefault: true
)",
                   "in.yaml: document 1 (PriorityClass high): unknown field \"globaldefault\"; did "
                   "you mean \"globalDefault\"?"},
        StrictCase{"replicaset", R"(apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec:
  replica: 2
  selector: {matchLabels: {app: a}}
  template: {metadata: {labels: {app: a}}, spec: {containers: [{name: c}]}}
)",
                   "in.yaml: document 1 (ReplicaSet default/rs): unknown field \"spec.replica\"; "
                   "did you mean \"spec.replicas\"?"},
        StrictCase{"deployment template", R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  strategy: {type: Recreate}
  selector: {matchLabels: {app: a}}
  template: {metadata: {labels: {app: a}}, spec: {containers: [{name: c}], nodeSelecter: {}}}
)",
                   "in.yaml: document 1 (Deployment default/d): unknown field "
                   "\"spec.template.spec.nodeSelecter\"; did you mean "
                   "\"spec.template.spec.nodeSelector\"?"},
        StrictCase{"statefulset", R"(apiVersion: apps/v1
kind: StatefulSet
metadata: {name: s}
spec:
  serviceName: s
  updateStrategy: {type: OnDelete}
  selector: {matchLabels: {app: a}}
  template: {metadata: {labels: {app: a}, annotation: {}}, spec: {containers: [{name: c}]}}
)",
                   "in.yaml: document 1 (StatefulSet default/s): unknown field "
                   "\"spec.template.metadata.annotation\"; did you mean "
                   "\"spec.template.metadata.annotations\"?"},
        StrictCase{"job", R"(apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  completion: 3
  ttlSecondsAfterFinished: 60
  template: {spec: {restartPolicy: Never, containers: [{name: c}]}}
)",
                   "in.yaml: document 1 (Job default/j): unknown field \"spec.completion\"; did "
                   "you mean \"spec.completions\"?"},
        StrictCase{"poddisruptionbudget", R"(apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb}
spec: {minAvailable: 1, selecter: {matchLabels: {app: a}}}
)",
                   "in.yaml: document 1 (PodDisruptionBudget default/pdb): unknown field "
                   "\"spec.selecter\"; did you mean \"spec.selector\"?"},
        StrictCase{"binding", R"(apiVersion: v1
kind: Binding
metadata: {name: p}
target: {kind: Node, name: n1, nmae: m}
)",
                   "in.yaml: document 1 (Binding default/p): unknown field \"target.nmae\"; did "
                   "you mean \"target.name\"?"},
        StrictCase{"event", R"(apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: e}
regarding: {kind: Pod, name: p}
reason: Scheduled
notes: hi
)",
                   "in.yaml: document 1 (Event default/e): unknown field \"notes\"; did you mean "
                   "\"note\"?"},
        StrictCase{"lease", R"(apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: l}
spec: {holderIdentity: a, leaseDuration: 15}
)",
                   "in.yaml: document 1 (Lease default/l): unknown field \"spec.leaseDuration\""}));

// --validate=warn: the same findings are warnings, and the objects are decoded; ignore: nothing.
TEST(DecodeTest, FieldValidationWarnAndIgnore) {
  const std::string pod =
      std::string(kPodHead) + "spec: {nodeSelectr: {a: b}, containers: [{name: c}]}\n";
  LoadResult warn;
  warn.field_validation = FieldValidation::kWarn;
  DecodeText(pod, "in.yaml", warn);
  EXPECT_THAT(warn.errors, IsEmpty());
  EXPECT_THAT(warn.warnings,
              ElementsAre("in.yaml: document 1 (Pod default/p): unknown field "
                          "\"spec.nodeSelectr\"; did you mean \"spec.nodeSelector\"?"));
  EXPECT_EQ(warn.manifests.pods.size(), 1u);
  LoadResult ignore;
  ignore.field_validation = FieldValidation::kIgnore;
  DecodeText(pod, "in.yaml", ignore);
  EXPECT_THAT(ignore.errors, IsEmpty());
  EXPECT_THAT(ignore.warnings, IsEmpty());
  // A KubeSchedulerConfiguration is strict whatever --validate says, as kube-scheduler decodes.
  LoadResult config;
  config.field_validation = FieldValidation::kIgnore;
  DecodeText(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "percentageOfNodeToScore: 50\n",
      "cfg.yaml", config);
  EXPECT_THAT(
      config.errors,
      ElementsAre(
          "cfg.yaml: document 1 (KubeSchedulerConfiguration): "
          "unknown field \"percentageOfNodeToScore\"; did you mean \"percentageOfNodesToScore\"?"));
  EXPECT_EQ(ParseFieldValidation("warn"), FieldValidation::kWarn);
  EXPECT_EQ(ParseFieldValidation("false"), FieldValidation::kIgnore);
  EXPECT_EQ(ParseFieldValidation("loose"), std::nullopt);
}

// Pod-level resources (KEP-2837, on since 1.34): read, defaulted and validated as the API
// server does.
TEST(DecodeTest, PodLevelResourcesCount) {
  LoadResult r = Decode(std::string(kPodHead) + R"(spec:
  resources: {requests: {cpu: 2, hugepages-2Mi: 4Mi}, limits: {hugepages-2Mi: 4Mi}}
  containers: [{name: a, resources: {requests: {cpu: 500m, memory: 1Gi}}}, {name: b}]
)",
                        "in.yaml");
  ASSERT_THAT(r.errors, IsEmpty());
  const Pod& pod = r.manifests.pods[0];
  ASSERT_NE(pod.spec.resources, nullptr);
  const Resource requests = PodRequests(pod);
  EXPECT_EQ(requests.milli_cpu, 2000);
  EXPECT_EQ(requests.memory, int64_t{1} << 30);
  EXPECT_EQ(requests.Scalar(Symbol("hugepages-2Mi")), 4 << 20);
}

TEST(DecodeTest, PodLevelRequestsDefaultAsTheApiServerDefaultsThem) {
  // With pod-level limits: cpu, which a container requests, defaults to the containers' sum;
  // memory, which none requests, to the pod-level limit; hugepages limits to the containers'.
  LoadResult r = Decode(std::string(kPodHead) + R"(spec:
  resources: {limits: {cpu: 4, memory: 2Gi}}
  containers:
  - {name: a, resources: {requests: {cpu: 500m}}}
  - {name: b, resources: {limits: {cpu: 1, hugepages-2Mi: 2Mi}}}
)",
                        "in.yaml");
  ASSERT_THAT(r.errors, IsEmpty());
  const PodLevelResources& level = *r.manifests.pods[0].spec.resources;
  EXPECT_EQ(level.requests.Get("cpu")->String(), "1500m");
  EXPECT_EQ(level.requests.Get("memory")->String(), "2Gi");
  EXPECT_EQ(level.limits.Get("hugepages-2Mi")->String(), "2Mi");
  EXPECT_EQ(level.requests.Get("hugepages-2Mi")->String(), "2Mi");
}

TEST(DecodeTest, PodLevelResourcesAreValidatedAsTheApiServerValidatesThem) {
  auto errors = [](std::string_view spec) {
    return Decode(std::string(kPodHead) + "spec:\n" + std::string(spec), "in.yaml").errors;
  };
  const std::string at = "in.yaml: document 1 (Pod default/p): spec.resources";
  EXPECT_THAT(errors("  resources: {requests: {ephemeral-storage: 1Gi}}\n"
                     "  containers: [{name: c}]\n"),
              ElementsAre(at + ".requests[ephemeral-storage]: Unsupported value: "
                               "\"ephemeral-storage\": "
                               "supported values: \"cpu\", \"hugepages-\", \"memory\""));
  EXPECT_THAT(errors("  resources: {requests: {cpu: 1}}\n"
                     "  containers: [{name: a, resources: {requests: {cpu: 1}}},\n"
                     "               {name: b, resources: {requests: {cpu: 1}}}]\n"),
              ElementsAre(at + ".requests[cpu]: Invalid value: \"1\": must be greater than or "
                               "equal to aggregate container requests of 2"));
  EXPECT_THAT(errors("  resources: {requests: {cpu: 2}, limits: {cpu: 1}}\n"
                     "  containers: [{name: c}]\n"),
              ElementsAre(at + ".requests: Invalid value: \"2\": must be less than or equal to "
                               "cpu limit of 1"));
  // The pod-level request defaults to the container's 2 (its request defaulted to its limit).
  EXPECT_THAT(errors("  resources: {limits: {cpu: 1}}\n"
                     "  containers: [{name: c, resources: {limits: {cpu: 2}}}]\n"),
              ElementsAre(at + ".requests: Invalid value: \"2\": must be less than or equal to "
                               "cpu limit of 1",
                          at + ".containers[0][cpu].limits: Invalid value: \"2\": must be less "
                               "than or equal to pod limits of 1"));
  EXPECT_THAT(errors("  resources: {requests: {cpu: 1}, claims: [{name: gpu}]}\n"
                     "  containers: [{name: c}]\n"),
              ElementsAre(at + ".claims: Forbidden: claims may not be set for Resources at "
                               "pod-level"));
  EXPECT_THAT(errors("  resources: {limits: {hugepages-2Mi: 2Mi}}\n"
                     "  containers: [{name: c}]\n"),
              ElementsAre(at + ": Forbidden: HugePages require cpu or memory"));
  EXPECT_THAT(errors("  os: {name: windows}\n  resources: {requests: {cpu: 1}}\n"
                     "  containers: [{name: c}]\n"),
              ElementsAre(at + ": Forbidden: may not be set for a windows pod"));
}

TEST(DecodeTest, LeaderElectionIsValidatedAsUpstreamValidatesIt) {
  auto errors = [](const std::string& leader_election) {
    return Decode(
               "apiVersion: kubescheduler.config.k8s.io/v1\n"
               "kind: KubeSchedulerConfiguration\n"
               "leaderElection: " +
                   leader_election + "\n",
               "cfg.yaml")
        .errors;
  };
  const std::string at = "cfg.yaml: document 1 (KubeSchedulerConfiguration): leaderElection.";
  EXPECT_THAT(errors("{leaseDuration: 15s, renewDeadline: 10s, retryPeriod: 2s}"), IsEmpty());
  EXPECT_THAT(errors("{leaseDuration: 10s, renewDeadline: 10s}"),
              ElementsAre(at + "leaseDuration: Invalid value: \"10s\": LeaseDuration must be "
                               "greater than RenewDeadline"));
  // client-go's leader elector: renewDeadline > retryPeriod * 1.2.
  EXPECT_THAT(errors("{leaseDuration: 15s, renewDeadline: 6s, retryPeriod: 5s}"),
              ElementsAre(at + "renewDeadline: Invalid value: \"6s\": renewDeadline must be "
                               "greater than retryPeriod*JitterFactor (1.2)"));
  EXPECT_THAT(errors("{leaseDuration: 15s, renewDeadline: 7s, retryPeriod: 5s}"), IsEmpty());
  EXPECT_THAT(errors("{retryPeriod: 0s, resourceName: \"\"}"),
              ElementsAre(at + "retryPeriod: Invalid value: \"0s\": must be greater than zero",
                          at + "resourceName: Invalid value: \"\": resourceName is required"));
  // Without leader election nothing of it is checked, as upstream.
  EXPECT_THAT(errors("{leaderElect: false, leaseDuration: 1s, renewDeadline: 10s}"), IsEmpty());
}

// An extender's fields as upstream's v1 Extender: the TLS data base64 as encoding/json reads
// []byte, httpTimeout's 5s default, and ignoredByScheduler resources handed to NodeResourcesFit.
TEST(DecodeTest, ExtendersAreReadWithUpstreamDefaults) {
  LoadResult r = Decode(R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
- urlPrefix: https://gpushare.kube-system:12345/scheduler
  filterVerb: filter
  prioritizeVerb: prioritize
  bindVerb: bind
  weight: 2
  enableHTTPS: true
  tlsConfig: {serverName: gpushare, caData: "cGVt", certFile: /c.pem, keyFile: /k.pem}
  nodeCacheCapable: true
  managedResources: [{name: example.com/gpu-mem, ignoredByScheduler: true}, {name: example.com/gpu}]
- urlPrefix: http://127.0.0.1:8888
  preemptVerb: preempt
  httpTimeout: 250ms
  ignorable: true
)",
                        "cfg.yaml");
  ASSERT_THAT(r.errors, IsEmpty());
  const SchedulerConfiguration& c = r.manifests.scheduler_configs[0];
  ASSERT_EQ(c.extenders.size(), 2u);
  const ExtenderConfig& gpu = c.extenders[0];
  EXPECT_EQ(gpu.url_prefix, "https://gpushare.kube-system:12345/scheduler");
  EXPECT_EQ(gpu.weight, 2);
  EXPECT_EQ(gpu.http_timeout, std::chrono::seconds(5));
  ASSERT_TRUE(gpu.tls_config.has_value());
  EXPECT_EQ(gpu.tls_config->ca_data, "pem");
  EXPECT_EQ(gpu.tls_config->server_name, "gpushare");
  EXPECT_TRUE(gpu.node_cache_capable);
  ASSERT_EQ(gpu.managed_resources.size(), 2u);
  EXPECT_TRUE(gpu.managed_resources[0].ignored_by_scheduler);
  EXPECT_FALSE(gpu.managed_resources[1].ignored_by_scheduler);
  EXPECT_EQ(c.extenders[1].http_timeout, std::chrono::milliseconds(250));
  EXPECT_TRUE(c.extenders[1].ignorable);
  // The default profile, made explicit to carry NodeResourcesFit's ignoredResources.
  ASSERT_EQ(c.profiles.size(), 1u);
  EXPECT_EQ(c.profiles[0].scheduler_name, "default-scheduler");
  EXPECT_FALSE(c.profiles[0].plugins.has_value());
  ASSERT_EQ(c.profiles[0].plugin_config.size(), 1u);
  EXPECT_EQ(c.profiles[0].plugin_config[0].name, "NodeResourcesFit");
  const YAML::Node ignored = c.profiles[0].plugin_config[0].args["ignoredResources"];
  ASSERT_TRUE(ignored.IsSequence());
  ASSERT_EQ(ignored.size(), 1u);
  EXPECT_EQ(ignored[0].Scalar(), "example.com/gpu-mem");
}

// Upstream replaces a profile's own ignoredResources with the extenders' and keeps its other args.
TEST(DecodeTest, ExtenderIgnoredResourcesReplaceTheProfilesOwn) {
  LoadResult r = Decode(R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: a
  pluginConfig:
  - name: NodeResourcesFit
    args: {ignoredResources: [example.com/other], scoringStrategy: {type: MostAllocated}}
- schedulerName: b
extenders:
- urlPrefix: http://127.0.0.1:8888
  filterVerb: filter
  managedResources: [{name: example.com/gpu-mem, ignoredByScheduler: true}]
)",
                        "cfg.yaml");
  ASSERT_THAT(r.errors, IsEmpty());
  const SchedulerConfiguration& c = r.manifests.scheduler_configs[0];
  ASSERT_EQ(c.profiles.size(), 2u);
  for (const SchedulerProfile& p : c.profiles) {
    ASSERT_EQ(p.plugin_config.size(), 1u) << p.scheduler_name;
    const YAML::Node args = p.plugin_config[0].args;
    ASSERT_EQ(args["ignoredResources"].size(), 1u);
    EXPECT_EQ(args["ignoredResources"][0].Scalar(), "example.com/gpu-mem");
  }
  EXPECT_EQ(c.profiles[0].plugin_config[0].args["scoringStrategy"]["type"].Scalar(),
            "MostAllocated");
}

// Upstream's validateExtenders, message for message.
TEST(DecodeTest, ExtendersAreValidatedAsUpstream) {
  LoadResult r = Decode(R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
- urlPrefix: http://a
  prioritizeVerb: prioritize
  bindVerb: bind
  managedResources: [{name: example.com/gpu}, {name: cpu}]
- urlPrefix: http://b
  bindVerb: bind
  weight: -1
  managedResources: [{name: example.com/gpu}]
- filterVerb: filter
  tlsConfig: {caData: "not base64!"}
)",
                        "cfg.yaml");
  const std::string at = "cfg.yaml: document 1 (KubeSchedulerConfiguration): ";
  EXPECT_THAT(
      r.errors,
      ElementsAre(
          at + "extenders[2].tlsConfig.caData: illegal base64 data",
          at + "extenders[2].urlPrefix: Required value",
          at + "extenders[0].weight: Invalid value: 0: must have a positive weight applied to it",
          at + "extenders[0].managedResources[1].name: Invalid value: \"cpu\": is an invalid "
               "extended resource name",
          at + "extenders[1].managedResources[0].name: Invalid value: \"example.com/gpu\": "
               "duplicate extender managed resource name",
          at + "extenders: Invalid value: \"found 2 extenders implementing bind\": only one "
               "extender can implement bind"));
}

TEST(DecodeTest, SchedulerConfigurationDefaultsAndFields) {
  LoadResult r = Decode(R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: "REPLACE_ME_WITH_KUBE_CONFIG_PATH"}
percentageOfNodesToScore: 30
podMaxBackoffSeconds: 20
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: Coscheduling
    args: {permitWaitingTimeSeconds: 60, podGroupBackoffSeconds: 10}
  plugins:
    multiPoint: {enabled: [{name: Coscheduling}]}
    score: {enabled: [{name: NodeResourcesFit, weight: 2}], disabled: [{name: "*"}]}
- schedulerName: gang
  percentageOfNodesToScore: 100
)");
  ASSERT_THAT(r.errors, IsEmpty());
  const SchedulerConfiguration& c = r.manifests.scheduler_configs[0];
  EXPECT_EQ(c.parallelism, 16);
  EXPECT_EQ(c.percentage_of_nodes_to_score, 30);
  EXPECT_EQ(c.pod_initial_backoff_seconds, 1);
  EXPECT_EQ(c.pod_max_backoff_seconds, 20);
  EXPECT_TRUE(c.leader_election.leader_elect);
  EXPECT_EQ(c.client_connection.kubeconfig, "REPLACE_ME_WITH_KUBE_CONFIG_PATH");
  ASSERT_EQ(c.profiles.size(), 2u);
  ASSERT_TRUE(c.profiles[0].plugins.has_value());
  EXPECT_EQ(c.profiles[0].plugins->score.enabled[0].weight, 2);
  EXPECT_EQ(c.profiles[0].plugins->score.disabled[0].name, "*");
  EXPECT_EQ(c.profiles[0].plugin_config[0].args["podGroupBackoffSeconds"].Scalar(), "10");
  EXPECT_EQ(c.profiles[1].percentage_of_nodes_to_score, 100);
}

TEST(DecodeTest, SchedulerConfigurationRanges) {
  LoadResult r = Decode(R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 120
podInitialBackoffSeconds: 5
podMaxBackoffSeconds: 2
profiles:
- schedulerName: a
- schedulerName: a
)");
  ASSERT_EQ(r.errors.size(), 3u);
  EXPECT_THAT(r.errors[0], HasSubstr("percentageOfNodesToScore: Invalid value: 120"));
  EXPECT_THAT(r.errors[1], HasSubstr("podMaxBackoffSeconds"));
  EXPECT_THAT(r.errors[2], HasSubstr("profiles[1].schedulerName: Duplicate value: \"a\""));
}

// Found by fuzz/config_fuzz.cc: a pluginConfig entry without args (args are optional) ended the
// program with an uncaught YAML::InvalidNode.
TEST(DecodeTest, PluginConfigWithoutArgs) {
  LoadResult r = Decode(R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
  - {name: Coscheduling, args: {mode: PerPod}}
)");
  ASSERT_THAT(r.errors, IsEmpty());
  const std::vector<PluginConfig>& configs =
      r.manifests.scheduler_configs[0].profiles[0].plugin_config;
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].name, "NodeResourcesFit");
  EXPECT_TRUE(configs[0].args.IsNull());
  EXPECT_EQ(configs[1].args["mode"].Scalar(), "PerPod");
}

// Found by fuzz/manifests_fuzz.cc: yaml-cpp 0.7's LoadAll looped for ever, allocating, on a
// document that starts with a stray ','.
TEST(DecodeTest, StrayCommaIsAnErrorNotAHang) {
  LoadResult r = Decode(",\n", "bad.yaml");
  EXPECT_THAT(r.errors, ElementsAre("bad.yaml: line 1, column 1: invalid YAML: a document "
                                    "cannot start here"));
  r = Decode("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n\"x\" , y\n", "bad.yaml");
  EXPECT_THAT(r.errors, ElementsAre("bad.yaml: line 5, column 5: invalid YAML: a document "
                                    "cannot start here"));
}

// A List among its own items, through an alias, recursed until the stack overflowed.
TEST(DecodeTest, AliasInsideItsOwnNodeIsAnError) {
  LoadResult r = Decode("&l {apiVersion: v1, kind: List, items: [*l]}\n", "bad.yaml");
  EXPECT_THAT(r.errors, ElementsAre("bad.yaml: line 1, column 41: invalid YAML: an alias cannot "
                                    "refer to a node that contains it"));
}

// "Billion laughs": 3 KB whose aliases expand to 27 million selector values took minutes.
TEST(DecodeTest, ExcessiveAliasingIsAnError) {
  std::string values = "[a";
  for (int i = 1; i < 300; ++i) values += ", a";
  values += "]";
  std::string text =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: "
      "i}]\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
      "{nodeSelectorTerms: [&t {matchExpressions: [&e {key: k, operator: In, values: " +
      values + "}";
  for (int i = 1; i < 300; ++i) text += ", *e";
  text += "]}";
  for (int i = 1; i < 300; ++i) text += ", *t";
  text += "]}}}\n";
  LoadResult r = Decode(text, "bad.yaml");
  EXPECT_THAT(r.errors, ElementsAre("bad.yaml: line 6, column 2256: invalid YAML: excessive "
                                    "aliasing: aliases expand the document past 100000 nodes, "
                                    "more than 10 times its own 336"));
}

// Aliases in moderation are fine.
TEST(DecodeTest, AliasesAreExpanded) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: List
items:
- &pod {apiVersion: v1, kind: Pod, metadata: {name: a, labels: &labels {app: web}},
        spec: {containers: [&c {name: c, image: i, resources: &r {requests: {cpu: "1"}}}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: b, labels: *labels},
   spec: {containers: [*c, {name: d, image: i, resources: *r}]}}
)");
  ASSERT_THAT(r.errors, IsEmpty());
  ASSERT_EQ(r.manifests.pods.size(), 2u);
  EXPECT_EQ(r.manifests.pods[1].metadata.labels, r.manifests.pods[0].metadata.labels);
  EXPECT_EQ(PodRequests(r.manifests.pods[1]).milli_cpu, 2000);
}

TEST(DecodeTest, EmptyDocumentsAreSkipped) {
  LoadResult r = Decode("---\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ml}\n---\n");
  EXPECT_THAT(r.errors, IsEmpty());
  ASSERT_EQ(r.manifests.namespaces.size(), 1u);
  // The leading "---" opens document 1 (empty); the second opens document 2.
  EXPECT_EQ(r.manifests.order[0].source.document, 2);
}

TEST(DecodeTest, OtherKinds) {
  LoadResult r = Decode(R"(
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb}
spec: {minAvailable: 50%, selector: {matchLabels: {app: a}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  serviceName: db
  podManagementPolicy: Parallel
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: i}]}
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: kube-scheduler, namespace: kube-system}
spec: {holderIdentity: muster-1, leaseDurationSeconds: 15}
---
apiVersion: v1
kind: Binding
metadata: {name: p}
target: {kind: Node, name: n1}
---
apiVersion: v1
kind: Event
metadata: {name: e}
involvedObject: {kind: Pod, name: p, namespace: default}
type: Warning
reason: FailedScheduling
message: "0/3 nodes are available"
)");
  ASSERT_THAT(r.errors, IsEmpty());
  EXPECT_TRUE(r.manifests.pod_disruption_budgets[0].min_available->is_string);
  EXPECT_EQ(r.manifests.stateful_sets[0].pod_management_policy, PodManagementPolicy::kParallel);
  EXPECT_EQ(r.manifests.leases[0].holder_identity, "muster-1");
  EXPECT_EQ(r.manifests.bindings[0].target.name, "n1");
  EXPECT_EQ(r.manifests.events[0].reason, "FailedScheduling");
}

TEST(DecodeTest, PodDisruptionBudgetDisruptedPods) {
  LoadResult r = Decode(R"(
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: a}}}
status:
  disruptionsAllowed: 1
  disruptedPods: {web-2: "2026-11-25T10:00:00Z", web-0: "2026-11-25T10:00:01Z"}
)");
  ASSERT_THAT(r.errors, IsEmpty());
  EXPECT_THAT(r.manifests.pod_disruption_budgets[0].status.disrupted_pods,
              ElementsAre("web-0", "web-2"));
  LoadResult bad = Decode(R"(
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb}
spec: {maxUnavailable: 1}
status: {disruptedPods: {web-0: yesterday}}
)");
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_THAT(bad.errors[0], HasSubstr("status.disruptedPods.web-0: invalid RFC 3339 time"));
}

// LoadManifests' overrides (compare's --a-file and --b-file): an object takes the place of the
// one of the same kind, namespace and name read before it, where it was; one that replaces
// nothing is added; two of the same name among the overrides are a duplicate.
TEST(LoadManifestsTest, OverridesTakeThePlaceOfTheObjectsTheyName) {
  const std::string dir = ::testing::TempDir();
  const std::string overrides = dir + "/muster-overrides.yaml";
  std::ofstream(overrides) << R"(apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: nginx}
spec: {minMember: 4}
---
apiVersion: v1
kind: Node
metadata: {name: extra}
status: {allocatable: {cpu: "2"}}
---
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: other
)";
  std::istringstream no_stdin;
  const std::string base = std::string(kSeedDemo) + R"(
---
apiVersion: v1
kind: Node
metadata: {name: node-1}
---
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
)";
  const LoadResult r =
      LoadManifests({}, no_stdin, FieldValidation::kStrict, {{"base.yaml", base}}, {overrides});
  ASSERT_THAT(r.errors, IsEmpty());
  const Manifests& m = r.manifests;
  ASSERT_EQ(m.order.size(), 5u);
  // In the order of the base: the PodGroup first, now with minMember 4, from the override.
  EXPECT_EQ(m.order[0].kind, "PodGroup");
  EXPECT_EQ(m.order[0].source.file, overrides);
  ASSERT_EQ(m.pod_groups.size(), 1u);
  EXPECT_EQ(m.pod_groups[m.order[0].index].spec.min_member, 4);
  EXPECT_EQ(m.order[1].kind, "ReplicaSet");
  EXPECT_EQ(m.order[2].kind, "Node");
  EXPECT_EQ(m.nodes[m.order[2].index].metadata.name, "node-1");
  // The configuration (a kind without metadata) is replaced in its place too.
  EXPECT_EQ(m.order[3].kind, "KubeSchedulerConfiguration");
  ASSERT_EQ(m.scheduler_configs.size(), 1u);
  EXPECT_EQ(m.scheduler_configs[m.order[3].index].profiles.at(0).scheduler_name, "other");
  // The new node is added at the end, its index re-counted.
  EXPECT_EQ(m.order[4].kind, "Node");
  ASSERT_EQ(m.nodes.size(), 2u);
  EXPECT_EQ(m.nodes[m.order[4].index].metadata.name, "extra");
  EXPECT_THAT(r.replaced,
              ElementsAre(fmt::format("PodGroup default/nginx ({}: document 1 replaces base.yaml: "
                                      "document 1)",
                                      overrides),
                          fmt::format("KubeSchedulerConfiguration ({}: document 3 replaces "
                                      "base.yaml: document 4)",
                                      overrides)));

  std::ofstream(overrides) << R"(apiVersion: v1
kind: Node
metadata: {name: node-1}
---
apiVersion: v1
kind: Node
metadata: {name: node-1}
)";
  const LoadResult twice =
      LoadManifests({}, no_stdin, FieldValidation::kStrict, {{"base.yaml", base}}, {overrides});
  ASSERT_EQ(twice.errors.size(), 1u);
  EXPECT_THAT(twice.errors[0], HasSubstr(overrides +
                                         ": document 2 (Node node-1): metadata.name: "
                                         "Duplicate value: already defined at " +
                                         overrides + ": document 1"));
}

}  // namespace
}  // namespace muster::api
