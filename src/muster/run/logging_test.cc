#include "muster/run/logging.h"

#include <cmath>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

namespace muster::run {
namespace {

// 2025-11-25T17:07:46.123456Z
constexpr int64_t kNow = 1764090466123456;

TEST(LogLine, TextIsKlogsHeaderThenQuotedMessageAndPairs) {
  const log::Field fields[] = {
      {"pod", "default/web-0"}, {"node", "n1"}, {"evaluatedNodes", 3}, {"ok", true}};
  const log::Record r{log::Severity::kInfo, 2, "Successfully bound pod to node", fields};
  EXPECT_EQ(FormatLogLine(r, LogFormat::kText, kNow, 4242),
            "I1125 17:07:46.123456    4242 muster] \"Successfully bound pod to node\" "
            "pod=\"default/web-0\" node=\"n1\" evaluatedNodes=3 ok=true\n");
}

TEST(LogLine, TextMarksWarningsAndErrorsAndEscapesQuotes) {
  const log::Field fields[] = {{"err", "0/1 nodes: \"x\"\nnext"}};
  EXPECT_EQ(
      FormatLogLine(log::Record{log::Severity::kError, 0, "Error", fields}, LogFormat::kText, kNow,
                    1),
      "E1125 17:07:46.123456       1 muster] \"Error\" err=\"0/1 nodes: \\\"x\\\"\\nnext\"\n");
  EXPECT_EQ(FormatLogLine(log::Record{log::Severity::kWarning, 0, "careful", {}}, LogFormat::kText,
                          kNow, 1)
                .substr(0, 1),
            "W");
}

TEST(LogLine, JsonIsOneObjectWithMillisecondsAndVerbosity) {
  const log::Field fields[] = {{"pod", "default/web-0"}, {"feasibleNodes", 2}};
  EXPECT_EQ(FormatLogLine(log::Record{log::Severity::kInfo, 2, "bound \"x\"", fields},
                          LogFormat::kJson, kNow, 1),
            "{\"ts\":1764090466123.456,\"v\":2,\"msg\":\"bound \\\"x\\\"\","
            "\"pod\":\"default/web-0\",\"feasibleNodes\":2}\n");
  EXPECT_EQ(
      FormatLogLine(log::Record{log::Severity::kError, 0, "failed", {}}, LogFormat::kJson, kNow, 1),
      "{\"ts\":1764090466123.456,\"level\":\"error\",\"msg\":\"failed\"}\n");
}

TEST(LogLine, NonFiniteNumbersAreStrings) {
  const log::Field fields[] = {{"ratio", 1.5}, {"nan", std::nan("")}};
  EXPECT_EQ(
      FormatLogLine(log::Record{log::Severity::kInfo, 0, "m", fields}, LogFormat::kJson, kNow, 1),
      "{\"ts\":1764090466123.456,\"v\":0,\"msg\":\"m\",\"ratio\":1.5,\"nan\":\"NaN\"}\n");
}

TEST(LogLine, ControlCharactersAreEscaped) {
  const log::Field fields[] = {{"raw", std::string_view("a\x01"
                                                        "b",
                                                        3)}};
  EXPECT_EQ(
      FormatLogLine(log::Record{log::Severity::kInfo, 0, "m", fields}, LogFormat::kJson, kNow, 1),
      "{\"ts\":1764090466123.456,\"v\":0,\"msg\":\"m\",\"raw\":\"a\\u0001b\"}\n");
}

TEST(LogVerbosity, LinesAboveTheLevelAreDropped) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  InstallLog(LogFormat::kText, 2, out);
  EXPECT_TRUE(log::V(2));
  EXPECT_FALSE(log::V(3));
  log::Info(2, "kept");
  log::Info(3, "dropped");
  log::Warning("warned");
  log::Install(nullptr, -1);
  EXPECT_FALSE(log::V(0));
  log::Error("after uninstall");
  std::rewind(out);
  std::string text;
  char buf[512];
  while (size_t n = std::fread(buf, 1, sizeof buf, out)) text.append(buf, n);
  std::fclose(out);
  EXPECT_NE(text.find("\"kept\""), std::string::npos);
  EXPECT_EQ(text.find("dropped"), std::string::npos);
  EXPECT_NE(text.find("\"warned\""), std::string::npos);
  EXPECT_EQ(text.find("after uninstall"), std::string::npos);
}

TEST(LogFormatName, TextOrJson) {
  LogFormat f = LogFormat::kText;
  EXPECT_TRUE(ParseLogFormat("json", &f));
  EXPECT_EQ(f, LogFormat::kJson);
  EXPECT_TRUE(ParseLogFormat("text", &f));
  EXPECT_EQ(f, LogFormat::kText);
  EXPECT_FALSE(ParseLogFormat("klog", &f));
}

}  // namespace
}  // namespace muster::run
