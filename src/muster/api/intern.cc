#include "muster/api/intern.h"

#include <array>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace muster::api {
namespace {

// Texts live in fixed-size chunks whose addresses never change, so a reader holding an id (which
// it got from Intern, after the entry was written) can index them without taking the lock.
constexpr uint32_t kChunkBits = 12;
constexpr uint32_t kChunkSize = 1u << kChunkBits;
constexpr uint32_t kMaxChunks = 1u << 16;

class Table {
 public:
  Table() { Insert(""); }

  uint32_t Intern(std::string_view text) {
    std::lock_guard lock(mu_);
    auto it = ids_.find(text);
    if (it != ids_.end()) return it->second;
    return Insert(text);
  }

  std::string_view Text(uint32_t id) const {
    const std::string_view* chunk = chunks_[id >> kChunkBits].load(std::memory_order_acquire);
    return chunk[id & (kChunkSize - 1)];
  }

  size_t Count() const {
    std::lock_guard lock(mu_);
    return count_;
  }

 private:
  // Requires mu_ held.
  uint32_t Insert(std::string_view text) {
    const uint32_t id = count_;
    const uint32_t chunk_index = id >> kChunkBits;
    if (chunk_index >= kMaxChunks) throw std::length_error("muster: too many interned strings");
    if ((id & (kChunkSize - 1)) == 0) {
      owned_chunks_.push_back(std::make_unique<std::string_view[]>(kChunkSize));
      chunks_[chunk_index].store(owned_chunks_.back().get(), std::memory_order_release);
    }
    const std::string& stored = texts_.emplace_back(text);
    owned_chunks_.back()[id & (kChunkSize - 1)] = stored;
    ids_.emplace(std::string_view(stored), id);
    ++count_;
    return id;
  }

  mutable std::mutex mu_;
  // Guarded by mu_.
  std::deque<std::string> texts_;
  std::unordered_map<std::string_view, uint32_t> ids_;
  std::deque<std::unique_ptr<std::string_view[]>> owned_chunks_;
  uint32_t count_ = 0;
  // Written under mu_, read without it.
  std::array<std::atomic<const std::string_view*>, kMaxChunks> chunks_{};
};

Table& GlobalTable() {
  static Table* table = new Table();  // never destroyed: Symbols may outlive static destructors
  return *table;
}

}  // namespace

Symbol::Symbol(std::string_view text) : id_(text.empty() ? 0 : GlobalTable().Intern(text)) {}

std::string_view Symbol::str() const { return GlobalTable().Text(id_); }

size_t InternedCount() { return GlobalTable().Count(); }

}  // namespace muster::api
