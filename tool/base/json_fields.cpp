#include "base/json_fields.h"

#include "base/error.h"
#include "base/json_input.h"
#include "base/text_format.h"

#include <algorithm>
#include <cmath>

namespace wl {

namespace {

using nlohmann::json;

} // namespace

std::string integer_range(std::int64_t min, std::int64_t max) {
  if (min == kMinInt64 && max == kMaxInt64)
    return "allowed a whole number";
  if (max == kMaxInt64) // any larger number is not a whole number of 64 bits
    return "allowed a whole number of at least " + std::to_string(min);
  return "allowed a whole number from " + std::to_string(min) + " to " + std::to_string(max);
}

namespace {

std::string number_range(double min, double max) {
  const std::string low = min == kAboveZero ? "above 0" : format("of at least %g", min);
  return "allowed a finite number " + low + (max == kMaxDouble ? "" : format(" up to %g", max));
}

} // namespace

std::string describe(const json& value) {
  switch (value.type()) {
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
    return value.dump();
  case json::value_t::number_float:
    return format("%.15g", value.get<double>());
  case json::value_t::string: { // appended, not "'" + clip(...): GCC 12 warns wrongly on that form
    std::string quoted = "'";
    quoted += clip(value.get_ref<const std::string&>(), 40);
    return quoted += "'";
  }
  case json::value_t::boolean:
    return value.get<bool>() ? "true" : "false";
  case json::value_t::null:
    return "null";
  case json::value_t::array:
    return "a list of " + std::to_string(value.size()) + " items";
  case json::value_t::object:
    return "an object";
  default:
    return "a value of another kind";
  }
}

void input_error(const std::string& where, const std::string& key, const std::string& wrong,
                 const std::string& allowed) {
  const std::string place =
      (where.empty() ? "" : clip(where, 160) + ": ") + (key.empty() ? "" : clip(key, 60) + ": ");
  throw UsageError(place + clip(wrong, 60) + "; " + clip(allowed, 160));
}

std::optional<std::int64_t> as_whole_number(const json& value) {
  if (value.is_number_unsigned())
    return value.get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxInt64)
               ? std::optional(static_cast<std::int64_t>(value.get<std::uint64_t>()))
               : std::nullopt;
  if (value.is_number_integer())
    return value.get<std::int64_t>();
  if (!value.is_number_float())
    return std::nullopt;
  // -2^63 and 2^63 are exact doubles; every double in [-2^63, 2^63) that has no fraction converts
  // to int64 exactly.
  constexpr double kTwoPow63 = 9223372036854775808.0;
  const double number = value.get<double>();
  if (number != std::floor(number) || number < -kTwoPow63 || number >= kTwoPow63)
    return std::nullopt;
  return static_cast<std::int64_t>(number);
}

std::int64_t whole_number(const json& value, const std::string& where, const std::string& key,
                          std::int64_t min, std::int64_t max) {
  const bool whole =
      value.is_number_integer() ||
      (value.is_number_float() && value.get<double>() == std::floor(value.get<double>()));
  if (!whole)
    input_error(where, key, describe(value) + " is not a whole number", integer_range(min, max));
  const std::optional<std::int64_t> number = as_whole_number(value); // none: beyond 64 bits
  if (!number || *number < min || *number > max)
    input_error(where, key, describe(value) + " is out of range", integer_range(min, max));
  return *number;
}

double finite_number(const json& value, const std::string& where, const std::string& key,
                     double min, double max) {
  if (!value.is_number())
    input_error(where, key, describe(value) + " is not a number", number_range(min, max));
  const double number = value.get<double>();
  if (!std::isfinite(number) || number < min || number > max)
    input_error(where, key, describe(value) + " is out of range", number_range(min, max));
  return number;
}

Fields::Fields(const json& object, std::string where, std::string prefix)
    : m_json(&object), m_where(std::move(where)), m_prefix(std::move(prefix)) {
  if (!object.is_object()) {
    const std::string key = m_prefix.empty() ? "" : m_prefix.substr(0, m_prefix.size() - 1);
    input_error(m_where, key, describe(object) + " is not a JSON object",
                "allowed {\"key\": value, ...}");
  }
}

void Fields::fail(const std::string& key, const std::string& wrong,
                  const std::string& allowed) const {
  input_error(m_where, path(key), wrong, allowed);
}

void Fields::only(const std::vector<std::string_view>& allowed, const std::string& of) const {
  for (const auto& [key, value] : m_json->items())
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string keys;
      for (std::string_view name : allowed)
        (keys += keys.empty() ? "" : ", ") += name;
      // The near miss first: a long list of keys is cut short in the message.
      const std::string near = closest_word(key, {allowed.begin(), allowed.end()});
      fail(key, "not a key of " + of,
           (near.empty() ? "" : "did you mean '" + near + "'? ") + "allowed " + keys);
    }
}

const json& Fields::at(const char* key, const std::string& allowed) const {
  const auto it = m_json->find(key);
  if (it == m_json->end())
    fail(key, "missing", allowed);
  return *it;
}

std::int64_t Fields::integer(const char* key, std::int64_t min, std::int64_t max) const {
  return whole_number(at(key, integer_range(min, max)), m_where, path(key), min, max);
}

std::int64_t Fields::integer_or(const char* key, std::int64_t fallback, std::int64_t min,
                                std::int64_t max) const {
  return has(key) ? integer(key, min, max) : fallback;
}

double Fields::number(const char* key, double min, double max) const {
  return finite_number(at(key, number_range(min, max)), m_where, path(key), min, max);
}

double Fields::number_or(const char* key, double fallback, double min, double max) const {
  return has(key) ? number(key, min, max) : fallback;
}

bool Fields::boolean(const char* key) const {
  const json& value = at(key, "allowed true or false");
  if (!value.is_boolean())
    fail(key, describe(value) + " is not true or false", "allowed true or false");
  return value.get<bool>();
}

bool Fields::boolean_or(const char* key, bool fallback) const {
  return has(key) ? boolean(key) : fallback;
}

std::string Fields::text(const char* key, bool may_be_empty) const {
  const char* allowed = may_be_empty ? "allowed a string" : "allowed a non-empty string";
  const json& value = at(key, allowed);
  if (!value.is_string() || (!may_be_empty && value.get_ref<const std::string&>().empty()))
    fail(key, describe(value) + " is not " + (may_be_empty ? "a string" : "a non-empty string"),
         allowed);
  return value.get<std::string>();
}

std::string Fields::name(const char* key, bool may_be_empty) const {
  std::string value = text(key, may_be_empty);
  if (has_control_characters(value))
    fail(key, "'" + clip(value, 40) + "' holds control characters",
         "allowed printable text (no escape codes, tabs, line breaks or bidirectional controls)");
  return value;
}

std::string Fields::text_or(const char* key, const std::string& fallback) const {
  return has(key) ? text(key) : fallback;
}

std::vector<std::string> Fields::texts(const char* key) const {
  const json& value = list(key);
  std::vector<std::string> out;
  for (const json& item : value) {
    if (!item.is_string())
      fail(key, "holds " + describe(item), "allowed a list of strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::vector<std::string> Fields::names(const char* key) const {
  std::vector<std::string> out = texts(key);
  for (const std::string& item : out)
    if (has_control_characters(item))
      fail(key, "'" + clip(item, 40) + "' holds control characters",
           "allowed printable text (no escape codes, tabs, line breaks or bidirectional controls)");
  return out;
}

std::string Fields::choice(const char* key, const std::vector<std::string>& names) const {
  std::string allowed;
  for (const std::string& name : names)
    allowed += (allowed.empty() ? "allowed " : ", ") + name;
  const json& value = at(key, allowed);
  if (value.is_string())
    for (const std::string& name : names)
      if (value.get_ref<const std::string&>() == name)
        return name;
  fail(key, describe(value) + " is not known", allowed);
}

std::vector<std::int64_t> Fields::integers(const char* key, std::size_t min_count,
                                           std::size_t max_count, std::int64_t min,
                                           std::int64_t max) const {
  const std::string count = min_count == max_count ? std::to_string(min_count)
                                                   : format("%zu to %zu", min_count, max_count);
  const std::string allowed = "allowed " + count + " whole numbers from " + std::to_string(min) +
                              " to " + std::to_string(max);
  const json& value = at(key, allowed);
  if (!value.is_array())
    fail(key, describe(value) + " is not a list", allowed);
  if (value.size() < min_count || value.size() > max_count)
    fail(key, describe(value) + " is the wrong length", allowed);
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < value.size(); ++i)
    out.push_back(
        whole_number(value[i], m_where, path(key) + "[" + std::to_string(i) + "]", min, max));
  return out;
}

std::map<std::string, std::int64_t> Fields::integer_map(const char* key, std::int64_t min,
                                                        std::int64_t max) const {
  const Fields map = object(key);
  std::map<std::string, std::int64_t> out;
  for (const auto& [name, value] : map.m_json->items())
    out[name] = whole_number(value, m_where, map.path(name), min, max);
  return out;
}

Fields Fields::object(const char* key) const {
  return Fields(at(key, "allowed an object"), m_where, path(key) + ".");
}

std::vector<Fields> Fields::objects(const char* key, std::size_t max_count) const {
  const json& items = list(key, max_count);
  std::vector<Fields> out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out.emplace_back(items[i], m_where, path(key) + "[" + std::to_string(i) + "].");
  return out;
}

const json& Fields::list(const char* key, std::size_t max_count) const {
  const std::string allowed = max_count == SIZE_MAX
                                  ? "allowed a list"
                                  : format("allowed a list of at most %zu items", max_count);
  const json& value = at(key, allowed);
  if (!value.is_array() || value.size() > max_count)
    fail(key, describe(value) + " is not " + allowed.substr(8), allowed);
  return value;
}

} // namespace wl
