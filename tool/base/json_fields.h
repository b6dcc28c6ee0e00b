#pragma once
// Typed keys of a JSON object, each read through one checked helper, so that every loader (arch
// presets, the metric catalog, recordings, sweeps, both directions of the worker protocol) refuses
// bad input with the same kind of one-line message:
//   "WHERE: KEY: what is wrong; what is allowed"
// e.g. "t4.json: sm_count: 0 is out of range; allowed a whole number from 1 to 4096". A value is
// described by its type or, for a short scalar, by itself: never dumped whole.

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace wl {

inline constexpr std::int64_t kMinInt = std::numeric_limits<int>::min();
inline constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
inline constexpr std::int64_t kMinInt64 = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t kMaxInt64 = std::numeric_limits<std::int64_t>::max();
// As a minimum of finite_number: any number above 0 (a time, a bandwidth).
inline constexpr double kAboveZero = std::numeric_limits<double>::denorm_min();
inline constexpr double kMaxDouble = std::numeric_limits<double>::max();

// "allowed a whole number from MIN to MAX" (or "of at least MIN" when there is no real maximum).
std::string integer_range(std::int64_t min, std::int64_t max);

// How a value looks in a message: "256.7", "'abc'", "a list of 3 items", "an object".
std::string describe(const nlohmann::json& value);

// "WHERE: KEY: WRONG; ALLOWED" with each part clipped, as a UsageError.
[[noreturn]] void input_error(const std::string& where, const std::string& key,
                              const std::string& wrong, const std::string& allowed);

// The whole number `value` names however it is written (100, 1e2, 100.0: JSON has one kind of
// number); nullopt for a fraction, a number beyond 64 bits (2^64, 1e300) or what is no number.
std::optional<std::int64_t> as_whole_number(const nlohmann::json& value);

// One value, checked; `where` and `key` only name it in the message. A whole number written with
// an exponent counts as what it names; one beyond 64 bits is out of range, not "not whole".
std::int64_t whole_number(const nlohmann::json& value, const std::string& where,
                          const std::string& key, std::int64_t min, std::int64_t max);
double finite_number(const nlohmann::json& value, const std::string& where, const std::string& key,
                     double min, double max);

class Fields {
public:
  // Throws when `object` is not a JSON object. `prefix` goes before every key ("timing.").
  Fields(const nlohmann::json& object, std::string where, std::string prefix = "");

  [[noreturn]] void fail(const std::string& key, const std::string& wrong,
                         const std::string& allowed) const;
  bool has(const char* key) const { return m_json->contains(key); }
  // Fails on the first key not among `allowed`, naming it, the allowed key it is a typo of if
  // any, and them ("request 3: blok: not a key of a model request; did you mean 'block'? allowed
  // id, type, ..."): a misspelt key must not read as absent and quietly take the default. `of`
  // names the object ("a model request").
  void only(const std::vector<std::string_view>& allowed, const std::string& of) const;
  const nlohmann::json& at(const char* key, const std::string& allowed) const; // missing: fails
  std::string path(const std::string& key) const { return m_prefix + key; }
  const std::string& where() const { return m_where; }
  const nlohmann::json& raw() const { return *m_json; }

  std::int64_t integer(const char* key, std::int64_t min, std::int64_t max) const;
  std::int64_t integer_or(const char* key, std::int64_t fallback, std::int64_t min,
                          std::int64_t max) const;
  double number(const char* key, double min, double max) const;
  double number_or(const char* key, double fallback, double min, double max) const;
  bool boolean(const char* key) const;
  bool boolean_or(const char* key, bool fallback) const;
  std::string text(const char* key, bool may_be_empty = true) const;
  // A text that is printed as it is (a GPU's name, an id): without control characters, so that
  // no escape code in a file reaches the terminal.
  std::string name(const char* key, bool may_be_empty = true) const;
  std::string text_or(const char* key, const std::string& fallback) const;
  std::vector<std::string> texts(const char* key) const;
  std::vector<std::string> names(const char* key) const; // texts, each as name() checks it
  // One of `names`; the message lists them.
  std::string choice(const char* key, const std::vector<std::string>& names) const;
  // One of an enum's values, by the name `name` gives it; the message lists the names.
  template <class Enum, std::size_t N>
  Enum enum_choice(const char* key, const Enum (&values)[N], const char* (*name)(Enum)) const {
    std::vector<std::string> names;
    for (Enum value : values)
      names.push_back(name(value));
    const std::string chosen = choice(key, names);
    for (Enum value : values)
      if (chosen == name(value))
        return value;
    return values[0]; // not reached: choice() accepts only the names
  }
  // A list of `min_count` to `max_count` whole numbers, each from min to max.
  std::vector<std::int64_t> integers(const char* key, std::size_t min_count, std::size_t max_count,
                                     std::int64_t min, std::int64_t max) const;
  // An object whose every value is a whole number from min to max (a kernel's parameters).
  std::map<std::string, std::int64_t> integer_map(const char* key, std::int64_t min,
                                                  std::int64_t max) const;
  Fields object(const char* key) const;
  // A list of objects, each read with the prefix "key[i].".
  std::vector<Fields> objects(const char* key, std::size_t max_count = SIZE_MAX) const;
  // The list itself, checked to be one of at most `max_count` items.
  const nlohmann::json& list(const char* key, std::size_t max_count = SIZE_MAX) const;

private:
  const nlohmann::json* m_json;
  std::string m_where, m_prefix;
};

} // namespace wl
