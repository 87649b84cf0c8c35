#include "muster/api/intern.h"

#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include <gtest/gtest.h>

namespace muster::api {
namespace {

TEST(SymbolTest, SameTextSameSymbol) {
  Symbol a("topology.kubernetes.io/zone");
  Symbol b(std::string("topology.kubernetes.io/") + "zone");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.str(), "topology.kubernetes.io/zone");
  EXPECT_NE(a, Symbol("kubernetes.io/hostname"));
}

TEST(SymbolTest, EmptyIsTheDefault) {
  EXPECT_TRUE(Symbol().empty());
  EXPECT_EQ(Symbol(""), Symbol());
  EXPECT_EQ(Symbol().str(), "");
  EXPECT_FALSE(Symbol("x").empty());
}

TEST(SymbolTest, LexicalLessOrdersByText) {
  Symbol z("zzz-intern-order"), a("aaa-intern-order");
  EXPECT_TRUE(z < a) << "ids follow intern order";
  EXPECT_TRUE(LexicalLess()(a, z));
}

TEST(SymbolTest, ConcurrentInterningAgrees) {
  constexpr int kThreads = 4;
  constexpr int kNames = 5000;  // more than one chunk of the table
  std::vector<std::vector<Symbol>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &seen] {
      for (int i = 0; i < kNames; ++i) seen[t].emplace_back("concurrent-" + std::to_string(i));
    });
  }
  for (auto& th : threads) th.join();
  std::unordered_set<Symbol> distinct(seen[0].begin(), seen[0].end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kNames));
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(seen[t], seen[0]);
  for (int i = 0; i < kNames; ++i) EXPECT_EQ(seen[0][i].str(), "concurrent-" + std::to_string(i));
}

}  // namespace
}  // namespace muster::api
