#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/cel/cel.h"

// Counts heap allocations while `g_counting` is set, to hold Evaluate to its promise of not
// allocating for the common selector shapes.
namespace {
std::atomic<bool> g_counting{false};
std::atomic<int> g_allocations{0};
}  // namespace

namespace {
void* CountedAlloc(std::size_t size) noexcept {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1);
  return std::malloc(size == 0 ? 1 : size);
}
}  // namespace

// GCC pairs the replaced operators with malloc and free at -O1 and above and then warns that they
// mismatch; the replacements below are the standard way to count allocations.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(std::size_t size) {
  if (void* p = CountedAlloc(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  if (void* p = CountedAlloc(size)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return CountedAlloc(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return CountedAlloc(size);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace muster::api::cel {
namespace {

constexpr std::string_view kDriver = "dra.example.com";

// Upstream's tests use driver "dra.example.com"; attributes without a domain get it.
struct TestDevice {
  std::vector<DeviceAttribute> attributes;
  std::vector<DeviceCapacity> capacity;
  std::string driver{kDriver};
  bool allow_multiple = false;

  TestDevice& Attr(std::string_view domain, std::string_view name, AttributeValue value) {
    attributes.push_back({Symbol(domain), Symbol(name), std::move(value)});
    return *this;
  }
  TestDevice& Cap(std::string_view domain, std::string_view name, std::string_view quantity) {
    capacity.push_back({Symbol(domain), Symbol(name), Quantity::Parse(quantity).value()});
    return *this;
  }
  DeviceView View() const { return {driver, attributes, capacity, allow_multiple}; }
};

SemVer Version(std::string_view text) { return SemVer::Parse(text).value(); }

// The device most cases run against.
const TestDevice& Sample() {
  static const TestDevice* device = [] {
    auto* d = new TestDevice();
    d->Attr(kDriver, "model", std::string("a100"))
        .Attr(kDriver, "count", int64_t{8})
        .Attr(kDriver, "enabled", true)
        .Attr(kDriver, "version", Version("1.2.3"))
        .Attr(kDriver, "services", std::string("asymetric"))
        .Attr("other.example.com", "name", true)
        .Cap(kDriver, "memory", "40Gi")
        .Cap(kDriver, "cores", "1500m");
    return d;
  }();
  return *device;
}

Result Match(std::string_view expression, const TestDevice& device = Sample()) {
  const Compiled c = Compile(expression);
  EXPECT_EQ(c.error, "") << expression;
  if (!c.program) return {false, "did not compile"};
  return Evaluate(*c.program, device.View());
}

// ---- matches: expression => bool, against Sample() ----

struct MatchCase {
  std::string expression;
  bool matches;
};

class MatchTest : public testing::TestWithParam<MatchCase> {};

TEST_P(MatchTest, Evaluates) {
  const Result r = Match(GetParam().expression);
  EXPECT_EQ(r.error, "") << GetParam().expression;
  EXPECT_EQ(r.matches, GetParam().matches) << GetParam().expression;
}

INSTANTIATE_TEST_SUITE_P(
    Evaluator, MatchTest,
    testing::Values(
        // Upstream's compile_test.go cases that apply to this device shape.
        MatchCase{"true", true}, MatchCase{"false", false},
        MatchCase{R"("no-such-domain" in device.attributes)", false},
        MatchCase{R"("dra.example.com" in device.attributes)", true},
        MatchCase{R"(device.driver == "dra.example.com")", true},
        MatchCase{R"(device.attributes["dra.example.com"].enabled)", true},
        MatchCase{R"(device.attributes["dra.example.com"]["enabled"])", true},
        MatchCase{R"(cel.bind(dra, device.attributes["dra.example.com"], dra.enabled))", true},
        MatchCase{R"(device.attributes["other.example.com"].name)", true},
        MatchCase{R"(device.attributes["dra.example.com"].count > 0)", true},
        MatchCase{R"(device.attributes["dra.example.com"].model == "a100")", true},
        MatchCase{R"(device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")))",
                  true},
        MatchCase{
            R"(device.attributes["dra.example.com"].version.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true))",
            true},
        MatchCase{R"(device.capacity["dra.example.com"].memory.isGreaterThan(quantity("1Ki")))",
                  true},
        MatchCase{
            R"("memory" in device.capacity["dra.example.com"] && device.capacity["dra.example.com"].memory.isGreaterThan(quantity("1Ki")))",
            true},
        MatchCase{
            R"(!("nothing" in device.capacity["dra.example.com"]) || device.capacity["dra.example.com"].nothing.isGreaterThan(quantity("1Ki")))",
            true},
        MatchCase{R"(device.attributes.exists_one(x, x == "dra.example.com"))", true},
        MatchCase{R"(device.attributes["dra.example.com"].exists_one(x, x == "services"))", true},
        MatchCase{R"(device.capacity.exists_one(x, x == "dra.example.com"))", true},
        MatchCase{R"(device.attributes["dra.example.com"].services.split("m").size() >= 2)", true},
        MatchCase{R"(device.attributes["dra.example.com"].services.matches("[^a]?sym"))", true},
        MatchCase{"device.allowMultipleAllocations == false", true},
        // The shapes selectors take.
        MatchCase{R"(device.capacity["dra.example.com"].memory.compareTo(quantity("40Gi")) >= 0)",
                  true},
        MatchCase{R"(device.capacity["dra.example.com"].memory.compareTo(quantity("41Gi")) >= 0)",
                  false},
        MatchCase{
            R"(device.attributes["dra.example.com"].count > 4 && device.attributes["dra.example.com"].model == "a100")",
            true},
        MatchCase{R"(device.attributes["dra.example.com"].model in ["h100", "a100"])", true},
        MatchCase{R"("x" in ["a", "b"])", false},
        MatchCase{R"(device.driver in ["a", "dra.example.com"])", true},
        MatchCase{R"(device.attributes["dra.example.com"].version == semver("1.2.3+build"))", true},
        MatchCase{
            R"(device.attributes["dra.example.com"].version.major() == 1 && device.attributes["dra.example.com"].version.minor() == 2 && device.attributes["dra.example.com"].version.patch() == 3)",
            true},
        MatchCase{
            R"(device.attributes["dra.example.com"].version.compareTo(semver("1.2.3-rc.1")) == 1)",
            true},
        // has(): a missing attribute, a missing domain (upstream gives the empty map), and the
        // quirk that has() on the domain map itself is always true.
        MatchCase{R"(has(device.attributes["dra.example.com"].model))", true},
        MatchCase{R"(has(device.attributes["dra.example.com"].nothing))", false},
        MatchCase{R"(has(device.attributes["nowhere.example.com"].model))", false},
        MatchCase{R"(has(device.attributes.nowhere))", true},
        MatchCase{R"(has(device.driver))", true},
        MatchCase{R"(size(device.attributes["nowhere.example.com"]) == 0)", true},
        MatchCase{
            R"(size(device.attributes) == 2 && device.attributes["dra.example.com"].size() == 5)",
            true},
        // Logic absorbs errors in either order.
        MatchCase{R"(false && device.attributes["x"].y)", false},
        MatchCase{R"(device.attributes["x"].y && false)", false},
        MatchCase{R"(true || device.attributes["x"].y)", true},
        MatchCase{R"(device.attributes["x"].y || true)", true},
        MatchCase{R"(device.attributes["dra.example.com"].model > 1 || true)", true},
        MatchCase{"1 / 0 == 1 && false", false},
        // Literals.
        MatchCase{"0x10 == 16 && -0x10 == -16", true}, MatchCase{"-9223372036854775808 < 0", true},
        MatchCase{"1u == 1u && 0x1Fu == 31u", true},
        MatchCase{"1.5e3 == 1500.0 && .5 == 0.5", true},
        MatchCase{R"('a' + "b" + '''c''' + """d""" == "abcd")", true},
        MatchCase{R"(r"\n" == "\\n" && "\x41\101\u0041" == "AAA")", true},
        MatchCase{R"("\u00e9" == "é" && size("é") == 1 && size(b"\xc3\xa9") == 2)", true},
        // Bytes to string as Go reads UTF-8: a four-byte sequence is one code point.
        MatchCase{R"(size(string(b"\xf0\x9f\x98\x80")) == 1 && string(b"\xc3\xa9") == "é")", true},
        MatchCase{"null == null", true}, MatchCase{"[1, 2] + [3] == [1, 2, 3]", true},
        MatchCase{"[] == []", true}, MatchCase{"!!true", true}, MatchCase{"--1 == 1", true},
        MatchCase{"!!-1 == -1 && - -1 == 1", true},
        MatchCase{R"(size([quantity("1"), quantity("2")]) == 2)", true},
        // Arithmetic and comparison.
        MatchCase{"7 / 2 == 3 && 7 % 3 == 1 && -7 / 2 == -3 && -7 % 3 == -1", true},
        MatchCase{"2 + 3 * 4 == 14 && (2 + 3) * 4 == 20", true},
        MatchCase{"1.0 / 0.0 > 1e308", true}, MatchCase{"3u - 1u == 2u && 6u / 4u == 1u", true},
        MatchCase{R"("abc" < "abd" && b"a" < b"b" && false < true)", true},
        MatchCase{"1 < 1.5 && 2u > 1 && 1.0 <= 1u", true},
        MatchCase{"-1 < 18446744073709551615u", true}, MatchCase{"1 == 1 ? true : false", true},
        MatchCase{"false ? false : 2 > 1", true},
        // Heterogeneous equality under dyn.
        MatchCase{R"(device.attributes["dra.example.com"].count == 8.0)", true},
        MatchCase{R"(device.attributes["dra.example.com"].count == 8u)", true},
        MatchCase{R"(device.attributes["dra.example.com"].count != "8")", true},
        MatchCase{R"(device.attributes["dra.example.com"].model != 8)", true},
        MatchCase{R"(device.attributes["dra.example.com"].count < 8.5)", true},
        MatchCase{R"([1, device.attributes["dra.example.com"].count] == [1, 8])", true},
        // Strings.
        MatchCase{R"(device.attributes["dra.example.com"].model.upperAscii() == "A100")", true},
        MatchCase{R"("ÀbC".lowerAscii() == "Àbc")", true},
        MatchCase{R"(device.driver.startsWith("dra.") && device.driver.endsWith(".com"))", true},
        MatchCase{R"(device.driver.contains("example"))", true},
        MatchCase{R"(matches(device.driver, "^dra\\."))", true},
        MatchCase{R"(device.driver.matches("^example"))", false},
        MatchCase{R"(device.driver.matches(device.attributes["dra.example.com"].model))", false},
        MatchCase{R"("a,b,,c".split(",") == ["a", "b", "", "c"])", true},
        MatchCase{R"("ab".split("") == ["a", "b"])", true},
        MatchCase{R"(["a", "b"].join("-") == "a-b" && ["a", "b"].join() == "ab")", true},
        MatchCase{R"("a" + device.driver + "b" == "adra.example.comb")", true},
        // Quantities.
        MatchCase{R"(quantity("1Ki") == quantity("1024"))", true},
        MatchCase{R"(quantity("50k").add(20) == quantity("50020"))", true},
        MatchCase{R"(quantity("50k").sub(quantity("20k")) == quantity("30k"))", true},
        MatchCase{R"(quantity("50k").add(20).sub(quantity("100k")).sub(-50000) == quantity("20"))",
                  true},
        MatchCase{R"(sign(quantity("-1")) == -1 && sign(quantity("0")) == 0)", true},
        MatchCase{R"(quantity("50k").isInteger() && !quantity("1500m").isInteger())", true},
        MatchCase{R"(quantity("50k").asInteger() == 50000)", true},
        MatchCase{R"(quantity("1500m").asApproximateFloat() == 1.5)", true},
        MatchCase{R"(quantity("50M").isLessThan(quantity("50Mi")))", true},
        MatchCase{R"(quantity("200M").compareTo(quantity("0.2G")) == 0)", true},
        MatchCase{R"(isQuantity("1.3Gi") && !isQuantity("200K"))", true},
        MatchCase{R"(device.capacity["dra.example.com"].cores.isLessThan(quantity("2")))", true},
        // Semantic versions.
        MatchCase{R"(semver("1.0.0-alpha").isLessThan(semver("1.0.0-alpha.1")))", true},
        MatchCase{R"(semver("1.0.0-alpha.beta").isGreaterThan(semver("1.0.0-alpha.1")))", true},
        MatchCase{R"(semver("v01.02", true) == semver("1.2.0"))", true},
        MatchCase{R"(isSemver("1.2.3") && !isSemver("1.2") && !isSemver("v1.2.3"))", true},
        // Conversions.
        MatchCase{R"(int("42") == 42 && int(2.9) == 2 && int(3u) == 3)", true},
        MatchCase{R"(double(1) == 1.0 && uint(1) == 1u && string(12) == "12")", true},
        MatchCase{R"(string(true) == "true" && string(b"ab") == "ab")", true},
        // Macros.
        MatchCase{"[1, 2, 3].all(x, x > 0)", true}, MatchCase{"[1, 2, 3].exists(x, x > 2)", true},
        MatchCase{"[1, 2, 3].exists_one(x, x > 1)", false},
        MatchCase{"[].all(x, x > 0) && ![].exists(x, x > 0)", true},
        MatchCase{R"([1, dyn("a")].exists(x, x == "a"))", true},
        MatchCase{R"(device.attributes["dra.example.com"].all(k, k.size() > 3))", true},
        MatchCase{"[1, 2].all(x, [3, 4].exists(y, x + y == 5))", true},
        MatchCase{R"([0, 1].exists(x, 1 / x == 1))", true},
        MatchCase{R"([0, 1].all(x, 1 / x == 5))", false},
        MatchCase{"cel.bind(x, 1 / 0, true)", true},
        MatchCase{"cel.bind(x, 2, cel.bind(y, x * 3, y == 6))", true},
        // Indexing.
        MatchCase{"[1, 2, 3][1] == 2 && [1, 2][dyn(1u)] == 2 && [1, 2][dyn(0.0)] == 1", true},
        // Whitespace and comments.
        MatchCase{"// a comment\n  true // and another", true},
        MatchCase{"\tdevice.driver\n==\r\n'dra.example.com'", true}));

// ---- runtime errors, against Sample() ----

struct RuntimeErrorCase {
  std::string expression;
  std::string error;
};

class RuntimeErrorTest : public testing::TestWithParam<RuntimeErrorCase> {};

TEST_P(RuntimeErrorTest, Fails) {
  const Result r = Match(GetParam().expression);
  EXPECT_EQ(r.error, GetParam().error) << GetParam().expression;
  EXPECT_FALSE(r.matches);
}

INSTANTIATE_TEST_SUITE_P(
    Evaluator, RuntimeErrorTest,
    testing::Values(
        // Upstream's cases.
        RuntimeErrorCase{
            R"(device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0")))",
            "no such key: noSuchAttr"},
        RuntimeErrorCase{
            R"(device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0")))",
            "no such key: noSuchAttr"},
        RuntimeErrorCase{R"(device.attributes["dra.example.com"].count.exists(x, x > 0))",
                         "got 'types.Int', expected iterable type"},
        RuntimeErrorCase{R"(device.attributes["dra.example.com"].enabled.exists(x, x == true))",
                         "got 'types.Bool', expected iterable type"},
        RuntimeErrorCase{R"(device.attributes["dra.example.com"].model.exists(x, x == "fish"))",
                         "got 'types.String', expected iterable type"},
        RuntimeErrorCase{
            R"(device.attributes["dra.example.com"].version.exists(x, x.isGreaterThan(semver("0.0.1"))))",
            "got 'cel.Semver', expected iterable type"},
        RuntimeErrorCase{
            "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, "
            "3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, "
            "5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, "
            "6, 7, 8, 9, 10].all(z5, int('1') < 100)))))))",
            "operation cancelled: actual cost limit exceeded"},
        // Missing keys and dynamic type mismatches.
        RuntimeErrorCase{R"(device.attributes["dra.example.com"].nothing == 1)",
                         "no such key: nothing"},
        RuntimeErrorCase{R"(device.capacity["dra.example.com"].nothing.isLessThan(quantity("1")))",
                         "no such key: nothing"},
        RuntimeErrorCase{R"(device.attributes["dra.example.com"].model.length == 1)",
                         "no such key: length"},
        RuntimeErrorCase{R"(device.attributes["dra.example.com"].model > 1)", "no such overload"},
        RuntimeErrorCase{R"(device.attributes["dra.example.com"].count + "a" == "b")",
                         "no such overload"},
        RuntimeErrorCase{R"(device.attributes["dra.example.com"].count.lowerAscii() == "")",
                         "no such overload"},
        RuntimeErrorCase{R"(device.attributes["dra.example.com"].version == "1.2.3")",
                         "no such overload"},
        RuntimeErrorCase{
            R"(device.attributes["dra.example.com"].model.isGreaterThan(semver("1.0.0")))",
            "no such overload"},
        RuntimeErrorCase{R"(!device.attributes["dra.example.com"].count)", "no such overload"},
        RuntimeErrorCase{R"(device.attributes["dra.example.com"].count && true)",
                         "no such overload"},
        RuntimeErrorCase{R"(device.attributes["dra.example.com"].model)",
                         "CEL result of type string could not be converted to bool: type "
                         "conversion error from 'string' to 'bool'"},
        // Arithmetic.
        RuntimeErrorCase{"9223372036854775807 + 1 > 0", "integer overflow"},
        RuntimeErrorCase{"-9223372036854775808 - 1 < 0", "integer overflow"},
        RuntimeErrorCase{"-(-9223372036854775808) > 0", "integer overflow"},
        RuntimeErrorCase{"-9223372036854775808 / -1 > 0", "integer overflow"},
        RuntimeErrorCase{"4294967296 * 4294967296 > 0", "integer overflow"},
        RuntimeErrorCase{"0u - 1u > 0u", "unsigned integer overflow"},
        RuntimeErrorCase{"1 / 0 == 1", "division by zero"},
        RuntimeErrorCase{"1 % 0 == 1", "modulus by zero"},
        // Go's utf8.Valid: an overlong form, a surrogate, a sequence cut short.
        RuntimeErrorCase{R"(string(b"\xc0\x80") == "")",
                         "invalid UTF-8 in bytes, cannot convert to string"},
        RuntimeErrorCase{R"(string(b"\xed\xa0\x80") == "")",
                         "invalid UTF-8 in bytes, cannot convert to string"},
        RuntimeErrorCase{R"(string(b"a\xe2\x82") == "a")",
                         "invalid UTF-8 in bytes, cannot convert to string"},
        RuntimeErrorCase{"[1, 2][2] == 1", "index out of bounds: 2"},
        RuntimeErrorCase{"[1, 2][-1] == 1", "index out of bounds: -1"},
        RuntimeErrorCase{"1 / 0 == 1 || false", "division by zero"},
        RuntimeErrorCase{R"(size([quantity("1"), quantity("x")]) == 2)",
                         "quantities must match the regular expression "
                         "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
        // Library errors, with upstream's messages.
        RuntimeErrorCase{R"(quantity("200K").isInteger())", "unable to parse quantity's suffix"},
        RuntimeErrorCase{R"(quantity("Three").isInteger())",
                         "quantities must match the regular expression "
                         "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
        RuntimeErrorCase{R"(quantity(device.driver).isInteger())",
                         "quantities must match the regular expression "
                         "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
        RuntimeErrorCase{R"(quantity("1e19").asInteger() > 0)", "cannot convert value to integer"},
        RuntimeErrorCase{R"(semver("1.2").major() == 1)", "No Major.Minor.Patch elements found"},
        RuntimeErrorCase{
            R"(semver("v1.2", true).major() == 1 && semver("v1.2-rc", true).major() == 1)",
            "short version cannot contain PreRelease/Build meta data"},
        RuntimeErrorCase{R"(semver(device.driver).major() == 1)",
                         "Invalid character(s) found in major number \"dra\""},
        RuntimeErrorCase{R"(device.driver.matches(device.driver + "("))",
                         "error parsing regexp: missing ): dra.example.com("}));

TEST(EvaluatorTest, NestingIsBounded) {
  const std::string deep = std::string(300, '(') + "true" + std::string(300, ')');
  EXPECT_EQ(Compile(deep).error,
            "compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250");
  const std::string lists = std::string(300, '[') + std::string(300, ']');
  EXPECT_EQ(Compile(lists).error,
            "compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250");
  const std::string ok = std::string(200, '(') + "true" + std::string(200, ')');
  EXPECT_EQ(Compile(ok).error, "");

  // Chains that do not nest the grammar's expression rule are bounded by the tree's height.
  std::string sum = "1";
  for (int i = 0; i < 600; ++i) sum += " + 1";
  EXPECT_EQ(Compile(sum + " > 0").error,
            "compilation failed: ERROR: <input>:-1:0: max recursion depth exceeded");
  // Just below the bound, checking and evaluating recurse once per level without trouble.
  std::string shorter = "1";
  for (int i = 0; i < 490; ++i) shorter += " + 1";
  EXPECT_TRUE(Match(shorter + " == 491").matches);
  std::string indexes = "dyn(1)";
  for (int i = 0; i < 490; ++i) indexes += "[0]";
  EXPECT_EQ(Match(indexes + " == 1").error, "no such key: 0");
  EXPECT_NE(Compile(std::string(50000, '!') + "true").program, nullptr);
  std::string members = "device";
  for (int i = 0; i < 5000; ++i) members += ".a";
  EXPECT_NE(Compile(members).error, "");

  // && and || chains are flat, as cel-go balances them.
  std::string conj = "true";
  for (int i = 0; i < 5000; ++i) conj += " && true";
  ASSERT_EQ(Compile(conj).error, "");
  EXPECT_TRUE(Match(conj).matches);
}

TEST(EvaluatorTest, StringGrowthIsBounded) {
  std::string e = "cel.bind(s0, 'aaaaaaaaaaaaaaaa', ";
  for (int i = 1; i < 40; ++i) {
    e += "cel.bind(s" + std::to_string(i) + ", s" + std::to_string(i - 1) + " + s" +
         std::to_string(i - 1) + ", ";
  }
  e += "size(s39) > 0" + std::string(40, ')');
  const Result r = Match(e);
  EXPECT_EQ(r.error, "operation cancelled: actual cost limit exceeded");
}

TEST(EvaluatorTest, MissingDomainAndEmptyDriver) {
  TestDevice device;
  device.driver = "";
  device.Attr("", "name", true);
  EXPECT_TRUE(Match(R"(device.driver == "")", device).matches);
  EXPECT_TRUE(Match(R"(device.attributes[""].name)", device).matches);
  EXPECT_FALSE(Match(R"("dra.example.com" in device.attributes)", device).matches);
  EXPECT_TRUE(Match("device.attributes.size() == 1", device).matches);
}

TEST(EvaluatorTest, AllowMultipleAllocations) {
  TestDevice device;
  device.allow_multiple = true;
  EXPECT_TRUE(Match("device.allowMultipleAllocations == true", device).matches);
  EXPECT_FALSE(Match("device.allowMultipleAllocations", TestDevice()).matches);
}

TEST(EvaluatorTest, DomainMapsCompare) {
  EXPECT_TRUE(
      Match(R"(device.attributes["dra.example.com"] == device.attributes["dra.example.com"])")
          .matches);
  EXPECT_FALSE(
      Match(R"(device.attributes["dra.example.com"] == device.attributes["other.example.com"])")
          .matches);
  EXPECT_TRUE(Match(R"(device.attributes["a"] == device.capacity["b"])").matches);
}

TEST(EvaluatorTest, DoesNotAllocate) {
  const std::vector<std::string> expressions = {
      R"(device.driver == "dra.example.com")",
      R"(device.attributes["dra.example.com"].model == "a100")",
      R"(device.attributes["dra.example.com"]["model"] == "a100")",
      R"(device.capacity["dra.example.com"].memory.compareTo(quantity("40Gi")) >= 0)",
      R"(device.attributes["dra.example.com"].count > 4 && device.attributes["dra.example.com"].enabled)",
      R"(device.attributes["dra.example.com"].model in ["a100", "h100"])",
      R"(device.attributes["dra.example.com"].version.isGreaterThan(semver("1.0.0")))",
      R"(device.attributes["dra.example.com"].services.matches("^asym"))",
      R"(has(device.attributes["dra.example.com"].model) && "dra.example.com" in device.attributes)",
      R"(device.capacity["dra.example.com"].memory.add(quantity("1Gi")).isGreaterThan(quantity("1")))",
      R"(!device.allowMultipleAllocations || device.driver.startsWith("dra"))",
  };
  for (const std::string& expression : expressions) {
    const Compiled c = Compile(expression);
    ASSERT_NE(c.program, nullptr) << c.error;
    const DeviceView view = Sample().View();
    g_allocations = 0;
    g_counting = true;
    const Result r = Evaluate(*c.program, view);
    g_counting = false;
    EXPECT_TRUE(r.matches) << expression << ": " << r.error;
    EXPECT_EQ(g_allocations.load(), 0) << expression;
  }
}

TEST(EvaluatorTest, EvaluatesConcurrently) {
  const Compiled c = Compile(
      R"(device.attributes["dra.example.com"].services.matches("sym") && ["x"].all(s, s + device.driver != ""))");
  ASSERT_NE(c.program, nullptr) << c.error;
  std::vector<std::thread> threads;
  std::atomic<int> matched{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) matched += Evaluate(*c.program, Sample().View()).matches;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(matched.load(), 2000);
}

}  // namespace
}  // namespace muster::api::cel
