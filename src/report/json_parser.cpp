#include "report/json_parser.h"

#include "util/utf8.h"

#include <locale.h>

#include <charconv>
#include <cstdlib>
#include <vector>

namespace umbra {
namespace {

class Parser {
 public:
  Parser(std::string_view text, size_t max_depth) : text_(text), max_depth_(max_depth) {
    // A UTF-8 byte-order mark, which some editors add, is not JSON; RFC 8259 lets a parser ignore it.
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
  }

  JsonValue parse() {
    // Each open container is a frame: the container being built and, for objects, the key awaiting its value.
    struct Frame {
      JsonValue container;
      std::string key;
    };
    std::vector<Frame> stack;
    for (;;) {
      skip_space();
      JsonValue value;
      char c = peek();
      if (c == '{' || c == '[') {
        bool is_object = c == '{';
        if (stack.size() >= max_depth_) fail("nested deeper than " + std::to_string(max_depth_) + " levels");
        ++pos_;
        skip_space();
        if (peek() == (is_object ? '}' : ']')) {
          ++pos_;
          value = is_object ? JsonValue::object() : JsonValue::array();
        } else {
          stack.push_back({is_object ? JsonValue::object() : JsonValue::array(), {}});
          if (is_object) read_key(stack.back().key);
          continue;
        }
      } else {
        value = parse_scalar();
      }
      // A complete value: attach it to the enclosing container, closing containers as they end.
      for (;;) {
        if (stack.empty()) {
          skip_space();
          if (pos_ != text_.size()) fail("unexpected text after the document");
          return value;
        }
        Frame& top = stack.back();
        bool is_object = top.container.is_object();
        if (is_object) top.container.as_object().emplace_back(std::move(top.key), std::move(value));
        else top.container.as_array().push_back(std::move(value));
        skip_space();
        char d = peek();
        if (d == ',') {
          ++pos_;
          if (is_object) read_key(top.key);
          break;
        }
        if (d != (is_object ? '}' : ']')) fail(is_object ? "expected ',' or '}'" : "expected ',' or ']'");
        ++pos_;
        value = std::move(top.container);
        stack.pop_back();
      }
    }
  }

 private:
  void read_key(std::string& key) {
    skip_space();
    if (peek() != '"') fail("expected a string key");
    key = parse_string();
    skip_space();
    if (peek() != ':') fail("expected ':' after object key");
    ++pos_;
  }

  JsonValue parse_scalar() {
    switch (peek()) {
      case '"': return JsonValue(parse_string());
      case 't': literal("true"); return JsonValue(true);
      case 'f': literal("false"); return JsonValue(false);
      case 'n': literal("null"); return JsonValue(nullptr);
      default: return parse_number();
    }
  }

  char peek() {
    if (pos_ >= text_.size()) fail("unexpected end of input");
    return text_[pos_];
  }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' ||
                                   text_[pos_] == '\t'))
      ++pos_;
  }

  void literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) fail("invalid literal");
    pos_ += word.size();
  }

  [[noreturn]] void fail(const std::string& message) {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw JsonParseError(message, pos_, line, column);
  }

  JsonValue parse_number() {
    size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    auto digits = [&] {
      size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    if (pos_ < text_.size() && text_[pos_] == '0') {
      ++pos_;
    } else if (digits() == 0) {
      pos_ = start;
      fail("expected a value");
    }
    bool integral = true;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      integral = false;
      if (digits() == 0) fail("expected digits after '.'");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      integral = false;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (digits() == 0) fail("expected digits in exponent");
    }
    // from_chars: locale-independent (the profiled program may have set a locale with a decimal comma).
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    if (integral) {
      if (*first == '-') {
        int64_t v = 0;
        if (auto r = std::from_chars(first, last, v); r.ec == std::errc()) return JsonValue(v);
      } else {
        uint64_t v = 0;
        if (auto r = std::from_chars(first, last, v); r.ec == std::errc()) return JsonValue(v);
      }
    }
    double d = 0;
    auto r = std::from_chars(first, last, d);
    if (r.ec == std::errc::result_out_of_range) {
      // Overflow (1e400) and underflow (1e-400) both land here; the C locale's strtod tells them apart.
      static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", nullptr);
      d = strtod_l(std::string(first, last).c_str(), nullptr, c_locale);
    }
    return JsonValue(d);
  }

  unsigned hex4() {
    if (pos_ + 4 > text_.size()) fail("truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f') v |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= unsigned(c - 'A' + 10);
      else fail("invalid \\u escape");
    }
    return v;
  }

  std::string parse_string() {
    ++pos_;  // opening quote
    std::string out;
    for (;;) {
      if (pos_ >= text_.size()) fail("unterminated string");
      char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) fail("unterminated string");
      char e = text_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF && text_.substr(pos_, 2) == "\\u") {
            size_t before = pos_;
            pos_ += 2;
            unsigned low = hex4();
            if (low >= 0xDC00 && low <= 0xDFFF) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else {
              pos_ = before;  // not a pair: the next escape stands on its own
            }
          }
          append_utf8(out, cp);
          break;
        }
        default: fail("invalid escape");
      }
    }
  }

  std::string_view text_;
  size_t max_depth_;
  size_t pos_ = 0;
};

}  // namespace

JsonValue parse_json(std::string_view text, size_t max_depth) { return Parser(text, max_depth).parse(); }

}  // namespace umbra
