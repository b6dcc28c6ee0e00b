#pragma once
// The Tune panel's state: a tune of the kernel on screen over its default grid (tune/tune_space.h),
// run one point at a time through the result source (each point a sweep of one launch, measured
// on the worker's GPU), the search choosing the next as each answer lands. In model mode nothing
// is measured: the panel shows the model's ranking of the same space, what the model strategy
// would measure first.

#include "tune/tune_run.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wl::viz {

// One tune, its space and search kept together (the search points into the space).
struct TuneState {
  TuneState(TuneSpace s, TuneStrategy strategy, std::uint64_t seed)
      : space(std::move(s)), strategy(strategy),
        search(space, strategy, TuneObjective::time, seed) {}
  // The search points into `space`: a copy or a move would leave it pointing at the old one.
  TuneState(const TuneState&) = delete;
  TuneState& operator=(const TuneState&) = delete;
  TuneSpace space;
  TuneStrategy strategy;
  TuneSearch search;
  TuneOutcome outcome;
  std::size_t budget = 0;              // evaluations; 0: every allowed point
  std::optional<std::size_t> awaiting; // the point sent to the source, not answered yet
  std::vector<double> best_after;      // the best cost after each evaluation (the plot)
  bool measured = false;               // false: model mode's ranking, nothing sent
  bool stop_asked = false;             // Stop tune: no point after the one being measured
  std::vector<std::size_t> ranking;    // the model's order of the allowed points
  std::string kernel_id;
};

struct TuneWorkflow {
  int strategy = 2; // grid, random, model (tune_search.h's order)
  // Points to measure at most, as typed (read when a tune starts, a bad value refused by name);
  // 0: a quarter of the allowed points (all for grid).
  std::array<char, 24> budget{"0"};
  int seed = 1;
  std::shared_ptr<TuneState> state; // shared: copies of an App see one tune
  std::string problem;              // why the last tune could not start or go on
};

} // namespace wl::viz
