// libcurl, loaded with dlopen when the first push is to be made, not linked: linked, it would load its thirty
// libraries (OpenSSL, Kerberos, LDAP, ...) into every profiled process, pushing or not. Debian's libcurl4
// (libcurl.so.4) is what it finds; the headers come from libcurl4-openssl-dev at build time.
//
// Contract: load() once, from umbra's own thread; the functions are then used from that thread only (an easy handle
// is never shared). The library stays loaded until the process ends: OpenSSL registers its own exit handler.
#pragma once

#include <curl/curl.h>

#include <string>

namespace umbra {

struct CurlLibrary {
  CURL* (*easy_init)() = nullptr;
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...) = nullptr;
  CURLcode (*easy_perform)(CURL*) = nullptr;
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...) = nullptr;
  void (*easy_cleanup)(CURL*) = nullptr;
  const char* (*easy_strerror)(CURLcode) = nullptr;
  curl_mime* (*mime_init)(CURL*) = nullptr;
  curl_mimepart* (*mime_addpart)(curl_mime*) = nullptr;
  CURLcode (*mime_name)(curl_mimepart*, const char*) = nullptr;
  CURLcode (*mime_filename)(curl_mimepart*, const char*) = nullptr;
  CURLcode (*mime_type)(curl_mimepart*, const char*) = nullptr;
  CURLcode (*mime_data)(curl_mimepart*, const char*, size_t) = nullptr;
  void (*mime_free)(curl_mime*) = nullptr;
  curl_slist* (*slist_append)(curl_slist*, const char*) = nullptr;
  void (*slist_free_all)(curl_slist*) = nullptr;
};

// The library's functions; nothing, with the reason in `error`, if it cannot be loaded.
const CurlLibrary* load_curl(std::string& error);

}  // namespace umbra
