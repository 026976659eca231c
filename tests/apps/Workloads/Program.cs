// Workloads that stress a profiler, each with counts the tests know in advance:
//   async [N]    200 tasks, each a chain of 10 awaiting async calls ending in one Leaf() call; N rounds of it
//                (1 unless given), one after the other; prints the Leaf() calls counted
//   gc           1,000,000 small allocations with some survivors (dozens of gen0 collections)
//   deep N       recursion N deep on a thread with a 1 GiB stack, spinning 300 ms at the bottom
//   threads N    N threads alive at once, each calling Work() 10 times
//   hot N        2 threads, each calling Tiny(i) N times in a tight loop (most of their time is spent in the hooks);
//                prints the sum of what Tiny returned, 1.5 N per thread for an even N
//   split MS     for MS milliseconds, SplitA and SplitB called in turn, timing themselves (about 40% and 60% of
//                the calls' time), while a thread named Unhooked spins in UnhookedSpin; prints each one's measured
//                share of the two calls' time in per mille (the tests hook only RunSplit)
//   bias MS      for MS milliseconds, LoopFree (no loop, no call: no safe point inside) called 100 times in a
//                row, then Looping once, each side timed (about 40% and 60%); prints LoopFree's measured share in
//                per mille, net of what 100 calls of an empty method cost (the calls and any hooks are not
//                LoopFree's own time). A sampler that stops threads only at safe points gives LoopFree's samples
//                to its caller
//   soak S       S seconds of steady work (calls, allocations, async, a new thread each second);
//                prints the process's RSS once a minute after a full GC
//   cpuwait MS   the main thread computes in Crunch() for MS milliseconds while a thread named "waiter" is blocked
//                in Monitor.Wait the whole time; prints "cpuwait done" once the waiter has been released
//   dutycycle MS a thread named "cycler" computes in Burn() for 2 ms and sleeps 3 ms, again and again for MS
//                milliseconds, timing both itself; prints "dutycycle burn_ms=B sleep_ms=S wait_ms=W", W the time
//                it spent ready to run and waiting for a CPU (-1: unknown)
//   steady MS    for MS milliseconds, Step() in a loop with short sleeps, and every 200 ms a new thread that calls
//                Step() 1,000 times and ends; prints "steady done"
//   faults MS    for MS milliseconds, 4 threads each read a field through a null reference in Fault() and catch
//                the NullReferenceException (the runtime raises it from a SIGSEGV, handled on the thread's alternate
//                signal stack); prints "faults caught=N" with N the catches the threads counted together
//   phases DIR   calls Phase() 100 times, writes its process id to DIR/phase1, waits until DIR/go exists, calls
//                Phase() 50 more times; prints "phases done" (a report asked for in between holds the first 100)
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;

namespace Workloads;

public static class Program
{
    static long sink;

    public static int Main(string[] args)
    {
        string what = args.Length > 0 ? args[0] : "async";
        int n = args.Length > 1 && int.TryParse(args[1], out int parsed) ? parsed : 0;
        switch (what)
        {
            case "async": Console.WriteLine($"async leaves={RunAsync(Math.Max(n, 1)).GetAwaiter().GetResult()}"); break;
            case "gc": RunGc(); break;
            case "deep": RunDeep(n); break;
            case "threads": RunThreads(n); break;
            case "hot": RunHot(n); break;
            case "split": RunSplit(n); break;
            case "bias": RunBias(n); break;
            case "soak": RunSoak(n); break;
            case "cpuwait": RunCpuWait(n); break;
            case "dutycycle": RunDutyCycle(n); break;
            case "steady": RunSteady(n); break;
            case "phases": RunPhases(args[1]); break;
            case "faults": RunFaults(n); break;
            default: Console.Error.WriteLine($"unknown workload '{what}'"); return 2;
        }
        return 0;
    }

    static async Task<int> RunAsync(int rounds)
    {
        int leaves = 0;
        for (int round = 0; round < rounds; round++)
        {
            var tasks = new Task<int>[200];
            for (int i = 0; i < tasks.Length; i++) tasks[i] = Task.Run(() => Chain(10));
            foreach (int r in await Task.WhenAll(tasks)) leaves += r;
        }
        return leaves;
    }

    static async Task<int> Chain(int depth)
    {
        if (depth == 0)
        {
            await Task.Yield();
            return Leaf();
        }
        int below = await Chain(depth - 1);
        await Task.Yield();
        return below;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Leaf() => 1;

    static void RunGc()
    {
        var survivors = new byte[1000][];
        int before = GC.CollectionCount(0);
        for (int i = 0; i < 1_000_000; i++)
        {
            byte[] a = Allocate(i);
            if (i % 100 == 0) survivors[(i / 100) % survivors.Length] = a;
        }
        Console.WriteLine($"gc allocations=1000000 gen0={GC.CollectionCount(0) - before}");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static byte[] Allocate(int i)
    {
        var a = new byte[512 + (i % 2048)];
        a[0] = (byte)i;
        return a;
    }

    static void RunDeep(int depth)
    {
        int reached = 0;
        var t = new Thread(() => reached = Recurse(depth), 1 << 30);
        t.Start();
        t.Join();
        Console.WriteLine($"deep reached={reached}");
    }

    // Not a tail call: the + 1 comes after. The bottom spins for 300 ms, so that samples find the whole stack.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Recurse(int n) => n == 0 ? SpinAtTheBottom() : Recurse(n - 1) + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int SpinAtTheBottom()
    {
        var clock = Stopwatch.StartNew();
        while (clock.ElapsedMilliseconds < 300) sink++;
        return 0;
    }

    static void RunThreads(int count)
    {
        using var allStarted = new Barrier(count + 1);
        using var allDone = new Barrier(count + 1);
        var threads = new List<Thread>();
        for (int i = 0; i < count; i++)
        {
            var t = new Thread(() =>
            {
                allStarted.SignalAndWait();
                for (int k = 0; k < 10; k++) Interlocked.Add(ref sink, Work(k));
                allDone.SignalAndWait();
            }, 256 * 1024);
            t.Start();
            threads.Add(t);
        }
        allStarted.SignalAndWait();
        // Every thread is alive until all have worked, and then for 30 sampling intervals more: the last ones
        // started would otherwise live a few milliseconds, which a tick may never fall into.
        Thread.Sleep(300);
        allDone.SignalAndWait();
        foreach (var t in threads) t.Join();
        Console.WriteLine($"threads started={count}");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Work(int k) => k & 1;

    static void RunHot(int calls)
    {
        var threads = new Thread[2];
        long sum = 0;
        for (int i = 0; i < threads.Length; i++)
        {
            threads[i] = new Thread(() => Interlocked.Add(ref sum, HotLoop(calls)));
            threads[i].Start();
        }
        foreach (var t in threads) t.Join();
        Console.WriteLine($"hot sum={sum}");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long HotLoop(int calls)
    {
        long acc = 0;
        for (int i = 0; i < calls; i++) acc += Tiny(i);
        return acc;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Tiny(int i) => (i & 1) + 1;  // uses its argument register: the enter hook must keep it

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void RunSplit(int ms)
    {
        var spinner = new Thread(() => Interlocked.Add(ref sink, UnhookedSpin(ms))) { Name = "Unhooked" };
        spinner.Start();
        long inA = 0, inB = 0;
        var clock = Stopwatch.StartNew();
        while (clock.ElapsedMilliseconds < ms)
        {
            long t0 = Stopwatch.GetTimestamp();
            sink += SplitA(40_000);
            long t1 = Stopwatch.GetTimestamp();
            sink += SplitB(60_000);
            long t2 = Stopwatch.GetTimestamp();
            inA += t1 - t0;
            inB += t2 - t1;
        }
        spinner.Join();
        Console.WriteLine($"split a_permille={1000 * inA / (inA + inB)} b_permille={1000 * inB / (inA + inB)}");
    }

    // Fully optimized from the start, as hot code is after tiering: a method still at tier 0 runs its loop in an
    // on-stack-replacement frame, which the frame-pointer chain cannot see past exactly.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    static long SplitA(int n) => Mix(n, 3);

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    static long SplitB(int n) => Mix(n, 5);

    // Inlined into each caller, so that each one's time is its own.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    static long Mix(int n, int k)
    {
        long acc = 1;
        for (int i = 0; i < n; i++) acc = acc * k + (i ^ (acc >> 7));
        return acc;
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    static long UnhookedSpin(int ms)
    {
        long acc = 0;
        var clock = Stopwatch.StartNew();
        while (clock.ElapsedMilliseconds < ms) acc += SplitA(10_000);
        return acc;
    }

    static void RunBias(int ms)
    {
        // LoopFree's batches less what 100 calls cost alone: the quickest batch of CallOnly, since a batch that was
        // preempted would take time from LoopFree that its samples never lost.
        long inFreeBatches = 0, batches = 0, callsAlone = long.MaxValue, inLoop = 0, x = 1;
        var clock = Stopwatch.StartNew();
        while (clock.ElapsedMilliseconds < ms)
        {
            long t0 = Stopwatch.GetTimestamp();
            for (int i = 0; i < 100; i++) x = LoopFree(x);
            long t1 = Stopwatch.GetTimestamp();
            x += Looping(x, 3_000);
            long t2 = Stopwatch.GetTimestamp();
            for (int i = 0; i < 100; i++) x = CallOnly(x);
            long t3 = Stopwatch.GetTimestamp();
            inFreeBatches += t1 - t0;
            batches++;
            callsAlone = Math.Min(callsAlone, t3 - t2);
            inLoop += t2 - t1;
        }
        long inFree = inFreeBatches - batches * callsAlone;
        sink += x;
        Console.WriteLine($"bias loop_free_permille={1000 * inFree / (inFree + inLoop)}");
    }

    // Straight-line code: no loop and no call, so the runtime has no safe point inside it.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    static long LoopFree(long x)
    {
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >> 29;
        return x;
    }

    // What calling LoopFree costs apart from its body: the call, the loop around it and, in shadow mode, the hooks.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    static long CallOnly(long x) => x;

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    static long Looping(long x, int n)
    {
        for (int i = 0; i < n; i++) x = x * 6364136223846793005L + (x >> 29);
        return x;
    }

    static void RunSteady(int ms)
    {
        var clock = Stopwatch.StartNew();
        long nextThread = 0;
        while (clock.ElapsedMilliseconds < ms)
        {
            for (int i = 0; i < 500; i++) sink += Step(i);
            if (clock.ElapsedMilliseconds >= nextThread)
            {
                nextThread += 200;
                var t = new Thread(() => { for (int i = 0; i < 1000; i++) Interlocked.Add(ref sink, Step(i)); });
                t.Start();
                t.Join();
            }
            Thread.Sleep(2);
        }
        Console.WriteLine("steady done");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Step(int i) => i & 7;

    static void RunPhases(string dir)
    {
        for (int i = 0; i < 100; i++) sink += Phase(i);
        File.WriteAllText(Path.Combine(dir, "phase1.tmp"), Environment.ProcessId.ToString());
        File.Move(Path.Combine(dir, "phase1.tmp"), Path.Combine(dir, "phase1"));
        while (!File.Exists(Path.Combine(dir, "go"))) Thread.Sleep(10);
        for (int i = 0; i < 50; i++) sink += Phase(i);
        Console.WriteLine("phases done");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Phase(int i) => i % 3;

    static void RunSoak(int seconds)
    {
        var clock = Stopwatch.StartNew();
        long nextReport = 0, nextThread = 0;
        while (clock.ElapsedMilliseconds < seconds * 1000L)
        {
            for (int i = 0; i < 2000; i++) sink += Work(i);
            sink += Allocate((int)sink).Length;
            if (clock.ElapsedMilliseconds >= nextThread)
            {
                nextThread += 1000;
                var t = new Thread(() => { for (int i = 0; i < 1000; i++) Interlocked.Add(ref sink, Work(i)); });
                t.Start();
                t.Join();
                sink += Chain(3).GetAwaiter().GetResult();
            }
            if (clock.ElapsedMilliseconds >= nextReport)
            {
                nextReport += 60_000;
                GC.Collect();
                GC.WaitForPendingFinalizers();
                Console.WriteLine($"soak t={clock.ElapsedMilliseconds / 1000} rss_kb={RssKb()}");
            }
            Thread.Sleep(5);
        }
        GC.Collect();
        Console.WriteLine($"soak t={clock.ElapsedMilliseconds / 1000} rss_kb={RssKb()}");
    }

    sealed class Box { public int Value = 1; }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Fault(Box? box) => box!.Value;

    static void RunFaults(int ms)
    {
        long caught = 0;
        var threads = new List<Thread>();
        for (int t = 0; t < 4; t++)
        {
            var thread = new Thread(() =>
            {
                var clock = Stopwatch.StartNew();
                long mine = 0;
                while (clock.ElapsedMilliseconds < ms)
                {
                    try { sink += Fault(null); }
                    catch (NullReferenceException) { mine++; }
                }
                Interlocked.Add(ref caught, mine);
            });
            thread.Start();
            threads.Add(thread);
        }
        foreach (var thread in threads) thread.Join();
        Console.WriteLine($"faults caught={caught}");
    }

    static void RunCpuWait(int ms)
    {
        var gate = new object();
        bool released = false, waiting = false;
        var waiter = new Thread(() =>
        {
            lock (gate)
            {
                waiting = true;
                Monitor.PulseAll(gate);
                while (!released) Monitor.Wait(gate);
            }
        }) { Name = "waiter" };
        waiter.Start();
        lock (gate) { while (!waiting) Monitor.Wait(gate); }  // the waiter waits before the work starts
        sink += Crunch(ms);
        lock (gate) { released = true; Monitor.PulseAll(gate); }
        waiter.Join();
        Console.WriteLine("cpuwait done");
    }

    // Short bursts of work between sleeps: the sampler must tell the thread's time on a CPU from its sleeps at each
    // sample, including the first sample of each sleep.
    static void RunDutyCycle(int ms)
    {
        long burnTicks = 0, sleepTicks = 0, waitNs = 0;
        var cycler = new Thread(() =>
        {
            long waitedBefore = RunQueueWaitNs();
            var total = Stopwatch.StartNew();
            while (total.ElapsedMilliseconds < ms)
            {
                long start = Stopwatch.GetTimestamp();
                sink += Burn(2);
                long burnt = Stopwatch.GetTimestamp();
                Thread.Sleep(3);
                burnTicks += burnt - start;
                sleepTicks += Stopwatch.GetTimestamp() - burnt;
            }
            waitNs = waitedBefore < 0 ? -1 : RunQueueWaitNs() - waitedBefore;
        }) { Name = "cycler" };
        cycler.Start();
        cycler.Join();
        Console.WriteLine($"dutycycle burn_ms={burnTicks * 1000 / Stopwatch.Frequency} " +
                          $"sleep_ms={sleepTicks * 1000 / Stopwatch.Frequency} " +
                          $"wait_ms={(waitNs < 0 ? -1 : waitNs / 1_000_000)}");
    }

    // The time this thread has spent ready to run, waiting for a CPU (the kernel's schedstat, second field), or -1
    // where the kernel does not say.
    static long RunQueueWaitNs()
    {
        try
        {
            string[] fields = File.ReadAllText("/proc/thread-self/schedstat").Split(' ');
            return fields.Length > 1 && long.TryParse(fields[1], out long ns) ? ns : -1;
        }
        catch (IOException)
        {
            return -1;
        }
    }

    // Arithmetic for `ms` milliseconds, the clock read every 10,000 iterations.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Burn(int ms)
    {
        var clock = Stopwatch.StartNew();
        long x = 1;
        while (clock.Elapsed.TotalMilliseconds < ms)
            for (int i = 0; i < 10_000; i++) x = x * 6364136223846793005L + i;
        return x & 1;
    }

    // Arithmetic for `ms` milliseconds, the clock read only every million iterations.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Crunch(int ms)
    {
        var clock = Stopwatch.StartNew();
        long x = 1;
        while (clock.ElapsedMilliseconds < ms)
            for (int i = 0; i < 1_000_000; i++) x = x * 6364136223846793005L + i;
        return x & 1;
    }

    static long RssKb()
    {
        foreach (string line in File.ReadLines("/proc/self/status"))
            if (line.StartsWith("VmRSS:")) return long.Parse(line.Split(' ', StringSplitOptions.RemoveEmptyEntries)[1]);
        return -1;
    }
}
