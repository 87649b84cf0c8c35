#pragma once

// A scheduler for the scheduler layer's own tests: built with a few small plugins (below) in place
// of the in-tree ones, which live in a layer beside this one, over a client that records what the
// scheduler writes (testing::FakeServices) and a virtual clock. Tests feed it cluster events
// through its informer handlers and run cycles:
//
//   SchedulerHarness h;
//   h.AddNode(MakeNode().Name("n1").Capacity({{"pods", "2"}}).Obj());
//   h.AddPod(MakePod().Name("p").Obj());
//   h.RunCycles();
//   EXPECT_EQ(h.client().bindings, ...);
//
// The plugins, each enabled at every extension point it implements:
//   TestSort     QueueSort: higher priority first, then earlier arrival.
//   Cordoned     Filter: rejects a node with spec.unschedulable ("node(s) were unschedulable").
//   PodSlots     Filter: rejects a node with no room for one more pod ("Too many pods").
//   Awaiting     PreBind: a pod annotated kReadyAfter waits after PreBind until it has waited
//                that many seconds; one annotated kGiveUpAfter fails then ("gave up waiting").
//   TestBinder   Bind: through the client.
//   RejectAll    Filter (when asked for): rejects every node; registers for every event.
//   TestGang     Group: a pod labelled test.muster.dev/gang=G belongs to PodGroup G of its
//                namespace (read from the lister); every pod carrying the label is a member.
//                PreFilter rejects a member whose PodGroup does not exist ("PodGroup not
//                found"); registers for PodGroup adds.

#include <memory>
#include <string>
#include <vector>

#include "muster/framework/registry.h"
#include "muster/framework/testing/fake_services.h"
#include "muster/framework/virtual_clock.h"
#include "muster/scheduler/scheduler.h"

namespace muster::testing {

inline constexpr std::string_view kGangLabel = api::kPodGroupLabel;
inline constexpr std::string_view kReadyAfter = "test.muster.dev/ready-after";
inline constexpr std::string_view kGiveUpAfter = "test.muster.dev/give-up-after";

// The registry of the plugins above.
const framework::Registry& HarnessRegistry();

struct HarnessOptions {
  bool gang = false;        // TestGang enabled
  bool reject_all = false;  // RejectAll enabled
  std::optional<int32_t> percentage_of_nodes_to_score;
};

class SchedulerHarness {
 public:
  explicit SchedulerHarness(HarnessOptions options = {});

  scheduler::Scheduler& scheduler() { return *scheduler_; }
  // What the scheduler wrote: bindings, pod conditions, events, PodGroup status.
  FakeServices& client() { return client_; }
  const FakeServices& client() const { return client_; }
  framework::VirtualClock& clock() { return client_.virtual_clock(); }

  // Informer events, as a cluster delivers them.
  void AddNode(api::Node node);
  void AddPod(api::Pod pod);
  void UpdatePod(const api::Pod& old_pod, api::Pod new_pod);
  void DeletePod(const api::Pod& pod);
  void AddPodGroup(api::PodGroup group);
  void UpdatePodGroup(const api::PodGroup& old_group, api::PodGroup new_group);

  // Runs scheduling cycles while a pod is ready (at most `limit`), each followed by what the
  // clock has due now (binding cycles); returns how many ran. Time does not move.
  int RunCycles(int limit = 1000);
  // The node each pod was bound to, "pod key -> node", in binding order.
  std::vector<std::string> Bindings() const;

 private:
  FakeServices client_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
};

}  // namespace muster::testing
