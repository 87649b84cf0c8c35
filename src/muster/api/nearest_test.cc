#include "muster/api/nearest.h"

#include <gtest/gtest.h>

namespace muster::api {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(EditDistance("nodeSelectr", "nodeSelector"), 1u);
  EXPECT_EQ(EditDistance("MostAlocated", "MostAllocated"), 1u);
  EXPECT_EQ(EditDistance("minMebmer", "minMember"), 1u);  // a swap is one edit
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("Pod", "pod"), 0u);  // case does not count
}

TEST(Nearest, SuggestsOnlyLikelyMisspellings) {
  const std::vector<std::string> fields = {"nodeSelector", "nodeName", "containers"};
  EXPECT_EQ(Nearest("nodeSelectr", fields), "nodeSelector");
  EXPECT_EQ(Nearest("nodename", fields), "nodeName");
  EXPECT_EQ(Nearest("affinity", fields), std::nullopt);  // nothing near
  EXPECT_EQ(Nearest("nodeName", fields), std::nullopt);  // not misspelt
  EXPECT_EQ(Nearest("ab", {"ac"}), std::nullopt);        // one edit in two letters is too many
  EXPECT_EQ(DidYouMean("PodGrop", {"PodGroup", "Pod"}), "; did you mean \"PodGroup\"?");
  EXPECT_EQ(DidYouMean("Widget", {"PodGroup", "Pod"}), "");
}

}  // namespace
}  // namespace muster::api
