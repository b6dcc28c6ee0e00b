#include "cli.h"

#include "base/child_process.h"
#include "base/error.h"
#include "base/json_input.h"
#include "base/text_format.h"
#include "cli_commands.h"
#include "front_end/viz_main.h"
#include "kernel_file/compile_server.h"
#include "kernel_file/file_kernel.h"

#include <iostream>

namespace wl {

namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitWrongOutput = 1;

// One line on stderr whatever the message holds: control characters replaced, length capped.
int report(const char* what, int code) {
  std::cerr << "warplens: " << clip(what, 1000) << "\n";
  return code;
}

// The options a command takes, as written on the command line: "--block", "-h".
std::vector<std::string> option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames())
      names.push_back("--" + name);
    for (const std::string& name : option->get_snames())
      names.push_back("-" + name);
  }
  return names;
}

// The GUI's file argument when what it holds is not a kernel file's name: a command misspelt
// ("swep"), which the argument took. "" otherwise.
std::string misread_command(const CLI::App& app) {
  const CLI::Option* file = app.get_option_no_throw("file");
  if (!file || file->count() == 0)
    return "";
  const std::string word = file->as<std::string>();
  return names_a_kernel_file(word) ? "" : word;
}

// What CLI11 calls "The following argument was not expected", said as a person needs it: which
// word, whether it is an unknown option, the known one it may be a misspelling of, and what the
// command has instead.
// The command given, however deep (`lesson report`), and its words after "warplens": the words
// and options that follow are its own.
struct GivenCommand {
  const CLI::App* command;
  std::string path; // "" for warplens itself
};

GivenCommand deepest_command(const CLI::App& app) {
  GivenCommand given{&app, ""};
  while (!given.command->get_subcommands().empty()) {
    given.command = given.command->get_subcommands().front();
    given.path += (given.path.empty() ? "" : " ") + given.command->get_name();
  }
  return given;
}

std::string unexpected_words(const CLI::App& app, const std::string& otherwise) {
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  const auto [deepest, path] = deepest_command(app);
  const CLI::App& where = *deepest;
  std::vector<std::string> extras = where.remaining();
  if (extras.empty() && !chosen.empty() && where.get_require_subcommand_min() > 0) {
    std::string commands;
    for (const CLI::App* command : where.get_subcommands({}))
      commands += (commands.empty() ? "" : ", ") + command->get_name();
    return "warplens " + path + " needs one of its commands: " + commands + " (warplens " + path +
           " --help)";
  }
  if (const std::string word = misread_command(app); chosen.empty() && !word.empty())
    extras.insert(extras.begin(), word); // "warplens swep ...": a misspelt command, not a file
  if (extras.empty())
    return otherwise;
  const std::string& first = extras.front();
  const std::string word = "'" + clip(first, 40) + "'";
  if (chosen.empty() && !first.starts_with("-")) {
    std::string commands;
    std::vector<std::string> names;
    for (const CLI::App* command : app.get_subcommands({})) {
      commands += (commands.empty() ? "" : ", ") + command->get_name();
      names.push_back(command->get_name());
    }
    return word + " is not a command" + did_you_mean(first, names) + " (commands: " + commands +
           "; with none the GUI opens: warplens --help)";
  }
  const std::string name = chosen.empty() ? "warplens" : "warplens " + path;
  const std::string help =
      name + " --help lists what " + (chosen.empty() ? "it" : where.get_name()) + " takes";
  if (first.starts_with("-")) {
    const std::string option = first.substr(0, first.find('=')); // "--blocks=256"
    return "unknown option '" + clip(option, 40) + "' for " + name +
           did_you_mean(option, option_names(where)) + " (" + help + ")";
  }
  if (!where.get_subcommands({}).empty()) { // `lesson chek`: a misspelt command of a command
    std::vector<std::string> names;
    for (const CLI::App* command : where.get_subcommands({}))
      names.push_back(command->get_name());
    return word + " is not a command of " + name + did_you_mean(first, names) +
           " (its commands: " + joined(names, ", ") + ")";
  }
  return word + " is not expected here; " + help;
}

// A flag takes no value, so `--json=banana` must not pass for false or true: every flag of every
// command refuses one (CLI11 would convert "0", "no" and "false" to false without a word).
void flags_take_no_value(CLI::App& app) {
  for (CLI::Option* option : app.get_options())
    if (option->get_expected_max() == 0)
      option->disable_flag_override();
  for (CLI::App* command : app.get_subcommands({}))
    flags_take_no_value(*command);
}

// CLI11's "per-site was given a disallowed flag override" said with the flag as written, and its
// "--json: 1 required TEXT missing" (an option given last, with nothing after it) in words.
std::string flag_given_a_value(const CLI::ArgumentMismatch& error) {
  const std::string what = error.what();
  if (what.ends_with(" missing") && what.find(" required ") != std::string::npos &&
      what.find(':') != std::string::npos) {
    const std::string option = what.substr(0, what.find(':'));
    return clip(option, 40) + " needs a value after it (--help lists what each option takes)";
  }
  const std::string tail = " was given a disallowed flag override";
  if (!what.ends_with(tail))
    return what;
  const std::string name = what.substr(0, what.size() - tail.size());
  return "--" + clip(name, 40) + " is a flag and takes no value; write --" + clip(name, 40) +
         " alone, or leave it out";
}

// CLI11's "--regs: At Most 1 required but received 2" with the values: an option given twice.
std::string given_twice(const CLI::App& app, const CLI::ArgumentMismatch& error) {
  const std::string what = error.what();
  if (what.find("At Most 1 required but received") == std::string::npos ||
      what.find(':') == std::string::npos)
    return "";
  const std::string name = what.substr(0, what.find(':'));
  const CLI::Option* option = deepest_command(app).command->get_option_no_throw(name);
  std::string values;
  for (const std::string& value : option ? option->results() : std::vector<std::string>{})
    values += std::string(values.empty() ? "" : " and ") + "'" + clip(value, 20) + "'";
  return clip(name, 40) + " is given twice" + (values.empty() ? "" : " (" + values + ")") +
         "; give it once";
}

// `warplens --model list`: the GUI's options mean nothing to a command, so one given with a
// command is refused rather than ignored, before the command runs.
void refuse_gui_options_given(const CLI::App& app) {
  if (app.get_subcommands().empty())
    return;
  for (const CLI::Option* option : app.get_options())
    if (option->count() > 0 && option->get_name() != "--help")
      throw UsageError(option->get_name() +
                       " is an option of the GUI (warplens with no command), "
                       "not of " +
                       app.get_subcommands().front()->get_name() + "; leave it out");
}

} // namespace

int run_cli(int argc, char** argv) {
  // Kernel files are compiled by a child of this program (started at the first compile).
  use_compile_server(running_executable());
  CLI::App app{"WarpLens: see what a GPU does with a kernel launch; with no command, the GUI "
               "(manual: docs/gui.md)"};
  // Set before the commands are added, so that each takes it too.
  app.footer("The manual: README.md and its chapters in docs/, in WarpLens's source and, where it "
             "is installed, in share/doc/warplens/ (/usr/share/doc/warplens/ from the package)");
  app.require_subcommand(0, 1);
  add_arch_commands(app);
  add_kernel_commands(app);
  add_worker_command(app);
  add_doctor_command(app);
  add_lesson_command(app);
  add_tune_command(app);
  add_record_command(app);
  app.set_version_flag("--version", version_text,
                       "Print WarpLens's version and the CUDA "
                       "runtime's, driver's, CUPTI's and NVRTC's");
  viz::GuiOptions gui;
  add_gui_options(app, gui);
  flags_take_no_value(app);
  app.parse_complete_callback([&app] { refuse_gui_options_given(app); });
  try {
    app.parse(argc, argv);
    if (app.get_subcommands().empty() && !misread_command(app).empty())
      return report(unexpected_words(app, "").c_str(), kExitBadInput);
    if (app.get_subcommands().empty())
      return viz::run_gui_command(gui); // the GUI, or its screenshot
    return 0;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    return report(unexpected_words(app, e.what()).c_str(), kExitBadInput);
  } catch (const CLI::RequiredError& e) {
    // "--block is required" where "--blocks" was written: the unknown word is the news.
    return report(unexpected_words(app, e.what()).c_str(), kExitBadInput);
  } catch (const CLI::ExcludesError& e) {
    return report((std::string(e.what()) + ": give one of them, not both").c_str(), kExitBadInput);
  } catch (const CLI::ArgumentMismatch& e) {
    const std::string twice = given_twice(app, e);
    return report((twice.empty() ? flag_given_a_value(e) : twice).c_str(), kExitBadInput);
  } catch (const CLI::RuntimeError& e) { // a command's own exit code, its output already written
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    return report(e.what(), kExitBadInput);
  } catch (const VerificationFailure& e) {
    return report(e.what(), kExitWrongOutput);
  } catch (const Error& e) {
    return report(e.what(), kExitBadInput);
  } catch (const std::bad_alloc&) {
    return report("out of memory; the input asks for more than this machine has", kExitBadInput);
  } catch (const std::exception& e) { // a last resort: every expected failure is a UsageError
    return report(("unexpected failure: " + clip(e.what(), 200)).c_str(), kExitBadInput);
  } catch (...) {
    return report("unexpected failure of an unknown kind", kExitBadInput);
  }
}

} // namespace wl
