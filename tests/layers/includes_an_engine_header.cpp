// A source that includes a wl_engine header. Built in two targets by tests/CMakeLists.txt: one
// that links wl_engine, which must compile, and one that links wl_core alone, as every wl_core
// and wl_viz source does, which must not (tool/engine/library.h stops it).

#include "engine/engine.h"

int main() { return 0; }
