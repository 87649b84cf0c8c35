#include "muster/api/cel/program.h"

#include <vector>

namespace muster::api::cel {

const std::vector<Overload>& Overloads() {
  static const std::vector<Overload> kOverloads = {
      {"contains", true, {&kStringT, &kStringT}, &kBoolT, Fn::kContains},
      {"startsWith", true, {&kStringT, &kStringT}, &kBoolT, Fn::kStartsWith},
      {"endsWith", true, {&kStringT, &kStringT}, &kBoolT, Fn::kEndsWith},
      {"matches", true, {&kStringT, &kStringT}, &kBoolT, Fn::kMatches},
      {"matches", false, {&kStringT, &kStringT}, &kBoolT, Fn::kMatches},
      {"lowerAscii", true, {&kStringT}, &kStringT, Fn::kLowerAscii},
      {"upperAscii", true, {&kStringT}, &kStringT, Fn::kUpperAscii},
      {"size", false, {&kStringT}, &kIntT, Fn::kSize},
      {"size", false, {&kBytesT}, &kIntT, Fn::kSize},
      {"size", false, {&kListDynT}, &kIntT, Fn::kSize},
      {"size", false, {&kMapDynT}, &kIntT, Fn::kSize},
      {"size", true, {&kStringT}, &kIntT, Fn::kSize},
      {"size", true, {&kBytesT}, &kIntT, Fn::kSize},
      {"size", true, {&kListDynT}, &kIntT, Fn::kSize},
      {"size", true, {&kMapDynT}, &kIntT, Fn::kSize},
      {"split", true, {&kStringT, &kStringT}, &kListStringT, Fn::kSplit},
      {"join", true, {&kListStringT}, &kStringT, Fn::kJoin},
      {"join", true, {&kListStringT, &kStringT}, &kStringT, Fn::kJoin},
      {"quantity", false, {&kStringT}, &kQuantityT, Fn::kQuantity},
      {"isQuantity", false, {&kStringT}, &kBoolT, Fn::kIsQuantity},
      // Upstream declares sign as a global function, unlike its other quantity functions.
      {"sign", false, {&kQuantityT}, &kIntT, Fn::kSign},
      {"isInteger", true, {&kQuantityT}, &kBoolT, Fn::kIsInteger},
      {"asInteger", true, {&kQuantityT}, &kIntT, Fn::kAsInteger},
      {"asApproximateFloat", true, {&kQuantityT}, &kDoubleT, Fn::kAsApproximateFloat},
      {"add", true, {&kQuantityT, &kQuantityT}, &kQuantityT, Fn::kQuantityAdd},
      {"add", true, {&kQuantityT, &kIntT}, &kQuantityT, Fn::kQuantityAddInt},
      {"sub", true, {&kQuantityT, &kQuantityT}, &kQuantityT, Fn::kQuantitySub},
      {"sub", true, {&kQuantityT, &kIntT}, &kQuantityT, Fn::kQuantitySubInt},
      {"compareTo", true, {&kQuantityT, &kQuantityT}, &kIntT, Fn::kQuantityCompareTo},
      {"isGreaterThan", true, {&kQuantityT, &kQuantityT}, &kBoolT, Fn::kQuantityIsGreaterThan},
      {"isLessThan", true, {&kQuantityT, &kQuantityT}, &kBoolT, Fn::kQuantityIsLessThan},
      {"semver", false, {&kStringT}, &kSemverT, Fn::kSemver},
      {"semver", false, {&kStringT, &kBoolT}, &kSemverT, Fn::kSemver},
      {"isSemver", false, {&kStringT}, &kBoolT, Fn::kIsSemver},
      {"isSemver", false, {&kStringT, &kBoolT}, &kBoolT, Fn::kIsSemver},
      {"major", true, {&kSemverT}, &kIntT, Fn::kMajor},
      {"minor", true, {&kSemverT}, &kIntT, Fn::kMinor},
      {"patch", true, {&kSemverT}, &kIntT, Fn::kPatch},
      {"compareTo", true, {&kSemverT, &kSemverT}, &kIntT, Fn::kSemverCompareTo},
      {"isGreaterThan", true, {&kSemverT, &kSemverT}, &kBoolT, Fn::kSemverIsGreaterThan},
      {"isLessThan", true, {&kSemverT, &kSemverT}, &kBoolT, Fn::kSemverIsLessThan},
      {"int", false, {&kIntT}, &kIntT, Fn::kToInt},
      {"int", false, {&kUintT}, &kIntT, Fn::kToInt},
      {"int", false, {&kDoubleT}, &kIntT, Fn::kToInt},
      {"int", false, {&kStringT}, &kIntT, Fn::kToInt},
      {"uint", false, {&kIntT}, &kUintT, Fn::kToUint},
      {"uint", false, {&kUintT}, &kUintT, Fn::kToUint},
      {"uint", false, {&kDoubleT}, &kUintT, Fn::kToUint},
      {"uint", false, {&kStringT}, &kUintT, Fn::kToUint},
      {"double", false, {&kIntT}, &kDoubleT, Fn::kToDouble},
      {"double", false, {&kUintT}, &kDoubleT, Fn::kToDouble},
      {"double", false, {&kDoubleT}, &kDoubleT, Fn::kToDouble},
      {"double", false, {&kStringT}, &kDoubleT, Fn::kToDouble},
      {"string", false, {&kStringT}, &kStringT, Fn::kToString},
      {"string", false, {&kIntT}, &kStringT, Fn::kToString},
      {"string", false, {&kUintT}, &kStringT, Fn::kToString},
      {"string", false, {&kBoolT}, &kStringT, Fn::kToString},
      {"string", false, {&kBytesT}, &kStringT, Fn::kToString},
      {"dyn", false, {&kDynT}, &kDynT, Fn::kDyn},
  };
  return kOverloads;
}

}  // namespace muster::api::cel
