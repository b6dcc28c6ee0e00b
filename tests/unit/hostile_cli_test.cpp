// Hostile command lines: every refusal is one short line naming the value, exit code 2, no
// signal, no hang. Cases that need a GPU to get past are left to the gpu tests.

#include "hostile_support.h"
#include "sweep/sweep_file.h"

namespace wl {
namespace {

using test::expect_refusal;
using test::run_limited;

using CliCase = test::InputCase;

std::string long_text(char c, std::size_t size) { return std::string(size, c); }

const std::vector<CliCase> kOccupancy = {
    {"ArchFolder", "occupancy --block 256 --arch /tmp/", {"/tmp/", "folder"}},
    {"ArchDevNull", "occupancy --block 256 --arch /dev/null", {"/dev/null", "not a regular file"}},
    {"ArchDevZero", "occupancy --block 256 --arch /dev/zero", {"/dev/zero", "not a regular file"}},
    {"ArchMissingFile",
     "occupancy --block 256 --arch " + test::missing_path("x.json"),
     {test::missing_path("x.json"), "no such file"}},
    {"ArchDeviceHuge", "occupancy --block 256 --arch device:99999999999", {"device:99999999999"}},
    {"ArchDeviceNegative", "occupancy --block 256 --arch device:-1", {"device:-1"}},
    {"ArchDeviceEmpty", "occupancy --block 256 --arch device:", {"device:"}},
    {"ArchDeviceJunk", "occupancy --block 256 --arch device:1x", {"device:1x"}},
    {"ArchDeviceTooLarge",
     "occupancy --block 256 --arch device:5000",
     {"device 5000", "0 to 1023"}},
    {"ArchEmpty", "occupancy --block 256 --arch ''", {"unknown arch ''"}},
    {"ArchLong", "occupancy --block 256 --arch " + long_text('q', 5000), {"unknown arch 'qqqq"}},
    {"DynSmemInt64Max",
     "occupancy --block 256 --dyn-smem 9223372036854775807",
     {"9223372036854775807", "232448"}},
    {"DynSmemOverflowsInt64",
     "occupancy --block 256 --dyn-smem 9223372036854775808",
     {"--dyn-smem"}},
    {"DynSmemWithStatic",
     "occupancy --block 256 --smem 49152 --dyn-smem 9223372036854775000",
     {"9223372036854775000"}},
    {"DynSmemNegative", "occupancy --block 256 --dyn-smem -1", {"--dyn-smem", "'-1'"}},
    {"DynSmemEmpty", "occupancy --block 256 --dyn-smem ''", {"--dyn-smem", "empty"}},
    {"SmemInt64Max", "occupancy --block 256 --smem 9223372036854775807", {"9223372036854775807"}},
    {"SmemEmpty", "occupancy --block 256 --smem ''", {"--smem", "empty"}},
    {"SmemFraction", "occupancy --block 256 --smem 1.5", {"--smem", "'1.5'"}},
    {"MaxThreadsBelowBlock",
     "occupancy --block 256 --max-threads 128",
     {"--max-threads 128", "256 threads"}},
    {"MaxThreadsBelow2DBlock",
     "occupancy --block 16x16 --max-threads 255",
     {"--max-threads 255", "16x16"}},
    // A launch bound no block of the arch can reach is a typo, not a bound.
    {"MaxThreadsOverTheArch",
     "occupancy --block 256 --max-threads 1025",
     {"--max-threads 1025: over the arch's limit", "at most 1024 threads a block on h100"}},
    {"MaxThreadsOverTheArchOfT4",
     "occupancy --block 256 --max-threads 2048 --arch t4",
     {"--max-threads 2048", "at most 1024 threads a block on t4"}},
    {"MaxThreadsNegative", "occupancy --block 256 --max-threads -5", {"--max-threads", "'-5'"}},
    {"MaxThreadsEmpty", "occupancy --block 256 --max-threads ''", {"--max-threads", "empty"}},
    {"RegsEmpty", "occupancy --block 256 --regs ''", {"--regs", "empty"}},
    {"RegsTooMany", "occupancy --block 256 --regs 256", {"--regs", "'256'", "0 to 255"}},
    {"RegsNegative", "occupancy --block 256 --regs -1", {"--regs", "'-1'"}},
    {"RegsExponent", "occupancy --block 256 --regs 1e3", {"--regs", "'1e3'"}},
    {"RegsFraction", "occupancy --block 256 --regs 32.5", {"--regs", "'32.5'"}},
    {"RegsHex", "occupancy --block 256 --regs 0x20", {"--regs", "'0x20'"}},
    {"RegsHuge",
     "occupancy --block 256 --regs 99999999999999999999",
     {"--regs", "99999999999999999999"}},
    {"RegsSpace", "occupancy --block 256 --regs ' 32'", {"--regs", "' 32'"}},
    {"RegsLong", "occupancy --block 256 --regs " + long_text('7', 5000), {"--regs", "7777"}},
    {"GridEmpty", "occupancy --block 256 --grid ''", {"--grid", "empty"}},
    {"GridNegative", "occupancy --block 256 --grid -1", {"--grid", "'-1'"}},
    {"GridFraction", "occupancy --block 256 --grid 1.5", {"--grid", "'1.5'"}},
    {"GridZero", "occupancy --block 256 --grid 0", {"--grid", "'0'"}},
    {"GridOverInt",
     "occupancy --block 256 --grid 2147483648",
     {"--grid", "'2147483648'", "from 1 to 2147483647"}},
    {"CarveoutEmpty", "occupancy --block 256 --carveout ''", {"--carveout", "empty"}},
    {"CarveoutTooLow", "occupancy --block 256 --carveout -2", {"--carveout", "'-2'"}},
    {"CarveoutTooHigh", "occupancy --block 256 --carveout 101", {"--carveout", "'101'"}},
    {"BlockEmpty", "occupancy --block ''", {"block ''"}},
    {"BlockZeroByZero", "occupancy --block 0x0", {"block '0x0'"}},
    {"BlockOverInt", "occupancy --block 2147483648", {"2147483648", "too large"}},
    {"BlockHuge", "occupancy --block 99999999999999999999", {"block '99999999999999999999'"}},
    {"BlockFourSides", "occupancy --block 1x1x1x1", {"more than three"}},
    {"BlockTrailingX", "occupancy --block 256x", {"block '256x'"}},
    {"BlockLeadingX", "occupancy --block x256", {"block 'x256'"}},
    {"BlockNegative", "occupancy --block=-1", {"block '-1'"}},
    {"BlockFraction", "occupancy --block 25.6", {"block '25.6'"}},
    {"BlockLong", "occupancy --block " + long_text('9', 5000), {"block '9999"}},
    {"BlockMissing", "occupancy", {"--block"}},
};

const std::vector<CliCase> kKernels = {
    {"ModelArchFolder", "model vec_add/scalar --arch /tmp/", {"/tmp/", "folder"}},
    {"ModelArchDeviceHuge",
     "model vec_add/scalar --arch device:99999999999",
     {"device:99999999999"}},
    {"ModelBlockZero", "model vec_add/scalar --block 0", {"block '0'"}},
    {"ModelParamEmpty", "model vec_add/scalar --param n=", {"n", "''"}},
    {"ModelParamFraction", "model vec_add/scalar --param n=1000.9", {"n", "'1000.9'"}},
    {"ModelParamHuge",
     "model vec_add/scalar --param n=99999999999999999999",
     {"n", "99999999999999999999"}},
    {"ModelParamNoName", "model vec_add/scalar --param =5", {"no parameter ''"}},
    {"ModelParamNoValue", "model vec_add/scalar --param n", {"'n'", "name=value"}},
    {"ModelSizeTooManySides", "model vec_add/scalar --size 1x2x3", {"--size '1x2x3'"}},
    {"ModelSizeJunk", "model vec_add/scalar --size abc", {"'abc'"}},
    {"RunDeviceEmpty", "run vec_add/scalar --device ''", {"--device", "empty"}},
    {"RunDeviceNegative", "run vec_add/scalar --device -1", {"--device", "'-1'"}},
    {"RunDeviceHuge", "run vec_add/scalar --device 99999999999", {"--device", "99999999999"}},
    {"RunSeedEmpty", "run vec_add/scalar --seed ''", {"--seed", "empty"}},
    {"RunSeedNegative", "run vec_add/scalar --seed -1", {"--seed", "'-1'"}},
    {"RunSeedOver64Bits",
     "run vec_add/scalar --seed 18446744073709551616",
     {"--seed", "18446744073709551616"}},
    {"RunMaxTimeEmpty", "run vec_add/scalar --max-time ''", {"--max-time", "empty"}},
    {"RunMaxTimeZero", "run vec_add/scalar --max-time 0", {"--max-time", "'0'"}},
    {"RunMaxTimeNegative", "run vec_add/scalar --max-time -1", {"--max-time", "'-1'"}},
    {"RunMaxTimeNan", "run vec_add/scalar --max-time nan", {"--max-time", "'nan'"}},
    {"RunMaxTimeInf", "run vec_add/scalar --max-time inf", {"--max-time", "'inf'"}},
    {"RunMaxTimeOverflow", "run vec_add/scalar --max-time 1e999", {"--max-time", "'1e999'"}},
    {"RunMaxTimeTooLong", "run vec_add/scalar --max-time 1e9", {"--max-time", "'1e9'"}},
    {"RunKernelTimeLimitZero",
     "run vec_add/scalar --kernel-time-limit 0",
     {"--kernel-time-limit", "'0'"}},
    {"RunKernelTimeLimitTiny",
     "run vec_add/scalar --kernel-time-limit 1e-300",
     {"--kernel-time-limit", "'1e-300' is out of range", "from 0.1 to 3600"}},
    {"RunKernelTimeLimitOverflow",
     "run vec_add/scalar --kernel-time-limit 1e999",
     {"--kernel-time-limit", "'1e999'"}},
    {"SweepKernelTimeLimitEmpty",
     "sweep vec_add/scalar --block 32:64:32 --kernel-time-limit ''",
     {"--kernel-time-limit", "empty"}},
    {"SweepModelKernelTimeLimit",
     "sweep vec_add/scalar --block 32:64:32 --model --kernel-time-limit 5",
     {"--model", "--kernel-time-limit"}},
    {"RunMetricsSetAndBogus",
     "run vec_add/scalar --metrics default,bogus",
     {"unknown metric 'bogus'", "default"}},
    {"RunMetricsCommas", "run vec_add/scalar --metrics ,,", {"an empty name in the list"}},
    {"RunMetricsLong",
     "run vec_add/scalar --metrics " + long_text('m', 5000),
     {"unknown metric 'mmm"}},
    {"SweepHundredMillion",
     "sweep vec_add/scalar --block 1:100000000:1",
     {"100000000 sides", "--max-shapes"}},
    {"SweepToIntMax", "sweep vec_add/scalar --block 1:2147483647:1", {"2147483647 sides"}},
    {"SweepSideTwice", "sweep vec_add/scalar --block-x 32,64,32", {"32 is listed twice"}},
    {"SweepCube",
     "sweep vec_add/scalar --block-x 1:1000:1 --block-y 1:1000:1 --block-z 1:1000:1",
     {"1000000000 shapes", "--max-shapes"}},
    {"SweepJustOverCap",
     "sweep vec_add/scalar --block-x 1:64:1 --block-y 1:65:1",
     {"4160 shapes", "4096"}},
    {"SweepOverRaisedCap",
     "sweep vec_add/scalar --block 1:200:1 --max-shapes 100",
     {"200 sides", "at most 100"}},
    {"SweepMaxShapesZero",
     "sweep vec_add/scalar --block 32 --max-shapes 0",
     {"--max-shapes", "'0'"}},
    {"SweepMaxShapesHuge",
     "sweep vec_add/scalar --block 32 --max-shapes 2000000",
     {"--max-shapes", "'2000000'"}},
    {"SweepMaxShapesEmpty",
     "sweep vec_add/scalar --block 32 --max-shapes ''",
     {"--max-shapes", "empty"}},
    {"SweepLongList", "sweep vec_add/scalar --block-x " + long_text(',', 5000), {"5001 sides"}},
    {"SweepStartZero", "sweep vec_add/scalar --block 0:10:1", {"--block '0:10:1'", "start 0"}},
    {"SweepEndBeforeStart",
     "sweep vec_add/scalar --block 10:1:1",
     {"--block '10:1:1'", "before the start"}},
    {"SweepStepZero", "sweep vec_add/scalar --block 1:10:0", {"--block '1:10:0'", "step 0"}},
    {"SweepTwoParts", "sweep vec_add/scalar --block 1:10", {"--block '1:10'", "start:end:step"}},
    {"SweepFourParts", "sweep vec_add/scalar --block 1:2:3:4", {"--block '1:2:3:4'"}},
    {"SweepEmptyItems", "sweep vec_add/scalar --block ,,,", {"--block ',,,'", "missing"}},
    {"ModelBlockEmpty", "model vec_add/scalar --block ''", {"--block", "an empty value"}},
    {"ModelSizeEmpty", "model vec_add/scalar --size ''", {"--size", "an empty value"}},
    {"SweepSizeEmpty", "sweep vec_add/scalar --block 32 --size ''", {"--size", "an empty value"}},
    {"SweepEnergyWithModel",
     "sweep vec_add/scalar --block 32 --model --energy",
     {"--energy excludes --model"}},
    // A tune's options: each bad value named, contradictions refused rather than ignored.
    {"TuneStrategyUnknown",
     "tune vec_add/scalar --strategy 1e999",
     {"--strategy '1e999'", "allowed grid, random or model"}},
    {"TuneBudgetHuge", "tune vec_add/scalar --budget 1e999", {"--budget", "'1e999'"}},
    {"TuneBlockEmpty", "tune vec_add/scalar --model --block ''", {"--block", "an empty value"}},
    {"TuneBlockYAlone",
     "tune vec_add/scalar --model --block-y 2",
     {"--block-y requires --block-x"}},
    {"TuneStrategyWithModel",
     "tune vec_add/scalar --model --strategy random",
     {"--strategy excludes --model"}},
    {"TuneParamTwice",
     "tune coalescing/stride --model --param-range stride=1,2 --param stride=4",
     {"both set stride"}},
    {"TuneGridAllRefused",
     "tune coalescing/stride --model --block 2048",
     {"every point of the tune's grid was refused"}},
    {"TuneApplyBundled", "tune vec_add/scalar --apply", {"--apply", "bundled kernel"}},
    // A command's command: its unknown options and words named as its own (CLI11's "The
    // following argument was not expected" said nothing of which command or what it takes).
    {"LessonReportUnknownOption",
     "lesson report --cvs",
     {"unknown option '--cvs' for warplens lesson report; did you mean '--csv'?"}},
    {"LessonTryUnknownOption",
     "lesson try exercises --stpe 2",
     {"unknown option '--stpe' for warplens lesson try; did you mean '--step'?"}},
    {"LessonMisspeltCommand",
     "lesson chek",
     {"'chek' is not a command of warplens lesson; did you mean 'check'?"}},
    {"LessonNoCommand", "lesson", {"warplens lesson needs one of its commands: list, check"}},
    {"LessonTryStepTwice",
     "lesson try exercises --step 1 --step 2",
     {"--step is given twice ('1' and '2')"}},
    {"RecordALessonFile",
     "record --lessons mine.lesson --out /tmp/warplens-record-unknown.json",
     {"mine.lesson", "no such file"}},
    {"RecordOutEmpty", "record --out ''", {"--out", "an empty value"}},
    {"RecordOutMissing", "record vec_add/scalar", {"--out is required"}},
    {"RecordOutFolder", "record --out /tmp", {"--out '/tmp' is a folder"}},
    {"RecordKernelUnknown",
     "record nothere/x --out /tmp/warplens-record-unknown.json",
     {"'nothere/x' is no bundled kernel"}},
    {"RecordKernelFileMissing",
     "record /tmp/warplens-no-such-file.cu --out /tmp/warplens-record-unknown.json",
     {"/tmp/warplens-no-such-file.cu"}},
    {"RecordKernelFileFolder",
     "record /tmp/x.cu/ --out /tmp/warplens-record-unknown.json",
     {"/tmp/x.cu/"}},
    {"RecordArchUnknown",
     "record vec_add/scalar --arch h999 --out /tmp/warplens-record-unknown.json",
     {"--arch", "h999"}},
    {"GuiRecordingEmpty", "--headless --model --recording ''", {"--recording", "an empty value"}},
    {"GuiRecordingFolder", "--headless --model --recording /tmp", {"--recording", "/tmp"}},
    // The GUI's own options: an empty value is refused, not read as "the default".
    {"GuiBlockEmpty", "--headless --model --block ''", {"--block", "an empty value"}},
    {"GuiKernelTimeLimitNegative",
     "--headless --kernel-time-limit -5",
     {"--kernel-time-limit", "'-5'"}},
    {"GuiKernelTimeLimitWithModel",
     "--headless --model --kernel-time-limit 5",
     {"--kernel-time-limit excludes --model"}},
    {"GuiKernelEmpty", "--headless --model --kernel ''", {"--kernel", "an empty value"}},
    {"GuiSweepXEmpty", "--headless --model --sweep-x ''", {"--sweep-x", "an empty value"}},
    {"GuiSweepJsonAndX",
     "--headless --model --sweep-json /tmp/none.json --sweep-x 32,64",
     {"either --sweep-json", "not both"}},
    {"GuiSweepXLong",
     "--headless --model --sweep-x '" + long_text('[', 100000) + "'",
     {"too long: at most 255"}},
    {"GuiSweepYAlone", "--headless --model --sweep-y 1,2", {"--sweep-y '1,2' needs --sweep-x"}},
    {"GuiArchEmpty", "--headless --model --arch ''", {"--arch", "an empty value"}},
    {"GuiScreenshotEmpty",
     "--headless --model --screenshot ''",
     {"--screenshot", "an empty value"}},
    {"SweepSideOverInt", "sweep vec_add/scalar --block 99999999999", {"--block '99999999999'"}},
    {"SweepBothForms", "sweep vec_add/scalar --block 32 --block-x 32", {"either --block"}},
    {"SweepNoShapes", "sweep vec_add/scalar", {"--block start:end:step"}},
    {"SweepMaxTimeZero", "sweep vec_add/scalar --block 32 --max-time 0", {"--max-time", "'0'"}},
    {"ParamRangeUnknown",
     "sweep vec_add/scalar --param-range foo=1:2:1",
     {"vec_add/scalar has no parameter 'foo'", "parameters: n"}},
    {"ParamRangeNoEquals",
     "sweep coalescing/stride --param-range stride",
     {"--param-range 'stride'", "name=start:end:step", "n, width, stride"}},
    {"ParamRangeEmpty", "sweep coalescing/stride --param-range ''", {"--param-range ''"}},
    {"ParamRangeNoValues", "sweep coalescing/stride --param-range stride=", {"no values"}},
    {"ParamRangeReversed",
     "sweep coalescing/stride --param-range stride=32:1:1",
     {"'stride=32:1:1'", "end is before the start"}},
    {"ParamRangeStepZero", "sweep coalescing/stride --param-range stride=1:32:0", {"step 0"}},
    {"ParamRangeBelowMin",
     "sweep coalescing/stride --param-range stride=0:32:1",
     {"start 0 is below 1", "from 1 to 64"}},
    {"ParamRangeAboveMax", "sweep coalescing/stride --param-range stride=1:65:1", {"end 65"}},
    {"ParamRangeNotAChoice",
     "sweep coalescing/stride --param-range width=4:16:4",
     {"width=12 is not allowed", "4, 8, 16"}},
    {"ParamRangeFraction", "sweep coalescing/stride --param-range stride=1.5", {"'1.5'"}},
    {"ParamRangeInfinity", "sweep coalescing/stride --param-range stride=1e999", {"'1e999'"}},
    {"ParamRangeTwice",
     "sweep coalescing/stride --param-range stride=1,2 --param-range stride=4",
     {"stride is swept twice"}},
    {"ParamRangeAndParam",
     "sweep coalescing/stride --param stride=2 --param-range stride=1:4:1",
     {"both set stride"}},
    {"ParamRangeHuge",
     "sweep coalescing/stride --param-range n=1:268435456:1",
     {"268435456 values", "--max-shapes"}},
    {"AgainstUnknown",
     "sweep transpose/smem --block-x 32 --against no/such",
     {"--against 'no/such' is not another variant of transpose",
      "allowed transpose/naive, transpose/smem_padded"}},
    {"AgainstOtherFamily",
     "sweep transpose/smem --block-x 32 --against softmax/naive",
     {"--against 'softmax/naive' is not another variant of transpose"}},
    {"AgainstFamilyName",
     "sweep transpose/smem --block-x 32 --against transpose",
     {"--against 'transpose' is not another variant of transpose"}},
    {"SweepCsvIntoAFolder",
     "sweep vec_add/scalar --block 32 --csv /tmp",
     {"--csv '/tmp' is a folder"}},
    {"SweepJsonInAMissingFolder",
     "sweep vec_add/scalar --block 32 --json /no/such/folder/x.json",
     {"--json '/no/such/folder/x.json'", "the folder '/no/such/folder' does not exist"}},
    {"GuiSweepJsonOfAnotherKernel",
     "--headless --model --kernel vec_add/scalar --sweep-json " +
         std::string(WARPLENS_SOURCE_ASSETS) +
         "/recordings/sweep-transpose-smem-vs-padded-h100.json",
     {"--kernel vec_add/scalar is not the kernel of --sweep-json", "(transpose/smem)"}},
    {"AgainstEmpty",
     "sweep transpose/smem --block-x 32 --against ''",
     {"--against", "an empty value"}},
    {"AgainstLacksTheSweptParameter",
     "sweep coalescing/stride --param-range stride=1:4:1 --against coalescing/offset",
     {"coalescing/offset has no parameter 'stride'", "n, width, offset"}},
    {"AgainstLacksAGivenParameter",
     "sweep coalescing/stride --block 256 --param stride=4 --against coalescing/offset",
     {"coalescing/offset has no parameter 'stride'"}},
    {"PerDeviceWithoutWorkers",
     "sweep vec_add/scalar --block 32 --per-device",
     {"--per-device needs workers"}},
    {"PerDeviceAndAgainst",
     "sweep transpose/smem --block-x 32 --per-device --workers 1 --against transpose/smem_padded",
     {"give --against or --per-device, not both"}},
    {"WorkerEmpty", "sweep vec_add/scalar --block 32 --worker ''", {"--worker: an empty command"}},
    {"WorkerBlank",
     "sweep vec_add/scalar --block 32 --worker '   '",
     {"--worker: an empty command"}},
    {"WorkersZero", "sweep vec_add/scalar --block 32 --workers 0", {"--workers", "'0'", "1 to 64"}},
    {"WorkersTooMany", "sweep vec_add/scalar --block 32 --workers 65", {"--workers", "'65'"}},
    {"WorkersText", "sweep vec_add/scalar --block 32 --workers two", {"--workers", "'two'"}},
    {"WorkersInfinity",
     "sweep vec_add/scalar --block 32 --workers 1e999",
     {"--workers", "'1e999'"}},
    {"ParamRangeTimesShapesOverCap",
     "sweep coalescing/stride --block 8:1024:8 --param-range stride=1:64:1",
     {"8192 points", "at most 4096"}},
    // --size and a --param of a size parameter both set it: neither wins without a word.
    {"ModelSizeAndParamBothSetN",
     "model vec_add/scalar --size 4096 --param n=8192",
     {"--size '4096' and --param n=8192 both set n", "give it once"}},
    {"SweepSizeAndParamBothSetN",
     "sweep vec_add/scalar --block 32 --size 4096 --param n=8192",
     {"--size '4096' and --param n=8192 both set n"}},
    // --model starts no worker: a worker command with it would be ignored.
    {"GuiWorkerWithModel",
     "--headless --model --worker 'ssh gpuhost warplens worker'",
     {"--worker", "--model", "not both"}},
    // Unknown options are named as such, with the known one a letter or two away.
    {"MisspeltOption",
     "run vec_add/scalar --blocks 256",
     {"unknown option '--blocks'", "; did you mean '--block'?"}},
    {"MisspeltOptionWithValue",
     "model vec_add/scalar --blocks=256",
     {"unknown option '--blocks' for warplens model", "; did you mean '--block'?"}},
    {"MisspeltGuiOption",
     "--headles",
     {"unknown option '--headles'", "; did you mean '--headless'?"}},
    {"UnknownOptionNearNone",
     "occupancy --block 256 --frobnicate",
     {"unknown option '--frobnicate'", "warplens occupancy --help"}},
    {"MisspeltCommand",
     "swep vec_add/scalar",
     {"'swep' is not a command", "; did you mean 'sweep'? (commands:"}},
    // A sweep's files are checked before any point is measured, not after.
    {"SweepCsvDevFull",
     "sweep vec_add/scalar --block 32 --csv /dev/full",
     {"--csv '/dev/full' is not a regular file"}},
    {"SweepJsonInAFolderThatTakesNoFile",
     "sweep vec_add/scalar --block 32 --json /sys/warplens.json",
     {"--json '/sys/warplens.json'", "cannot create a file in '/sys' ("}},
    {"SweepCsvNameTooLong",
     "sweep vec_add/scalar --block 32 --csv " + long_text('n', 300) + ".csv",
     {"--csv 'nnn", "the name is 304 bytes long", "at most 255"}},
    {"SweepJsonNamesAFolder",
     "sweep vec_add/scalar --block 32 --json out/",
     {"--json 'out/' names a folder"}},
    // Found by a hostile round: each was accepted without a word, or refused in CLI11's words.
    {"OptionGivenTwice",
     "occupancy --block 256 --regs 32 --regs 64",
     {"--regs is given twice ('32' and '64'); give it once"}},
    {"UnknownOptionBesideAMissingOne",
     "occupancy --blocks 256",
     {"unknown option '--blocks' for warplens occupancy", "did you mean '--block'"}},
    {"UnknownSingleDashOption", "occupancy -block 256", {"unknown option '-block'"}},
    {"BlockForALibraryKernel",
     "model matmul/cublas --block 256",
     {"matmul/cublas takes no block (256 was given)", "leave the block out"}},
    {"GuiOptionWithACommand", "--model list", {"--model is an option of the GUI", "not of list"}},
    {"RunMetricsEmpty", "run vec_add/scalar --metrics ''", {"--metrics", "an empty value"}},
    {"SweepMetricsEmpty",
     "sweep vec_add/scalar --block 32 --metrics ''",
     {"--metrics", "an empty value"}},
    {"SweepMetricsUnknownBeforeAnyWorker",
     "sweep vec_add/scalar --block 32 --metrics bogus --worker false",
     {"bogus"}},
    {"SweepCsvEmpty", "sweep vec_add/scalar --block 32 --csv ''", {"--csv", "an empty value"}},
    {"SweepJsonEmpty", "sweep vec_add/scalar --block 32 --json ''", {"--json", "an empty value"}},
    {"SweepSizeAndASweptSize",
     "sweep vec_add/scalar --block 32 --param-range n=1024,2048 --size 4096",
     {"--size 4096 and --param-range n=1024,2048 both set n; give it once"}},
    {"SweepJsonOverTheFileBound",
     "sweep vec_add/scalar --model --max-shapes 100000 --block 32,64 "
     "--param-range n=1:40000:1 --json big.json",
     {"--json: the sweep has 80000 points", "at most 65536"}},
    {"GuiScreenshotWithAScript",
     "--headless --model --script /dev/null --screenshot g.png",
     {"--screenshot 'g.png' is not used with --script"}},
    {"GuiPanelWithAScript",
     "--headless --model --script /dev/null --panel global",
     {"--panel 'global' is not used with --script"}},
    {"GuiBaselineWithAScript",
     "--headless --model --script /dev/null --baseline vec_add/scalar",
     {"--baseline 'vec_add/scalar' is not used with --script"}},
};

class HostileCli : public testing::TestWithParam<CliCase> {};

TEST_P(HostileCli, RefusedInOneLine) {
  if (test::measures(GetParam().input))
    WL_SKIP_WITHOUT_ENGINE();
  // A build without the toolkit reads no GPU, whatever the device's number.
  if (!test::kBuildHasEngine && GetParam().input.find("--arch device") != std::string::npos)
    return expect_refusal(run_limited(GetParam().input), 2, {"built without the CUDA toolkit"});
  expect_refusal(run_limited(GetParam().input), 2, GetParam().fragments);
}

INSTANTIATE_TEST_SUITE_P(Occupancy, HostileCli, testing::ValuesIn(kOccupancy),
                         test::case_name<CliCase>);
INSTANTIATE_TEST_SUITE_P(Kernels, HostileCli, testing::ValuesIn(kKernels),
                         test::case_name<CliCase>);

// The defect: `--headless --model --arch device` refused 'device' with a list that offered it.
// The GUI's models take a preset; `device` (this machine's GPU) is said to be no choice there, and
// only the commands that read the GPU offer it.
TEST(HostileCli, DeviceIsOfferedOnlyWhereTheGpuIsRead) {
  for (const char* arch : {"device", "device:1"}) {
    const test::Outcome model = run_limited(std::string("--headless --model --arch ") + arch);
    expect_refusal(model, 2,
                   {std::string("--arch ") + arch +
                        ": model mode uses no GPU, and device names this machine's GPU",
                    "choose a preset (a100, "});
    EXPECT_EQ(model.err.find("'device'"), std::string::npos) << model.err;
  }
  const test::Outcome gui = run_limited("--headless --model --arch nope");
  expect_refusal(gui, 2, {"unknown arch 'nope'; choose one of a100, "});
  EXPECT_EQ(gui.err.find("device"), std::string::npos) << gui.err;
  if (test::kBuildHasEngine)
    expect_refusal(
        run_limited("occupancy --block 256 --arch nope"), 2,
        {"unknown arch 'nope'; choose one of a100, ", "device[:N] for this machine's GPU"});
  else // no GPU is read, so none is offered
    expect_refusal(run_limited("occupancy --block 256 --arch nope"), 2,
                   {"unknown arch 'nope'; choose one of a100, "});
}

// Workers that cannot start: each is named with why, and the sweep stops with exit 2 saying how
// many points were measured (none), never hanging or pretending.
TEST(HostileCli, ASweepWhoseWorkersCannotStartSaysWhyForEach) {
  const test::Outcome o =
      run_limited("sweep vec_add/scalar --block 32,64 --worker false --worker 'echo garbage'");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_LT(o.seconds, test::kHangGuardSeconds);
  // Whether the worker's exit or its closed input is noticed first depends on timing; either way
  // the line names the worker and how it ended.
  EXPECT_NE(o.err.find("worker 1 (false) stopped: "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("exited with code 1 before saying hello"), std::string::npos) << o.err;
  // Its line, its exit or its closed input: whichever is noticed first is named, and how it ended.
  const std::size_t second = o.err.find("worker 2 (echo garbage) stopped: the worker ");
  ASSERT_NE(second, std::string::npos) << o.err;
  EXPECT_NE(o.err.find("before saying hello", second), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("every worker stopped with 0 of 2 points measured"), std::string::npos)
      << o.err;
}

// The defect: `--worker 'echo hi; exit 3'` was, now and then, "the worker stopped reading its
// input; the worker exited with code 3 before saying hello", 'hi' unnamed: the request found the
// worker gone before its line was read. Whichever comes first, the line is named.
TEST(HostileCli, AWorkerWhoseFirstLineIsNoHelloIsNamedWithThatLine) {
  for (int run = 0; run < 8; ++run) {
    const test::Outcome o =
        run_limited("sweep vec_add/scalar --block 32 --worker 'echo hi; exit 3'");
    EXPECT_EQ(o.exit_code, 2) << o.err;
    // Killed for its line, or found exited by the request: either way the line is named.
    EXPECT_NE(o.err.find("before saying hello"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("'hi'"), std::string::npos) << o.err;
  }
}

// A per-device sweep asks each worker its GPU first; a worker that sees none is named with why.
TEST(HostileCli, APerDeviceSweepWhoseWorkersSeeNoGpuSaysWhyForEach) {
  WL_SKIP_WITHOUT_ENGINE();
  const std::string no_gpu =
      "--worker 'CUDA_VISIBLE_DEVICES= exec " + std::string(WARPLENS_BINARY) + " worker' ";
  const test::Outcome o =
      run_limited("sweep vec_add/scalar --block 32,64 --per-device " + no_gpu + no_gpu);
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("worker 1 ("), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("stopped: its GPU could not be identified: "), std::string::npos) << o.err;
  // Both saw no GPU: the last line says the reason once.
  EXPECT_NE(o.err.find("every worker stopped with 0 of 2 points measured, each because its GPU "
                       "could not be identified"),
            std::string::npos)
      << o.err;
}

// ---- Where the output goes: every failure to write is said, with the system's reason. ----

// The defect: `warplens sweep --csv FILE` replaced a file that was there, only to say nothing.
// Refused before any point is measured; --force lets the sweep replace it (after measuring).
TEST(HostileCliOutputs, AnExistingFileIsRefusedBeforeTheSweepUnlessForced) {
  const std::string file = test::write_file("existing.csv", "the user's numbers\n");
  const test::Outcome refused = run_limited("sweep vec_add/scalar --block 32 --csv " + file);
  expect_refusal(refused, 2, {"--csv '" + file + "' exists", "add --force to replace it"});
  EXPECT_EQ(test::read_text(file), "the user's numbers\n");
  const test::Outcome forced = run_limited("sweep vec_add/scalar --block 32 --force --csv " + file);
  EXPECT_EQ(forced.err.find("exists"), std::string::npos) << forced.err;
  if (forced.exit_code == 0) // a GPU measured it: the file now holds the sweep
    EXPECT_NE(test::read_text(file).find("block"), std::string::npos);
  else // no GPU here: refused after the check, and the file is as it was
    EXPECT_EQ(test::read_text(file), "the user's numbers\n") << forced.err;
}

// The defect: `record mine.cu --out ./mine.cu --force` passed its checks (on a GPU it would have
// replaced the kernel file with its recording).
TEST(HostileCliOutputs, ARecordingNeverReplacesTheKernelFileItRecords) {
  const std::string text =
      test::read_text(std::string(WARPLENS_SOURCE_ASSETS) + "/../examples/saxpy.cu");
  const std::string file = test::write_file("mine.cu", text);
  const test::Outcome o = run_limited("record mine.cu --force --out ./mine.cu");
  expect_refusal(o, 2, {"--out ./mine.cu is the kernel file mine.cu being recorded"});
  EXPECT_EQ(test::read_text(file), text);
}

// The defect: the CSV was written through a link, into whatever file it pointed at.
TEST(HostileCliOutputs, ALinkIsRefusedEvenWithForce) {
  const std::string victim = test::write_file("victim.txt", "not a sweep\n");
  const auto link = test::scratch() / "link.csv";
  std::filesystem::remove(link);
  std::filesystem::create_symlink(victim, link);
  for (const char* force : {"", "--force "}) {
    const test::Outcome o =
        run_limited("sweep vec_add/scalar --block 32 " + std::string(force) + "--csv link.csv");
    expect_refusal(o, 2, {"--csv 'link.csv' is a symbolic link", "victim.txt"});
  }
  EXPECT_EQ(test::read_text(victim), "not a sweep\n");
}

// The defect: two names of one file (a hard link) passed as two outputs; the JSON then replaced
// the CSV.
TEST(HostileCliOutputs, TwoNamesOfOneFileAreOneOutput) {
  const std::string csv = test::write_file("both.csv", "");
  const auto json = test::scratch() / "both.json";
  std::filesystem::remove(json);
  std::filesystem::create_hard_link(csv, json);
  const test::Outcome o = run_limited("sweep vec_add/scalar --block 32 --force --csv both.csv "
                                      "--json both.json");
  expect_refusal(o, 2, {"--csv and --json name one file", "give each its own file"});
}

// The defect: "./x.csv" and "x.csv", one file not yet made, passed as two outputs.
TEST(HostileCliOutputs, TwoSpellingsOfOneNewFileAreOneOutput) {
  std::filesystem::remove(test::scratch() / "spelt.csv");
  const test::Outcome o =
      run_limited("sweep vec_add/scalar --block 32 --model --csv ./spelt.csv --json spelt.csv");
  expect_refusal(o, 2, {"--csv and --json name one file"});
}

// The defect: a --max-shapes above the default was ignored where the points went to workers:
// "at most 4096" refused 5,000 points the user had allowed.
TEST(HostileCliBounds, MaxShapesIsHonouredWithWorkers) {
  const test::Outcome o = run_limited("sweep vec_add/scalar --block 32 --max-shapes 8192 "
                                      "--param-range n=1:5000:1 --worker false");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_EQ(o.err.find("4096"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("worker 1 (false) stopped"), std::string::npos) << o.err;
}

// The defect: under a soft file-size limit the results could be kept nowhere, the copy in
// $TMPDIR stopped by the same limit. The copy is held to the hard limit alone.
TEST(HostileCliOutputs, ResultsStoppedByASoftFileSizeLimitAreKeptAside) {
  const auto kept_dir = test::scratch() / "kept";
  std::filesystem::remove_all(kept_dir);
  std::filesystem::create_directories(kept_dir);
  std::filesystem::remove(test::scratch() / "limited.json");
  const test::Outcome o =
      run_limited("sweep vec_add/scalar --block 32:1024:32 --model --json limited.json",
                  "ulimit -S -f 1 && TMPDIR=" + kept_dir.string());
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("File too large"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("kept in '" + kept_dir.string()), std::string::npos) << o.err;
  std::size_t kept_bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kept_dir))
    kept_bytes += std::filesystem::file_size(entry.path());
  EXPECT_GT(kept_bytes, 1024u) << "the whole sweep, past the soft limit of one block";
}

// The defect: with no pictures folder to save in (a home where none can be made), the picture
// was lost; it is kept in $TMPDIR and the line says where.
TEST(HostileCliOutputs, APictureWithNoFolderToGoToIsKeptAside) {
  const auto kept_dir = test::scratch() / "kept_picture";
  std::filesystem::remove_all(kept_dir);
  std::filesystem::create_directories(kept_dir);
  const test::Outcome o = run_limited(
      "--headless --model --kernel vec_add/scalar",
      "env -u XDG_PICTURES_DIR HOME=/proc/self XDG_CONFIG_HOME=" + test::missing_path("config") +
          " TMPDIR=" + kept_dir.string());
  expect_refusal(o, 2, {"the picture kept in '" + kept_dir.string(), "its figures beside it"});
}

// The defect: with TMPDIR a file as well, the line read "the picture no copy could be kept: no
// temporary folder (Not a directory)", twice, and did not name TMPDIR, the thing to mend.
TEST(HostileCliOutputs, APictureThatCannotBeKeptAsideNamesTheTmpdir) {
  const auto not_a_folder = test::scratch() / "tmpdir_file";
  test::write_file(not_a_folder, "x");
  const test::Outcome o = run_limited(
      "--headless --model --kernel vec_add/scalar",
      "env -u XDG_PICTURES_DIR HOME=/proc/self XDG_CONFIG_HOME=" + test::missing_path("config") +
          " TMPDIR=" + not_a_folder.string());
  expect_refusal(o, 2,
                 {"the picture and its figures not kept aside: TMPDIR='" + not_a_folder.string() +
                  "' (Not a directory)"});
}

// The defect: `warplens list > /dev/full` and `warplens list >&-` exited 0 with nothing written.
TEST(HostileCliOutputs, AStandardOutputThatCannotBeWrittenIsAFailure) {
  for (const auto& [output, reason] : std::vector<std::pair<std::string, std::string>>{
           {">/dev/full", "No space left on device"}, {">&-", "Bad file descriptor"}}) {
    for (const char* command : {"list", "occupancy --block 256 --json"}) {
      const test::Outcome o = run_limited(command, "", "/dev/null", output);
      expect_refusal(o, 2, {"cannot write to standard output: " + reason});
    }
  }
}

// The defect: `warplens doctor > /dev/full` exited 1 (its "a line needs a fix") with nothing said:
// its exit code left the process before the output was checked. Its report is flushed early, so
// the reason of the failed write was gone by the end ("a write to it failed", exit 1 as if a line
// needed a fix): the system is asked again, and a lost report is exit 2 as any lost output.
TEST(HostileCliOutputs, TheDoctorsReportThatCannotBeWrittenIsSaid) {
  const test::Outcome o =
      run_limited("doctor", "ASAN_OPTIONS=detect_leaks=0", "/dev/null", ">/dev/full");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("cannot write to standard output: No space left on device"),
            std::string::npos)
      << o.err;
}

// The defect: a kernel file whose name is not UTF-8 (a byte 0xFF, as a disk may hold) made
// `model --json` fail with a JSON library's exception text; the name is written with U+FFFD.
TEST(HostileCliOutputs, AFileNameThatIsNotUtf8IsWrittenInTheJson) {
  WL_SKIP_WITHOUT_ENGINE(); // NVRTC compiles the file
  std::ifstream example(std::filesystem::path(WARPLENS_SOURCE_ASSETS).parent_path() / "examples" /
                        "saxpy.cu");
  test::write_file("bad\xff.cu", std::string(std::istreambuf_iterator<char>(example), {}));
  const test::Outcome o = run_limited("model 'bad\xff.cu' --json");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  // The byte that starts no UTF-8 character is shown as '?', as a control character is.
  EXPECT_EQ(j["kernel"], "bad?/saxpy");
}

// The defect: under a file-size limit SIGXFSZ ended the process with nothing said.
TEST(HostileCliOutputs, AFileSizeLimitIsReportedNotASignal) {
  const test::Outcome o = run_limited("list --json", "ulimit -f 1 &&");
  expect_refusal(o, 2, {"cannot write to standard output: File too large"});
}

// The defect: an unreadable script was refused without the reason.
TEST(HostileCliOutputs, AnUnreadableScriptIsRefusedWithTheReason) {
  const std::string script = test::write_file("unreadable.txt", "wait\n");
  std::filesystem::permissions(script, std::filesystem::perms::none);
  const test::Outcome o = run_limited("--headless --model --script " + script,
                                      "env -u DISPLAY " + test::as_unprivileged());
  expect_refusal(o, 2, {script, "cannot read the script: Permission denied"});
}

// A range whose last step would pass INT_MAX ends, and at the side it should.
TEST(HostileCliBounds, ARangeNearIntMaxEndsWithoutOverflow) {
  const test::Outcome o = run_limited("sweep vec_add/scalar --block 2147483600:2147483647:100");
  EXPECT_LT(o.seconds, test::kHangGuardSeconds);
  EXPECT_TRUE(o.exit_code == 0 || o.exit_code == 2)
      << o.exit_code << " " << o.err; // 2: no GPU here
}

TEST(HostileCliBounds, SideListsAreCountedWithoutOverflowAndCappedBeforeAnyShapeIsMade) {
  EXPECT_EQ(parse_side_list("2147483600:2147483647:100", "--block"), std::vector<int>{2147483600});
  EXPECT_EQ(parse_side_list("2147483646:2147483647:1", "--block"),
            (std::vector<int>{2147483646, 2147483647}));
  EXPECT_EQ(parse_side_list("1:4096:1", "--block").size(), 4096u);
  test::expect_usage_error([] { parse_side_list("1:4097:1", "--block"); },
                           {"4097 sides", "--max-shapes"});
  const std::vector<int> sides(1000, 32);
  test::expect_usage_error([&] { sweep_shapes(sides, sides, sides); },
                           {"1000000000 shapes", "1000 x 1000 x 1000"});
  EXPECT_EQ(sweep_shapes(sides, {1, 2}, {1}, 2000).size(), 2000u);
}

} // namespace
} // namespace wl
