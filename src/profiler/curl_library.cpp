#include "profiler/curl_library.h"

#include <dlfcn.h>

#include <mutex>

namespace umbra {
namespace {

template <typename Function>
bool bind(void* library, const char* name, Function& function, std::string& missing) {
  function = reinterpret_cast<Function>(dlsym(library, name));
  if (function == nullptr && missing.empty()) missing = name;
  return function != nullptr;
}

}  // namespace

const CurlLibrary* load_curl(std::string& error) {
  static std::once_flag once;
  static CurlLibrary curl;
  static const CurlLibrary* loaded = nullptr;
  static std::string problem;
  std::call_once(once, [] {
    void* library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* why = dlerror();
      problem = std::string("cannot load libcurl.so.4 (") + (why ? why : "unknown") +
                "; Debian's libcurl4 package has it)";
      return;
    }
    std::string missing;
    bind(library, "curl_easy_init", curl.easy_init, missing);
    bind(library, "curl_easy_setopt", curl.easy_setopt, missing);
    bind(library, "curl_easy_perform", curl.easy_perform, missing);
    bind(library, "curl_easy_getinfo", curl.easy_getinfo, missing);
    bind(library, "curl_easy_cleanup", curl.easy_cleanup, missing);
    bind(library, "curl_easy_strerror", curl.easy_strerror, missing);
    bind(library, "curl_mime_init", curl.mime_init, missing);
    bind(library, "curl_mime_addpart", curl.mime_addpart, missing);
    bind(library, "curl_mime_name", curl.mime_name, missing);
    bind(library, "curl_mime_filename", curl.mime_filename, missing);
    bind(library, "curl_mime_type", curl.mime_type, missing);
    bind(library, "curl_mime_data", curl.mime_data, missing);
    bind(library, "curl_mime_free", curl.mime_free, missing);
    bind(library, "curl_slist_append", curl.slist_append, missing);
    bind(library, "curl_slist_free_all", curl.slist_free_all, missing);
    // curl_global_init is left to the first curl_easy_init, which since 7.84 does it thread-safely; an older libcurl
    // (no curl_mime_* before 7.56) is refused here.
    if (!missing.empty()) {
      problem = "libcurl.so.4 has no " + missing + " (libcurl 7.56 or later is needed)";
      return;
    }
    loaded = &curl;
  });
  error = problem;
  return loaded;
}

}  // namespace umbra
