#!/usr/bin/env python3
"""Summarises a callgrind output file of one process: what it spends per outcome, counted.

Prints, per outcome (--outcomes gives how many the process produced): its instructions in all and
by library; the runtime's costs (reference counting, allocation and freeing, copies) as calls into
them from outside them and as their own instructions; the heaviest functions by their own
instructions, with their calls; and the functions that call reference counting most. Unlike a
profile's samples, the counts come out the same from run to run of the same load. Swift names are
demangled with `swift demangle` when it is on PATH.

Usage: scripts/count-summary.py --outcomes N [--top N] CALLGRIND_OUT
"""
import argparse
import collections
import importlib.util
import pathlib
import re
import sys

# The runtime's costs and the demangling are profile-summary.py's: one list of what counts as what.
_spec = importlib.util.spec_from_file_location("profile_summary", pathlib.Path(__file__).with_name("profile-summary.py"))
profile_summary = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(profile_summary)

# The costs callgrind can see: it counts no instruction of the kernel's.
COSTS = [cost for cost, _, _ in profile_summary.RUNTIME_COSTS if cost != "context switches (kernel)"]


class Profile:
    """A callgrind file's functions: own instructions, calls between them, and each one's library."""

    def __init__(self):
        self.total = None
        self.own = collections.Counter()
        self.calls = collections.defaultdict(collections.Counter)  # caller -> callee -> calls
        self.library = {}


def base_name(name):
    """A function's name without the recursion depth callgrind appends (`swift_release'2`)."""
    return re.sub(r"'\d+$", "", name)


def parse(lines):
    """Reads callgrind's format (names compressed as `(id) name`, then `(id)`; a call's `calls=` line
    followed by the line of its inclusive cost, which is not the caller's own)."""
    profile = Profile()
    names = {"ob": {}, "fn": {}}
    obj = called_obj = function = called = None
    after_calls = False
    seen_header = False
    for line in lines:
        line = line.rstrip("\n")
        if line.startswith(("events:", "version:", "creator:")):
            seen_header = True
            continue
        if line.startswith("positions:") and line.split()[1:] != ["line"]:
            raise ValueError(f"positions '{line.split(':', 1)[1].strip()}': only callgrind's default, 'line', is read")
        if line.startswith("totals:") or line.startswith("summary:"):
            profile.total = int(line.split()[1])
            continue
        match = re.match(r"^(ob|cob|fn|cfn)=\((\d+)\)(?: (.*))?$", line)
        if match:
            kind, key, name = match.groups()
            table = names["ob" if kind.endswith("ob") else "fn"]
            if name is not None:
                table[key] = name if kind.endswith("ob") else base_name(name)
            value = table.get(key, f"({key})")
            if kind == "ob":
                obj = value
            elif kind == "cob":
                called_obj = value
            elif kind == "fn":
                function = value
                profile.library.setdefault(function, obj)
            else:
                called = value
                profile.library.setdefault(called, called_obj or obj)
                called_obj = None
            continue
        if line.startswith("calls="):
            profile.calls[function][called] += int(line[len("calls="):].split()[0])
            after_calls = True
            continue
        match = re.match(r"^(?:[+-]?\d+|\*)\s+(\d+)", line)
        if match:
            if after_calls:
                after_calls = False
            elif function is not None:
                profile.own[function] += int(match.group(1))
    if not seen_header or not profile.own:
        return None
    if profile.total is None:
        profile.total = sum(profile.own.values())
    return profile


def cost_of(function, library):
    # callgrind names C++ functions with their return type (`bool swift::RefCounts<…>::…`).
    symbol = re.sub(r"^\S+ (?=\w+::)", "", function)
    cost = profile_summary.runtime_cost(symbol, pathlib.PurePath(library or "").name)
    return cost if cost in COSTS else None


def label(function, names, library):
    """A function's readable name; one without a symbol (`0x…`) with the library it is in."""
    if function.startswith("0x"):
        return f"{function} in {pathlib.PurePath(library or '?').name}"
    return names.get(function, function)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--outcomes", type=int, required=True, help="outcomes the process produced over the recorded run")
    parser.add_argument("--top", type=int, default=25, help="functions listed per table (default 25)")
    parser.add_argument("file", help="callgrind's output file")
    arguments = parser.parse_args()
    if arguments.outcomes < 1:
        sys.exit("count-summary: --outcomes must be at least 1")
    try:
        with open(arguments.file, errors="replace") as file:
            profile = parse(file)
    except OSError as error:
        sys.exit(f"count-summary: {arguments.file}: {error.strerror}")
    except ValueError as error:
        sys.exit(f"count-summary: {arguments.file}: {error}")
    if profile is None:
        sys.exit(f"count-summary: {arguments.file}: not a callgrind output file with costs (valgrind --tool=callgrind writes one)")

    per = arguments.outcomes
    functions = set(profile.own) | set(profile.calls) | {c for callees in profile.calls.values() for c in callees}
    cost = {f: cost_of(f, profile.library.get(f)) for f in functions}
    names = profile_summary.demangled(sorted(functions))
    calls_to = collections.Counter()
    for callees in profile.calls.values():
        calls_to.update(callees)

    print(f"{per} outcomes; {profile.total / per:,.0f} instructions per outcome in all")
    print("\nby library (instructions in its own functions, per outcome):")
    by_library = collections.Counter()
    for function, count in profile.own.items():
        by_library[pathlib.PurePath(profile.library.get(function) or "?").name] += count
    for library, count in by_library.most_common(arguments.top):
        print(f"  {100 * count / profile.total:5.1f} %  {count / per:9,.0f}  {library}")

    print("\nthe runtime's costs (calls into them from outside them, and their own instructions, per outcome):")
    for name in COSTS:
        entered = sum(n for caller, callees in profile.calls.items() if cost.get(caller) != name
                      for callee, n in callees.items() if cost[callee] == name)
        own = sum(count for function, count in profile.own.items() if cost[function] == name)
        print(f"  {name}: {entered / per:,.1f} calls, {own / per:,.0f} instructions ({100 * own / profile.total:.1f} %)")

    print("\nheaviest functions, own instructions per outcome (and calls per outcome):")
    for function, count in profile.own.most_common(arguments.top):
        print(f"  {100 * count / profile.total:5.1f} %  {count / per:9,.0f}  {calls_to[function] / per:8.2f}  {label(function, names, profile.library.get(function))[:140]}")

    print("\nwhere reference counting is called from (calls per outcome):")
    callers = collections.Counter()
    for caller, callees in profile.calls.items():
        if cost.get(caller) != "reference counting":
            callers[caller] += sum(n for callee, n in callees.items() if cost[callee] == "reference counting")
    for caller, count in callers.most_common(arguments.top):
        if count:
            print(f"  {count / per:8.2f}  {label(caller, names, profile.library.get(caller))[:140]}")


if __name__ == "__main__":
    main()
