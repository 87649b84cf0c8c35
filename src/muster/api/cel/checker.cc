#include "muster/api/cel/checker.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <re2/re2.h>

namespace muster::api::cel {
namespace {

// Typed and lowered: the result of checking one Expr.
struct Checked {
  const Type* type;
  Node* node;
};

class Checker {
 public:
  Checker(Program& program, std::vector<Issue>& issues) : p_(program), issues_(issues) {}

  Checked Check(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kLiteral:
        return Literal(e);
      case Expr::Kind::kIdent:
        return Ident(e);
      case Expr::Kind::kSelect:
        return Select(e);
      case Expr::Kind::kList:
        return List(e);
      case Expr::Kind::kCall:
        return Call(e);
    }
    return Error();
  }

  // Reported only when checking succeeded, as cel-go runs its validators after the checker.
  std::vector<Issue> validation_issues;

 private:
  Node* NewNode(Op op) {
    p_.nodes.push_back(std::make_unique<Node>());
    p_.nodes.back()->op = op;
    return p_.nodes.back().get();
  }

  Checked Const(const Type* type, Value v) {
    Node* n = NewNode(Op::kConst);
    n->value = v;
    return {type, n};
  }

  Checked Error() { return {&kErrorT, NewNode(Op::kConst)}; }

  [[gnu::noinline]] Checked Report(size_t pos, std::string message) {
    issues_.push_back({pos, std::move(message)});
    return Error();
  }

  std::string_view Keep(std::string s) { return p_.strings.emplace_back(std::move(s)); }

  const Type* ListOf(const Type* elem) {
    types_.push_back({TypeKind::kList, nullptr, elem});
    return &types_.back();
  }

  [[gnu::noinline]] Checked Literal(const Expr& e) {
    switch (e.lit) {
      case LitKind::kNull:
        return Const(&kNullT, Value());
      case LitKind::kBool:
        return Const(&kBoolT, Value::Bool(e.b));
      case LitKind::kInt:
        return Const(&kIntT, Value::Int(e.i));
      case LitKind::kUint:
        return Const(&kUintT, Value::Uint(e.u));
      case LitKind::kDouble:
        return Const(&kDoubleT, Value::Double(e.d));
      case LitKind::kString:
        return Const(&kStringT, Value::String(Keep(e.str)));
      case LitKind::kBytes:
        return Const(&kBytesT, Value::String(Keep(e.str), Kind::kBytes));
    }
    return Error();
  }

  struct Local {
    std::string_view name;
    uint32_t slot;
    const Type* type;
  };

  [[gnu::noinline]] Checked Ident(const Expr& e) {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
      if (it->name == e.name) {
        Node* n = NewNode(Op::kLocal);
        n->slot = it->slot;
        return {it->type, n};
      }
    }
    if (e.name == "device") return {&kDeviceT, NewNode(Op::kDevice)};
    return Report(e.pos, "undeclared reference to '" + e.name + "' (in container '')");
  }

  // The type of `operand.field`, lowering it; for has() the node tests presence instead.
  [[gnu::noinline]] Checked Select(const Expr& e, bool presence = false) {
    Checked operand = Check(*e.target);
    const Type* t = operand.type;
    if (t->kind == TypeKind::kError) return Error();
    if (t->kind == TypeKind::kDevice) {
      Op op;
      const Type* type;
      if (e.name == "driver") {
        op = Op::kDriver, type = &kStringT;
      } else if (e.name == "attributes") {
        op = Op::kAttrDomains, type = &kAttrDomainsT;
      } else if (e.name == "capacity") {
        op = Op::kCapDomains, type = &kCapDomainsT;
      } else if (e.name == "allowMultipleAllocations") {
        op = Op::kAllowMultiple, type = &kBoolT;
      } else {
        return Report(e.pos, "undefined field '" + e.name + "'");
      }
      // Every field of `device` is always set.
      if (presence) return Const(&kBoolT, Value::Bool(true));
      return {type, NewNode(op)};
    }
    if (t->kind != TypeKind::kMap && t->kind != TypeKind::kDyn) {
      return Report(e.pos, "type '" + TypeName(t) + "' does not support field selection");
    }
    const Type* result = t->kind == TypeKind::kMap ? t->elem : &kDynT;
    return {presence ? &kBoolT : result, MapKey(operand.node, e.name, presence)};
  }

  // operand[key] for a literal string key (a select or an index), fused with the device's maps.
  Node* MapKey(Node* operand, std::string_view key, bool presence) {
    if (!presence) {
      if (operand->op == Op::kAttrDomains || operand->op == Op::kCapDomains) {
        Node* n = NewNode(operand->op == Op::kAttrDomains ? Op::kAttrDomain : Op::kCapDomain);
        n->sym1 = Symbol(key);
        return n;
      }
      if (operand->op == Op::kAttrDomain || operand->op == Op::kCapDomain) {
        operand->op = operand->op == Op::kAttrDomain ? Op::kAttrLookup : Op::kCapLookup;
        operand->sym2 = Symbol(key);
        return operand;
      }
    }
    Node* n = NewNode(presence ? Op::kHas : Op::kSelect);
    n->text = Keep(std::string(key));
    n->args = {operand};
    return n;
  }

  [[gnu::noinline]] Checked List(const Expr& e) {
    const Type* elem = nullptr;
    bool constant = true;
    std::vector<Node*> nodes;
    for (const ExprPtr& a : e.args) {
      Checked c = Check(*a);
      nodes.push_back(c.node);
      // An error (a bad quantity() literal) must surface when the list is built, not fold in.
      constant = constant && c.node->op == Op::kConst && !c.node->value.IsError();
      if (elem == nullptr) {
        elem = c.type;
      } else if (!Assignable(elem, c.type)) {
        Report(a->pos,
               "expected type '" + TypeName(elem) + "' but found '" + TypeName(c.type) + "'");
      } else if (!SameType(elem, c.type)) {
        elem = &kDynT;
      }
    }
    const Type* type = ListOf(elem == nullptr ? &kDynT : elem);
    if (constant) {
      std::vector<Value>& values = p_.lists.emplace_back();
      for (Node* n : nodes) values.push_back(n->value);
      return Const(type, Value::List(values.data(), values.size()));
    }
    Node* n = NewNode(Op::kList);
    n->args.assign(nodes.begin(), nodes.end());
    return {type, n};
  }

  std::string Signature(const std::vector<const Type*>& args, bool member) {
    std::string out;
    size_t first = 0;
    if (member && !args.empty()) {
      out = TypeName(args[0]) + ".";
      first = 1;
    }
    out += "(";
    for (size_t i = first; i < args.size(); ++i) {
      if (i > first) out += ", ";
      out += TypeName(args[i]);
    }
    return out + ")";
  }

  [[gnu::noinline]] Checked NoMatchingOverload(const Expr& e, std::string_view name,
                                               const std::vector<const Type*>& args, bool member) {
    return Report(e.pos, "found no matching overload for '" + std::string(name) + "' applied to '" +
                             Signature(args, member) + "'");
  }

  static bool AnyError(const std::vector<const Type*>& types) {
    return std::any_of(types.begin(), types.end(),
                       [](const Type* t) { return t->kind == TypeKind::kError; });
  }

  // A simple name, as the macros require of their variable.
  static const Expr* SimpleName(const Expr& e) {
    return e.kind == Expr::Kind::kIdent ? &e : nullptr;
  }

  [[gnu::noinline]] Checked Call(const Expr& e) {
    const std::string& name = e.name;
    const size_t argc = e.args.size();
    // Macros, recognised by shape as cel-go's parser does.
    if (!e.target && name == "has" && argc == 1) {
      if (e.args[0]->kind != Expr::Kind::kSelect) {
        return Report(e.args[0]->pos, "invalid argument to has() macro");
      }
      return Select(*e.args[0], true);
    }
    if (e.target && argc == 2 &&
        (name == "all" || name == "exists" || name == "exists_one" || name == "existsOne")) {
      return Comprehension(e);
    }
    if (e.target && name == "bind" && argc == 3 && e.target->kind == Expr::Kind::kIdent &&
        e.target->name == "cel") {
      return Bind(e);
    }
    if (!e.target) {
      if (name == "_&&_" || name == "_||_") return Logical(e);
      if (name == "_?_:_") return Conditional(e);
    }

    std::vector<Checked> args;
    if (e.target) args.push_back(Check(*e.target));
    for (const ExprPtr& a : e.args) args.push_back(Check(*a));
    std::vector<const Type*> types;
    for (const Checked& c : args) types.push_back(c.type);
    return Resolve(e, args, types);
  }

  // A call or operator whose arguments are checked: picks the overloads that accept them.
  [[gnu::noinline]] Checked Resolve(const Expr& e, const std::vector<Checked>& args,
                                    const std::vector<const Type*>& types) {
    const std::string& name = e.name;
    const bool member = e.target != nullptr;
    if (!member) {
      if (std::optional<Checked> op = Operator(e, args, types)) return *op;
    }
    if (AnyError(types)) return Error();

    const Type* result = nullptr;
    std::vector<Fn> fns;
    bool declared = false;
    for (const Overload& o : Overloads()) {
      if (o.name != name || o.member != member) {
        declared = declared || o.name == name;
        continue;
      }
      declared = true;
      if (o.params.size() != types.size()) continue;
      bool ok = true;
      for (size_t i = 0; i < types.size() && ok; ++i) ok = Assignable(o.params[i], types[i]);
      if (!ok) continue;
      if (std::find(fns.begin(), fns.end(), o.fn) == fns.end()) fns.push_back(o.fn);
      result = result == nullptr || SameType(result, o.result) ? o.result : &kDynT;
    }
    if (!declared) {
      return Report(e.pos, "undeclared reference to '" + name + "' (in container '')");
    }
    if (fns.empty()) return NoMatchingOverload(e, name, types, member);

    Node* n = NewNode(Op::kCall);
    n->fns = fns;
    for (const Checked& c : args) n->args.push_back(c.node);
    return Fold(e, {result, n});
  }

  // Settles at compile time what a literal argument allows: the regular expression of
  // matches(), and quantity() and semver() of a literal (their parse errors stay runtime errors,
  // as upstream's).
  [[gnu::noinline]] Checked Fold(const Expr& e, Checked c) {
    Node* n = c.node;
    auto literal_string = [&](size_t i) -> std::optional<std::string_view> {
      if (i >= n->args.size() || n->args[i]->op != Op::kConst ||
          n->args[i]->value.kind != Kind::kString) {
        return std::nullopt;
      }
      return n->args[i]->value.str();
    };
    if (n->fns.size() != 1) return c;
    const Fn fn = n->fns[0];
    if (fn == Fn::kMatches) {
      if (std::optional<std::string_view> pattern = literal_string(1)) {
        RE2::Options options;
        options.set_log_errors(false);
        auto re = std::make_unique<RE2>(*pattern, options);
        if (!re->ok()) {
          const Expr& arg = e.target ? *e.args[0] : *e.args[1];
          validation_issues.push_back({arg.pos, "invalid matches argument"});
        } else {
          n->regex = std::move(re);
        }
      }
      return c;
    }
    const std::optional<std::string_view> text = literal_string(0);
    if (!text) return c;
    bool normalize = false;
    if (n->args.size() == 2) {
      if (n->args[1]->op != Op::kConst || n->args[1]->value.kind != Kind::kBool) return c;
      normalize = n->args[1]->value.b;
    }
    std::string error;
    switch (fn) {
      case Fn::kQuantity: {
        Quantity q;
        if (Quantity::Parse(*text, &q, &error)) return Const(c.type, Value::Quant(q));
        return Const(c.type, Value::Err(&p_.strings.emplace_back(std::move(error))));
      }
      case Fn::kIsQuantity:
        return Const(c.type, Value::Bool(Quantity::Parse(*text).has_value()));
      case Fn::kSemver: {
        std::optional<SemVer> v =
            normalize ? SemVer::ParseNormalized(*text, &error) : SemVer::Parse(*text, &error);
        if (v) return Const(c.type, Value::Sem(&p_.semvers.emplace_back(std::move(*v))));
        return Const(c.type, Value::Err(&p_.strings.emplace_back(std::move(error))));
      }
      case Fn::kIsSemver: {
        const bool ok = normalize ? SemVer::ParseNormalized(*text).has_value()
                                  : SemVer::Parse(*text).has_value();
        return Const(c.type, Value::Bool(ok));
      }
      default:
        return c;
    }
  }

  // The operators. nullopt: not an operator.
  [[gnu::noinline]] std::optional<Checked> Operator(const Expr& e, const std::vector<Checked>& args,
                                                    const std::vector<const Type*>& types) {
    struct Entry {
      std::string_view name;
      Op op;
    };
    static constexpr Entry kOps[] = {
        {"_==_", Op::kEq}, {"_!=_", Op::kNe}, {"_<_", Op::kLt},     {"_<=_", Op::kLe},
        {"_>_", Op::kGt},  {"_>=_", Op::kGe}, {"_+_", Op::kAdd},    {"_-_", Op::kSub},
        {"_*_", Op::kMul}, {"_/_", Op::kDiv}, {"_%_", Op::kMod},    {"@in", Op::kIn},
        {"!_", Op::kNot},  {"-_", Op::kNeg},  {"_[_]", Op::kIndex},
    };
    const Entry* entry = nullptr;
    for (const Entry& x : kOps) {
      if (x.name == e.name) entry = &x;
    }
    if (entry == nullptr) return std::nullopt;
    if (AnyError(types)) return Error();
    const Type* result = OperatorResult(entry->op, types);
    if (result == nullptr) return NoMatchingOverload(e, e.name, types, false);

    // A literal string key into the device's maps resolves at compile time.
    if (entry->op == Op::kIndex && args[1].node->op == Op::kConst &&
        args[1].node->value.kind == Kind::kString) {
      const Op target = args[0].node->op;
      if (target == Op::kAttrDomains || target == Op::kCapDomains || target == Op::kAttrDomain ||
          target == Op::kCapDomain) {
        return Checked{result, MapKey(args[0].node, args[1].node->value.str(), false)};
      }
    }
    Node* n = NewNode(entry->op);
    for (const Checked& c : args) n->args.push_back(c.node);
    return Checked{result, n};
  }

  static bool IsNumeric(const Type* t) {
    return t->kind == TypeKind::kInt || t->kind == TypeKind::kUint || t->kind == TypeKind::kDouble;
  }

  // The result type of an operator over `types`, or null when no overload accepts them.
  const Type* OperatorResult(Op op, const std::vector<const Type*>& t) {
    const bool dyn0 = t[0]->kind == TypeKind::kDyn;
    const bool dyn1 = t.size() > 1 && t[1]->kind == TypeKind::kDyn;
    switch (op) {
      case Op::kEq:
      case Op::kNe:
        return Assignable(t[0], t[1]) ? &kBoolT : nullptr;
      case Op::kLt:
      case Op::kLe:
      case Op::kGt:
      case Op::kGe: {
        // Cross-type numeric comparisons are enabled in Kubernetes' environment.
        auto orderable = [](const Type* x) {
          return IsNumeric(x) || x->kind == TypeKind::kString || x->kind == TypeKind::kBytes ||
                 x->kind == TypeKind::kBool || x->kind == TypeKind::kDyn;
        };
        if (!orderable(t[0]) || !orderable(t[1])) return nullptr;
        if (dyn0 || dyn1 || (IsNumeric(t[0]) && IsNumeric(t[1])) || t[0]->kind == t[1]->kind) {
          return &kBoolT;
        }
        return nullptr;
      }
      case Op::kAdd: {
        if (dyn0 && dyn1) return &kDynT;
        const Type* known = dyn0 ? t[1] : t[0];
        const TypeKind k = known->kind;
        const bool addable = IsNumeric(known) || k == TypeKind::kString || k == TypeKind::kBytes ||
                             k == TypeKind::kList;
        if (!addable) return nullptr;
        if (dyn0 || dyn1) return known;
        if (!Assignable(t[0], t[1])) return nullptr;
        if (k == TypeKind::kList && !SameType(t[0], t[1])) return ListOf(&kDynT);
        return t[0];
      }
      case Op::kSub:
      case Op::kMul:
      case Op::kDiv:
      case Op::kMod: {
        auto ok = [op](const Type* x) {
          return x->kind == TypeKind::kDyn || x->kind == TypeKind::kInt ||
                 x->kind == TypeKind::kUint || (op != Op::kMod && x->kind == TypeKind::kDouble);
        };
        if (!ok(t[0]) || !ok(t[1])) return nullptr;
        if (dyn0 && dyn1) return &kDynT;
        if (dyn0) return t[1];
        if (dyn1 || t[0]->kind == t[1]->kind) return t[0];
        return nullptr;
      }
      case Op::kIn:
        if (dyn1) return &kBoolT;
        if (t[1]->kind == TypeKind::kList) return Assignable(t[1]->elem, t[0]) ? &kBoolT : nullptr;
        if (t[1]->kind == TypeKind::kMap) return Assignable(t[1]->key, t[0]) ? &kBoolT : nullptr;
        return nullptr;
      case Op::kNot:
        return t[0]->kind == TypeKind::kBool || dyn0 ? &kBoolT : nullptr;
      case Op::kNeg:
        if (dyn0) return &kDynT;
        return t[0]->kind == TypeKind::kInt || t[0]->kind == TypeKind::kDouble ? t[0] : nullptr;
      case Op::kIndex:
        if (dyn0) return &kDynT;
        if (t[0]->kind == TypeKind::kList) {
          return t[1]->kind == TypeKind::kInt || dyn1 ? t[0]->elem : nullptr;
        }
        if (t[0]->kind == TypeKind::kMap) return Assignable(t[0]->key, t[1]) ? t[0]->elem : nullptr;
        return nullptr;
      default:
        return nullptr;
    }
  }

  [[gnu::noinline]] Checked Logical(const Expr& e) {
    Node* n = NewNode(e.name == "_&&_" ? Op::kAnd : Op::kOr);
    std::vector<const Type*> types;
    bool error = false;
    for (const ExprPtr& a : e.args) {
      Checked c = Check(*a);
      types.push_back(c.type);
      error = error || c.type->kind == TypeKind::kError;
      n->args.push_back(c.node);
    }
    if (error) return Error();
    // cel-go checks the balanced tree of binary calls; report the first operand that fails.
    for (const Type* t : types) {
      if (t->kind != TypeKind::kBool && t->kind != TypeKind::kDyn) {
        return NoMatchingOverload(e, e.name, {&kBoolT, t}, false);
      }
    }
    return {&kBoolT, n};
  }

  [[gnu::noinline]] Checked Conditional(const Expr& e) {
    Checked cond = Check(*e.args[0]);
    Checked then = Check(*e.args[1]);
    Checked otherwise = Check(*e.args[2]);
    if (AnyError({cond.type, then.type, otherwise.type})) return Error();
    const bool cond_ok = cond.type->kind == TypeKind::kBool || cond.type->kind == TypeKind::kDyn;
    if (!cond_ok || !Assignable(then.type, otherwise.type)) {
      return NoMatchingOverload(e, e.name, {cond.type, then.type, otherwise.type}, false);
    }
    Node* n = NewNode(Op::kCond);
    n->args = {cond.node, then.node, otherwise.node};
    const Type* type = SameType(then.type, otherwise.type) ? then.type : &kDynT;
    return {type, n};
  }

  [[gnu::noinline]] Checked Comprehension(const Expr& e) {
    const Expr* var = SimpleName(*e.args[0]);
    if (var == nullptr) return Report(e.args[0]->pos, "argument must be a simple name");
    Checked range = Check(*e.target);
    const Type* var_type = &kDynT;
    switch (range.type->kind) {
      case TypeKind::kList:
        var_type = range.type->elem;
        break;
      case TypeKind::kMap:
        var_type = range.type->key;
        break;
      case TypeKind::kDyn:
      case TypeKind::kError:
        break;
      default:
        Report(e.target->pos, "expression of type '" + TypeName(range.type) +
                                  "' cannot be range of a comprehension (must be list, map, or "
                                  "dynamic)");
        break;
    }
    const uint32_t slot = p_.slots++;
    locals_.push_back({var->name, slot, var_type});
    Checked pred = Check(*e.args[1]);
    locals_.pop_back();
    if (range.type->kind == TypeKind::kError || pred.type->kind == TypeKind::kError) {
      return Error();
    }
    const bool one = e.name == "exists_one" || e.name == "existsOne";
    if (pred.type->kind != TypeKind::kBool && pred.type->kind != TypeKind::kDyn) {
      // cel-go expands the macro to a loop whose step is `accu && pred` (`||` for exists, a
      // conditional for exists_one) and reports the mismatch there.
      if (one) return NoMatchingOverload(*e.args[1], "_?_:_", {pred.type, &kIntT, &kIntT}, false);
      return NoMatchingOverload(*e.args[1], e.name == "all" ? "_&&_" : "_||_", {&kBoolT, pred.type},
                                false);
    }
    Node* n = NewNode(e.name == "all"      ? Op::kAll
                      : e.name == "exists" ? Op::kExists
                                           : Op::kExistsOne);
    n->slot = slot;
    n->args = {range.node, pred.node};
    return {&kBoolT, n};
  }

  [[gnu::noinline]] Checked Bind(const Expr& e) {
    const Expr* var = SimpleName(*e.args[0]);
    if (var == nullptr) {
      return Report(e.args[0]->pos, "cel.bind() variable names must be simple identifiers");
    }
    Checked init = Check(*e.args[1]);
    const uint32_t slot = p_.slots++;
    locals_.push_back({var->name, slot, init.type});
    Checked body = Check(*e.args[2]);
    locals_.pop_back();
    if (init.type->kind == TypeKind::kError || body.type->kind == TypeKind::kError) return Error();
    Node* n = NewNode(Op::kBind);
    n->slot = slot;
    n->args = {init.node, body.node};
    return {body.type, n};
  }

  Program& p_;
  std::vector<Issue>& issues_;
  std::vector<Local> locals_;
  std::deque<Type> types_;  // list types made while checking; unused once lowered
};

}  // namespace

RootType CheckAndLower(const Expr& expr, Program& program, std::vector<Issue>& issues) {
  Checker checker(program, issues);
  const Checked root = checker.Check(expr);
  if (issues.empty()) issues = std::move(checker.validation_issues);
  program.root = root.node;
  const TypeKind kind = root.type->kind;
  return {kind, kind == TypeKind::kBool || kind == TypeKind::kDyn ? "" : TypeName(root.type)};
}

}  // namespace muster::api::cel
