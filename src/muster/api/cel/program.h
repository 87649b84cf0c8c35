#pragma once

// The checker's output and the evaluator's input: a tree of Nodes, each an operation with its
// operands resolved (attribute names interned, literal patterns compiled, overloads narrowed).

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <re2/re2.h>

#include "muster/api/cel/types.h"
#include "muster/api/cel/value.h"
#include "muster/api/intern.h"
#include "muster/api/semver.h"

namespace muster::api::cel {

// Functions beyond the operators. Member and global forms share an entry where both exist.
enum class Fn : uint8_t {
  kContains,
  kStartsWith,
  kEndsWith,
  kMatches,
  kLowerAscii,
  kUpperAscii,
  kSize,
  kSplit,
  kJoin,
  kQuantity,
  kIsQuantity,
  kSign,
  kIsInteger,
  kAsInteger,
  kAsApproximateFloat,
  kQuantityAdd,
  kQuantityAddInt,
  kQuantitySub,
  kQuantitySubInt,
  kQuantityCompareTo,
  kQuantityIsGreaterThan,
  kQuantityIsLessThan,
  kSemver,
  kIsSemver,
  kMajor,
  kMinor,
  kPatch,
  kSemverCompareTo,
  kSemverIsGreaterThan,
  kSemverIsLessThan,
  kToInt,
  kToUint,
  kToDouble,
  kToString,
  kDyn,
};

struct Overload {
  std::string_view name;
  bool member;
  std::vector<const Type*> params;  // the receiver first, for a member
  const Type* result;
  Fn fn;
};

// Every function's overloads, in cel-go's order of declaration.
const std::vector<Overload>& Overloads();

enum class Op : uint8_t {
  kConst,
  kDevice,
  kDriver,
  kAllowMultiple,
  kAttrDomains,  // device.attributes
  kCapDomains,   // device.capacity
  kAttrDomain,   // device.attributes["<literal>"]: sym1 is the domain
  kCapDomain,
  kAttrLookup,  // device.attributes["<literal>"].<name>: sym1 domain, sym2 name
  kCapLookup,
  kLocal,
  kSelect,  // args[0].text (a map lookup by key)
  kHas,     // has(args[0].text)
  kIndex,
  kAnd,
  kOr,
  kNot,
  kNeg,
  kCond,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kIn,
  kList,
  kCall,  // one of `fns`, chosen by the argument values
  kAll,
  kExists,
  kExistsOne,
  kBind,
};

struct Node {
  Op op = Op::kConst;
  uint32_t slot = 0;  // kLocal, comprehensions and kBind: the variable
  Value value;        // kConst
  Symbol sym1;
  Symbol sym2;
  std::string_view text;          // kSelect, kHas: the field
  std::vector<Fn> fns;            // kCall: candidate overloads
  std::unique_ptr<RE2> regex;     // kCall matches() with a literal pattern
  std::vector<const Node*> args;  // comprehensions: range, predicate; kBind: init, body
};

class Program {
 public:
  const Node* root = nullptr;
  uint32_t slots = 0;
  std::vector<std::unique_ptr<Node>> nodes;
  // Storage for constants the nodes point into; deques keep addresses stable.
  std::deque<std::string> strings;
  std::deque<std::vector<Value>> lists;
  std::deque<SemVer> semvers;
};

}  // namespace muster::api::cel
