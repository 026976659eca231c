#include "names/method_patterns.h"

#include <fnmatch.h>

#include <cctype>

namespace umbra {
namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

bool has_space_or_bracket(std::string_view text) {
  for (char c : text)
    if (std::isspace(static_cast<unsigned char>(c)) || c == '[' || c == ']' || c == '!' || c == '@') return true;
  return false;
}

}  // namespace

bool glob_match(std::string_view glob, std::string_view text, bool ignore_case) {
  // fnmatch(3) without FNM_PATHNAME or FNM_PERIOD: * and ? cross dots and slashes alike.
  return fnmatch(std::string(glob).c_str(), std::string(text).c_str(), ignore_case ? FNM_CASEFOLD : 0) == 0;
}

bool MethodPatterns::Pattern::matches(std::string_view assembly_name, std::string_view method_name) const {
  return (assembly.empty() || glob_match(assembly, assembly_name, true)) &&
         (method.empty() || glob_match(method, method_name, false));
}

std::optional<MethodPatterns> MethodPatterns::parse(const std::string& text, std::string* bad_item) {
  MethodPatterns patterns;
  std::string_view rest = text;
  bool any = false;
  while (true) {
    size_t end = rest.find_first_of(",;");
    const std::string_view whole = trimmed(rest.substr(0, end));
    std::string_view item = whole;
    auto fail = [&] {
      if (bad_item) *bad_item = std::string(whole);
      return std::nullopt;
    };
    if (!item.empty()) {
      bool exclude = item.front() == '!';
      if (exclude) item = trimmed(item.substr(1));
      if (item.empty()) return fail();
      if (item.front() == '@') {
        if (exclude || item != "@app") return fail();
        patterns.app_ = true;
      } else {
        Pattern pattern;
        std::string_view method = item;
        if (item.front() == '[') {
          size_t close = item.find(']');
          if (close == std::string_view::npos || close == 1) return fail();
          pattern.assembly = std::string(item.substr(1, close - 1));
          method = item.substr(close + 1);
          if (has_space_or_bracket(pattern.assembly)) return fail();
        }
        if (has_space_or_bracket(method)) return fail();
        pattern.method = std::string(method);
        (exclude ? patterns.excludes_ : patterns.includes_).push_back(std::move(pattern));
      }
      any = true;
    }
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  if (!any) {
    if (bad_item) *bad_item = text;
    return std::nullopt;
  }
  return patterns;
}

bool MethodPatterns::hooks(std::string_view assembly, std::string_view method, bool framework) const {
  for (const auto& p : excludes_)
    if (p.matches(assembly, method)) return false;
  if (app_ && !framework) return true;
  if (includes_.empty()) return !app_;
  for (const auto& p : includes_)
    if (p.matches(assembly, method)) return true;
  return false;
}

bool MethodPatterns::names_matter(std::string_view assembly) const {
  for (const auto* list : {&includes_, &excludes_})
    for (const auto& p : *list)
      if (!p.method.empty() && (p.assembly.empty() || glob_match(p.assembly, assembly, true))) return true;
  return false;
}

bool is_framework_assembly_name(std::string_view assembly) {
  for (std::string_view name : {"System", "System.*", "Microsoft.*", "netstandard", "mscorlib", "WindowsBase"})
    if (glob_match(name, assembly, true)) return true;
  return false;
}

}  // namespace umbra
