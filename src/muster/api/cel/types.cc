#include "muster/api/cel/types.h"

#include <string>

namespace muster::api::cel {

std::string TypeName(const Type* t) {
  switch (t->kind) {
    case TypeKind::kDyn:
      return "dyn";
    case TypeKind::kError:
      return "*error*";
    case TypeKind::kBool:
      return "bool";
    case TypeKind::kInt:
      return "int";
    case TypeKind::kUint:
      return "uint";
    case TypeKind::kDouble:
      return "double";
    case TypeKind::kString:
      return "string";
    case TypeKind::kBytes:
      return "bytes";
    case TypeKind::kNull:
      return "null_type";
    case TypeKind::kList:
      return "list(" + TypeName(t->elem) + ")";
    case TypeKind::kMap:
      return "map(" + TypeName(t->key) + ", " + TypeName(t->elem) + ")";
    case TypeKind::kDevice:
      return "kubernetes.DRADevice";
    case TypeKind::kQuantity:
      return "kubernetes.Quantity";
    case TypeKind::kSemver:
      return "kubernetes.Semver";
  }
  return "dyn";
}

bool SameType(const Type* a, const Type* b) {
  if (a->kind != b->kind) return false;
  if (a->kind == TypeKind::kList) return SameType(a->elem, b->elem);
  if (a->kind == TypeKind::kMap) return SameType(a->key, b->key) && SameType(a->elem, b->elem);
  return true;
}

bool Assignable(const Type* to, const Type* from) {
  if (to->kind == TypeKind::kDyn || from->kind == TypeKind::kDyn || to->kind == TypeKind::kError ||
      from->kind == TypeKind::kError) {
    return true;
  }
  if (to->kind != from->kind) return false;
  if (to->kind == TypeKind::kList) return Assignable(to->elem, from->elem);
  if (to->kind == TypeKind::kMap) {
    return Assignable(to->key, from->key) && Assignable(to->elem, from->elem);
  }
  return true;
}

}  // namespace muster::api::cel
