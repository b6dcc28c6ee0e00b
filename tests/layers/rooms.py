#!/usr/bin/env python3
"""The rooms in order: a source of tool/ or viz/ includes its own room and the rooms below it,
never one above (docs/architecture.md, Rooms). Every include of a room's header is written with
the room ("model/occupancy.h", "drawing/widgets.h"), so the order is read from the include lines.

  rooms.py SOURCE_DIR              lists each include that reaches up, and fails if there is one
  rooms.py SOURCE_DIR --self-test  adds one such include to a copy of the sources' text in memory
                                   and fails unless the check then names exactly that include
"""
import pathlib
import re
import sys

# Lowest first. wl_core's rooms, then wl_engine's, then the GUI's; app/ (the CLI) and the tests
# stand above every room. engine/counters/ is a part of engine/.
ROOMS = [
    ("tool", "base"), ("tool", "model"), ("tool", "report"), ("tool", "io"),
    ("tool", "kernel_file"), ("tool", "lesson"), ("tool", "protocol"), ("tool", "sweep"),
    ("tool", "tune"),
    ("tool", "engine"),
    ("viz", "workflows"), ("viz", "drawing"), ("viz", "panels"), ("viz", "front_end"),
]
RANK = {room: rank for rank, (_, room) in enumerate(ROOMS)}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')


def sources(root):
    """{path relative to root: text} of every source in a room."""
    found = {}
    for top, room in ROOMS:
        folder = root / top / room
        if not folder.is_dir():
            sys.exit(f"rooms.py: {folder} is not a folder; the room list names it")
        for path in sorted(folder.rglob("*")):
            if path.suffix in (".h", ".cpp", ".cu"):
                found[str(path.relative_to(root))] = path.read_text(errors="replace")
    return found


def back_edges(files):
    """Each include of a room above the file's own, as 'FILE:LINE: ROOM includes ...'."""
    edges = []
    for name, text in files.items():
        own = name.split("/")[1]
        for number, line in enumerate(text.splitlines(), 1):
            match = INCLUDE.match(line)
            if match and match.group(1) in RANK and RANK[match.group(1)] > RANK[own]:
                edges.append(f"{name}:{number}: {own}/ includes {match.group(1)}/, a room above "
                             f"it: {line.strip()}")
    return edges


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--self-test"):
        sys.exit("usage: rooms.py SOURCE_DIR [--self-test]")
    files = sources(pathlib.Path(sys.argv[1]))
    if len(sys.argv) == 3:
        planted = "tool/model/arch.cpp"
        files[planted] = '#include "sweep/sweep_file.h"\n' + files[planted]
        edges = back_edges(files)
        expected = [f'{planted}:1: model/ includes sweep/, a room above it: '
                    f'#include "sweep/sweep_file.h"']
        if edges != expected:
            sys.exit("rooms.py --self-test: a planted include of sweep/ in model/ gave:\n" +
                     "\n".join(edges or ["nothing"]))
        print("rooms.py --self-test: the planted include is named, and nothing else")
        return
    edges = back_edges(files)
    for edge in edges:
        print(edge)
    if edges:
        sys.exit(f"{len(edges)} include(s) reach a room above their own; move the code down or "
                 "the include out (docs/architecture.md, Rooms)")
    print(f"{len(files)} sources in {len(ROOMS)} rooms: every include reaches its own room or one "
          "below")


main()
