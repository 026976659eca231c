// Counts the runtime's own sampler at work in an EventPipe trace (.nettrace): the SampleProfiler provider writes
// one event per managed thread per tick, so the thread sampled most often was sampled at every tick.
// Prints ticks=N and span_ms=T (first to last sample), a line each.
using System;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Diagnostics.Tracing;

if (args.Length != 1)
{
    Console.Error.WriteLine("usage: NettraceCount TRACE.nettrace");
    return 2;
}
var perThread = new Dictionary<int, int>();
double first = double.MaxValue, last = double.MinValue;
using (var source = new EventPipeEventSource(args[0]))
{
    source.Dynamic.All += e =>
    {
        if (e.ProviderName != "Microsoft-DotNETCore-SampleProfiler") return;
        perThread[e.ThreadID] = perThread.GetValueOrDefault(e.ThreadID) + 1;
        first = Math.Min(first, e.TimeStampRelativeMSec);
        last = Math.Max(last, e.TimeStampRelativeMSec);
    };
    source.Process();
}
if (perThread.Count == 0)
{
    Console.Error.WriteLine($"no SampleProfiler events in {args[0]}");
    return 1;
}
Console.WriteLine($"ticks={perThread.Values.Max()}");
Console.WriteLine($"span_ms={last - first:F1}");
return 0;
