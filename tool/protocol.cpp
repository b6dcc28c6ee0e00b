#include "protocol.h"

#include "error.h"

#include <nlohmann/json.hpp>

namespace wl {

namespace {

using nlohmann::json;

constexpr RequestType kRequestTypes[] = {RequestType::model, RequestType::run, RequestType::sweep,
                                         RequestType::cancel, RequestType::shutdown};
constexpr ResponseType kResponseTypes[] = {ResponseType::hello, ResponseType::progress, ResponseType::result,
                                           ResponseType::sweep, ResponseType::error};

// Reads one protocol line, turning every missing or mistyped key into a one-line UsageError.
class LineReader {
public:
  LineReader(const json& line, const char* what) : m_line(line), m_what(what) {
    if (!line.is_object()) fail("is not a JSON object");
  }

  [[noreturn]] void fail(const std::string& why) const { throw UsageError(std::string(m_what) + " " + why); }

  bool has(const char* key) const { return m_line.contains(key); }

  template <class T> T get(const char* key) const {
    if (!has(key)) fail(std::string("has no '") + key + "'");
    return get_or(key, T{});
  }

  template <class T> T get_or(const char* key, T fallback) const {
    const auto it = m_line.find(key);
    if (it == m_line.end()) return fallback;
    try {
      return it->get<T>();
    } catch (const json::exception&) {
      fail(std::string("has a bad '") + key + "': " + it->dump());
    }
  }

  const json& raw(const char* key) const { return m_line.at(key); }

private:
  const json& m_line;
  const char* m_what;
};

template <class Type, std::size_t N>
Type type_from_name(const Type (&types)[N], const char* (*name)(Type), const std::string& text, const LineReader& r) {
  for (Type type : types)
    if (text == name(type)) return type;
  r.fail("has an unknown type '" + text + "'");
}

BlockShape block_from(const LineReader& r) {
  const auto sides = r.get<std::vector<int>>("block");
  if (sides.empty() || sides.size() > 3) r.fail("has a bad 'block': give 1 to 3 sides");
  BlockShape block;
  block.x = sides[0];
  if (sides.size() > 1) block.y = sides[1];
  if (sides.size() > 2) block.z = sides[2];
  return block;
}

} // namespace

const char* request_type_name(RequestType type) {
  switch (type) {
  case RequestType::model: return "model";
  case RequestType::run: return "run";
  case RequestType::sweep: return "sweep";
  case RequestType::cancel: return "cancel";
  case RequestType::shutdown: return "shutdown";
  }
  return "?";
}

const char* response_type_name(ResponseType type) {
  switch (type) {
  case ResponseType::hello: return "hello";
  case ResponseType::progress: return "progress";
  case ResponseType::result: return "result";
  case ResponseType::sweep: return "sweep";
  case ResponseType::error: return "error";
  }
  return "?";
}

json request_to_json(const WorkerRequest& q) {
  json line = {{"id", q.id}, {"type", request_type_name(q.type)}};
  switch (q.type) {
  case RequestType::model:
  case RequestType::run:
  case RequestType::sweep:
    line["kernel"] = q.kernel_id;
    line["params"] = q.params;
    if (q.block) line["block"] = {q.block->x, q.block->y, q.block->z};
    line["max_evaluations"] = q.max_evaluations;
    if (q.type == RequestType::model) {
      line["arch"] = q.arch;
    } else {
      line["device"] = q.device;
      line["seed"] = q.seed;
      line["verify"] = q.verify;
      line["max_seconds"] = q.max_seconds;
      line["metrics"] = q.metrics;
    }
    if (q.type == RequestType::sweep) {
      line["shapes"] = json::array();
      for (const BlockShape& s : q.shapes) line["shapes"].push_back({s.x, s.y, s.z});
    }
    break;
  case RequestType::cancel:
    line["target"] = q.target;
    break;
  case RequestType::shutdown:
    break;
  }
  return line;
}

WorkerRequest request_from_json(const json& line) {
  const LineReader r(line, "request");
  WorkerRequest q;
  q.id = r.get<std::int64_t>("id");
  q.type = type_from_name(kRequestTypes, request_type_name, r.get<std::string>("type"), r);
  if (q.type == RequestType::cancel) q.target = r.get_or<std::int64_t>("target", 0);
  if (q.type != RequestType::model && q.type != RequestType::run && q.type != RequestType::sweep) return q;
  q.kernel_id = r.get<std::string>("kernel");
  q.params = r.get_or<Params>("params", {});
  if (r.has("block")) q.block = block_from(r);
  q.max_evaluations = r.get_or("max_evaluations", q.max_evaluations);
  q.arch = r.get_or("arch", q.arch);
  q.device = r.get_or("device", q.device);
  q.seed = r.get_or("seed", q.seed);
  q.verify = r.get_or("verify", q.verify);
  q.max_seconds = r.get_or("max_seconds", q.max_seconds);
  q.metrics = r.get_or("metrics", q.metrics);
  if (q.max_evaluations < 0) r.fail("has a negative 'max_evaluations'");
  if (!(q.max_seconds > 0)) r.fail("needs a positive 'max_seconds'");
  if (q.type == RequestType::sweep) {
    if (!r.has("shapes") || !r.raw("shapes").is_array() || r.raw("shapes").empty())
      r.fail("needs a non-empty 'shapes' list");
    for (const json& s : r.raw("shapes")) {
      if (!s.is_array() || s.size() != 3 || !s[0].is_number_integer() || !s[1].is_number_integer() ||
          !s[2].is_number_integer())
        r.fail("has a bad shape in 'shapes': give [x, y, z]");
      q.shapes.push_back(BlockShape{s[0].get<int>(), s[1].get<int>(), s[2].get<int>()});
    }
  }
  return q;
}

json response_to_json(const WorkerResponse& a) {
  json line = {{"id", a.id}, {"type", response_type_name(a.type)}};
  switch (a.type) {
  case ResponseType::hello:
    line["protocol"] = a.protocol;
    line["pid"] = a.pid;
    break;
  case ResponseType::progress:
    line["phase"] = a.phase;
    if (a.total > 0) {
      line["done"] = a.done;
      line["total"] = a.total;
    }
    break;
  case ResponseType::result:
    line["result"] = a.result ? run_result_to_json(*a.result) : json(nullptr);
    break;
  case ResponseType::sweep:
    line["points"] = a.sweep ? sweep_points_to_json(*a.sweep) : json::array();
    break;
  case ResponseType::error:
    line["message"] = a.message;
    line["fatal"] = a.fatal;
    line["cancelled"] = a.cancelled;
    line["no_gpu"] = a.no_gpu;
    break;
  }
  return line;
}

WorkerResponse response_from_json(const json& line) {
  const LineReader r(line, "worker line");
  WorkerResponse a;
  a.id = r.get<std::int64_t>("id");
  a.type = type_from_name(kResponseTypes, response_type_name, r.get<std::string>("type"), r);
  switch (a.type) {
  case ResponseType::hello:
    a.protocol = r.get<int>("protocol");
    a.pid = r.get_or("pid", 0);
    break;
  case ResponseType::progress:
    a.phase = r.get_or<std::string>("phase", "");
    a.done = r.get_or("done", 0);
    a.total = r.get_or("total", 0);
    break;
  case ResponseType::sweep:
    if (!r.has("points")) r.fail("has no 'points'");
    try {
      a.sweep = std::make_shared<const std::vector<SweepPoint>>(sweep_points_from_json(r.raw("points")));
    } catch (const UsageError& e) {
      r.fail(std::string("has bad 'points': ") + e.what());
    }
    break;
  case ResponseType::result:
    if (!r.has("result") || !r.raw("result").is_object()) r.fail("has no 'result' object");
    a.result = std::make_shared<const RunResult>(run_result_from_json(r.raw("result")));
    break;
  case ResponseType::error:
    a.message = r.get<std::string>("message");
    a.fatal = r.get_or("fatal", false);
    a.cancelled = r.get_or("cancelled", false);
    a.no_gpu = r.get_or("no_gpu", false);
    break;
  }
  return a;
}

std::string protocol_line(const json& line) {
  return line.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace wl
