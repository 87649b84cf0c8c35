#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace muster::api {

// Kubernetes times (metav1.Time) have second precision on the wire; muster keeps microseconds so
// that a virtual clock can order events finer than that.
using Duration = std::chrono::microseconds;
using Time = std::chrono::sys_time<std::chrono::microseconds>;

// Parses a Go duration ("300ms", "1.5h", "2h45m", "-1s"); units ns, us, µs, ms, s, m, h.
// Values finer than a microsecond are truncated. nullopt on malformed input or overflow.
std::optional<Duration> ParseDuration(std::string_view text);

// Formats like Go's time.Duration.String() at microsecond precision: "0s", "1.5s", "2m30s",
// "1h0m0s", "250ms".
std::string FormatDuration(Duration d);

// Parses an RFC 3339 timestamp ("2024-05-01T10:00:00Z", with optional fraction and offset).
std::optional<Time> ParseTime(std::string_view text);

// Formats as RFC 3339 in UTC with second precision, as the API server does.
std::string FormatTime(Time t);

// Formats as metav1.MicroTime: RFC 3339 in UTC with microseconds (Events, Leases).
std::string FormatMicroTime(Time t);

}  // namespace muster::api
