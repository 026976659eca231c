// CPU-bound managed work on N threads: `Spinners <threads> <units>` gives each thread `units` of fixed work
// (a small call tree of hashing and arithmetic) and prints the wall time as "elapsed_ms=<value>".
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;

public static class Program
{
    public static int Main(string[] args)
    {
        int threads = int.Parse(args[0]);
        int units = int.Parse(args[1]);
        var sw = Stopwatch.StartNew();
        var workers = new Thread[threads];
        long total = 0;
        for (int t = 0; t < threads; t++)
        {
            int seed = t;
            workers[t] = new Thread(() => Interlocked.Add(ref total, Work(seed, units)));
            workers[t].Start();
        }
        foreach (var w in workers) w.Join();
        Console.WriteLine($"elapsed_ms={sw.Elapsed.TotalMilliseconds:F1} check={total & 0xff}");
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Work(int seed, int units)
    {
        long acc = seed;
        for (int u = 0; u < units; u++) acc += Unit(acc);
        return acc;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Unit(long x)
    {
        for (int i = 0; i < 2000; i++) x = Mix(x, i);
        return x & 0xffff;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Mix(long x, int i) => (x * 6364136223846793005L + i) ^ (x >> 29);
}
