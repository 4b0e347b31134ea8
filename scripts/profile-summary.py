#!/usr/bin/env python3
"""Summarises `perf script` output of a `perf record -g` of one process: where its CPU goes.

Prints, as shares of all samples (and as µs per delivery when --us-per-delivery gives the process's
CPU per delivery over the same load): each thread, named by the stage it runs; each library; the
runtime's costs spread over every stage (reference counting, allocation, copies, the kernel's
context switches); the heaviest functions by their own samples; and, per thread, the heaviest of
Pushline's own functions including what they call. Swift names are demangled with `swift demangle`
when it is on PATH.

Usage: perf script -i perf.data | scripts/profile-summary.py [--us-per-delivery X] [--top N]
"""
import argparse
import collections
import re
import shutil
import subprocess
import sys

# The stage each of the worker's threads runs, by the kernel's thread name (at most 15 characters).
THREAD_ROLES = [
    ("pushline-worker", "worker loop: state machine, Kafka poll and produce"),
    ("pushline-redis-", "Redis stage: claims, settles"),
    ("pushline-regist", "registry lookups: users' devices and locales"),
    ("pushline-releas", "deferred releaser"),
    ("pushline-token-", "token feed"),
    ("apns-sender", "sender loop: HTTP/2, TLS"),
    ("oot.default-qos", "cooperative pool, default priority: planning"),
    ("r-initiated-qos", "cooperative pool, high priority: sends' tasks, outcome records"),
    ("kafka-producer-", "producer's delivery reports"),
    ("rdk:", "librdkafka's own threads"),
]

# Costs of the runtime and the kernel that every stage pays: (name, the symbols a sample is in, or
# its library when every function of it is that cost). A symbol may be called through the PLT
# (`@plt`) or be a compiler's split-off part (`.cold.1`, `.isra.0`).
SUFFIXES = r"(\.(cold|isra|constprop|part)(\.[0-9]+)*)*(@plt)?$"
RUNTIME_COSTS = [
    ("reference counting", r"^(swift_(retain|release|bridgeObjectRetain|bridgeObjectRelease)(_n)?|swift::RefCounts<.*|_swift_release_dealloc)" + SUFFIXES, None),
    ("allocation and freeing", r"^(malloc|free|calloc|realloc|posix_memalign|malloc_usable_size|swift_(allocObject|deallocObject|slowAlloc|slowDealloc"
     r"|deallocClassInstance|deallocUninitializedObject|allocBox|deallocBox|task_alloc|task_dealloc))" + SUFFIXES, r"^libjemalloc"),
    ("copies in user space (memmove, memcpy)", r"^(__)?mem(move|cpy)(_[a-z0-9_]+)?" + SUFFIXES, None),
    ("context switches (kernel)", r"^(finish_task_switch|__schedule|schedule)" + SUFFIXES, None),
]
# Where the kernel's own functions of the same names (memcpy, memmove) are not the runtime's costs.
USER_SPACE_ONLY = {"copies in user space (memmove, memcpy)"}


def runtime_cost(symbol, library):
    """The runtime's or kernel's cost a sample's own function is, or None."""
    for cost, symbols, libraries in RUNTIME_COSTS:
        if cost in USER_SPACE_ONLY and library == "[kernel.kallsyms]":
            continue
        if re.match(symbols, symbol) or (libraries and re.match(libraries, library)):
            return cost
    return None


OWN_MODULE = re.compile(r"^\$s\d+(Worker|Pipeline|Enrichment|APNsClient|APNsCore|HTTP2|HTTPFields|Kafka|Redis|Runtime|IntentCore|Telemetry|APNsTelemetry|DecimalBytes|Digests|TLS)")
# Frames every sample of a thread shares (thread start, run loops): they say nothing about where it goes.
THREAD_SCAFFOLDING = re.compile(r"ServiceThread|NSThreadStart|ThreadC4main|EventLoopC(4name|3run)|start_thread|_dispatch_|WorkerAAC5start|LoopC3run|RedisStageC13configuration|RedisStageC3run")


def parse_samples(lines):
    """Yields (thread name, [frames innermost first]) per sample; a frame is its symbol and library."""
    thread, frames = None, []
    for line in lines:
        if not line.strip():
            if thread is not None and frames:
                yield thread, frames
            thread, frames = None, []
        elif not line.startswith(("\t", " ")):
            thread, frames = line.split()[0], []
        else:
            match = re.match(r"\s*[0-9a-f]+\s+(.*?)\s*\(([^)]*)\)\s*$", line)
            if match:
                symbol = re.sub(r"\+0x[0-9a-f]+$", "", match.group(1))
                frames.append((symbol, match.group(2).rsplit("/", 1)[-1]))
    if thread is not None and frames:
        yield thread, frames


def role(thread):
    for prefix, name in THREAD_ROLES:
        if thread.startswith(prefix):
            return f"{name} ({prefix}…)" if prefix.endswith((":", "-")) else f"{name} ({thread})"
    return thread


def demangled(symbols):
    """Each Swift symbol's readable name, when `swift demangle` is there; others as they are."""
    swift = [s for s in symbols if s.startswith("$s")]
    names = {s: s for s in symbols}
    if swift and shutil.which("swift"):
        result = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(swift),
                                capture_output=True, text=True, check=False)
        readable = result.stdout.splitlines()
        if result.returncode == 0 and len(readable) == len(swift):
            names.update(zip(swift, readable))
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--us-per-delivery", type=float,
                        help="the process's CPU per delivery over the same load: shares are also given in µs")
    parser.add_argument("--top", type=int, default=8, help="functions listed per table (default 8)")
    arguments = parser.parse_args()

    samples = list(parse_samples(sys.stdin))
    if not samples:
        sys.exit("profile-summary: no samples with call stacks on standard input (perf script of a perf record -g)")
    names = demangled(sorted({symbol for _, frames in samples for symbol, _ in frames}))
    total = len(samples)
    by_thread = collections.Counter()
    by_library = collections.Counter()
    self_functions = collections.Counter()
    inclusive = collections.defaultdict(collections.Counter)
    costs_in_thread = collections.defaultdict(collections.Counter)
    for thread, frames in samples:
        by_thread[role(thread)] += 1
        symbol, library = frames[0]
        by_library[library] += 1
        # A library without symbols (nghttp2, librdkafka) is one entry, not one per address.
        self_functions[names[symbol] if symbol != "[unknown]" else f"[unknown] in {library}"] += 1
        cost = runtime_cost(symbol, library)
        if cost:
            costs_in_thread[role(thread)][cost] += 1
        # Each function once per sample, however often it recurs in the stack (or its thunks with it).
        for own in {names[s] for s, _ in frames if OWN_MODULE.match(s) and not THREAD_SCAFFOLDING.search(s)}:
            inclusive[role(thread)][own] += 1

    def row(count, label):
        share = f"{100 * count / total:5.1f} %"
        if arguments.us_per_delivery:
            share += f"  {arguments.us_per_delivery * count / total:5.2f} µs"
        return f"  {share}  {label}"

    print(f"{total} samples" + (f"; {arguments.us_per_delivery} µs per delivery in all" if arguments.us_per_delivery else ""))
    print("\nby thread:")
    for name, count in by_thread.most_common():
        print(row(count, name))
    print("\nby library (the function a sample is in):")
    for name, count in by_library.most_common(arguments.top):
        print(row(count, name))
    print("\nthe runtime's and the kernel's costs, over every thread:")
    for cost, _, _ in RUNTIME_COSTS:
        print(row(sum(costs[cost] for costs in costs_in_thread.values()), cost))
    print("\nthe same costs within each thread, as shares of the thread's own samples:")
    for thread, count in by_thread.most_common():
        shares = ", ".join(f"{cost} {100 * costs_in_thread[thread][cost] / count:.1f} %" for cost, _, _ in RUNTIME_COSTS)
        print(f"  {thread}: {shares}")
    print("\nheaviest functions, own samples:")
    for function, count in self_functions.most_common(arguments.top):
        print(row(count, function[:150]))
    for thread, _ in by_thread.most_common():
        if not inclusive[thread]:
            continue
        print(f"\n{thread}: heaviest of Pushline's functions, with what they call (shares of all samples):")
        for function, count in inclusive[thread].most_common(arguments.top):
            print(row(count, function[:150]))


if __name__ == "__main__":
    main()
