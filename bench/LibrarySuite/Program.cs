// A test suite of real libraries restored from NuGet (Markdig, AngleSharp, Newtonsoft.Json, System.Text.Json,
// YamlDotNet, CsvHelper, Humanizer, NodaTime, Jint), run as any xunit.v3 test executable runs: every test in this
// one process, test collections in parallel. bench/run_bench.py measures a profiler on it as on a user's suite.
//   LibrarySuite [xunit runner options]   prints xunit's summary (its Time: the tests' clock time), then
//                                          "main_returned_unix_s=<seconds>" as Main returns
using System;
using Xunit.Runner.InProc.SystemConsole;

namespace LibrarySuite;

public static class Program
{
    public static int Main(string[] args)
    {
        int result = ConsoleRunner.Run(args).GetAwaiter().GetResult();
        // The wall clock, which the benchmark reads when the process has ended: what lies between is the exit
        // (the runtime's shutdown, and a profiler's report).
        double now = (DateTime.UtcNow - DateTime.UnixEpoch).Ticks / (double)TimeSpan.TicksPerSecond;
        Console.WriteLine($"main_returned_unix_s={now:F6}");
        return result;
    }
}
