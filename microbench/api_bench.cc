// Micro-benchmarks of the api layer's hot paths: the operations filter and score run per node.

#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "muster/api/labels.h"
#include "muster/api/node_selector.h"
#include "muster/api/pod_resources.h"
#include "muster/api/quantity.h"
#include "muster/api/taints.h"
#include "muster/api/testing/builders.h"

namespace muster::api {
namespace {

LabelSet NodeLabels(int i) {
  LabelSet labels;
  labels.Set(Symbol("kubernetes.io/hostname"), Symbol("node-" + std::to_string(i)));
  labels.Set(Symbol("topology.kubernetes.io/zone"), Symbol("zone-" + std::to_string(i % 3)));
  labels.Set(Symbol("node.kubernetes.io/instance-type"), Symbol("m5.xlarge"));
  labels.Set(Symbol("kubernetes.io/os"), Symbol("linux"));
  return labels;
}

void BM_SymbolIntern(benchmark::State& state) {
  const std::string text = "topology.kubernetes.io/zone";
  for (auto _ : state) benchmark::DoNotOptimize(Symbol(text));
}
BENCHMARK(BM_SymbolIntern);

void BM_LabelSelectorMatches(benchmark::State& state) {
  LabelSelector sel;
  sel.match_labels.push_back({Symbol("kubernetes.io/os"), Symbol("linux")});
  sel.match_expressions.push_back({Symbol("topology.kubernetes.io/zone"),
                                   SelectorOperator::kIn,
                                   {Symbol("zone-0"), Symbol("zone-1")},
                                   0});
  PrepareLabelSelector(sel);
  std::vector<LabelSet> nodes;
  for (int i = 0; i < 1024; ++i) nodes.push_back(NodeLabels(i));
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(sel.Matches(nodes[i++ & 1023]));
}
BENCHMARK(BM_LabelSelectorMatches);

void BM_NodeSelectorMatches(benchmark::State& state) {
  NodeSelector sel;
  NodeSelectorTerm term;
  term.match_expressions.push_back({Symbol("node.kubernetes.io/instance-type"),
                                    SelectorOperator::kNotIn,
                                    {Symbol("t3.small")},
                                    0});
  term.match_fields.push_back(
      {Symbol("metadata.name"), SelectorOperator::kIn, {Symbol("node-7")}, 0});
  sel.terms.push_back(term);
  PrepareNodeSelector(sel);
  std::vector<LabelSet> nodes;
  std::vector<Symbol> names;
  for (int i = 0; i < 1024; ++i) {
    nodes.push_back(NodeLabels(i));
    names.emplace_back("node-" + std::to_string(i));
  }
  size_t i = 0;
  for (auto _ : state) {
    const size_t k = i++ & 1023;
    benchmark::DoNotOptimize(sel.Matches(nodes[k], names[k]));
  }
}
BENCHMARK(BM_NodeSelectorMatches);

void BM_FindUntoleratedTaint(benchmark::State& state) {
  std::vector<Taint> taints = {{Symbol("dedicated"), Symbol("gpu"), TaintEffect::kNoSchedule},
                               {Symbol("spot"), Symbol("true"), TaintEffect::kPreferNoSchedule}};
  std::vector<Toleration> tolerations(1);
  tolerations[0].key = Symbol("dedicated");
  tolerations[0].value = Symbol("gpu");
  for (auto _ : state) {
    benchmark::DoNotOptimize(FindMatchingUntoleratedTaint(taints, tolerations, BlocksScheduling));
  }
}
BENCHMARK(BM_FindUntoleratedTaint);

void BM_QuantityParse(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(Quantity::Parse("1536Mi"));
}
BENCHMARK(BM_QuantityParse);

void BM_PodRequests(benchmark::State& state) {
  Pod pod = testing::MakePod()
                .Name("p")
                .InitReq({{"cpu", "10"}}, true)
                .InitReq({{"cpu", "200"}, {"memory", "1Gi"}})
                .Req({{"cpu", "100m"}, {"memory", "500Mi"}})
                .Req({{"cpu", "1"}})
                .Obj();
  for (auto _ : state) benchmark::DoNotOptimize(PodRequests(pod, {.non_zero = true}));
}
BENCHMARK(BM_PodRequests);

}  // namespace
}  // namespace muster::api
