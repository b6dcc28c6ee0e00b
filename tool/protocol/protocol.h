#pragma once
// The JSON-lines protocol between the GUI and `warplens worker`: one JSON object per line, UTF-8,
// on the worker's stdin (requests) and stdout (responses). Every line has an integer `id` and a
// string `type`.
//
// The worker's first line says who it is; the client refuses a worker with another version:
//   {"id":0,"type":"hello","protocol":5,"pid":4242,"catalog":"33 kernels #1f2e3d4c"}
// Requests (ids chosen by the client: from 1, each above the last line's; each key of its type
// once, and no other key):
//   {"id":7,"type":"model","kernel":"vec_add/scalar","params":{"n":4096},"block":[256,1,1],
//    "arch":"h100","max_evaluations":30000}
//   {"id":8,"type":"run","kernel":"matmul/tiled","params":{},"block":[16,16,1],"device":0,
//    "seed":42,"verify":true,"max_seconds":1.0,"metrics":"default","max_evaluations":30000,
//    "per_site":true,"stalls":true}           per_site, stalls: the per-site pass, the
//                                             PC-sampling pass too (absent: false)
//   {"id":11,"type":"sweep","kernel":"vec_add_3d/blocks3d","params":{},"shapes":[[8,1,1],[16,2,1]],
//    "device":0,"seed":42,"verify":true,"max_seconds":0.001,"metrics":"default","max_evaluations":3000,
//    "per_site":true}                         per_site: a per-site pass for every shape (absent:
//    false)
//   {"id":12,"type":"sweep","kernel":"coalescing/stride","params":{},"shapes":[[256,1,1]],
//    "param_axes":[{"name":"stride","values":[1,2,4]}], ...}   every shape for every value
//   {"id":9,"type":"cancel","target":8}      target 0 or absent: everything waiting or running;
//                                            its own id or a later one is refused
//   {"id":10,"type":"shutdown"}              cancel what waits or runs, serve nothing more, exit 0
// `params` lists only the parameters the user set (the worker fills in the defaults); `block`
// absent means the kernel's default (a sweep has none: its shapes are its blocks); `arch` takes
// what `warplens model --arch` takes. The worker answers a line it refuses (not JSON, a key it
// does not know or given twice, an id not above the last one, a cancel of no earlier request, a
// request after shutdown) with an error line naming what is wrong.
// Responses carry the id of the request they answer:
//   {"id":8,"type":"progress","phase":"run"}
//   {"id":11,"type":"progress","phase":"sweep","done":3,"total":24}
//   {"id":11,"type":"sweep","points":[...]}  as `warplens sweep --json` writes them (sweep.h)
//   {"id":8,"type":"result","result":{...}}  the keys of `warplens run --json`, plus the fields
//                                           needed to rebuild the RunResult (run_result_from_json)
//   {"id":8,"type":"error","message":"...","fatal":false,"cancelled":false,"no_gpu":false}
// While it serves a request the worker repeats that request's last progress line whenever it has
// written nothing for a second (the heartbeat), so the client can tell a long phase from a stopped
// or hung worker; one whose request runs past its budget is killed all the same, the reason naming
// the progress it stayed at (repeated by the heartbeat, never advancing).
// Each model, run or sweep request gets exactly one result (a sweep: its points) or error; a sweep
// stops between shapes when a newer request cancels it. The newest request wins:
// older requests still waiting are answered as errors with "cancelled": true, and one already
// running stops at its next phase boundary (a request that finished anyway still sends its result).
// "fatal": true means the worker's CUDA context is unusable (a sticky error such as an illegal
// address) and the worker exits after this line. "no_gpu": true means a run failed because the
// worker's machine has no usable CUDA device (model requests still work there). At end of input the
// worker serves the newest request still waiting, then exits; after "shutdown" it serves nothing
// more: a line it still reads after it is refused (one unread when it exits gets no answer).
//
// The client checks every answer before it is shown (answer_check.h): a result or sweep that is
// not of the kernel, block, parameters and GPU asked, lacks a part asked for, or holds a figure no
// GPU can produce (9999 blocks per SM, a passed verification with mismatches, a median longer
// than the request's budget) is refused with the reason ("the worker's answer was refused: block
// 1024x1x1 where 64x1x1 was asked"). Texts are cut to 1000 bytes with control characters and
// escape codes shown as '?'.

#include "kernel.h"
#include "model/kernel_request.h"
#include "model/run_options.h"
#include "model/run_result.h"
#include "model/sweep_grid.h"
#include "protocol/run_result_json.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace wl {

inline constexpr int kProtocolVersion = 5; // 2: the heartbeat below; 3: sweeps' param_axes;
                                           // 4: run requests' stalls; 5: energy

enum class RequestType { model, run, sweep, cancel, shutdown };
enum class ResponseType { hello, progress, result, sweep, error };

const char* request_type_name(RequestType type); // "model", "run", "sweep", "cancel", "shutdown"
const char*
response_type_name(ResponseType type); // "hello", "progress", "result", "sweep", "error"

// A person's kernel file as they saved it, sent with each request of one of its kernels: the
// worker (which may run on another machine) compiles the text it is sent, never a file of its own.
struct KernelFileText {
  std::string path; // as the person named it: the kernel ids' stem, messages, -I its folder
  std::string text;
  std::map<std::string, std::string> headers{}; // the headers it includes, by name
};

struct WorkerRequest {
  std::int64_t id = 0;
  RequestType type = RequestType::model;
  std::string kernel_id{};                     // model, run
  std::optional<KernelFileText> kernel_file{}; // model, run, sweep: the file kernel_id is from
  Params params{};                   // the parameters the user set; the rest take defaults
  std::optional<BlockShape> block{}; // none: the kernel's default
  std::string arch = "h100";         // model: preset id, alias, .json path, device[:N]
  // run, sweep: the device, seed, verification, timing budget ("max_seconds"), counters
  // ("metrics": "", "default", "all" or a list of keys) and per-site pass the engine is asked for.
  // A run's per-site pass is a SASS-metrics pass of its own after the counters, each memory
  // instruction placed on its site's line (RunResult::site_counts); a sweep never makes one.
  // Its model budget ("max_evaluations", every type) is warp-iterations the access model evaluates
  // at most, 1 to kMaxModelEvaluations; a request's 0 ("all") reads as kMaxModelEvaluations and a
  // larger number is refused.
  EngineOptions engine{};
  std::int64_t target = 0;             // cancel: the request to cancel; 0: all of them
  std::vector<BlockShape> shapes{};    // sweep: every shape, in order; kMaxSweepShapes at most
  std::vector<ParamAxis> param_axes{}; // sweep: parameters swept (points: kMaxSweepShapes at most)
};

struct WorkerResponse {
  std::int64_t id = 0;
  ResponseType type = ResponseType::error;
  int protocol = 0;        // hello
  int pid = 0;             // hello: the worker's process id on its own host
  std::string catalog{};   // hello: its kernel catalog (catalog_version)
  std::string driver{};    // hello: its CUDA driver's version ("13.0"; "unknown" with none)
  std::string phase{};     // progress: "resolve", "model", "run", "counters", "sites", "sweep"
  int done = 0, total = 0; // progress of a sweep: shapes measured of all
  // result; progress "counters": a run's timing, verification and resources, sent before its
  // counters are measured so a GUI shows them at once (its counters and per-site figures follow
  // in the result)
  std::shared_ptr<const RunResult> result{};
  std::shared_ptr<const std::vector<SweepPoint>> sweep{}; // sweep
  std::string message{};                                  // error: one line
  bool fatal = false;                                     // error: the worker exits after this line
  bool cancelled = false; // error: superseded or cancelled, not a failure
  bool no_gpu = false;    // error: no usable CUDA device where the worker runs
};

// Reading throws UsageError naming the line's bad or missing key and what is allowed
// ("request 7: block[0]: 256.7 is not a whole number; ...").
nlohmann::json request_to_json(const WorkerRequest& request);
WorkerRequest request_from_json(const nlohmann::json& line);
nlohmann::json response_to_json(const WorkerResponse& response);
WorkerResponse response_from_json(const nlohmann::json& line);

// The launch a model, run or sweep request names, defaults filled in, as the worker resolves it
// (a sweep's block: the first of its shapes the kernel allows with its parameters, else the
// kernel's default; its shapes are its blocks). Throws UsageError naming
// what the kernel does not allow, or the first problem of the kernel file it carries (whose
// kernels it adds at run time).
KernelRequest request_kernel(const WorkerRequest& request);

// Gives a model, run or sweep request of a kernel added from a file that file's text, unless it
// has one (every request a client sends passes here).
void attach_kernel_file(WorkerRequest& request);

// One protocol line, newline included; bytes that are not UTF-8 are replaced, never thrown on.
std::string protocol_line(const nlohmann::json& line);

} // namespace wl
