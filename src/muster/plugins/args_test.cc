#include "muster/plugins/args.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace muster::plugins {
namespace {

TEST(ArgsErrors, PrefixAndJoin) {
  ArgsErrors errors("f.yaml: args");
  EXPECT_TRUE(errors.empty());
  errors.Add("", "bad");
  errors.Add("a.b[0]", "worse");
  EXPECT_EQ(errors.list(),
            (std::vector<std::string>{"f.yaml: args: bad", "f.yaml: args.a.b[0]: worse"}));
  EXPECT_EQ(errors.Joined(), "f.yaml: args: bad\nf.yaml: args.a.b[0]: worse");
}

TEST(ArgsObject, ReadsKnownFieldsAndReportsUnknownOnes) {
  ArgsErrors errors("p");
  const YAML::Node yaml = YAML::Load("{name: x, count: +7, list: [a, b], extra: 1}");
  ArgsObject object(errors, yaml, "obj", {"name", "count", "list", "missing"});
  EXPECT_EQ(object.String("name"), "x");
  EXPECT_EQ(object.Int("count", 0, 10), 7);
  EXPECT_EQ(object.StringList("list"), (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(object.Has("missing"));
  EXPECT_EQ(object.String("missing"), std::nullopt);
  EXPECT_EQ(errors.list(), std::vector<std::string>{"p.obj.extra: unknown field \"extra\""});
}

TEST(ArgsObject, TypeErrors) {
  ArgsErrors errors("p");
  const YAML::Node yaml =
      YAML::Load("{a: \"5\", b: 5x, c: 99999999999999999999, d: 11, e: {x: 1}, f: [[1]]}");
  ArgsObject object(errors, yaml, "", {"a", "b", "c", "d", "e", "f"});
  EXPECT_EQ(object.Int("a", 0, 10), std::nullopt);
  EXPECT_EQ(object.Int("b", 0, 10), std::nullopt);
  EXPECT_EQ(object.Int("c", 0, 10), std::nullopt);
  EXPECT_EQ(object.Int("d", 0, 10), std::nullopt);
  EXPECT_EQ(object.String("e"), std::nullopt);
  EXPECT_EQ(object.StringList("f"), std::nullopt);
  EXPECT_EQ(errors.list(), (std::vector<std::string>{
                               "p.a: expected an integer, got string \"5\"",
                               "p.b: expected an integer, got \"5x\"",
                               "p.c: integer 99999999999999999999 out of range [0, 10]",
                               "p.d: integer 11 out of range [0, 10]",
                               "p.e: expected a string, got an object",
                               "p.f[0]: expected a string, got a list",
                           }));
}

TEST(ArgsObject, NullIsAnEmptyObject) {
  ArgsErrors errors("p");
  ArgsObject object(errors, YAML::Node(), "", {"a"});
  EXPECT_TRUE(object.valid());
  EXPECT_FALSE(object.Has("a"));
  EXPECT_TRUE(errors.empty());
}

TEST(CheckArgsKind, AcceptsTheMatchingKindOnly) {
  auto check = [](const std::string& yaml) {
    ArgsErrors errors("p");
    ArgsObject root(errors, YAML::Load(yaml), "", {"apiVersion", "kind"});
    CheckArgsKind(root, "NodeResourcesFit");
    return errors.list();
  };
  EXPECT_TRUE(check("{kind: NodeResourcesFitArgs}").empty());
  EXPECT_TRUE(
      check("{apiVersion: kubescheduler.config.k8s.io/v1, kind: NodeResourcesFitArgs}").empty());
  EXPECT_EQ(check("{apiVersion: example.com/v1, kind: NodeResourcesFitArgs}"),
            std::vector<std::string>{"p: args for plugin NodeResourcesFit were not of type "
                                     "NodeResourcesFitArgs.kubescheduler.config.k8s.io, got "
                                     "NodeResourcesFitArgs.example.com"});
}

}  // namespace
}  // namespace muster::plugins
