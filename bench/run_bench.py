#!/usr/bin/env python3
"""umbra's benchmarks in one run: every variant of a measurement alternates with the others, each measured
`runs` times, and the medians and ratios replace the generated part of bench/RESULTS.md.

Usage (through tools/bench.sh, which builds first): bench/run_bench.py BUILD_DIR [--runs N] [--quick] [--only LIST]
--only runs some sections (e.g. --only real) and prints their tables without touching bench/RESULTS.md, whose
generated part always comes from one run of every section.
"""
import argparse
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- tools/bench.sh: begin -->", "<!-- tools/bench.sh: end -->"
FLOOR = "ELT3 floor (hooks return at once)"  # the real programs' baseline: what any ELT3 profiler pays
SHADOW = "umbra shadow (default)"
FOCUSED = "umbra shadow, focused (--hooks-for)"  # hooks where the pattern points, the rest precompiled and inlined


class Bench:
    def __init__(self, build, runs, quick):
        self.build, self.runs, self.quick = os.path.abspath(build), runs, quick
        self.umbra = os.path.join(build, "umbra")
        self.tmp = tempfile.mkdtemp(prefix="umbra-bench-")
        self.dlls = Programs(self)

    def build_program(self, name, folder=os.path.join(ROOT, "bench")):
        out = os.path.join(self.build, "bench", name)
        subprocess.run(["dotnet", "build", os.path.join(folder, name, name + ".csproj"), "-c", "Release",
                        "--nologo", "-v", "quiet", "-o", out,
                        f"-p:BaseIntermediateOutputPath={self.build}/bench/obj-{name}/"],
                       check=True, stdout=subprocess.DEVNULL)
        return os.path.join(out, name + ".dll")

    def run(self, argv, env=None):
        """Runs a command; returns (stdout, wall seconds, peak RSS in KiB of it and its descendants).
        GNU time measures the RSS: a child forked from this (large) process would inherit its high-water mark."""
        full_env = dict(os.environ, **(env or {}))
        rss_file = os.path.join(self.tmp, "rss")
        start = time.monotonic()
        p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file] + argv, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, env=full_env, text=True)
        wall = time.monotonic() - start
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited with {p.returncode}")
        with open(rss_file) as f:
            rss = int(f.read().split()[-1])
        return p.stdout, wall, rss

    def umbra_argv(self, options, argv, prefix):
        return [self.umbra, "run", "-o", prefix, "--format", "json"] + options + ["--"] + argv

    def umbra_run(self, options, program, env=None, report="r"):
        prefix = os.path.join(self.tmp, report)
        return self.run(self.umbra_argv(options, ["dotnet"] + program, prefix), env) + (prefix + ".json",)

    def alternate(self, variants, measure, rounds=None):
        """variants: name -> what `measure` takes, which returns one number or a dict of them (a median each);
        measured round-robin, `runs` rounds unless told."""
        results = {name: [] for name in variants}
        for round_index in range(rounds or self.runs):
            for name, fn in variants.items():
                value = measure(fn)
                results[name].append(value)
                shown = (", ".join(f"{k} {v:.3f}" for k, v in value.items()) if isinstance(value, dict)
                         else f"{value:.3f}")
                print(f"  round {round_index} {name}: {shown}", file=sys.stderr)
        return {name: median_of(values) for name, values in results.items()}, results


class Programs(dict):
    """bench/NAME's built dll by name, built on first use: a run of some sections builds only the programs they run."""

    def __init__(self, bench):
        super().__init__()
        self.bench = bench

    def __missing__(self, name):
        self[name] = self.bench.build_program(name)
        return self[name]


def median_of(values):
    if isinstance(values[0], dict):
        return {key: statistics.median(v[key] for v in values) for key in values[0]}
    return statistics.median(values)


def number_from(out, key):
    m = re.search(rf"(?:^|\s){key}=([0-9.]+)", out, re.M)
    if not m:
        raise RuntimeError(f"no {key}= in output: {out!r}")
    return float(m.group(1))


def stats_of(report_path):
    """The report's stats. Deep trees nest deeply: parse on a thread with a large stack."""
    result = {}

    def parse():
        sys.setrecursionlimit(1000000)
        with open(report_path) as f:
            result["stats"] = json.load(f)["stats"]

    threading.stack_size(1 << 30)
    t = threading.Thread(target=parse)
    t.start()
    t.join()
    return result["stats"]


def call_overhead(b):
    calls = "5000000" if b.quick else "20000000"
    loop = [b.dlls["CallLoop"], calls]
    quiet = ["--reconcile-ms", "0", "--interval-ms", "60000"]  # hooks alone: no snapshots, no sampling to speak of
    noop = {"UMBRA_BENCH_NOOP_HOOKS": "1"}
    variants = {
        "none": lambda: b.run(["dotnet"] + loop)[0],
        "elt3 floor (hooks return at once)": lambda: b.umbra_run(quiet, loop, noop)[0],
        "elt3 umbra": lambda: b.umbra_run(quiet, loop)[0],
        "elt3 umbra + shadow sampling 1 kHz": lambda: b.umbra_run(["--reconcile-ms", "0", "--interval-ms", "1"],
                                                                  loop)[0],
        "elt3 umbra, default (sampling 100 Hz, snapshots 10 Hz)": lambda: b.umbra_run([], loop)[0],
        "elt3 umbra --exact-times": lambda: b.umbra_run(quiet + ["--exact-times"], loop)[0],
        "elt2 floor": lambda: b.umbra_run(quiet + ["--hooks", "elt2"], loop, noop)[0],
        "elt2 umbra": lambda: b.umbra_run(quiet + ["--hooks", "elt2"], loop)[0],
        "elt2 floor, snapshots enabled (slow path)": lambda: b.umbra_run(
            ["--reconcile-ms", "60000", "--hooks", "elt2"], loop, noop)[0],
        "elt2 umbra, default (slow path)": lambda: b.umbra_run(["--hooks", "elt2"], loop)[0],
    }
    medians, _ = b.alternate(variants, lambda fn: number_from(fn(), "ns_per_call"))
    return medians


def shadow_sampling(b):
    """Shadow sampling at 1 kHz against none, alone: a goal of 1% needs longer runs and more rounds than the table
    above. Returns both medians and the median of the per-round ratios."""
    loop = [b.dlls["CallLoop"], "20000000" if b.quick else "100000000"]
    variants = {
        "hooks alone": lambda: b.umbra_run(["--reconcile-ms", "0", "--interval-ms", "60000"], loop)[0],
        "shadow sampling 1 kHz": lambda: b.umbra_run(["--reconcile-ms", "0", "--interval-ms", "1"], loop)[0],
    }
    medians, results = b.alternate(variants, lambda fn: number_from(fn(), "ns_per_call"), rounds=3 * b.runs)
    ratios = [s / h for h, s in zip(results["hooks alone"], results["shadow sampling 1 kHz"])]
    return {"medians": medians, "ratio": statistics.median(ratios), "rounds": len(ratios), "calls": int(loop[1])}


def eventpipe_env(trace):
    """The runtime's own sampler (1 kHz), written to `trace` ({pid} in it stands for each process's id)."""
    return {"DOTNET_EnableEventPipe": "1", "DOTNET_EventPipeOutputPath": trace,
            "DOTNET_EventPipeConfig": "Microsoft-DotNETCore-SampleProfiler:0:5"}


def slowdown(b):
    # Runs of a few seconds: the spread between runs on a shared 2-core machine is several percent.
    units = "50000" if b.quick else "600000"
    spin = [b.dlls["Spinners"], "2", units]
    trace = os.path.join(b.tmp, "trace.nettrace")
    eventpipe = eventpipe_env(trace)
    rates = {}  # ticks per second as achieved, by variant
    sampler_cpu = {}  # umbra's sampler thread: CPU µs per tick

    def sampled(name, interval_ms, walker="suspend"):
        def run():
            out, _, _, report_path = b.umbra_run(["--mode", "sampled", "--walker", walker, "--interval-ms", interval_ms],
                                                 spin)
            with open(report_path) as f:
                report = json.load(f)  # a sampled report of this program is shallow: no large stack needed
            rates.setdefault(name, []).append(report["stats"]["sampler"]["ticks"] / (report["duration_ns"] / 1e9))
            sampler_cpu.setdefault(name, []).append(report["stats"]["sampler"]["cpu_ns_per_tick"] / 1e3)
            return out
        return run

    def event_pipe():
        if os.path.exists(trace):
            os.remove(trace)
        out = b.run(["dotnet"] + spin, eventpipe)[0]
        counted = b.run(["dotnet", b.dlls["NettraceCount"], trace])[0]
        ticks, span_ms = number_from(counted, "ticks"), number_from(counted, "span_ms")
        rates.setdefault("EventPipe SampleProfiler 1 kHz", []).append(ticks / (span_ms / 1000))
        return out

    variants = {
        "none": lambda: b.run(["dotnet"] + spin)[0],
        "umbra sampled 100 Hz": sampled("umbra sampled 100 Hz", "10"),
        "umbra sampled 1 kHz": sampled("umbra sampled 1 kHz", "1"),
        SIGNAL_100: sampled(SIGNAL_100, "10", "signal"),
        SIGNAL_1K: sampled(SIGNAL_1K, "1", "signal"),
        "EventPipe SampleProfiler 1 kHz": event_pipe,
        "umbra shadow (default)": lambda: b.umbra_run([], spin)[0],
    }
    # More rounds than elsewhere: the goals here are differences of a few percent.
    medians, _ = b.alternate(variants, lambda fn: number_from(fn(), "elapsed_ms"), rounds=b.runs + 4)
    return (medians, {name: statistics.median(r) for name, r in rates.items()},
            {name: statistics.median(c) for name, c in sampler_cpu.items()})


def memory(b):
    rows = {}
    for mode, runner in (("none", lambda p: b.run(["dotnet"] + p)),
                         ("sampled", lambda p: b.umbra_run(["--mode", "sampled"], p)),
                         ("shadow", lambda p: b.umbra_run([], p))):
        rss = {}
        for threads in (1, 16, 64):
            # Enough work per thread that all of them are alive at once.
            samples = [runner([b.dlls["Spinners"], str(threads), "2000", "10"])[2] for _ in range(max(1, b.runs // 2))]
            rss[threads] = statistics.median(samples)
        rows[mode] = rss
    return rows


def startup(b):
    program = [b.dlls["Startup"]]
    variants = {
        "none (ReadyToRun framework)": lambda: b.run(["dotnet"] + program)[1],
        "none, DOTNET_ReadyToRun=0 (framework JIT-compiled)": lambda: b.run(["dotnet"] + program,
                                                                             {"DOTNET_ReadyToRun": "0"})[1],
        "umbra sampled (framework precompiled, not instrumented)": lambda: b.umbra_run(["--mode", "sampled"],
                                                                                       program)[1],
        "umbra shadow (framework JIT-compiled and instrumented)": lambda: b.umbra_run([], program)[1],
        "umbra shadow --hooks-for @app (own code hooked, framework precompiled)":
            lambda: b.umbra_run(["--hooks-for", "@app"], program)[1],
    }
    medians, _ = b.alternate(variants, lambda fn: fn() * 1000)
    return medians


SIGNAL_100 = "umbra sampled 100 Hz, walker by signal"  # stacks taken where threads run, no suspension per tick
SIGNAL_1K = "umbra sampled 1 kHz, walker by signal"


def real_variants(trace, focus):
    """The ways each real program runs: name -> (umbra run's options, or None for no profiler; environment).
    `trace`: EventPipe's output path; `focus`: the patterns of the focused variant."""
    return {
        "none": (None, {}),
        "none, DOTNET_ReadyToRun=0": (None, {"DOTNET_ReadyToRun": "0"}),
        # Hooks that return at once, no snapshots, no sampling: the framework JIT-compiled, nothing inlined, and a
        # call at each enter and leave, as for umbra shadow. umbra's own cost is what it adds to this.
        FLOOR: (["--reconcile-ms", "0", "--interval-ms", "60000"], {"UMBRA_BENCH_NOOP_HOOKS": "1"}),
        SHADOW: ([], {}),
        FOCUSED: (["--hooks-for", focus], {}),
        "umbra sampled 100 Hz": (["--mode", "sampled", "--walker", "suspend", "--interval-ms", "10"], {}),
        SIGNAL_100: (["--mode", "sampled", "--walker", "signal", "--interval-ms", "10"], {}),
        "EventPipe SampleProfiler 1 kHz": (None, eventpipe_env(trace)),
    }


# The focused variants' patterns: MSBuild's project evaluation, the web API's own assembly, the suite's own tests.
BUILD_FOCUS = "[Microsoft.Build]Microsoft.Build.Evaluation.*"
WEB_FOCUS = "[WebApi]"
SUITE_FOCUS = "[LibrarySuite]"


def dotnet_build(b):
    """`dotnet build` of a small project (tests/apps/BuildMe): MSBuild runs in the dotnet process and starts the C#
    compiler as a process of its own; a profiler is loaded into both."""
    project = os.path.join(b.tmp, "BuildMe")
    os.makedirs(project)
    for name in ("BuildMe.csproj", "Program.cs"):
        shutil.copy(os.path.join(ROOT, "tests", "apps", "BuildMe", name + ".in"), os.path.join(project, name))
    # Restored once, untimed; the builds find its output in obj/ and restore nothing.
    subprocess.run(["dotnet", "restore", project, "--nologo", "-v", "quiet"], check=True, stdout=subprocess.DEVNULL)
    out = os.path.join(b.tmp, "BuildMe-out")
    # No build servers: they would outlive the build, and the next build would find them warm.
    build = ["dotnet", "build", project, "--no-restore", "-c", "Release", "-nodeReuse:false",
             "-p:UseSharedCompilation=false", "--nologo", "-v", "q", "-o", out]
    reports = os.path.join(b.tmp, "build-reports")

    def measure(variant):
        options, env = variant
        # Every build compiles: what the last one made is gone (restore's output in obj/ stays).
        for made in (os.path.join(project, "obj", "Release"), os.path.join(project, "bin"), out, reports):
            shutil.rmtree(made, ignore_errors=True)
        os.makedirs(reports)
        argv = build if options is None else b.umbra_argv(options, build, os.path.join(reports, "r"))
        stdout, wall, rss = b.run(argv, env)
        elapsed = re.search(r"Time Elapsed (\d+):(\d+):([0-9.]+)", stdout)
        if not elapsed:
            raise RuntimeError(f"no Time Elapsed in the build's output: {stdout!r}")
        hours, minutes, seconds = elapsed.groups()
        result = {"in_run_s": int(hours) * 3600 + int(minutes) * 60 + float(seconds), "whole_s": wall,
                  "rss_mib": rss / 1024}
        written = [os.path.join(reports, f) for f in os.listdir(reports) if f.endswith((".json", ".nettrace"))]
        if options is not None or "DOTNET_EnableEventPipe" in env:
            # One report per process: a profiler missing from either would flatter it.
            if len(written) < 2:
                raise RuntimeError(f"{len(written)} reports from MSBuild and the compiler: {written}")
            result["report_mb"] = sum(os.path.getsize(f) for f in written) / 1e6
        return result

    b.run(build)  # untimed: the first build after the restore still reads much of the SDK from disk
    medians, _ = b.alternate(real_variants(os.path.join(reports, "trace.{pid}.nettrace"), BUILD_FOCUS), measure)
    return medians


def web_api(b):
    """The ASP.NET Core minimal API (tests/apps/WebApi) under the load client (tests/apps/LoadClient), which is never
    profiled: 8 connections sending requests back to back."""
    apps = os.path.join(ROOT, "tests", "apps")
    server, client = b.build_program("WebApi", apps), b.build_program("LoadClient", apps)
    seconds, connections = (4 if b.quick else 10), 8
    work = os.path.join(b.tmp, "web")

    def measure(variant):
        options, env = variant
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        address_file = os.path.join(work, "address")
        argv = ["dotnet", server, address_file]
        if options is not None:
            argv = b.umbra_argv(options, argv, os.path.join(work, "r"))
        # A session of its own: if the server hangs, it and the program umbra run started end together.
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=dict(os.environ, **env),
                             text=True, start_new_session=True)
        try:
            deadline = time.monotonic() + 120
            while not os.path.exists(address_file):
                if p.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the web API never said where it listens: {' '.join(argv)}")
                time.sleep(0.05)
            with open(address_file) as f:
                address = f.read().strip()
            load = b.run(["dotnet", client, address, str(seconds), str(connections)])[0]
            served = p.communicate(timeout=300)[0]  # the client's last request shuts the server down
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        served_count = re.search(r"^served (\d+)$", served, re.M)
        if (p.returncode != 0 or number_from(load, "failures") != 0 or not served_count
                or int(served_count.group(1)) != number_from(load, "requests")):
            raise RuntimeError(f"the web API failed (exit {p.returncode}): client {load!r}, server {served!r}")
        report = (os.path.join(work, "r.json") if options is not None
                  else env.get("DOTNET_EventPipeOutputPath"))
        if report and not os.path.exists(report):
            raise RuntimeError(f"no {report} from {' '.join(argv)}")
        return {"rps": number_from(load, "rps"), "p50_ms": number_from(load, "p50_ms"),
                "p99_ms": number_from(load, "p99_ms")}

    medians, _ = b.alternate(real_variants(os.path.join(work, "trace.nettrace"), WEB_FOCUS), measure)
    return {"medians": medians, "seconds": seconds, "connections": connections}


def test_suite(b):
    """A test suite (bench/LibrarySuite): an xunit.v3 test executable of a few thousand tests over real libraries
    restored from NuGet, all in one process, test collections in parallel as xunit runs them."""
    suite = [b.dlls["LibrarySuite"], "-noColor", "-noLogo"]
    if b.quick:  # three of its test classes, chosen by xunit's own filter: about a fifth of the suite's time
        suite += ["-class", "LibrarySuite.JsonTests", "-class", "LibrarySuite.TimeTests",
                  "-class", "LibrarySuite.HumanizerTests"]
    work = os.path.join(b.tmp, "suite")
    variants = real_variants(os.path.join(work, "trace.nettrace"), SUITE_FOCUS)

    def measure(variant):
        options, env = variant
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        argv = ["dotnet"] + suite
        if options is not None:
            argv = b.umbra_argv(options, argv, os.path.join(work, "r"))
        try:
            stdout, wall, rss = b.run(argv, env)
        except RuntimeError as e:
            # xunit.v3's runner ends a process that is still there 11 s after its tests with exit code 1.
            raise RuntimeError(f"{e}: a test failed, or the exit took longer than xunit allows") from e
        ended = time.time()
        summary = re.search(r"Total: (\d+), Errors: 0, Failed: 0, .*Time: ([0-9.]+)s", stdout)
        if not summary:
            raise RuntimeError(f"no passing summary in the suite's output: {stdout[-2000:]!r}")
        # The exit: from Main's return (the suite prints the wall clock then) to the end of the process, which
        # umbra run reaches once the runtime has shut down and the report is written.
        result = {"tests": int(summary.group(1)), "tests_s": float(summary.group(2)), "whole_s": wall,
                  "exit_s": ended - number_from(stdout, "main_returned_unix_s"), "rss_mib": rss / 1024}
        report = os.path.join(work, "r.json") if options is not None else env.get("DOTNET_EventPipeOutputPath")
        if report:
            if not os.path.exists(report):
                raise RuntimeError(f"no {report} from {' '.join(argv)}")
            result["report_mb"] = os.path.getsize(report) / 1e6
        if variant is variants[SHADOW]:
            stats = stats_of(report)
            result.update(calls=stats["enter_hooks"], tree_full=stats["drops"]["tree_full"],
                          nodes=stats["tree"]["nodes"])
        return result

    b.run(["dotnet"] + suite)  # untimed: the first run reads the libraries from disk
    medians, results = b.alternate(variants, measure)
    # A drop in any run counts: the median would hide one in a minority of runs.
    return {"medians": medians, "tree_full_max": max(r["tree_full"] for r in results[SHADOW])}


def scaling(b):
    rows = []
    for depth in (10, 1000, 10000):
        for threads in (1, 16, 64):
            sampled_units = str((40000 if b.quick else 400000) // threads)
            shadow_units = str((4000 if b.quick else 40000) // threads)
            _, _, _, path = b.umbra_run(["--mode", "sampled", "--interval-ms", "10"],
                                        [b.dlls["Spinners"], str(threads), sampled_units, str(depth)])
            s = stats_of(path)["sampler"]
            _, _, _, path = b.umbra_run(["--interval-ms", "10", "--reconcile-ms", "50"],
                                        [b.dlls["Spinners"], str(threads), shadow_units, str(depth)])
            h = stats_of(path)
            rows.append({
                "threads": threads, "depth": depth,
                "sampled_tick_us": s["tick_ns_mean"] / 1e3, "sampled_suspended_us": s["suspended_ns_mean"] / 1e3,
                "shadow_sample_us": h["sampler"]["shadow_sample_ns_mean"] / 1e3,
                "reconcile_us": h["sampler"]["snapshot_ns_mean"] / 1e3,
                "suspend_wait_us": h["sampler"]["suspend_wait_ns_mean"] / 1e3,
                "unexplained": h["reconcile"]["unexplained"],
            })
            print(f"  scaling {rows[-1]}", file=sys.stderr)
    return rows


def micro(b):
    exe = os.path.join(b.build, "bench", "umbra_micro_bench")
    out = subprocess.run([exe, "--benchmark_format=json", "--benchmark_min_time=" + ("0.05" if b.quick else "0.3")],
                         check=True, capture_output=True, text=True).stdout
    to_ns = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
    return [(x["name"], x["real_time"] * to_ns[x.get("time_unit", "ns")]) for x in json.loads(out)["benchmarks"]]


def machine():
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    runtimes = subprocess.run(["dotnet", "--list-runtimes"], capture_output=True, text=True).stdout
    netcore = [l.split()[1] for l in runtimes.splitlines() if l.startswith("Microsoft.NETCore.App")]
    return f"{os.cpu_count()} cores, {cpu}; Linux {platform.release()}; .NET runtime {netcore[-1] if netcore else '?'}"


def goal(ok):
    return "met" if ok else "**not met**"


def render_calls(calls, sampling_cost):
    lines = []
    if calls:
        none = calls["none"]
        elt3 = calls["elt3 umbra"]
        lines += ["### ns per managed call (bench/CallLoop: a loop calling a tiny non-inlined method)", "",
                  "| variant | ns/call | added over none | x none |", "|---|---:|---:|---:|"]
        for name, v in calls.items():
            lines.append(f"| {name} | {v:.2f} | {v - none:+.2f} | {v / none:.1f} |")
        floor3, floor2 = calls["elt3 floor (hooks return at once)"], calls["elt2 floor"]
        lines += ["",
                  f"- Goal: shadow mode adds at most 25 ns per call: ELT3 adds {elt3 - none:.2f} ns ({goal(elt3 - none <= 25)}); "
                  f"the default (with snapshots) adds {calls['elt3 umbra, default (sampling 100 Hz, snapshots 10 Hz)'] - none:.2f} ns; "
                  f"ELT2 with snapshots enabled (the runtime's slow path) adds "
                  f"{calls['elt2 umbra, default (slow path)'] - none:.2f} ns.",
                  f"- Goal: umbra's work within 15% of the family's do-nothing floor: ELT3 {elt3:.2f} vs floor {floor3:.2f} "
                  f"= {100 * (elt3 / floor3 - 1):.0f}% above ({goal(elt3 <= 1.15 * floor3)}); "
                  f"ELT2 {calls['elt2 umbra']:.2f} vs {floor2:.2f} = {100 * (calls['elt2 umbra'] / floor2 - 1):.0f}% above "
                  f"({goal(calls['elt2 umbra'] <= 1.15 * floor2)})."]
    if sampling_cost:
        in_table = ""
        if calls:
            sampling, elt3 = calls["elt3 umbra + shadow sampling 1 kHz"], calls["elt3 umbra"]
            in_table = f"in the table {sampling:.2f} vs {elt3:.2f} ns/call = {100 * (sampling / elt3 - 1):+.1f}%; "
        lines.append(f"- Goal: shadow sampling at 1 kHz adds at most 1%: {in_table}measured alone "
                     f"({sampling_cost['calls']:,} calls, {sampling_cost['rounds']} "
                     f"alternated rounds) {sampling_cost['medians']['shadow sampling 1 kHz']:.2f} vs "
                     f"{sampling_cost['medians']['hooks alone']:.2f} ns/call, median ratio of the rounds "
                     f"{100 * (sampling_cost['ratio'] - 1):+.1f}% ({goal(sampling_cost['ratio'] <= 1.01)}).")
    return lines + [""]


def render_slowdown(slow):
    slow, rates, sampler_cpu = slow
    base = slow["none"]
    lines = ["### Slowdown of a CPU-bound 2-thread program (bench/Spinners 2 threads)", "",
             "Ticks per second as achieved (umbra's report; for EventPipe, the samples of its most sampled thread in "
             "the trace, counted by bench/NettraceCount); the program's time lost per tick is the slowdown divided by "
             "the ticks taken while it ran; umbra's sampler thread's own CPU time per tick is `stats.sampler.cpu_ns_per_tick`.",
             "", "| variant | elapsed ms | slowdown | ticks/s | µs lost per tick | sampler CPU µs per tick |",
             "|---|---:|---:|---:|---:|---:|"]
    per_tick = {}
    for name, v in slow.items():
        rate = rates.get(name)
        if rate:
            per_tick[name] = (v - base) * 1000 / (rate * v / 1000)
        cell = f"{per_tick[name]:.0f}" if name in per_tick else "-"
        cpu = f"{sampler_cpu[name]:.0f}" if name in sampler_cpu else "-"
        lines.append(f"| {name} | {v:.0f} | {100 * (v / base - 1):+.1f}% | {f'{rate:.0f}' if rate else '-'} | {cell} "
                     f"| {cpu} |")
    s100, s1k, ep = slow["umbra sampled 100 Hz"], slow["umbra sampled 1 kHz"], slow["EventPipe SampleProfiler 1 kHz"]
    u_tick, ep_tick = per_tick["umbra sampled 1 kHz"], per_tick["EventPipe SampleProfiler 1 kHz"]
    return lines + [
        "",
        f"- Goal: sampled mode at most 2% slower at 100 Hz: {100 * (s100 / base - 1):+.1f}% ({goal(s100 <= 1.02 * base)}).",
        f"- Goal: less slowdown than EventPipe's sampler at 1 kHz: umbra {100 * (s1k / base - 1):+.1f}% at "
        f"{rates['umbra sampled 1 kHz']:.0f} ticks/s vs EventPipe {100 * (ep / base - 1):+.1f}% at "
        f"{rates['EventPipe SampleProfiler 1 kHz']:.0f} ticks/s ({goal(s1k < ep)}); per tick, umbra {u_tick:.0f} µs "
        f"vs EventPipe {ep_tick:.0f} µs ({'umbra cheaper' if u_tick < ep_tick else 'EventPipe cheaper'}).",
        f"- Goal: the walker by signal at most 1% slower at 100 Hz: {100 * (slow[SIGNAL_100] / base - 1):+.1f}% "
        f"({goal(slow[SIGNAL_100] <= 1.01 * base)}); at 1 kHz at most half of EventPipe's slowdown: "
        f"{100 * (slow[SIGNAL_1K] / base - 1):+.1f}% at {rates[SIGNAL_1K]:.0f} ticks/s vs EventPipe "
        f"{100 * (ep / base - 1):+.1f}% ({goal(slow[SIGNAL_1K] - base <= (ep - base) / 2)}).", ""]


def render_memory(mem):
    lines = ["### Memory (peak RSS of bench/Spinners with 1, 16 and 64 threads, depth 10)", "",
             "| mode | 1 thread MiB | 16 threads MiB | 64 threads MiB | KiB per extra thread | umbra's KiB per thread |",
             "|---|---:|---:|---:|---:|---:|"]
    per_thread_none = (mem["none"][64] - mem["none"][1]) / 63
    for mode, rss in mem.items():
        per_thread = (rss[64] - rss[1]) / 63
        lines.append(f"| {mode} | {rss[1] / 1024:.1f} | {rss[16] / 1024:.1f} | {rss[64] / 1024:.1f} | "
                     f"{per_thread:.0f} | {per_thread - per_thread_none:.0f} |")
    return lines + [""]


def render_startup(start):
    lines = ["### Start-up (bench/Startup: collections, LINQ, formatting, a task; wall time of the whole process)", "",
             "| variant | ms |", "|---|---:|"]
    for name, v in start.items():
        lines.append(f"| {name} | {v:.0f} |")
    none = start["none (ReadyToRun framework)"]
    focused = next(v for name, v in start.items() if "--hooks-for" in name)
    return lines + ["", f"- Goal: focused on the program's own code, start-up at most 1.2x no profiler's: "
                        f"{focused / none:.2f}x ({goal(focused <= 1.2 * none)}).", ""]


def render_build(build):
    floor = build[FLOOR]
    lines = ["### A real program: `dotnet build` of a small project (tests/apps/BuildMe)", "",
             "MSBuild runs in the dotnet process and starts the C# compiler as a process of its own; a profiler is in "
             "both, each writing its own report. Restored once before; each build starts from a project without "
             "build output, so every build compiles. In-run: MSBuild's `Time Elapsed`; whole process: `dotnet build` "
             "from start to exit, reports written; peak RSS: its largest process's; report: the JSON reports of both "
             "processes (for EventPipe, both .nettrace files). x floor: the time over the ELT3 floor's (lower is "
             "better).", "",
             "| variant | in-run s | x floor | whole process s | x floor | peak RSS MiB | report MB |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for name, v in build.items():
        report = f"{v['report_mb']:.3g}" if "report_mb" in v else "-"  # the floor's reports are a few kB
        lines.append(f"| {name} | {v['in_run_s']:.2f} | {v['in_run_s'] / floor['in_run_s']:.2f} | {v['whole_s']:.2f} "
                     f"| {v['whole_s'] / floor['whole_s']:.2f} | {v['rss_mib']:.0f} | {report} |")
    shadow = build["umbra shadow (default)"]
    in_run, whole = shadow["in_run_s"] / floor["in_run_s"], shadow["whole_s"] / floor["whole_s"]
    return lines + [
        "",
        f"- Goal: umbra shadow's build at most 1.25x the floor's time in-run: {in_run:.2f}x ({goal(in_run <= 1.25)}); "
        f"whole process at most 1.4x: {whole:.2f}x ({goal(whole <= 1.4)}).",
        f"- Goal: focused on one MSBuild namespace (`--hooks-for '{BUILD_FOCUS}'`), the whole process at most 1.3x "
        f"no profiler's: {build[FOCUSED]['whole_s'] / build['none']['whole_s']:.2f}x "
        f"({goal(build[FOCUSED]['whole_s'] <= 1.3 * build['none']['whole_s'])}).", ""]


def render_web(web):
    rows, floor = web["medians"], web["medians"][FLOOR]
    lines = ["### A real program: a web API under load (tests/apps/WebApi, tests/apps/LoadClient)", "",
             f"An ASP.NET Core minimal API on 127.0.0.1 serving a load client that keeps {web['connections']} "
             f"connections busy for {web['seconds']} s a round; only the server is profiled. x floor: requests per "
             "second over the ELT3 floor's (higher is better: below 1 serves fewer than the floor).", "",
             "| variant | requests/s | x floor (higher is better) | p50 ms | p99 ms |", "|---|---:|---:|---:|---:|"]
    for name, v in rows.items():
        lines.append(f"| {name} | {v['rps']:.0f} | {v['rps'] / floor['rps']:.2f} | {v['p50_ms']:.2f} "
                     f"| {v['p99_ms']:.2f} |")
    shadow = rows["umbra shadow (default)"]["rps"] / floor["rps"]
    focused = rows[FOCUSED]["rps"] / rows["none"]["rps"]
    signal = rows[SIGNAL_100]["rps"] / rows["none"]["rps"]
    return lines + ["", f"- Goal: umbra shadow serves at least 0.8x the floor's requests per second: {shadow:.2f}x "
                        f"({goal(shadow >= 0.8)}).",
                    f"- Goal: focused on the program's own assembly (`--hooks-for '{WEB_FOCUS}'`), at least 0.9x no "
                    f"profiler's requests per second: {focused:.2f}x ({goal(focused >= 0.9)}).",
                    f"- Goal: sampled at 100 Hz with the walker by signal, at least 0.98x no profiler's requests per "
                    f"second: {signal:.2f}x ({goal(signal >= 0.98)}).", ""]


def render_suite(suite):
    rows, floor = suite["medians"], suite["medians"][FLOOR]
    lines = ["### A real program: a test suite (bench/LibrarySuite)", "",
             f"An xunit.v3 test executable: {rows['none']['tests']:,.0f} tests of libraries restored from NuGet "
             "(Markdig, AngleSharp, Newtonsoft.Json, System.Text.Json, YamlDotNet, CsvHelper, Humanizer, NodaTime, "
             "Jint), all in one process, test collections in parallel on both cores. In tests: xunit's own `Time` (the "
             "test run's clock time, without start-up and discovery); whole process: from start to exit, report "
             "written; exit: from the suite's Main returning to the end of the process (the runtime's shutdown and "
             "the profiler's report); report: the JSON report (for EventPipe, the .nettrace); calls and tree_full: "
             "the shadow report's `stats.enter_hooks` and `stats.drops.tree_full`. x floor: the time over the ELT3 "
             "floor's (lower is better).", "",
             "| variant | in tests s | x floor | whole process s | x floor | exit s | exit % of run | peak RSS MiB "
             "| report MB | calls M | tree_full drops |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, v in rows.items():
        report = f"{v['report_mb']:.3g}" if "report_mb" in v else "-"
        calls = f"{v['calls'] / 1e6:,.0f}" if "calls" in v else "-"
        drops = f"{v['tree_full']:,.0f}" if "tree_full" in v else "-"
        lines.append(f"| {name} | {v['tests_s']:.2f} | {v['tests_s'] / floor['tests_s']:.2f} | {v['whole_s']:.2f} "
                     f"| {v['whole_s'] / floor['whole_s']:.2f} | {v['exit_s']:.2f} "
                     f"| {100 * v['exit_s'] / v['whole_s']:.0f}% | {v['rss_mib']:.0f} | {report} | {calls} | {drops} |")
    shadow = rows[SHADOW]
    in_tests, exit_share = shadow["tests_s"] / floor["tests_s"], shadow["exit_s"] / shadow["whole_s"]
    return lines + [
        "",
        f"- Goal: umbra shadow's time in tests at most 1.5x the floor's: {in_tests:.2f}x ({goal(in_tests <= 1.5)}).",
        f"- Goal: no calls lost as tree_full: {suite['tree_full_max']:,} in the worst run "
        f"({goal(suite['tree_full_max'] == 0)}); the tree holds {shadow['nodes'] / 1e6:.1f} million nodes.",
        f"- Goal: the exit at most 10% of the run: {shadow['exit_s']:.2f} s of {shadow['whole_s']:.2f} s, "
        f"{100 * exit_share:.0f}% ({goal(exit_share <= 0.10)}); the report is {shadow['report_mb']:.3g} MB. xunit.v3's "
        "runner gives the exit 11 s, then ends the process with exit code 1 whatever the tests did.", ""]


def render_scaling(scale):
    lines = ["### Scaling with threads and stack depth (bench/Spinners; sampler's own statistics, means per tick)", "",
             "| threads | depth | sampled: tick µs | sampled: suspended µs | shadow: sample µs | shadow: reconcile µs "
             "| shadow: SuspendRuntime wait µs | unexplained |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in scale:
        lines.append(f"| {r['threads']} | {r['depth']} | {r['sampled_tick_us']:.0f} | {r['sampled_suspended_us']:.0f} | "
                     f"{r['shadow_sample_us']:.1f} | {r['reconcile_us']:.0f} | {r['suspend_wait_us']:.0f} | "
                     f"{r['unexplained']} |")
    return lines + [""]


def render_micro(micro_rows):
    lines = ["### Hot paths in isolation (bench/micro, Google Benchmark)", "", "| benchmark | ns |", "|---|---:|"]
    for name, ns in micro_rows:
        lines.append(f"| {name} | {ns:.2f} |")
    return lines + [""]


ALIASES = {"real": ["build", "web", "suite"]}  # names for --only that stand for several sections

# Each section: its name for --only, what measures it, what renders it (in this order in the table).
SECTIONS = [
    ("calls", call_overhead, lambda s: render_calls(s["calls"], s.get("sampling"))),
    ("sampling", shadow_sampling, lambda s: [] if "calls" in s else render_calls(None, s["sampling"])),
    ("slow", slowdown, lambda s: render_slowdown(s["slow"])),
    ("mem", memory, lambda s: render_memory(s["mem"])),
    ("start", startup, lambda s: render_startup(s["start"])),
    ("build", dotnet_build, lambda s: render_build(s["build"])),
    ("web", web_api, lambda s: render_web(s["web"])),
    ("suite", test_suite, lambda s: render_suite(s["suite"])),
    ("scale", scaling, lambda s: render_scaling(s["scale"])),
    ("micro", micro, lambda s: render_micro(s["micro"])),
]


def render(b, sections):
    lines = [BEGIN, "",
             f"Measured {time.strftime('%Y-%m-%d')} by `tools/bench.sh` on {machine()}; medians of {b.runs} runs, "
             "variants alternated within each round.", ""]
    for name, _, render_section in SECTIONS:
        if name in sections:
            lines += render_section(sections)
    return "\n".join(lines + [END])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="smaller workloads, for a smoke run")
    parser.add_argument("--only", help="comma-separated sections to run (of: " + ", ".join(n for n, _, _ in SECTIONS)
                        + "; real = " + ",".join(ALIASES["real"])
                        + "); their tables are printed and bench/RESULTS.md is left as it is")
    parser.add_argument("--results", default=os.path.join(ROOT, "bench", "RESULTS.md"))
    args = parser.parse_args()
    names = [n for n, _, _ in SECTIONS]
    only = [n for a in args.only.split(",") for n in ALIASES.get(a, [a])] if args.only else names
    unknown = [n for n in only if n not in names]
    if unknown:
        parser.error(f"unknown sections {', '.join(unknown)}; known: {', '.join(names + list(ALIASES))}")
    b = Bench(args.build, args.runs, args.quick)
    sections = {}
    for name, fn, _ in SECTIONS:
        if name in only:
            print(f"== {name}", file=sys.stderr)
            sections[name] = fn(b)
    generated = render(b, sections)
    if args.only:
        # Some sections only: RESULTS.md's generated part stays the output of one complete run.
        print(generated)
        return
    text = open(args.results).read() if os.path.exists(args.results) else f"# Benchmark results\n\n{BEGIN}\n{END}\n"
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + generated + text[text.index(END) + len(END):]
    else:
        text += "\n" + generated + "\n"
    with open(args.results, "w") as f:
        f.write(text)
    print(generated)


if __name__ == "__main__":
    main()
