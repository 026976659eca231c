// CPU-bound managed work on N threads: `Spinners <threads> <units> [depth]` gives each thread `units` of fixed work
// (a small call tree of hashing and arithmetic), done `depth` frames down, and prints "elapsed_ms=<value>".
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
        int depth = args.Length > 2 ? int.Parse(args[2]) : 1;
        var sw = Stopwatch.StartNew();
        var workers = new Thread[threads];
        long total = 0;
        for (int t = 0; t < threads; t++)
        {
            int seed = t;
            workers[t] = new Thread(() => Interlocked.Add(ref total, Deep(depth, seed, units)), 64 << 20);
            workers[t].Start();
        }
        foreach (var w in workers) w.Join();
        Console.WriteLine($"elapsed_ms={sw.Elapsed.TotalMilliseconds:F1} check={total & 0xff}");
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Deep(int depth, int seed, int units) => depth <= 1 ? Work(seed, units) : Deep(depth - 1, seed, units) + 1;

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
