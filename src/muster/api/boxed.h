#pragma once

// An optional value kept on the heap, for a large field that few objects set: an object without
// it carries one pointer, where std::optional would carry the whole value (a pod's affinity is
// 176 bytes; most pods have none, and a cluster of a million pods holds a million of them).
// Copies are deep, so an object holding one keeps value semantics; the interface is the part of
// std::optional's that the code uses.

#include <memory>
#include <optional>
#include <utility>

namespace muster::api {

template <typename T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(std::nullopt_t) {}  // NOLINT(google-explicit-constructor): as std::optional
  Boxed(T value)            // NOLINT(google-explicit-constructor): as std::optional
      : value_(std::make_unique<T>(std::move(value))) {}
  Boxed(std::optional<T> value)  // NOLINT(google-explicit-constructor)
      : value_(value ? std::make_unique<T>(std::move(*value)) : nullptr) {}
  Boxed(const Boxed& other) : value_(other ? std::make_unique<T>(*other) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& other) {
    if (this != &other) value_ = other ? std::make_unique<T>(*other) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  ~Boxed() = default;

  bool has_value() const { return value_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return value_.get(); }
  const T* operator->() const { return value_.get(); }

  // The value, made (value-initialized) first when there is none.
  template <typename... Args>
  T& emplace(Args&&... args) {
    value_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *value_;
  }
  void reset() { value_.reset(); }

  // clang-format 14 misplaces requires-clauses.
  // clang-format off
  friend bool operator==(const Boxed& a, const Boxed& b)
    requires requires(const T& x) { x == x; }
  {
    return a.has_value() == b.has_value() && (!a || *a == *b);
  }
  // clang-format on

 private:
  std::unique_ptr<T> value_;
};

}  // namespace muster::api
