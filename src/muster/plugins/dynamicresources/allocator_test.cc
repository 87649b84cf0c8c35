#include "muster/plugins/dynamicresources/allocator.h"

#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/manifests.h"

// Cases from upstream's structured allocator tests (allocatortesting/allocator_testing.go):
// node-1 labelled region=region-1 and planet=earth, node-2 region=region-2; class-a and class-b
// select the devices of driver-a and driver-b.

namespace muster::plugins::dynamicresources {
namespace {

using api::Symbol;

template <typename T>
T Decode(const std::string& yaml) {
  std::vector<std::string> errors;
  std::optional<T> out = api::DecodeAs<T>(YAML::Load(yaml), "resource.k8s.io/v1", "test", &errors);
  EXPECT_TRUE(errors.empty()) << ::testing::PrintToString(errors) << "\n" << yaml;
  return out ? *out : T{};
}

// A slice `name` of `pool` (generation 1 unless given, one slice unless given) on `where`
// ("nodeName: node-1", "allNodes: true", a nodeSelector...), with devices given as YAML list
// items.
std::string Slice(std::string_view name, std::string_view driver, std::string_view pool,
                  std::string_view where, std::string_view devices, int generation = 1,
                  int count = 1) {
  return fmt::format(
      "metadata: {{name: {}}}\n"
      "spec:\n"
      "  driver: {}\n"
      "  pool: {{name: {}, generation: {}, resourceSliceCount: {}}}\n"
      "  {}\n"
      "  devices: {}\n",
      name, driver, pool, generation, count, where, devices);
}

// A claim with the given requests (and constraints), as YAML.
std::string Claim(std::string_view name, std::string_view requests,
                  std::string_view constraints = "[]") {
  return fmt::format(
      "metadata: {{name: {}, namespace: default}}\n"
      "spec:\n"
      "  devices:\n"
      "    requests: {}\n"
      "    constraints: {}\n",
      name, requests, constraints);
}

class AllocatorTest : public ::testing::Test {
 protected:
  void AddClass(std::string_view name, std::string_view driver) {
    classes_[std::string(name)] = Decode<api::DeviceClass>(fmt::format(
        "metadata: {{name: {}}}\nspec: {{selectors: [{{cel: {{expression: 'device.driver == "
        "\"{}\"'}}}}]}}",
        name, driver));
  }
  void AddSlice(const std::string& yaml) { slices_.push_back(Decode<api::ResourceSlice>(yaml)); }
  void AddClaim(const std::string& yaml) { claims_.push_back(Decode<api::ResourceClaim>(yaml)); }

  // The inventory and the allocator, from the slices and classes added so far.
  void Build() {
    std::vector<const api::ResourceSlice*> slices;
    for (const api::ResourceSlice& s : slices_) slices.push_back(&s);
    inventory_ = std::make_unique<Inventory>(slices);
    allocator_ = std::make_unique<Allocator>(*inventory_, allocated_, pending_, [this](Symbol n) {
      auto it = classes_.find(n.string());
      return it == classes_.end() ? nullptr : &it->second;
    });
  }
  std::vector<const api::ResourceClaim*> Claims() const {
    std::vector<const api::ResourceClaim*> claims;
    for (const api::ResourceClaim& c : claims_) claims.push_back(&c);
    return claims;
  }
  static api::LabelSet Labels(std::string_view node) {
    api::LabelSet labels;
    if (node == "node-1") {
      labels.Set(Symbol("region"), Symbol("region-1"));
      labels.Set(Symbol("planet"), Symbol("earth"));
    } else {
      labels.Set(Symbol("region"), Symbol("region-2"));
    }
    return labels;
  }
  AllocationOutcome Allocate(std::string_view node) {
    Build();
    return allocator_->Allocate(Labels(node), Symbol(node), Claims());
  }

  // "request=driver/pool/device" of each claim's devices, claims separated by "; ".
  static std::string Devices(const AllocationOutcome& out) {
    std::string s;
    for (const api::AllocationResult& r : out.results) {
      if (!s.empty()) s += "; ";
      std::string one;
      for (const api::DeviceRequestAllocationResult& d : r.devices) {
        one += fmt::format("{}{}={}", one.empty() ? "" : " ", d.request, d.DeviceName());
      }
      s += one;
    }
    return s;
  }

  std::map<std::string, api::DeviceClass> classes_;
  std::vector<api::ResourceSlice> slices_;
  std::vector<api::ResourceClaim> claims_;
  DeviceSet allocated_;
  DeviceSet pending_;
  std::unique_ptr<Inventory> inventory_;
  std::unique_ptr<Allocator> allocator_;
};

constexpr std::string_view kOneRequest = "[{name: req-0, exactly: {deviceClassName: class-a}}]";

TEST_F(AllocatorTest, Simple) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1", "[{name: device-1}]"));
  AddClaim(Claim("claim-0", kOneRequest));
  const AllocationOutcome out = Allocate("node-1");
  ASSERT_TRUE(out.ok()) << out.error;
  EXPECT_EQ(Devices(out), "req-0=driver-a/pool-1/device-1");
  // A device on one node: the claim is available on that node only.
  ASSERT_TRUE(out.results[0].node_selector);
  const api::NodeSelectorTerm& term = out.results[0].node_selector->terms.at(0);
  ASSERT_EQ(term.match_fields.size(), 1u);
  EXPECT_EQ(term.match_fields[0].key.str(), "metadata.name");
  EXPECT_EQ(term.match_fields[0].values, std::vector<Symbol>{Symbol("node-1")});
}

// One preparation of the claims serves the search on every node, each search starting afresh
// (here a firstAvailable whose alternative differs by node); asked for a verdict, the search
// says whether it found devices and builds no results.
TEST_F(AllocatorTest, OnePreparationServesEveryNode) {
  AddClass("class-a", "driver-a");
  AddClass("class-b", "driver-b");
  AddSlice(Slice("slice-1", "driver-b", "pool-1", "nodeName: node-1", "[{name: device-1}]"));
  AddSlice(Slice("slice-2", "driver-a", "pool-2", "nodeName: node-2", "[{name: device-1}]"));
  AddClaim(Claim("claim-0",
                 "[{name: req-0, firstAvailable: ["
                 "{name: sub-0, deviceClassName: class-a},"
                 " {name: sub-1, deviceClassName: class-b}]}]"));
  Build();
  const std::vector<const api::ResourceClaim*> claims = Claims();
  const ClaimRequests requests = allocator_->Prepare(claims);
  const AllocationOutcome verdict = allocator_->Allocate(
      Labels("node-2"), Symbol("node-2"), requests, nullptr, Allocator::Answer::kVerdict);
  EXPECT_TRUE(verdict.ok());
  EXPECT_TRUE(verdict.results.empty());
  EXPECT_EQ(Devices(allocator_->Allocate(Labels("node-1"), Symbol("node-1"), requests)),
            "req-0/sub-1=driver-b/pool-1/device-1");
  EXPECT_EQ(Devices(allocator_->Allocate(Labels("node-2"), Symbol("node-2"), requests)),
            "req-0/sub-0=driver-a/pool-2/device-1");
  const AllocationOutcome none = allocator_->Allocate(Labels("node-3"), Symbol("node-3"), requests,
                                                      nullptr, Allocator::Answer::kVerdict);
  EXPECT_FALSE(none.found);
  EXPECT_EQ(none.error, "");
}

// A device two claims hold (a cluster that went wrong) stays in use until both let it go.
TEST(DeviceSetTest, ADeviceStaysInUseUntilEveryHolderLetsGo) {
  const DeviceId id{Symbol("driver-a"), Symbol("pool-1"), Symbol("device-1")};
  DeviceSet set;
  set.insert(id);
  set.insert(id);
  set.erase(id);
  EXPECT_TRUE(set.contains(id));
  set.erase(id);
  EXPECT_FALSE(set.contains(id));
  EXPECT_TRUE(set.empty());
  set.erase(id);  // no holder: nothing to let go
  EXPECT_TRUE(set.empty());
}

TEST_F(AllocatorTest, OtherNode) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-b", "pool-1", "nodeName: node-1", "[{name: device-1}]"));
  AddSlice(Slice("slice-2", "driver-a", "pool-2", "nodeName: node-2", "[{name: device-1}]"));
  AddClaim(Claim("claim-0", kOneRequest));
  EXPECT_EQ(Devices(Allocate("node-2")), "req-0=driver-a/pool-2/device-1");
  const AllocationOutcome on_one = Allocate("node-1");
  EXPECT_TRUE(on_one.results.empty());
  EXPECT_EQ(on_one.error, "");
}

TEST_F(AllocatorTest, SmallAndLargeBacktrackRequests) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1",
                 "[{name: device-2, capacity: {memory: {value: 2Gi}}},"
                 " {name: device-1, capacity: {memory: {value: 1Gi}}}]"));
  auto request = [](std::string_view name, std::string_view size) {
    return fmt::format(
        "{{name: {}, exactly: {{deviceClassName: class-a, selectors: [{{cel: {{expression: "
        "'device.capacity[\"driver-a\"].memory.compareTo(quantity(\"{}\")) >= 0'}}}}]}}}}",
        name, size);
  };
  AddClaim(
      Claim("claim-0", fmt::format("[{}, {}]", request("req-0", "1Gi"), request("req-1", "2Gi"))));
  // req-0 first takes device-2, which req-1 needs: the search backs up and gives it device-1.
  EXPECT_EQ(Devices(Allocate("node-1")),
            "req-0=driver-a/pool-1/device-1 req-1=driver-a/pool-1/device-2");
}

TEST_F(AllocatorTest, DevicesSplitAcrossSlices) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1", "[{name: device-1}]"));
  AddSlice(Slice("slice-2", "driver-a", "pool-2", "nodeName: node-1", "[{name: device-2}]"));
  AddClaim(Claim("claim-0", "[{name: req-0, exactly: {deviceClassName: class-a, count: 2}}]"));
  EXPECT_EQ(Devices(Allocate("node-1")),
            "req-0=driver-a/pool-1/device-1 req-0=driver-a/pool-2/device-2");
}

TEST_F(AllocatorTest, ObsoleteSliceMakesThePoolIncomplete) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1", "[{name: device-1}]", 1, 2));
  AddSlice(Slice("slice-2", "driver-a", "pool-1", "nodeName: node-1", "[{name: device-2}]", 2, 2));
  AddClaim(Claim("claim-0", kOneRequest));
  const AllocationOutcome out = Allocate("node-1");
  EXPECT_TRUE(out.results.empty());
  EXPECT_EQ(out.error, "");
}

TEST_F(AllocatorTest, DuplicateDevicesMakeThePoolInvalid) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1", "[{name: device-1}]", 1, 2));
  AddSlice(Slice("slice-2", "driver-a", "pool-1", "nodeName: node-1", "[{name: device-1}]", 1, 2));
  AddClaim(Claim("claim-0", kOneRequest));
  const AllocationOutcome out = Allocate("node-1");
  EXPECT_TRUE(out.results.empty());
  EXPECT_EQ(out.error, "invalid resource pools were encountered");
  EXPECT_TRUE(out.node_error);
  // Another pool with a free device: the invalid one does not matter.
  AddSlice(Slice("slice-3", "driver-a", "pool-2", "nodeName: node-1", "[{name: device-2}]"));
  EXPECT_EQ(Devices(Allocate("node-1")), "req-0=driver-a/pool-2/device-2");
}

TEST_F(AllocatorTest, NotEnoughDevices) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1", "[{name: device-1}]"));
  AddClaim(Claim("claim-0", kOneRequest));
  AddClaim(Claim("claim-1", kOneRequest));
  const AllocationOutcome out = Allocate("node-1");
  EXPECT_TRUE(out.results.empty());
  EXPECT_EQ(out.error, "");
}

TEST_F(AllocatorTest, DiagnoseSaysWhyNothingFits) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1", "[{name: device-1}]"));
  AddClaim(Claim("claim-0", kOneRequest));
  AddClaim(Claim("claim-1", kOneRequest));
  ASSERT_TRUE(Allocate("node-1").results.empty());
  std::vector<const api::ResourceClaim*> claims;
  for (const api::ResourceClaim& c : claims_) claims.push_back(&c);
  const api::LabelSet none;
  EXPECT_EQ(allocator_->Diagnose(none, Symbol("node-1"), claims),
            "each request can be met alone, but not all together (the claims' constraints, or "
            "requests competing for the same devices)");
  EXPECT_EQ(allocator_->Diagnose(none, Symbol("node-2"), claims),
            "claim default/claim-0, request req-0: no device of class class-a on the node");
  allocated_.insert(DeviceId{Symbol("driver-a"), Symbol("pool-1"), Symbol("device-1")});
  ASSERT_TRUE(Allocate("node-1").results.empty());
  EXPECT_EQ(allocator_->Diagnose(none, Symbol("node-1"), claims),
            "claim default/claim-0, request req-0: 1 device(s) of class class-a match on the "
            "node, 0 free, 1 needed");
}

TEST_F(AllocatorTest, UnknownClass) {
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1", "[{name: device-1}]"));
  AddClaim(Claim("claim-0", kOneRequest));
  EXPECT_EQ(Allocate("node-1").error,
            "claim default/claim-0, request req-0: could not retrieve device class class-a: "
            "deviceclass.resource.k8s.io \"class-a\" not found");
}

TEST_F(AllocatorTest, AllDevicesOfAnIncompletePool) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1", "[{name: device-1}]", 1, 2));
  AddClaim(Claim("claim-0",
                 "[{name: req-0, exactly: {deviceClassName: class-a, "
                 "allocationMode: All}}]"));
  EXPECT_EQ(Allocate("node-1").error,
            "claim default/claim-0, request req-0: asks for all devices, but resource pool "
            "driver-a/pool-1 is currently being updated");
}

TEST_F(AllocatorTest, AllDevicesPlusAnother) {
  AddClass("class-a", "driver-a");
  AddClass("class-b", "driver-b");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1",
                 "[{name: device-1}, {name: device-2}]"));
  AddSlice(Slice("slice-2", "driver-b", "pool-1", "nodeName: node-1", "[{name: device-1}]"));
  AddClaim(Claim("claim-0",
                 "[{name: req-0, exactly: {deviceClassName: class-a, "
                 "allocationMode: All}}]"));
  AddClaim(Claim("claim-1", "[{name: req-0, exactly: {deviceClassName: class-b}}]"));
  EXPECT_EQ(Devices(Allocate("node-1")),
            "req-0=driver-a/pool-1/device-1 req-0=driver-a/pool-1/device-2; "
            "req-0=driver-b/pool-1/device-1");
}

TEST_F(AllocatorTest, AllDevicesWithOneTakenHasNoSolution) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1",
                 "[{name: device-1}, {name: device-2}]"));
  AddClaim(Claim("claim-0",
                 "[{name: req-0, exactly: {deviceClassName: class-a, "
                 "allocationMode: All}}]"));
  allocated_.insert(DeviceId{Symbol("driver-a"), Symbol("pool-1"), Symbol("device-1")});
  const AllocationOutcome out = Allocate("node-1");
  EXPECT_TRUE(out.results.empty());
  EXPECT_EQ(out.error, "");
  // Admin access ignores allocations: both devices, marked adminAccess.
  claims_.clear();
  AddClaim(Claim("claim-0",
                 "[{name: req-0, exactly: {deviceClassName: class-a, "
                 "allocationMode: All, adminAccess: true}}]"));
  const AllocationOutcome admin = Allocate("node-1");
  EXPECT_EQ(Devices(admin), "req-0=driver-a/pool-1/device-1 req-0=driver-a/pool-1/device-2");
  EXPECT_TRUE(admin.results.at(0).devices.at(0).admin_access);
}

TEST_F(AllocatorTest, NetworkAttachedDevice) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-a", "pool-1",
                 "nodeSelector: {nodeSelectorTerms: [{matchExpressions: "
                 "[{key: region, operator: In, values: [region-1]}]}]}",
                 "[{name: device-1}]"));
  AddClaim(Claim("claim-0", kOneRequest));
  const AllocationOutcome out = Allocate("node-1");
  ASSERT_TRUE(out.ok()) << out.error;
  ASSERT_TRUE(out.results[0].node_selector);
  const api::NodeSelectorTerm& term = out.results[0].node_selector->terms.at(0);
  ASSERT_EQ(term.match_expressions.size(), 1u);
  EXPECT_EQ(term.match_expressions[0].key.str(), "region");
  EXPECT_TRUE(term.match_fields.empty());
  EXPECT_TRUE(Allocate("node-2").results.empty());
}

TEST_F(AllocatorTest, ManyNetworkAttachedDevicesCombineTheirSelectors) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-a", "pool-1",
                 "nodeSelector: {nodeSelectorTerms: [{matchExpressions: "
                 "[{key: region, operator: In, values: [region-1]}]}]}",
                 "[{name: device-1}]"));
  AddSlice(Slice("slice-2", "driver-a", "pool-2", "allNodes: true", "[{name: device-1}]"));
  AddSlice(Slice("slice-3", "driver-a", "pool-3",
                 "nodeSelector: {nodeSelectorTerms: [{matchExpressions: "
                 "[{key: planet, operator: In, values: [earth]}]}]}",
                 "[{name: device-1}]"));
  AddClaim(Claim("claim-0", "[{name: req-0, exactly: {deviceClassName: class-a, count: 3}}]"));
  const AllocationOutcome out = Allocate("node-1");
  ASSERT_TRUE(out.ok()) << out.error;
  const api::NodeSelectorTerm& term = out.results[0].node_selector->terms.at(0);
  ASSERT_EQ(term.match_expressions.size(), 2u);
  EXPECT_EQ(term.match_expressions[0].key.str(), "region");
  EXPECT_EQ(term.match_expressions[1].key.str(), "planet");
  // With one device on a node, the claim is that node's.
  AddSlice(Slice("slice-4", "driver-a", "pool-4", "nodeName: node-1", "[{name: device-1}]"));
  claims_.clear();
  AddClaim(Claim("claim-0", "[{name: req-0, exactly: {deviceClassName: class-a, count: 4}}]"));
  const AllocationOutcome local = Allocate("node-1");
  ASSERT_TRUE(local.ok()) << local.error;
  EXPECT_TRUE(local.results[0].node_selector->terms.at(0).match_expressions.empty());
  EXPECT_EQ(local.results[0].node_selector->terms.at(0).match_fields.at(0).key.str(),
            "metadata.name");
}

TEST_F(AllocatorTest, MatchAttributeConstraint) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1",
                 "[{name: device-1, attributes: {numa: {int: 1}}},"
                 " {name: device-2, attributes: {numa: {int: 2}}},"
                 " {name: device-3, attributes: {numa: {int: 1}}}]"));
  AddClaim(Claim("claim-0", "[{name: req-0, exactly: {deviceClassName: class-a, count: 2}}]",
                 "[{matchAttribute: driver-a/numa}]"));
  EXPECT_EQ(Devices(Allocate("node-1")),
            "req-0=driver-a/pool-1/device-1 req-0=driver-a/pool-1/device-3");
  // All of them cannot share a numa node: a constraint All cannot meet is an error.
  claims_.clear();
  AddClaim(Claim("claim-0",
                 "[{name: req-0, exactly: {deviceClassName: class-a, "
                 "allocationMode: All}}]",
                 "[{matchAttribute: driver-a/numa}]"));
  EXPECT_EQ(Allocate("node-1").error,
            "claim default/claim-0, request req-0: cannot add device driver-a/pool-1/device-2 "
            "because a claim constraint would not be satisfied");
  // An attribute no device has: no solution.
  claims_.clear();
  AddClaim(Claim("claim-0", kOneRequest, "[{matchAttribute: driver-a/nosuch}]"));
  EXPECT_TRUE(Allocate("node-1").results.empty());
}

TEST_F(AllocatorTest, ConstraintForOneRequestRetries) {
  AddClass("class-a", "driver-a");
  AddSlice(
      Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1",
            "[{name: device-1, attributes: {driverVersion: {version: 1.0.0}, s: {string: a}}},"
            " {name: device-2, attributes: {driverVersion: {version: 2.0.0}, s: {string: b}}},"
            " {name: device-3, attributes: {driverVersion: {version: 3.0.0}, s: {string: b}}}]"));
  AddClaim(Claim("claim-0",
                 "[{name: req-0, exactly: {deviceClassName: class-a}},"
                 " {name: req-1, exactly: {deviceClassName: class-a}}]",
                 "[{requests: [req-0], matchAttribute: driver-a/driverVersion},"
                 " {matchAttribute: driver-a/s}]"));
  EXPECT_EQ(Devices(Allocate("node-1")),
            "req-0=driver-a/pool-1/device-2 req-1=driver-a/pool-1/device-3");
}

TEST_F(AllocatorTest, CelRuntimeErrorFailsTheAllocation) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1", "[{name: device-1}]"));
  AddClaim(Claim("claim-0",
                 "[{name: req-0, exactly: {deviceClassName: class-a, selectors: "
                 "[{cel: {expression: 'device.attributes[\"driver-a\"].healthy'}}]}}]"));
  EXPECT_EQ(Allocate("node-1").error,
            "claim default/claim-0: selector #0: CEL runtime error: no such key: healthy");
}

TEST_F(AllocatorTest, TooManyDevicesForOneClaim) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1", "[{name: device-1}]"));
  AddClaim(Claim("claim-0", "[{name: req-0, exactly: {deviceClassName: class-a, count: 500}}]"));
  EXPECT_EQ(Allocate("node-1").error,
            "claim default/claim-0: number of requested devices 500 exceeds the claim limit of "
            "32");
}

TEST_F(AllocatorTest, FirstAvailableTakesTheFirstSubrequestThatFits) {
  AddClass("class-a", "driver-a");
  AddClass("class-b", "driver-b");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1", "[{name: device-1}]"));
  AddClaim(Claim("claim-0",
                 "[{name: req-0, firstAvailable: ["
                 "{name: sub-0, deviceClassName: class-b},"
                 " {name: sub-1, deviceClassName: class-a}]}]"));
  EXPECT_EQ(Devices(Allocate("node-1")), "req-0/sub-1=driver-a/pool-1/device-1");
}

TEST_F(AllocatorTest, FirstAvailableBacktracks) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1",
                 "[{name: device-1, capacity: {memory: {value: 8Gi}}}]"));
  AddSlice(Slice("slice-2", "driver-a", "pool-2", "nodeName: node-1",
                 "[{name: device-2, capacity: {memory: {value: 4Gi}}}]"));
  auto sub = [](std::string_view name, std::string_view size) {
    return fmt::format(
        "{{name: {}, deviceClassName: class-a, selectors: [{{cel: {{expression: "
        "'device.capacity[\"driver-a\"].memory.compareTo(quantity(\"{}\")) >= 0'}}}}]}}",
        name, size);
  };
  AddClaim(Claim("claim-0",
                 fmt::format("[{{name: req-0, firstAvailable: [{}, {}]}},"
                             " {{name: req-1, exactly: {{deviceClassName: class-a, selectors: "
                             "[{{cel: {{expression: 'device.capacity[\"driver-a\"].memory."
                             "compareTo(quantity(\"8Gi\")) >= 0'}}}}]}}}}]",
                             sub("sub-0", "8Gi"), sub("sub-1", "4Gi"))));
  EXPECT_EQ(Devices(Allocate("node-1")),
            "req-0/sub-1=driver-a/pool-2/device-2 req-1=driver-a/pool-1/device-1");
}

TEST_F(AllocatorTest, TaintsKeepDevicesUnlessTolerated) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1",
                 "[{name: device-1, taints: [{key: k, value: value-1, effect: NoSchedule}]},"
                 " {name: device-2, taints: [{key: k, value: value-2, effect: NoExecute}]}]"));
  AddClaim(Claim("claim-0", kOneRequest));
  EXPECT_TRUE(Allocate("node-1").results.empty());
  claims_.clear();
  AddClaim(Claim("claim-0",
                 "[{name: req-0, exactly: {deviceClassName: class-a, tolerations: "
                 "[{key: k, operator: Equal, value: value-2, effect: NoExecute}]}}]"));
  const AllocationOutcome out = Allocate("node-1");
  EXPECT_EQ(Devices(out), "req-0=driver-a/pool-1/device-2");
  EXPECT_EQ(out.results.at(0).devices.at(0).tolerations.size(), 1u);
  // A taint of effect None keeps nothing away.
  slices_.clear();
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1",
                 "[{name: device-1, taints: [{key: k, effect: None}]}]"));
  claims_.clear();
  AddClaim(Claim("claim-0", kOneRequest));
  EXPECT_EQ(Devices(Allocate("node-1")), "req-0=driver-a/pool-1/device-1");
}

TEST_F(AllocatorTest, PartitionableDevicesShareCounters) {
  AddClass("class-a", "driver-a");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1",
                 "[{name: device-1, consumesCounters: [{counterSet: counter-set-1, counters: "
                 "{memory: {value: 4Gi}}}]},"
                 " {name: device-2, consumesCounters: [{counterSet: counter-set-1, counters: "
                 "{memory: {value: 16Gi}}}]}]",
                 1, 2));
  slices_.push_back(Decode<api::ResourceSlice>(
      "metadata: {name: slice-2}\n"
      "spec:\n"
      "  driver: driver-a\n"
      "  pool: {name: pool-1, generation: 1, resourceSliceCount: 2}\n"
      "  nodeName: node-1\n"
      "  sharedCounters: [{name: counter-set-1, counters: {memory: {value: 18Gi}}}]\n"));
  AddClaim(Claim("claim-0", kOneRequest));
  EXPECT_EQ(Devices(Allocate("node-1")), "req-0=driver-a/pool-1/device-1");
  // With the 16Gi partition in use, 2Gi are left: not enough for the 4Gi one.
  allocated_.insert(DeviceId{Symbol("driver-a"), Symbol("pool-1"), Symbol("device-2")});
  const AllocationOutcome out = Allocate("node-1");
  EXPECT_TRUE(out.results.empty());
  EXPECT_EQ(out.error, "");
}

TEST_F(AllocatorTest, ConfigurationFromClassAndClaim) {
  classes_["class-a"] = Decode<api::DeviceClass>(
      "metadata: {name: class-a}\n"
      "spec:\n"
      "  selectors: [{cel: {expression: 'device.driver == \"driver-a\"'}}]\n"
      "  config: [{opaque: {driver: driver-a, parameters: {mode: shared}}}]\n");
  AddSlice(Slice("slice-1", "driver-a", "pool-1", "nodeName: node-1", "[{name: device-1}]"));
  AddClaim(
      "metadata: {name: claim-0, namespace: default}\n"
      "spec:\n"
      "  devices:\n"
      "    requests: [{name: req-0, exactly: {deviceClassName: class-a}}]\n"
      "    config: [{requests: [req-0], opaque: {driver: driver-a, parameters: {n: 1}}}]\n");
  const AllocationOutcome out = Allocate("node-1");
  ASSERT_TRUE(out.ok()) << out.error;
  const std::vector<api::DeviceAllocationConfiguration>& config = out.results[0].config;
  ASSERT_EQ(config.size(), 2u);
  EXPECT_TRUE(config[0].from_class);
  EXPECT_TRUE(config[0].requests.empty());  // it covers every request
  EXPECT_EQ(config[0].opaque.parameters, R"({"mode":"shared"})");
  EXPECT_FALSE(config[1].from_class);
  EXPECT_EQ(config[1].requests, std::vector<Symbol>{Symbol("req-0")});
  EXPECT_EQ(config[1].opaque.parameters, R"({"n":1})");
}

}  // namespace
}  // namespace muster::plugins::dynamicresources
