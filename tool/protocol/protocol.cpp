#include "protocol/protocol.h"

#include "base/error.h"
#include "base/json_fields.h"
#include "base/json_input.h"
#include "kernel_file/file_kernel.h"
#include "model/block_text.h"
#include "protocol/sweep_points_json.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <type_traits>
#include <variant>

#include <nlohmann/json.hpp>

namespace wl {

namespace {

using nlohmann::json;

constexpr RequestType kRequestTypes[] = {RequestType::model, RequestType::run, RequestType::sweep,
                                         RequestType::cancel, RequestType::shutdown};
constexpr ResponseType kResponseTypes[] = {ResponseType::hello, ResponseType::progress,
                                           ResponseType::result, ResponseType::sweep,
                                           ResponseType::error};

BlockShape block_from(const Fields& line) {
  const std::vector<std::int64_t> sides = line.integers("block", 1, 3, 1, kMaxInt);
  BlockShape block;
  block.x = static_cast<int>(sides[0]);
  if (sides.size() > 1)
    block.y = static_cast<int>(sides[1]);
  if (sides.size() > 2)
    block.z = static_cast<int>(sides[2]);
  return block;
}

std::vector<BlockShape> shapes_from(const Fields& line) {
  const json& list = line.list("shapes", kMaxSweepShapes);
  if (list.empty())
    line.fail("shapes", "an empty list",
              "allowed 1 to " + std::to_string(kMaxSweepShapes) + " shapes");
  std::vector<BlockShape> shapes;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string key = line.path("shapes[" + std::to_string(i) + "]");
    if (!list[i].is_array() || list[i].size() != 3)
      input_error(line.where(), key, describe(list[i]) + " is not a shape",
                  "allowed [x, y, z] with sides of at least 1");
    int sides[3];
    for (int k = 0; k < 3; ++k)
      sides[k] = static_cast<int>(whole_number(list[i][k], line.where(), key, 1, kMaxInt));
    shapes.push_back(BlockShape{sides[0], sides[1], sides[2]});
  }
  return shapes;
}

std::vector<ParamAxis> param_axes_from(const Fields& line) {
  std::vector<ParamAxis> axes;
  for (const Fields& entry : line.objects("param_axes", kMaxSweepShapes)) {
    entry.only({"name", "values"}, "a swept parameter");
    axes.push_back(ParamAxis{entry.text("name", false),
                             entry.integers("values", 1, kMaxSweepShapes, kMinInt64, kMaxInt64)});
  }
  return axes;
}

// Which engine options (run_options.h) a request of this type carries.
unsigned request_use(RequestType type) {
  switch (type) {
  case RequestType::model:
    return kModelRequest;
  case RequestType::run:
    return kRunRequest;
  case RequestType::sweep:
    return kSweepRequest;
  case RequestType::cancel:
  case RequestType::shutdown:
    break;
  }
  return 0;
}

// The keys of each request type: those request_to_json writes for it, so that a misspelt or
// misplaced key ("blok", a run's "seed" in a model request) is refused, never read as absent.
std::vector<std::string_view> request_keys(RequestType type) {
  switch (type) {
  case RequestType::model:
  case RequestType::run:
  case RequestType::sweep: {
    std::vector<std::string_view> keys = {"id", "type", "kernel", "kernel_file", "params"};
    if (type == RequestType::model)
      keys.push_back("arch");
    if (type == RequestType::sweep) { // its blocks are its shapes
      keys.push_back("shapes");
      keys.push_back("param_axes");
    } else {
      keys.push_back("block");
    }
    for (const EngineOption& option : kEngineOptions)
      if (option.use & request_use(type))
        keys.push_back(option.key);
    return keys;
  }
  case RequestType::cancel:
    return {"id", "type", "target"};
  case RequestType::shutdown:
    return {"id", "type"};
  }
  return {};
}

// Each engine option the request carries, read within its row's bounds; one it lacks keeps its
// default (an older client's request has no per_site).
void read_engine_options(const Fields& r, RequestType type, EngineOptions& engine) {
  for (const EngineOption& option : kEngineOptions) {
    if (!(option.use & request_use(type)) || !r.has(option.key))
      continue;
    std::visit(
        [&](auto member) {
          auto& value = member(engine);
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, bool>)
            value = r.boolean_or(option.key, value);
          else if constexpr (std::is_same_v<T, double>)
            value = r.number_or(option.key, value, std::max(option.shortest, kAboveZero),
                                option.longest);
          else if constexpr (std::is_same_v<T, std::string>)
            value = r.text_or(option.key, value);
          else
            value = static_cast<T>(r.integer_or(option.key, static_cast<std::int64_t>(value),
                                                option.least, option.most));
        },
        option.field);
  }
}

// A header's name as an include directive writes it, inside the file's folder: the client sends
// no other (include_check.h), and NVRTC would take an absolute one for a path.
bool header_name_inside(const std::string& name) {
  if (name.empty() || name.find('\0') != std::string::npos || name.front() == '/')
    return false;
  const std::filesystem::path normal = std::filesystem::path(name).lexically_normal();
  return !normal.empty() && *normal.begin() != "..";
}

KernelFileText kernel_file_from(const Fields& r) {
  const Fields f(r.at("kernel_file", "allowed an object with the file's path and text"), r.where(),
                 r.path("kernel_file."));
  f.only({"path", "text", "headers"}, "a kernel file");
  KernelFileText file{.path = f.name("path", false), .text = f.text("text"), .headers = {}};
  if (file.text.size() > kLargestKernelFile)
    f.fail("text", std::to_string(file.text.size()) + " bytes",
           "allowed a kernel file of at most 128 KiB");
  if (f.has("headers")) {
    const Fields headers(f.at("headers", "allowed an object of header names and texts"), f.where(),
                         f.path("headers."));
    for (const auto& [name, text] : headers.raw().items()) {
      if (!header_name_inside(name))
        f.fail("headers", std::string("a header named ").append(in_quotes(name, 60)),
               "allowed names relative to the file's folder and inside it, as its includes "
               "write them");
      file.headers[name] = headers.text(name.c_str());
    }
  }
  return file;
}

// What a model, run or sweep request asks for beyond its type.
void read_work(const Fields& r, WorkerRequest& q) {
  q.kernel_id = r.text("kernel", false);
  if (r.has("kernel_file"))
    q.kernel_file = kernel_file_from(r);
  if (r.has("params"))
    q.params = r.integer_map("params", std::numeric_limits<std::int64_t>::min(), kMaxInt64);
  if (r.has("block"))
    q.block = block_from(r);
  read_engine_options(r, q.type, q.engine);
  if (q.engine.model.max_evaluations == 0)
    q.engine.model.max_evaluations = kMaxModelEvaluations; // "all", within the bound
  q.arch = r.text_or("arch", q.arch);
  if (q.type == RequestType::sweep) {
    q.shapes = shapes_from(r);
    if (r.has("param_axes"))
      q.param_axes = param_axes_from(r);
  }
}

// A cancel names an earlier request, or 0 for every one waiting or running: ids increase, so its
// own id or a later one names no request there is, and would cancel nothing without a word.
void check_cancel_target(const Fields& r, const WorkerRequest& q) {
  const char* allowed =
      "allowed the id of an earlier request, or 0 for every request waiting or running";
  if (q.target == q.id)
    r.fail("target", std::to_string(q.target) + " is this cancel request's own id", allowed);
  if (q.target > q.id)
    r.fail("target", std::to_string(q.target) + " is not an earlier request's id", allowed);
}

// Each engine option a request of this type carries. `engine` is a copy: the rows reach their
// members through a mutable reference.
void write_engine_options(RequestType type, EngineOptions engine, json& line) {
  for (const EngineOption& option : kEngineOptions)
    if (option.use & request_use(type))
      std::visit([&](auto member) { line[option.key] = member(engine); }, option.field);
}

} // namespace

const char* request_type_name(RequestType type) {
  switch (type) {
  case RequestType::model:
    return "model";
  case RequestType::run:
    return "run";
  case RequestType::sweep:
    return "sweep";
  case RequestType::cancel:
    return "cancel";
  case RequestType::shutdown:
    return "shutdown";
  }
  return "?";
}

const char* response_type_name(ResponseType type) {
  switch (type) {
  case ResponseType::hello:
    return "hello";
  case ResponseType::progress:
    return "progress";
  case ResponseType::result:
    return "result";
  case ResponseType::sweep:
    return "sweep";
  case ResponseType::error:
    return "error";
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
    if (q.kernel_file)
      line["kernel_file"] = {{"path", q.kernel_file->path},
                             {"text", q.kernel_file->text},
                             {"headers", q.kernel_file->headers}};
    line["params"] = q.params;
    if (q.block && q.type != RequestType::sweep)
      line["block"] = {q.block->x, q.block->y, q.block->z};
    if (q.type == RequestType::model)
      line["arch"] = q.arch;
    write_engine_options(q.type, q.engine, line);
    if (q.type == RequestType::sweep) {
      line["shapes"] = json::array();
      for (const BlockShape& s : q.shapes)
        line["shapes"].push_back({s.x, s.y, s.z});
      if (!q.param_axes.empty()) {
        line["param_axes"] = json::array();
        for (const ParamAxis& axis : q.param_axes)
          line["param_axes"].push_back({{"name", axis.name}, {"values", axis.values}});
      }
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
  WorkerRequest q;
  q.id = Fields(line, "request").integer("id", 1, kMaxInt64); // 0 is the worker's hello
  const Fields r(line, "request " + std::to_string(q.id));
  q.type = r.enum_choice("type", kRequestTypes, request_type_name);
  r.only(request_keys(q.type), std::string("a ") + request_type_name(q.type) + " request");
  if (q.type == RequestType::cancel) {
    q.target = r.integer_or("target", 0, 0, kMaxInt64);
    check_cancel_target(r, q);
  }
  if (q.type == RequestType::model || q.type == RequestType::run || q.type == RequestType::sweep)
    read_work(r, q);
  return q;
}

json response_to_json(const WorkerResponse& a) {
  json line = {{"id", a.id}, {"type", response_type_name(a.type)}};
  switch (a.type) {
  case ResponseType::hello:
    line["protocol"] = a.protocol;
    line["pid"] = a.pid;
    line["catalog"] = a.catalog;
    if (!a.driver.empty())
      line["driver"] = a.driver;
    break;
  case ResponseType::progress:
    line["phase"] = a.phase;
    if (a.total > 0) {
      line["done"] = a.done;
      line["total"] = a.total;
    }
    if (a.result)
      line["result"] = run_result_to_json(*a.result);
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
  WorkerResponse a;
  a.id = Fields(line, "worker line").integer("id", 0, kMaxInt64);
  const Fields r(line, "worker line " + std::to_string(a.id));
  a.type = r.enum_choice("type", kResponseTypes, response_type_name);
  switch (a.type) {
  case ResponseType::hello:
    a.protocol = static_cast<int>(r.integer("protocol", 0, kMaxInt));
    a.pid = static_cast<int>(r.integer_or("pid", 0, 0, kMaxInt));
    a.catalog = r.text_or("catalog", "");
    a.driver = r.has("driver") ? r.name("driver") : ""; // printed in a tune's cache and messages
    break;
  case ResponseType::progress:
    a.phase = r.text_or("phase", "");
    a.total = static_cast<int>(r.integer_or("total", 0, 0, kMaxInt));
    a.done = static_cast<int>(r.integer_or("done", 0, 0, a.total)); // never 9 of 3 shapes
    if (r.has("result"))
      a.result = std::make_shared<const RunResult>(
          run_result_from_json(r.at("result", "allowed a result object"), r.where() + ": result"));
    break;
  case ResponseType::sweep:
    a.sweep = std::make_shared<const std::vector<SweepPoint>>(
        sweep_points_from_json(r.at("points", "allowed a list of shapes"), r.where() + ": points"));
    break;
  case ResponseType::result:
    a.result = std::make_shared<const RunResult>(
        run_result_from_json(r.at("result", "allowed a result object"), r.where() + ": result"));
    break;
  case ResponseType::error:
    a.message = r.text("message");
    a.fatal = r.boolean_or("fatal", false);
    a.cancelled = r.boolean_or("cancelled", false);
    a.no_gpu = r.boolean_or("no_gpu", false);
    break;
  }
  return a;
}

KernelRequest request_kernel(const WorkerRequest& request) {
  if (request.kernel_file) // its kernels join the registry, compiled when first asked
    use_kernel_file(kernel_file_from_text(request.kernel_file->path, request.kernel_file->text,
                                          request.kernel_file->headers));
  std::vector<std::string> params;
  for (const auto& [name, value] : request.params)
    params.push_back(name + "=" + std::to_string(value));
  if (request.type == RequestType::sweep && !request.block)
    // A sweep's launches are its shapes, each checked as it is measured: the request stands at
    // the first shape the kernel allows with these parameters, not at the kernel's default block,
    // which the parameters may forbid (a tile of 16 with a default block of 32x8).
    for (const BlockShape& shape : request.shapes)
      try {
        return resolve_kernel_request(request.kernel_id, params, "", format_block(shape));
      } catch (const UsageError&) { // this shape refused; the parameters are checked below
      }
  return resolve_kernel_request(request.kernel_id, params, "",
                                request.block ? format_block(*request.block) : "");
}

void attach_kernel_file(WorkerRequest& request) {
  const bool works = request.type == RequestType::model || request.type == RequestType::run ||
                     request.type == RequestType::sweep;
  if (!works || request.kernel_file)
    return;
  if (const std::shared_ptr<const KernelFile> file = kernel_file_of(request.kernel_id))
    request.kernel_file =
        KernelFileText{.path = file->path.string(), .text = file->text, .headers = file->headers};
}

std::string protocol_line(const json& line) { return json_text(line) + "\n"; }

} // namespace wl
