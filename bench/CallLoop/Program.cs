// ns per managed call: a tight loop calling a tiny method that is never inlined. Warm-up rounds let tiered
// compilation settle; the best of the measured rounds is printed as "ns_per_call=<value>".
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;

public static class Program
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Tiny(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Loop(int calls)
    {
        int acc = 0;
        for (int i = 0; i < calls; i++) acc = Tiny(acc);
        return acc;
    }

    public static int Main(string[] args)
    {
        int calls = args.Length > 0 ? int.Parse(args[0]) : 20_000_000;
        for (int w = 0; w < 3; w++) Loop(calls / 10);
        System.Threading.Thread.Sleep(200);  // let the tier-1 rejit land
        double best = double.MaxValue;
        for (int round = 0; round < 5; round++)
        {
            var sw = Stopwatch.StartNew();
            int r = Loop(calls);
            sw.Stop();
            if (r != calls) return 1;
            best = Math.Min(best, sw.Elapsed.TotalNanoseconds / calls);
        }
        Console.WriteLine($"ns_per_call={best:F2}");
        return 0;
    }
}
