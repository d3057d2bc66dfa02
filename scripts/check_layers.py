#!/usr/bin/env python3
"""The layering of the core, enforced (registered with CTest as `layers`).

core/ is a library of layers; a file may include its own layer and the layers below it,
never one above. The core keeps no clock and does no I/O: it includes none of <chrono>,
<ctime>, <fstream>, <iostream>, <thread>, <random> (the CLI, the bench and the page time
and print). Nothing in core/ includes shell/, web/, bench/ or Dear ImGui.

  python3 scripts/check_layers.py [ROOT]
"""
import pathlib
import re
import sys

# Lowest first. Same-rank directories may include each other (memory <-> parallel: stage
# memory needs the layout, the layout's checks need memory; inference <-> serve: the
# serving model and its simulator share the iteration model).
RANKS = [
    {"config.hpp", "error.hpp", "schema"},
    {"model", "comm", "tx8"},
    {"memory", "parallel"},
    {"time"},
    {"inference", "serve", "estimate"},
    {"planner", "calibrate"},
    {"io"},
    {"report"},
    {"jobs"},
]
FORBIDDEN = {"chrono", "ctime", "fstream", "iostream", "thread", "random"}


def rank_of(part):
    for i, layer in enumerate(RANKS):
        if part in layer:
            return i
    return None


def main(root):
    core = root / "core"
    errors = []
    for f in sorted(core.rglob("*.[ch]pp")):
        rel = f.relative_to(core)
        own = rank_of(rel.parts[0])
        if own is None:
            errors.append(f"core/{rel}: core/{rel.parts[0]} is in no layer of scripts/check_layers.py")
            continue
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            m = re.match(r'\s*#\s*include\s*([<"])([^>"]+)[>"]', line)
            if not m:
                continue
            kind, path = m.groups()
            where = f"core/{rel}:{n}"
            if kind == "<":
                if path in FORBIDDEN:
                    errors.append(f"{where}: <{path}> in the core (no clock, no I/O)")
                continue
            top = path.split("/")[0]
            if top in ("shell", "web", "bench") or "imgui" in path:
                errors.append(f"{where}: the core includes {path}")
                continue
            if top != "core":
                continue
            target = rank_of(path.split("/")[1])
            if target is None:
                errors.append(f"{where}: {path} is in no layer")
            elif target > own:
                errors.append(f"{where}: {path} is a higher layer than core/{rel.parts[0]}")
    for e in errors:
        print("layers:", e, file=sys.stderr)
    if not errors:
        print(f"layers: ok ({len(list(core.rglob('*.[ch]pp')))} core files)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()))
