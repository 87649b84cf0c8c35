#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace muster::framework {

// The outcome of running a plugin, with upstream's codes (k8s.io/kubernetes
// pkg/scheduler/framework Code) and their meanings:
//   kSuccess: the plugin ran and the pod may proceed.
//   kError: an internal error; the pod goes to backoff and is retried.
//   kUnschedulable: the pod does not fit now; preemption (PostFilter) may help, and the pod is
//     retried when a cluster event the plugin registered for occurs.
//   kUnschedulableAndUnresolvable: like kUnschedulable, but preemption cannot help: PostFilter
//     skips nodes rejected with it.
//   kWait: Permit only: the pod waits at Permit until allowed, rejected, or timed out.
//   kSkip: PreFilter/PreScore: the plugin's Filter/Score have nothing to do for this pod;
//     Bind: this plugin does not bind this pod, ask the next.
//   kPending: the pod waits on something outside the scheduler (not a failure to fit); it is
//     retried without backoff when its event comes.
enum class Code {
  kSuccess,
  kError,
  kUnschedulable,
  kUnschedulableAndUnresolvable,
  kWait,
  kSkip,
  kPending
};

std::string_view CodeName(Code code);

// A small value type: a code and, only when there is something to say, a pointer to the reasons
// and the plugin. A success (or a bare code) is 16 bytes with nothing to allocate or free, which
// matters because Filter and Score return one per node per pod. Failure statuses carry reasons,
// the human-readable strings that end up aggregated in "0/3 nodes are available: ..." messages,
// and the plugin that produced them, stamped by the framework runtime.
//
// Copies share the reasons (reference-counted, copied on the first write to a shared one), so a
// plugin can build its common failures once and hand out copies: a node that does not fit costs
// a count, not an allocation per reason. A pinned status (Pinned, SharedFailure) does not even
// count: its reasons live as long as the program, so the filter threads copying it never write
// to the one cache line they all read.
class Status {
 public:
  Status() = default;
  explicit Status(Code code) : code_(code) {}
  Status(Code code, std::string reason) : code_(code) { AppendReason(std::move(reason)); }
  Status(Code code, std::vector<std::string> reasons) : code_(code) {
    if (!reasons.empty()) MutableDetails().reasons = std::move(reasons);
  }
  Status(const Status& other) : code_(other.code_), details_(other.details_) { Retain(); }
  Status& operator=(const Status& other) {
    if (this != &other) {
      other.Retain();
      Release();
      code_ = other.code_;
      details_ = other.details_;
    }
    return *this;
  }
  Status(Status&& other) noexcept : code_(other.code_), details_(other.details_) {
    other.details_ = nullptr;
  }
  Status& operator=(Status&& other) noexcept {
    if (this != &other) {
      Release();
      code_ = other.code_;
      details_ = other.details_;
      other.details_ = nullptr;
    }
    return *this;
  }
  ~Status() {
    if (details_ != nullptr) Release();
  }

  static Status OK() { return Status(); }
  static Status Error(std::string message) { return Status(Code::kError, std::move(message)); }
  static Status Unschedulable(std::string reason) {
    return Status(Code::kUnschedulable, std::move(reason));
  }
  static Status Unresolvable(std::string reason) {
    return Status(Code::kUnschedulableAndUnresolvable, std::move(reason));
  }
  // A status whose reasons are never freed, stamped with `plugin`, for a plugin's fixed failures
  // built once (statics): copies share it without counting. Every call allocates anew, so it
  // is for building such tables, not for use per node.
  static Status Pinned(Code code, std::vector<std::string> reasons, std::string_view plugin);

  Code code() const { return code_; }
  bool IsSuccess() const { return code_ == Code::kSuccess; }
  bool IsWait() const { return code_ == Code::kWait; }
  bool IsSkip() const { return code_ == Code::kSkip; }
  bool IsError() const { return code_ == Code::kError; }
  // Unschedulable, UnschedulableAndUnresolvable or Pending: the pod was turned away, not failed.
  bool IsRejected() const {
    return code_ == Code::kUnschedulable || code_ == Code::kUnschedulableAndUnresolvable ||
           code_ == Code::kPending;
  }

  const std::vector<std::string>& reasons() const;
  // The reasons joined by ", ", as upstream's Status.Message().
  std::string Message() const;
  const std::string& plugin() const;
  // Stamps the plugin; a status already stamped with it stays shared.
  Status& WithPlugin(std::string_view plugin) {
    if (details_ == nullptr || details_->plugin != plugin) MutableDetails().plugin = plugin;
    return *this;
  }
  Status& AppendReason(std::string reason) {
    MutableDetails().reasons.push_back(std::move(reason));
    return *this;
  }
  // The same for every copy of one status and different between statuses built apart: lets
  // aggregations over many nodes' copies do the work once per distinct status.
  const void* identity() const { return details_; }

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.reasons() == b.reasons();
  }

 private:
  struct Details {
    std::atomic<int32_t> refs{1};
    bool pinned = false;  // never freed, never counted
    std::vector<std::string> reasons;
    std::string plugin;
  };
  void Retain() const {
    if (details_ != nullptr && !details_->pinned) {
      details_->refs.fetch_add(1, std::memory_order_relaxed);
    }
  }
  void Release() {
    if (details_ != nullptr && !details_->pinned &&
        details_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      delete details_;
    }
    details_ = nullptr;
  }
  // Details this status alone holds, cloned first when shared.
  Details& MutableDetails();

  Code code_ = Code::kSuccess;
  Details* details_ = nullptr;
};

// A failure with one fixed reason, pinned and stamped with `plugin` up front so that the
// framework's WithPlugin leaves it shared: a Filter that turns many nodes away for the same
// reason keeps one (a function-local static) and returns copies that cost neither an allocation
// nor a count.
inline Status SharedFailure(Code code, std::string_view reason, std::string_view plugin) {
  return Status::Pinned(code, {std::string(reason)}, plugin);
}

// "Success", "Unschedulable: Insufficient cpu" ... for test failure messages.
std::string ToString(const Status& s);

}  // namespace muster::framework
