#include "engine/counters/pc_sampling.h"

#include "engine/counters/cupti_check.h"

#include <array>
#include <chrono>
#include <map>
#include <optional>
#include <vector>

#include <cupti_pcsampling.h>

namespace wl {

namespace {

// PCs read per GetData: a kernel of more sampled instructions is read in several rounds.
constexpr std::size_t kPcsPerRead = 2048;
// The hardware buffer the samples are written to on the GPU. CUPTI's default is 512 MB, held
// while sampling is enabled; a launch sampled at the period sampling_period_for picks fills a few
// MB, and a full buffer is said (PcSampleCounts::buffer_full).
constexpr std::size_t kHardwareBufferBytes = 64u << 20;
// Reads: a pass that keeps saying more PCs remain past this is CUPTI misbehaving, not a kernel.
constexpr int kMostReads = 10'000;

struct StallNames {
  std::vector<std::uint32_t> indices;
  std::map<std::uint32_t, std::string> names; // by CUPTI's index
};

StallNames stall_names(CUcontext context) {
  std::size_t count = 0;
  CUpti_PCSamplingGetNumStallReasonsParams number{};
  number.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
  number.ctx = context;
  number.numStallReasons = &count;
  WL_CUPTI(cuptiPCSamplingGetNumStallReasons(&number));
  std::vector<std::array<char, CUPTI_STALL_REASON_STRING_SIZE>> text(count);
  std::vector<char*> pointers;
  for (auto& t : text)
    pointers.push_back(t.data());
  StallNames names;
  names.indices.resize(count);
  CUpti_PCSamplingGetStallReasonsParams reasons{};
  reasons.size = CUpti_PCSamplingGetStallReasonsParamsSize;
  reasons.ctx = context;
  reasons.numStallReasons = count;
  reasons.stallReasonIndex = names.indices.data();
  reasons.stallReasons = pointers.data();
  WL_CUPTI(cuptiPCSamplingGetStallReasons(&reasons));
  for (std::size_t i = 0; i < count; ++i) {
    text[i].back() = '\0';
    names.names[names.indices[i]] = text[i].data();
  }
  return names;
}

// The buffer CUPTI fills with parsed PC records: room for kPcsPerRead PCs, each with room for
// every stall reason.
struct RecordBuffer {
  std::vector<CUpti_PCSamplingPCData> pcs;
  std::vector<CUpti_PCSamplingStallReason> reasons;
  CUpti_PCSamplingData data{};

  RecordBuffer(const RecordBuffer&) = delete; // CUPTI holds pointers into it
  RecordBuffer& operator=(const RecordBuffer&) = delete;
  explicit RecordBuffer(std::size_t reason_count)
      : pcs(kPcsPerRead), reasons(kPcsPerRead * reason_count) {
    for (std::size_t i = 0; i < kPcsPerRead; ++i) {
      pcs[i].size = sizeof(CUpti_PCSamplingPCData);
      pcs[i].stallReason = reasons.data() + i * reason_count;
    }
    data.size = sizeof(CUpti_PCSamplingData);
    data.collectNumPcs = kPcsPerRead;
    data.pPcData = pcs.data();
  }
};

CUpti_PCSamplingConfigurationInfo attribute(CUpti_PCSamplingConfigurationAttributeType type) {
  CUpti_PCSamplingConfigurationInfo info{};
  info.attributeType = type;
  return info;
}

void configure(CUcontext context, int period, StallNames& names, RecordBuffer& buffer) {
  std::vector<CUpti_PCSamplingConfigurationInfo> infos;
  auto& reasons =
      infos.emplace_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON));
  reasons.attributeData.stallReasonData.stallReasonCount = names.indices.size();
  reasons.attributeData.stallReasonData.pStallReasonIndex = names.indices.data();
  infos.emplace_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD))
      .attributeData.samplingPeriodData.samplingPeriod = static_cast<std::uint32_t>(period);
  infos.emplace_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE))
      .attributeData.hardwareBufferSizeData.hardwareBufferSize = kHardwareBufferBytes;
  infos.emplace_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER))
      .attributeData.samplingDataBufferData.samplingDataBuffer = &buffer.data;
  infos.emplace_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL))
      .attributeData.enableStartStopControlData.enableStartStopControl = 1;
  infos.emplace_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE))
      .attributeData.collectionModeData.collectionMode =
      CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED;
  CUpti_PCSamplingConfigurationInfoParams params{};
  params.size = CUpti_PCSamplingConfigurationInfoParamsSize;
  params.ctx = context;
  params.numAttributes = infos.size();
  params.pPCSamplingConfigurationInfo = infos.data();
  WL_CUPTI(cuptiPCSamplingSetConfigurationAttribute(&params));
}

// What the records of one pass have been read into: an entry per function and PC. The records'
// function names are CUPTI's allocations, which its header leaves to the user to free "once all
// the records are processed"; but it shares a name across records, and on the H200 a later pass
// in the process handed back the pointer an earlier pass had freed (a double free). So they are
// copied and never freed: a few dozen bytes per function sampled.
struct Taken {
  std::map<std::pair<std::string, std::uint64_t>, std::size_t> found;
};

// The records CUPTI put in the buffer, added to `into`.
void take_records(RecordBuffer& buffer, const StallNames& names, PcSampleCounts& into,
                  Taken& taken) {
  CUpti_PCSamplingData& data = buffer.data;
  into.total_samples += data.totalSamples;
  into.dropped_samples += data.droppedSamples;
  into.buffer_full = into.buffer_full || data.hardwareBufferFull != 0;
  for (std::size_t i = 0; i < data.totalNumPcs && i < kPcsPerRead; ++i) {
    CUpti_PCSamplingPCData& pc = buffer.pcs[i];
    const std::string function = pc.functionName ? pc.functionName : "";
    pc.functionName = nullptr;
    const std::uint64_t offset = pc.pcOffset; // a packed field: read, not referred to
    const auto key = std::make_pair(function, offset);
    auto [at, made] = taken.found.try_emplace(key, into.instructions.size());
    if (made)
      into.instructions.push_back(SassInstruction{static_cast<std::uint32_t>(pc.cubinCrc),
                                                  function,
                                                  static_cast<std::uint32_t>(offset),
                                                  {}});
    SassInstruction& instruction = into.instructions[at->second];
    for (std::size_t r = 0; r < pc.stallReasonCount; ++r) {
      const auto name = names.names.find(pc.stallReason[r].pcSamplingStallReasonIndex);
      const std::string reason =
          name == names.names.end()
              ? "index " + std::to_string(pc.stallReason[r].pcSamplingStallReasonIndex)
              : name->second;
      instruction.values[reason] += pc.stallReason[r].samples;
    }
  }
  data.totalNumPcs = 0; // taken: a later read or Disable adds only what is new
  data.totalSamples = 0;
  data.droppedSamples = 0;
}

void read_samples(CUcontext context, const StallNames& names, RecordBuffer& buffer,
                  PcSampleCounts& into, Taken& taken) {
  take_records(buffer, names, into, taken); // what Stop already flushed into the buffer
  for (int read = 0; read < kMostReads; ++read) {
    CUpti_PCSamplingGetDataParams get{};
    get.size = CUpti_PCSamplingGetDataParamsSize;
    get.ctx = context;
    get.pcSamplingData = &buffer.data;
    const CUptiResult status = cuptiPCSamplingGetData(&get);
    if (status == CUPTI_ERROR_OUT_OF_MEMORY) { // the hardware buffer filled: keep what was read
      into.buffer_full = true;
      take_records(buffer, names, into, taken);
      return;
    }
    cupti_check(status, "cuptiPCSamplingGetData");
    const bool more = buffer.data.remainingNumPcs > 0;
    take_records(buffer, names, into, taken);
    if (!more)
      return;
  }
  throw CuptiFailure{"cuptiPCSamplingGetData kept saying more PCs remain after " +
                     std::to_string(kMostReads) + " reads"};
}

template <typename Params>
void on_context(CUptiResult (*call)(Params*), CUcontext context, std::size_t size,
                const char* what) {
  Params params{};
  params.size = size;
  params.ctx = context;
  cupti_check(call(&params), what);
}

} // namespace

PcSampleCounts collect_pc_samples(CUcontext context, int period,
                                  const std::function<void()>& launch) {
  const auto start = std::chrono::steady_clock::now();
  PcSampleCounts counts;
  counts.period = period;
  on_context(cuptiPCSamplingEnable, context, CUpti_PCSamplingEnableParamsSize,
             "cuptiPCSamplingEnable");
  // Alive until sampling is disabled: Disable copies the records it still holds into the buffer
  // configured, and their names are CUPTI's until then.
  StallNames names;
  std::optional<RecordBuffer> buffer;
  Taken taken;
  try {
    names = stall_names(context);
    buffer.emplace(names.indices.size());
    configure(context, period, names, *buffer);
    on_context(cuptiPCSamplingStart, context, CUpti_PCSamplingStartParamsSize,
               "cuptiPCSamplingStart");
    launch();
    on_context(cuptiPCSamplingStop, context, CUpti_PCSamplingStopParamsSize, "cuptiPCSamplingStop");
    read_samples(context, names, *buffer, counts, taken);
  } catch (...) {
    CUpti_PCSamplingDisableParams disable{};
    disable.size = CUpti_PCSamplingDisableParamsSize;
    disable.ctx = context;
    cuptiPCSamplingDisable(&disable); // the failure above is the one to say
    throw;
  }
  on_context(cuptiPCSamplingDisable, context, CUpti_PCSamplingDisableParamsSize,
             "cuptiPCSamplingDisable");
  take_records(*buffer, names, counts, taken); // any Disable flushed
  counts.available = true;
  counts.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return counts;
}

} // namespace wl
