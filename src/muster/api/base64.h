#pragma once

// Standard base64 (RFC 4648, with padding), as Go's encoding/json reads and writes []byte
// fields: kubeconfig's *-data entries, an extender's tlsConfig certData, keyData and caData.

#include <optional>
#include <string>
#include <string_view>

namespace muster::api {

// nullopt when `in` holds a byte outside the alphabet. Padding and line breaks are skipped.
std::optional<std::string> Base64Decode(std::string_view in);

}  // namespace muster::api
