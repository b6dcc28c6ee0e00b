#pragma once
// Every header of wl_engine (the code that calls the CUDA runtime and CUPTI) includes this one.
// wl_engine defines WARPLENS_LINKS_ENGINE for itself and for whatever links it, so a source of
// wl_core or wl_viz, which must run where there is no GPU, fails to compile when it includes an
// engine header, rather than failing later at link time or not at all.
// (tests/layers checks that it does.)

#ifndef WARPLENS_LINKS_ENGINE
#error                                                                                             \
    "this header is wl_engine's (it calls CUDA): a wl_core or wl_viz source cannot include it; link wl_engine, or use the wl_core header of the same idea (docs/architecture.md, Rooms)"
#endif
