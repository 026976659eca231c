// Which methods get enter/leave hooks (UMBRA_HOOKS_FOR): a list of patterns, separated by commas or semicolons.
//   [Assembly]Method   methods of matching assemblies whose full name ("Namespace.Outer+Inner.Method") matches
//   [Assembly]         every method of matching assemblies
//   Method             matching methods of any assembly
//   !pattern           an exclusion: never hooked, whatever else matches
//   @app               the program's own code: every assembly outside the shared framework
// Globs: * is any run of characters (dots included), ? is one. Assembly names match in any case, method names
// exactly. A method is hooked when an inclusion (or @app) takes it, or when there are only exclusions, and no
// exclusion matches it. Pure: parsed once at start-up, matched when the JIT first asks about a method.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace umbra {

// * is any run of characters, ? one character (as fnmatch(3) without flags; [...] never reaches it: parse() refuses
// brackets inside a glob).
bool glob_match(std::string_view glob, std::string_view text, bool ignore_case);

class MethodPatterns {
 public:
  // nullopt, with the first bad item in `bad_item`, when the text is not a list of patterns.
  static std::optional<MethodPatterns> parse(const std::string& text, std::string* bad_item = nullptr);

  // `assembly`: the assembly's simple name ("WebApi"); `framework`: it belongs to the shared framework.
  bool hooks(std::string_view assembly, std::string_view method, bool framework) const;
  // Whether a method's name can change the answer for this assembly: some pattern with a method part applies to it.
  // When not, hooks() is asked with an empty name, and the method need not be named.
  bool names_matter(std::string_view assembly) const;
  bool empty() const { return includes_.empty() && excludes_.empty() && !app_; }

 private:
  struct Pattern {
    std::string assembly;  // empty: any
    std::string method;    // empty: any
    bool matches(std::string_view assembly_name, std::string_view method_name) const;
  };
  std::vector<Pattern> includes_, excludes_;
  bool app_ = false;
};

// The shared framework's assemblies by name: System.*, Microsoft.*, netstandard, mscorlib, WindowsBase.
bool is_framework_assembly_name(std::string_view assembly);

}  // namespace umbra
