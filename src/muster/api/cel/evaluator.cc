// The evaluator: walks a program's Nodes against one device. Runs per device per node, so the
// common selector shapes allocate nothing, and its cost is counted against kMaxCost.

#include <charconv>
#include <cmath>
#include <forward_list>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <re2/re2.h>

#include "muster/api/cel/cel.h"
#include "muster/api/cel/program.h"
#include "muster/api/cel/utf8.h"
#include "muster/api/cel/value.h"

namespace muster::api::cel {
namespace {

class Evaluator {
 public:
  Evaluator(const Program& program, const DeviceView& device)
      : device_(device), locals_(program.slots) {}

  Value Eval(const Node* n) {
    if (++cost_ > kMaxCost) return Cancel();
    switch (n->op) {
      case Op::kConst:
        return n->value;
      case Op::kDevice:
        return Value::Device();
      case Op::kDriver:
        return Value::String(device_.driver);
      case Op::kAllowMultiple:
        return Value::Bool(device_.allow_multiple_allocations);
      case Op::kAttrDomains:
        return Value::Map(MapKind::kAttrDomains);
      case Op::kCapDomains:
        return Value::Map(MapKind::kCapDomains);
      case Op::kAttrDomain:
        return Value::Map(MapKind::kAttrs, n->sym1);
      case Op::kCapDomain:
        return Value::Map(MapKind::kCaps, n->sym1);
      case Op::kAttrLookup:
        for (const DeviceAttribute& a : device_.attributes) {
          if (a.domain == n->sym1 && a.name == n->sym2) return AttributeValue(a);
        }
        return NoSuchKey(n->sym2.str());
      case Op::kCapLookup:
        for (const DeviceCapacity& c : device_.capacity) {
          if (c.domain == n->sym1 && c.name == n->sym2) return Value::Quant(c.value);
        }
        return NoSuchKey(n->sym2.str());
      case Op::kLocal:
        return locals_[n->slot];
      case Op::kSelect:
        return Select(Eval(n->args[0]), n->text, false);
      case Op::kHas:
        return Select(Eval(n->args[0]), n->text, true);
      case Op::kIndex:
        return Index(Eval(n->args[0]), Eval(n->args[1]));
      case Op::kAnd:
        return Logical(n, false);
      case Op::kOr:
        return Logical(n, true);
      case Op::kNot: {
        const Value v = Eval(n->args[0]);
        if (v.IsError()) return v;
        return v.kind == Kind::kBool ? Value::Bool(!v.b) : NoSuchOverload();
      }
      case Op::kNeg:
        return Negate(Eval(n->args[0]));
      case Op::kCond: {
        const Value c = Eval(n->args[0]);
        if (c.IsError()) return c;
        if (c.kind != Kind::kBool) return NoSuchOverload();
        return Eval(n->args[c.b ? 1 : 2]);
      }
      case Op::kEq:
      case Op::kNe: {
        const Value a = Eval(n->args[0]);
        if (a.IsError()) return a;
        const Value b = Eval(n->args[1]);
        if (b.IsError()) return b;
        const Value eq = Equal(a, b);
        if (eq.IsError() || n->op == Op::kEq) return eq;
        return Value::Bool(!eq.b);
      }
      case Op::kLt:
      case Op::kLe:
      case Op::kGt:
      case Op::kGe:
        return Compare(n);
      case Op::kAdd:
      case Op::kSub:
      case Op::kMul:
      case Op::kDiv:
      case Op::kMod: {
        const Value a = Eval(n->args[0]);
        if (a.IsError()) return a;
        const Value b = Eval(n->args[1]);
        if (b.IsError()) return b;
        return Arithmetic(n->op, a, b);
      }
      case Op::kIn: {
        const Value a = Eval(n->args[0]);
        if (a.IsError()) return a;
        const Value b = Eval(n->args[1]);
        if (b.IsError()) return b;
        return In(a, b);
      }
      case Op::kList: {
        std::vector<Value>& items = lists_.emplace_front();
        items.reserve(n->args.size());
        for (const Node* a : n->args) {
          const Value v = Eval(a);
          if (v.IsError()) return v;
          items.push_back(v);
        }
        return Value::List(items.data(), items.size());
      }
      case Op::kCall:
        return Call(n);
      case Op::kAll:
      case Op::kExists:
      case Op::kExistsOne:
        return Comprehension(n);
      case Op::kBind:
        locals_[n->slot] = Eval(n->args[0]);
        return Eval(n->args[1]);
    }
    return NoSuchOverload();
  }

  bool cancelled() const { return cancelled_; }

 private:
  Value Cancel() {
    cancelled_ = true;
    cost_ = kMaxCost + 1;
    return Value::Err(StaticError("operation cancelled: actual cost limit exceeded"));
  }

  // Charges work proportional to `bytes`, a tenth of a unit each as cel-go charges strings.
  bool Charge(size_t bytes) {
    cost_ += bytes / 10;
    if (cost_ > kMaxCost) {
      Cancel();
      return false;
    }
    return true;
  }

  [[gnu::noinline]] Value Err(std::string message) {
    return Value::Err(&errors_.emplace_front(std::move(message)));
  }
  [[gnu::noinline]] Value NoSuchKey(std::string_view key) {
    return Err("no such key: " + std::string(key));
  }

  std::string_view Keep(std::string s) { return strings_.emplace_front(std::move(s)); }

  static Value AttributeValue(const DeviceAttribute& a) {
    struct Visitor {
      Value operator()(bool v) const { return Value::Bool(v); }
      Value operator()(int64_t v) const { return Value::Int(v); }
      Value operator()(const std::string& v) const { return Value::String(v); }
      Value operator()(const SemVer& v) const { return Value::Sem(&v); }
    };
    return std::visit(Visitor{}, a.value);
  }

  // ---- the device's maps ----

  size_t MapSize(const Value& m) const {
    size_t n = 0;
    for (size_t i = 0, e = MapEntries(m); i < e; ++i) n += IsMapKey(m, i);
    return n;
  }

  // The number of underlying entries to scan, some of which may not be keys (see IsMapKey).
  size_t MapEntries(const Value& m) const {
    switch (m.map) {
      case MapKind::kAttrDomains:
      case MapKind::kAttrs:
        return device_.attributes.size();
      case MapKind::kCapDomains:
      case MapKind::kCaps:
        return device_.capacity.size();
      case MapKind::kEmpty:
        return 0;
    }
    return 0;
  }

  // Whether entry i is a key of m: for the domain maps, the first entry of each domain.
  bool IsMapKey(const Value& m, size_t i) const {
    switch (m.map) {
      case MapKind::kAttrs:
        return device_.attributes[i].domain == m.domain;
      case MapKind::kCaps:
        return device_.capacity[i].domain == m.domain;
      case MapKind::kAttrDomains:
        for (size_t j = 0; j < i; ++j) {
          if (device_.attributes[j].domain == device_.attributes[i].domain) return false;
        }
        return true;
      case MapKind::kCapDomains:
        for (size_t j = 0; j < i; ++j) {
          if (device_.capacity[j].domain == device_.capacity[i].domain) return false;
        }
        return true;
      case MapKind::kEmpty:
        return false;
    }
    return false;
  }

  std::string_view MapKey(const Value& m, size_t i) const {
    switch (m.map) {
      case MapKind::kAttrs:
        return device_.attributes[i].name.str();
      case MapKind::kCaps:
        return device_.capacity[i].name.str();
      case MapKind::kAttrDomains:
        return device_.attributes[i].domain.str();
      case MapKind::kCapDomains:
        return device_.capacity[i].domain.str();
      case MapKind::kEmpty:
        return {};
    }
    return {};
  }

  // The value under `key`, or nullopt. The domain maps give the empty map for a domain the
  // device has nothing in, as upstream's default: only `in` and has() tell it apart.
  std::optional<Value> MapFind(const Value& m, std::string_view key, bool for_contains) const {
    switch (m.map) {
      case MapKind::kAttrs:
        for (const DeviceAttribute& a : device_.attributes) {
          if (a.domain == m.domain && a.name.str() == key) return AttributeValue(a);
        }
        return std::nullopt;
      case MapKind::kCaps:
        for (const DeviceCapacity& c : device_.capacity) {
          if (c.domain == m.domain && c.name.str() == key) return Value::Quant(c.value);
        }
        return std::nullopt;
      case MapKind::kAttrDomains:
        for (const DeviceAttribute& a : device_.attributes) {
          if (a.domain.str() == key) return Value::Map(MapKind::kAttrs, a.domain);
        }
        if (for_contains) return std::nullopt;
        return Value::Map(MapKind::kEmpty);
      case MapKind::kCapDomains:
        for (const DeviceCapacity& c : device_.capacity) {
          if (c.domain.str() == key) return Value::Map(MapKind::kCaps, c.domain);
        }
        if (for_contains) return std::nullopt;
        return Value::Map(MapKind::kEmpty);
      case MapKind::kEmpty:
        return std::nullopt;
    }
    return std::nullopt;
  }

  // cel-go's attribute qualification: a map lookup by key; anything else has no keys.
  [[gnu::noinline]] Value Select(const Value& v, std::string_view key, bool presence) {
    if (v.IsError()) return v;
    if (v.kind == Kind::kMap) {
      std::optional<Value> found = MapFind(v, key, false);
      if (presence) return Value::Bool(found.has_value());
      if (found) return *found;
      return NoSuchKey(key);
    }
    if (v.kind == Kind::kDevice) {
      // Only reached through a dynamic value, which `device` never is; kept total.
      return presence ? Value::Bool(true) : NoSuchOverload();
    }
    if (v.kind == Kind::kList) return Err("unsupported index type 'string' in list");
    return presence ? Value::Bool(false) : NoSuchKey(key);
  }

  static std::optional<int64_t> IndexOf(const Value& k) {
    switch (k.kind) {
      case Kind::kInt:
        return k.i;
      case Kind::kUint:
        if (k.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return -1;
        return static_cast<int64_t>(k.u);
      case Kind::kDouble:
        if (k.d >= -9.2e18 && k.d <= 9.2e18 && k.d == std::trunc(k.d)) {
          return static_cast<int64_t>(k.d);
        }
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }

  std::string Format(const Value& v) {
    switch (v.kind) {
      case Kind::kInt:
        return std::to_string(v.i);
      case Kind::kUint:
        return std::to_string(v.u);
      case Kind::kString:
        return std::string(v.str());
      case Kind::kBool:
        return v.b ? "true" : "false";
      case Kind::kDouble: {
        char buf[32];
        const auto r = std::to_chars(buf, buf + sizeof buf, v.d);
        return std::string(buf, r.ptr);
      }
      default:
        return std::string(ValueTypeName(v));
    }
  }

  [[gnu::noinline]] Value Index(const Value& c, const Value& k) {
    if (c.IsError()) return c;
    if (k.IsError()) return k;
    if (c.kind == Kind::kList) {
      const std::optional<int64_t> i = IndexOf(k);
      if (!i) {
        if (k.kind == Kind::kDouble)
          return Err("unsupported index value " + Format(k) + " in list");
        return Err("unsupported index type '" + std::string(ValueTypeName(k)) + "' in list");
      }
      if (*i < 0 || static_cast<uint64_t>(*i) >= c.list.size) {
        return Err("index out of bounds: " + Format(k));
      }
      return c.list.data[*i];
    }
    if (c.kind == Kind::kMap) {
      if (k.kind != Kind::kString) {
        return Err("unsupported key type: " + std::string(ValueTypeName(k)));
      }
      if (std::optional<Value> found = MapFind(c, k.str(), false)) return *found;
      return NoSuchKey(k.str());
    }
    return NoSuchKey(Format(k));
  }

  // && (or ||) over every operand, commutatively: any false (true) decides, else an error is
  // the result, else true (false).
  [[gnu::noinline]] Value Logical(const Node* n, bool is_or) {
    std::optional<Value> error;
    for (const Node* a : n->args) {
      const Value v = Eval(a);
      if (v.kind == Kind::kBool) {
        if (v.b == is_or) return v;
      } else if (!error) {
        error = v.IsError() ? v : NoSuchOverload();
      }
      if (cancelled_) break;
    }
    if (error) return *error;
    return Value::Bool(!is_or);
  }

  static Value Negate(const Value& v) {
    if (v.IsError()) return v;
    if (v.kind == Kind::kInt) {
      if (v.i == std::numeric_limits<int64_t>::min())
        return Value::Err(StaticError("integer overflow"));
      return Value::Int(-v.i);
    }
    if (v.kind == Kind::kDouble) return Value::Double(-v.d);
    return NoSuchOverload();
  }

  // ---- equality and ordering ----

  static bool IsNumber(const Value& v) {
    return v.kind == Kind::kInt || v.kind == Kind::kUint || v.kind == Kind::kDouble;
  }

  static int Sign3(bool less, bool greater) { return less ? -1 : greater ? 1 : 0; }

  // -1, 0 or 1; nullopt when a NaN is involved.
  static std::optional<int> CompareNumbers(const Value& a, const Value& b) {
    if (a.kind == Kind::kDouble || b.kind == Kind::kDouble) {
      if (a.kind == Kind::kDouble && b.kind == Kind::kDouble) {
        if (std::isnan(a.d) || std::isnan(b.d)) return std::nullopt;
        return Sign3(a.d<b.d, a.d> b.d);
      }
      // One side is an integer: out of its range, the double decides (as cel-go).
      const bool flip = a.kind == Kind::kDouble;
      const Value& x = flip ? b : a;
      const double d = flip ? a.d : b.d;
      if (std::isnan(d)) return std::nullopt;
      int c;
      if (x.kind == Kind::kInt) {
        if (d < -9223372036854775808.0) {
          c = 1;
        } else if (d >= 9223372036854775808.0) {
          c = -1;
        } else {
          const double xd = static_cast<double>(x.i);
          c = Sign3(xd<d, xd> d);
        }
      } else {
        if (d < 0) {
          c = 1;
        } else if (d >= 18446744073709551616.0) {
          c = -1;
        } else {
          const double xd = static_cast<double>(x.u);
          c = Sign3(xd<d, xd> d);
        }
      }
      return flip ? -c : c;
    }
    if (a.kind == Kind::kInt && b.kind == Kind::kInt) return Sign3(a.i<b.i, a.i> b.i);
    if (a.kind == Kind::kUint && b.kind == Kind::kUint) return Sign3(a.u<b.u, a.u> b.u);
    if (a.kind == Kind::kInt)
      return a.i < 0 ? -1
                     : Sign3(static_cast<uint64_t>(a.i) < b.u, static_cast<uint64_t>(a.i) > b.u);
    return b.i < 0 ? 1 : Sign3(a.u<static_cast<uint64_t>(b.i), a.u> static_cast<uint64_t>(b.i));
  }

  // CEL's heterogeneous equality, as cel-go: numbers compare by value across int, uint and
  // double; other mismatched types are unequal, except that Kubernetes' quantity and semver
  // values refuse to compare with anything else ("no such overload").
  [[gnu::noinline]] Value Equal(const Value& a, const Value& b) {
    if (a.kind == Kind::kNull || b.kind == Kind::kNull) return Value::Bool(a.kind == b.kind);
    if (IsNumber(a) && IsNumber(b)) {
      const std::optional<int> c = CompareNumbers(a, b);
      return Value::Bool(c && *c == 0);
    }
    if (a.kind == Kind::kQuantity) {
      if (b.kind != Kind::kQuantity) return NoSuchOverload();
      return Value::Bool(a.q.Cmp(b.q) == 0);
    }
    if (a.kind == Kind::kSemver) {
      if (b.kind != Kind::kSemver) return NoSuchOverload();
      return Value::Bool(*a.semver == *b.semver);
    }
    if (a.kind != b.kind) return Value::Bool(false);
    switch (a.kind) {
      case Kind::kBool:
        return Value::Bool(a.b == b.b);
      case Kind::kString:
      case Kind::kBytes:
        return Value::Bool(a.str() == b.str());
      case Kind::kDevice:
        return Value::Bool(true);
      case Kind::kList: {
        if (a.list.size != b.list.size) return Value::Bool(false);
        // As cel-go, only a definite false makes the lists unequal.
        for (size_t i = 0; i < a.list.size; ++i) {
          const Value eq = Equal(a.list.data[i], b.list.data[i]);
          if (eq.kind == Kind::kBool && !eq.b) return eq;
        }
        return Value::Bool(true);
      }
      case Kind::kMap: {
        if (MapSize(a) != MapSize(b)) return Value::Bool(false);
        for (size_t i = 0, e = MapEntries(a); i < e; ++i) {
          if (!IsMapKey(a, i)) continue;
          const std::string_view key = MapKey(a, i);
          const std::optional<Value> x = MapFind(a, key, true);
          const std::optional<Value> y = MapFind(b, key, true);
          if (!y) return Value::Bool(false);
          const Value eq = Equal(*x, *y);
          if (eq.kind == Kind::kBool && !eq.b) return eq;
        }
        return Value::Bool(true);
      }
      default:
        return Value::Bool(false);
    }
  }

  [[gnu::noinline]] Value Compare(const Node* n) {
    const Value a = Eval(n->args[0]);
    if (a.IsError()) return a;
    const Value b = Eval(n->args[1]);
    if (b.IsError()) return b;
    std::optional<int> c;
    if (IsNumber(a) && IsNumber(b)) {
      c = CompareNumbers(a, b);
      if (!c) return Value::Bool(false);
    } else if (a.kind != b.kind) {
      return NoSuchOverload();
    } else if (a.kind == Kind::kString || a.kind == Kind::kBytes) {
      const int r = a.str().compare(b.str());
      c = Sign3(r<0, r> 0);
    } else if (a.kind == Kind::kBool) {
      c = Sign3(a.b<b.b, a.b> b.b);
    } else {
      return NoSuchOverload();
    }
    switch (n->op) {
      case Op::kLt:
        return Value::Bool(*c < 0);
      case Op::kLe:
        return Value::Bool(*c <= 0);
      case Op::kGt:
        return Value::Bool(*c > 0);
      default:
        return Value::Bool(*c >= 0);
    }
  }

  // ---- arithmetic ----

  [[gnu::noinline]] Value Arithmetic(Op op, const Value& a, const Value& b) {
    if (a.kind != b.kind) return NoSuchOverload();
    switch (a.kind) {
      case Kind::kInt: {
        int64_t r = 0;
        switch (op) {
          case Op::kAdd:
            if (__builtin_add_overflow(a.i, b.i, &r))
              return Value::Err(StaticError("integer overflow"));
            return Value::Int(r);
          case Op::kSub:
            if (__builtin_sub_overflow(a.i, b.i, &r))
              return Value::Err(StaticError("integer overflow"));
            return Value::Int(r);
          case Op::kMul:
            if (__builtin_mul_overflow(a.i, b.i, &r))
              return Value::Err(StaticError("integer overflow"));
            return Value::Int(r);
          case Op::kDiv:
          case Op::kMod:
            if (b.i == 0) {
              return Value::Err(
                  StaticError(op == Op::kDiv ? "division by zero" : "modulus by zero"));
            }
            if (b.i == -1 && a.i == std::numeric_limits<int64_t>::min()) {
              return Value::Err(StaticError("integer overflow"));
            }
            return Value::Int(op == Op::kDiv ? a.i / b.i : a.i % b.i);
          default:
            break;
        }
        break;
      }
      case Kind::kUint: {
        uint64_t r = 0;
        switch (op) {
          case Op::kAdd:
            if (__builtin_add_overflow(a.u, b.u, &r))
              return Value::Err(StaticError("unsigned integer overflow"));
            return Value::Uint(r);
          case Op::kSub:
            if (__builtin_sub_overflow(a.u, b.u, &r))
              return Value::Err(StaticError("unsigned integer overflow"));
            return Value::Uint(r);
          case Op::kMul:
            if (__builtin_mul_overflow(a.u, b.u, &r))
              return Value::Err(StaticError("unsigned integer overflow"));
            return Value::Uint(r);
          case Op::kDiv:
          case Op::kMod:
            if (b.u == 0) {
              return Value::Err(
                  StaticError(op == Op::kDiv ? "division by zero" : "modulus by zero"));
            }
            return Value::Uint(op == Op::kDiv ? a.u / b.u : a.u % b.u);
          default:
            break;
        }
        break;
      }
      case Kind::kDouble:
        switch (op) {
          case Op::kAdd:
            return Value::Double(a.d + b.d);
          case Op::kSub:
            return Value::Double(a.d - b.d);
          case Op::kMul:
            return Value::Double(a.d * b.d);
          case Op::kDiv:
            return Value::Double(a.d / b.d);
          default:
            break;
        }
        break;
      case Kind::kString:
      case Kind::kBytes:
        if (op == Op::kAdd) {
          if (!Charge(a.s.size + b.s.size)) return Cancel();
          std::string joined;
          joined.reserve(a.s.size + b.s.size);
          joined.append(a.str()).append(b.str());
          return Value::String(Keep(std::move(joined)), a.kind);
        }
        break;
      case Kind::kList:
        if (op == Op::kAdd) {
          if (!Charge(a.list.size + b.list.size)) return Cancel();
          std::vector<Value>& items = lists_.emplace_front(a.list.data, a.list.data + a.list.size);
          items.insert(items.end(), b.list.data, b.list.data + b.list.size);
          return Value::List(items.data(), items.size());
        }
        break;
      default:
        break;
    }
    return NoSuchOverload();
  }

  [[gnu::noinline]] Value In(const Value& x, const Value& c) {
    if (c.kind == Kind::kList) {
      std::optional<Value> error;
      if (!Charge(c.list.size * 10)) return Cancel();
      for (size_t i = 0; i < c.list.size; ++i) {
        // cel-go asks the element, not the needle, whether they are equal.
        const Value eq = Equal(c.list.data[i], x);
        if (eq.kind == Kind::kBool) {
          if (eq.b) return eq;
        } else if (!error) {
          error = eq;
        }
      }
      if (error) return *error;
      return Value::Bool(false);
    }
    if (c.kind == Kind::kMap) {
      if (x.kind != Kind::kString) return Value::Bool(false);
      return Value::Bool(MapFind(c, x.str(), true).has_value());
    }
    return NoSuchOverload();
  }

  // ---- functions ----

  [[gnu::noinline]] Value Call(const Node* n) {
    // Up to three arguments: kept on the stack so a call allocates nothing.
    Value argv[3];
    const size_t argc = n->args.size();
    for (size_t i = 0; i < argc; ++i) {
      argv[i] = Eval(n->args[i]);
      if (argv[i].IsError()) return argv[i];
    }
    for (Fn fn : n->fns) {
      if (AcceptsArgs(fn, argv, argc)) return Apply(fn, n, argv, argc);
    }
    return NoSuchOverload();
  }

  static bool AcceptsArgs(Fn fn, const Value* argv, size_t argc) {
    auto is = [&](size_t i, Kind k) { return i < argc && argv[i].kind == k; };
    switch (fn) {
      case Fn::kContains:
      case Fn::kStartsWith:
      case Fn::kEndsWith:
      case Fn::kMatches:
      case Fn::kSplit:
        return is(0, Kind::kString) && is(1, Kind::kString);
      case Fn::kLowerAscii:
      case Fn::kUpperAscii:
      case Fn::kQuantity:
      case Fn::kIsQuantity:
        return is(0, Kind::kString);
      case Fn::kSemver:
      case Fn::kIsSemver:
        return is(0, Kind::kString) && (argc == 1 || is(1, Kind::kBool));
      case Fn::kSize:
        return is(0, Kind::kString) || is(0, Kind::kBytes) || is(0, Kind::kList) ||
               is(0, Kind::kMap);
      case Fn::kJoin:
        return is(0, Kind::kList) && (argc == 1 || is(1, Kind::kString));
      case Fn::kSign:
      case Fn::kIsInteger:
      case Fn::kAsInteger:
      case Fn::kAsApproximateFloat:
        return is(0, Kind::kQuantity);
      case Fn::kQuantityAdd:
      case Fn::kQuantitySub:
      case Fn::kQuantityCompareTo:
      case Fn::kQuantityIsGreaterThan:
      case Fn::kQuantityIsLessThan:
        return is(0, Kind::kQuantity) && is(1, Kind::kQuantity);
      case Fn::kQuantityAddInt:
      case Fn::kQuantitySubInt:
        return is(0, Kind::kQuantity) && is(1, Kind::kInt);
      case Fn::kMajor:
      case Fn::kMinor:
      case Fn::kPatch:
        return is(0, Kind::kSemver);
      case Fn::kSemverCompareTo:
      case Fn::kSemverIsGreaterThan:
      case Fn::kSemverIsLessThan:
        return is(0, Kind::kSemver) && is(1, Kind::kSemver);
      case Fn::kToInt:
      case Fn::kToUint:
      case Fn::kToDouble:
        return is(0, Kind::kInt) || is(0, Kind::kUint) || is(0, Kind::kDouble) ||
               is(0, Kind::kString);
      case Fn::kToString:
        return is(0, Kind::kString) || is(0, Kind::kInt) || is(0, Kind::kUint) ||
               is(0, Kind::kBool) || is(0, Kind::kBytes);
      case Fn::kDyn:
        return argc == 1;
    }
    return false;
  }

  [[gnu::noinline]] Value Apply(Fn fn, const Node* n, const Value* argv, size_t argc) {
    const Value& a = argv[0];
    switch (fn) {
      case Fn::kContains:
        if (!Charge(a.s.size)) return Cancel();
        return Value::Bool(a.str().find(argv[1].str()) != std::string_view::npos);
      case Fn::kStartsWith:
        return Value::Bool(a.str().starts_with(argv[1].str()));
      case Fn::kEndsWith:
        return Value::Bool(a.str().ends_with(argv[1].str()));
      case Fn::kMatches: {
        if (!Charge(a.s.size)) return Cancel();
        const re2::StringPiece text(a.s.data, a.s.size);
        if (n->regex) return Value::Bool(RE2::PartialMatch(text, *n->regex));
        RE2::Options options;
        options.set_log_errors(false);
        const RE2 re(re2::StringPiece(argv[1].s.data, argv[1].s.size), options);
        if (!re.ok()) return Err("error parsing regexp: " + re.error());
        return Value::Bool(RE2::PartialMatch(text, re));
      }
      case Fn::kLowerAscii:
      case Fn::kUpperAscii: {
        if (!Charge(a.s.size)) return Cancel();
        std::string out(a.str());
        for (char& c : out) {
          if (fn == Fn::kLowerAscii && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
          if (fn == Fn::kUpperAscii && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
        }
        return Value::String(Keep(std::move(out)));
      }
      case Fn::kSize:
        switch (a.kind) {
          case Kind::kString:
            return Value::Int(static_cast<int64_t>(CodePoints(a.str())));
          case Kind::kBytes:
            return Value::Int(static_cast<int64_t>(a.s.size));
          case Kind::kList:
            return Value::Int(static_cast<int64_t>(a.list.size));
          default:
            return Value::Int(static_cast<int64_t>(MapSize(a)));
        }
      case Fn::kSplit: {
        if (!Charge(a.s.size)) return Cancel();
        std::vector<Value>& parts = lists_.emplace_front();
        const std::string_view s = a.str();
        const std::string_view sep = argv[1].str();
        if (sep.empty()) {
          // Go's strings.Split: each UTF-8 sequence on its own, an invalid byte alone.
          for (size_t i = 0; i < s.size();) {
            const size_t len = std::max<size_t>(SequenceLength(s, i), 1);
            parts.push_back(Value::String(s.substr(i, len)));
            i += len;
          }
        } else {
          for (size_t start = 0;;) {
            const size_t at = s.find(sep, start);
            parts.push_back(
                Value::String(s.substr(start, at == std::string_view::npos ? at : at - start)));
            if (at == std::string_view::npos) break;
            start = at + sep.size();
          }
        }
        return Value::List(parts.data(), parts.size());
      }
      case Fn::kJoin: {
        const std::string_view sep = argc == 2 ? argv[1].str() : std::string_view();
        std::string out;
        for (size_t i = 0; i < a.list.size; ++i) {
          if (a.list.data[i].kind != Kind::kString) return NoSuchOverload();
          if (i > 0) out += sep;
          out += a.list.data[i].str();
          if (!Charge(out.size())) return Cancel();
        }
        return Value::String(Keep(std::move(out)));
      }
      case Fn::kQuantity: {
        Quantity q;
        std::string error;
        if (!Quantity::Parse(a.str(), &q, &error)) return Err(std::move(error));
        return Value::Quant(q);
      }
      case Fn::kIsQuantity:
        return Value::Bool(Quantity::Parse(a.str()).has_value());
      case Fn::kSign:
        return Value::Int(a.q.Sign());
      case Fn::kIsInteger:
      case Fn::kAsInteger: {
        // Upstream's AsInt64: an exact integer within int64.
        const Quantity::Nanos nanos = a.q.nanos();
        const Quantity::Nanos kNano = 1'000'000'000;
        const bool integral = nanos % kNano == 0 &&
                              nanos / kNano <= std::numeric_limits<int64_t>::max() &&
                              nanos / kNano >= std::numeric_limits<int64_t>::min();
        if (fn == Fn::kIsInteger) return Value::Bool(integral);
        if (!integral) return Err("cannot convert value to integer");
        return Value::Int(static_cast<int64_t>(nanos / kNano));
      }
      case Fn::kAsApproximateFloat:
        return Value::Double(static_cast<double>(a.q.nanos()) / 1e9);
      case Fn::kQuantityAdd:
      case Fn::kQuantitySub:
      case Fn::kQuantityAddInt:
      case Fn::kQuantitySubInt: {
        const Quantity y = (fn == Fn::kQuantityAdd || fn == Fn::kQuantitySub)
                               ? argv[1].q
                               : Quantity::FromValue(argv[1].i, QuantityFormat::kDecimalExponent);
        Quantity q = a.q;
        if (fn == Fn::kQuantityAdd || fn == Fn::kQuantityAddInt) {
          q.Add(y);
        } else {
          q.Sub(y);
        }
        return Value::Quant(q);
      }
      case Fn::kQuantityCompareTo:
        return Value::Int(a.q.Cmp(argv[1].q));
      case Fn::kQuantityIsGreaterThan:
        return Value::Bool(a.q.Cmp(argv[1].q) > 0);
      case Fn::kQuantityIsLessThan:
        return Value::Bool(a.q.Cmp(argv[1].q) < 0);
      case Fn::kSemver:
      case Fn::kIsSemver: {
        const bool normalize = argc == 2 && argv[1].b;
        std::string error;
        std::optional<SemVer> v =
            normalize ? SemVer::ParseNormalized(a.str(), &error) : SemVer::Parse(a.str(), &error);
        if (fn == Fn::kIsSemver) return Value::Bool(v.has_value());
        if (!v) return Err(std::move(error));
        return Value::Sem(&semvers_.emplace_front(std::move(*v)));
      }
      case Fn::kMajor:
      case Fn::kMinor:
      case Fn::kPatch: {
        // Upstream converts the uint64 to int64 as Go does, wrapping above the int64 range.
        const uint64_t v = fn == Fn::kMajor   ? a.semver->major
                           : fn == Fn::kMinor ? a.semver->minor
                                              : a.semver->patch;
        return Value::Int(static_cast<int64_t>(v));
      }
      case Fn::kSemverCompareTo: {
        const auto c = *a.semver <=> *argv[1].semver;
        return Value::Int(c < 0 ? -1 : c > 0 ? 1 : 0);
      }
      case Fn::kSemverIsGreaterThan:
        return Value::Bool(*a.semver > *argv[1].semver);
      case Fn::kSemverIsLessThan:
        return Value::Bool(*a.semver < *argv[1].semver);
      case Fn::kDyn:
        return a;
      case Fn::kToInt:
        return ToInt(a);
      case Fn::kToUint:
        return ToUint(a);
      case Fn::kToDouble:
        return ToDouble(a);
      case Fn::kToString:
        if (a.kind == Kind::kString) return a;
        if (a.kind == Kind::kBytes) {
          // Bytes convert only when they are valid UTF-8.
          const std::string_view s = a.str();
          if (!ValidUtf8(s)) return Err("invalid UTF-8 in bytes, cannot convert to string");
          return Value::String(s);
        }
        return Value::String(Keep(Format(a)));
    }
    return NoSuchOverload();
  }

  Value ToInt(const Value& a) {
    switch (a.kind) {
      case Kind::kInt:
        return a;
      case Kind::kUint:
        if (a.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          return Value::Err(StaticError("integer overflow"));
        }
        return Value::Int(static_cast<int64_t>(a.u));
      case Kind::kDouble:
        if (!(a.d > -9223372036854775808.0 && a.d < 9223372036854775807.0)) {
          return Value::Err(StaticError("integer overflow"));
        }
        return Value::Int(static_cast<int64_t>(a.d));
      default: {
        int64_t v = 0;
        const std::string_view s = a.str();
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
          return Err("cannot convert string to int");
        }
        return Value::Int(v);
      }
    }
  }

  Value ToUint(const Value& a) {
    switch (a.kind) {
      case Kind::kUint:
        return a;
      case Kind::kInt:
        if (a.i < 0) return Value::Err(StaticError("unsigned integer overflow"));
        return Value::Uint(static_cast<uint64_t>(a.i));
      case Kind::kDouble:
        if (!(a.d > -1.0 && a.d < 18446744073709551615.0)) {
          return Value::Err(StaticError("unsigned integer overflow"));
        }
        return Value::Uint(static_cast<uint64_t>(a.d));
      default: {
        uint64_t v = 0;
        const std::string_view s = a.str();
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
          return Err("cannot convert string to uint");
        }
        return Value::Uint(v);
      }
    }
  }

  Value ToDouble(const Value& a) {
    switch (a.kind) {
      case Kind::kDouble:
        return a;
      case Kind::kInt:
        return Value::Double(static_cast<double>(a.i));
      case Kind::kUint:
        return Value::Double(static_cast<double>(a.u));
      default: {
        double v = 0;
        const std::string_view s = a.str();
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
          return Err("cannot convert string to double");
        }
        return Value::Double(v);
      }
    }
  }

  // ---- macros ----

  [[gnu::noinline]] Value Comprehension(const Node* n) {
    const Value range = Eval(n->args[0]);
    if (range.IsError()) return range;
    const Op op = n->op;
    int64_t count = 0;
    std::optional<Value> error;
    // Each step: bind the variable, test, and decide as the macro's loop would.
    auto step = [&](const Value& item) -> std::optional<Value> {
      locals_[n->slot] = item;
      const Value v = Eval(n->args[1]);
      if (cancelled_) return v;
      if (v.kind != Kind::kBool) {
        const Value e = v.IsError() ? v : NoSuchOverload();
        if (op == Op::kExistsOne) return e;
        if (!error) error = e;
        return std::nullopt;
      }
      if (op == Op::kAll && !v.b) return v;
      if (op == Op::kExists && v.b) return v;
      if (op == Op::kExistsOne && v.b) ++count;
      return std::nullopt;
    };
    if (range.kind == Kind::kList) {
      for (size_t i = 0; i < range.list.size; ++i) {
        if (++cost_ > kMaxCost) return Cancel();
        if (std::optional<Value> done = step(range.list.data[i])) return *done;
      }
    } else if (range.kind == Kind::kMap) {
      for (size_t i = 0, e = MapEntries(range); i < e; ++i) {
        if (!IsMapKey(range, i)) continue;
        if (++cost_ > kMaxCost) return Cancel();
        if (std::optional<Value> done = step(Value::String(MapKey(range, i)))) return *done;
      }
    } else {
      return Err("got '" + std::string(GoTypeName(range)) + "', expected iterable type");
    }
    if (op == Op::kExistsOne) return Value::Bool(count == 1);
    if (error) return *error;
    return Value::Bool(op == Op::kAll);
  }

  const DeviceView& device_;
  std::vector<Value> locals_;
  uint64_t cost_ = 0;
  bool cancelled_ = false;
  // What the evaluation makes, owned until it returns. Empty, they allocate nothing.
  std::forward_list<std::string> strings_;
  std::forward_list<std::string> errors_;
  std::forward_list<std::vector<Value>> lists_;
  std::forward_list<SemVer> semvers_;
};

}  // namespace

Result Evaluate(const Program& program, const DeviceView& device) {
  Evaluator evaluator(program, device);
  const Value v = evaluator.Eval(program.root);
  if (evaluator.cancelled()) return {false, "operation cancelled: actual cost limit exceeded"};
  if (v.kind == Kind::kBool) return {v.b, ""};
  if (v.IsError()) return {false, *v.error};
  const std::string type(ValueTypeName(v));
  return {false, "CEL result of type " + type + " could not be converted to bool: " +
                     "type conversion error from '" + type + "' to 'bool'"};
}

}  // namespace muster::api::cel
