#include "profiler/runtime_version.h"

#include "util/utf8.h"

namespace umbra {

std::string runtime_version(clr::ICorProfilerInfo10& info) {
  clr::USHORT instance = 0, major = 0, minor = 0, build = 0, qfe = 0;
  clr::COR_PRF_RUNTIME_TYPE type{};
  clr::WCHAR text[128] = {};
  clr::ULONG length = 0;
  if (!clr::succeeded(info.GetRuntimeInformation(&instance, &type, &major, &minor, &build, &qfe, 128, &length, text)))
    return "unknown";
  // CoreCLR counts the terminating NUL in the length.
  std::u16string_view view(text, length <= 128 ? length : 0);
  if (auto nul = view.find(u'\0'); nul != view.npos) view = view.substr(0, nul);
  return runtime_version_from(major, minor, build, view);
}

std::string runtime_version_from(unsigned major, unsigned minor, unsigned build, std::u16string_view text) {
  std::string numbers = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(build);
  std::string stated = utf16_to_utf8(text);
  bool agrees = stated.size() == numbers.size() ||
                (stated.size() > numbers.size() && (stated[numbers.size()] == '-' || stated[numbers.size()] == '+'));
  if (agrees && stated.compare(0, numbers.size(), numbers) == 0) return stated;
  if (major == 0 && minor == 0 && build == 0) return "unknown";
  return numbers;
}

}  // namespace umbra
