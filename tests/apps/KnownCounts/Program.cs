// A program whose exact call counts are known, for umbra's end-to-end tests.
// No call below is in tail position (every result is used afterwards), so optimized code makes no tail calls.
using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace KnownCounts;

public static class Program
{
    static long sink;

    public static int Main(string[] args)
    {
        RunLoop();
        long fib = RunRecursion();
        RunGenerics();
        RunWorkers();
        RunShortLivedThreads();
        int caught = RunExceptions();
        int abi = RunRegisterArguments();
        RunTimed();
        Console.WriteLine($"fib={fib} caught={caught} sink={sink} abi={abi}");
        return 3;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void RunLoop()
    {
        for (int i = 0; i < 1000; i++) sink += Leaf(i);
        sink++;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Leaf(int i) => i & 7;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long RunRecursion()
    {
        long r = Fib(20);
        sink++;
        return r;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Fib(int n) => n < 2 ? n : Fib(n - 1) + Fib(n - 2);

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void RunGenerics()
    {
        var ints = new Box<int>(7);
        var strings = new Box<string>("x");
        for (int i = 0; i < 30; i++) sink += ints.Get();
        for (int i = 0; i < 20; i++) sink += strings.Get().Length;
        for (int i = 0; i < 10; i++) sink += Outer.Inner.Nested();
        sink++;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void RunWorkers()
    {
        var threads = new Thread[4];
        for (int k = 1; k <= 4; k++)
        {
            int count = k * 100;
            threads[k - 1] = new Thread(() => WorkerBody(count)) { Name = $"Worker-{k}" };
            threads[k - 1].Start();
        }
        foreach (var t in threads) t.Join();
        sink++;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void WorkerBody(int count)
    {
        long local = 0;
        for (int i = 0; i < count; i++) local += Work(i);
        Interlocked.Add(ref sink, local);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Work(int i) => i % 3;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void RunShortLivedThreads()
    {
        for (int batch = 0; batch < 10; batch++)
        {
            var threads = new Thread[50];
            for (int i = 0; i < threads.Length; i++)
            {
                threads[i] = new Thread(ShortLived);
                threads[i].Start();
            }
            foreach (var t in threads) t.Join();
        }
        sink++;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void ShortLived()
    {
        Interlocked.Add(ref sink, ShortLivedBody());
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int ShortLivedBody() => 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int RunExceptions()
    {
        int caught = 0;
        for (int i = 0; i < 100; i++)
        {
            try
            {
                sink += Level1(i);
            }
            catch (InvalidOperationException)
            {
                caught++;
            }
            sink += AfterCatch(i);
        }
        return caught;
    }

    [MethodImpl(MethodImplOptions.NoInlining)] static int Level1(int i) { int r = Level2(i); return r + 1; }
    [MethodImpl(MethodImplOptions.NoInlining)] static int Level2(int i) { int r = Level3(i); return r + 1; }
    [MethodImpl(MethodImplOptions.NoInlining)] static int Level3(int i) { int r = Level4(i); return r + 1; }
    [MethodImpl(MethodImplOptions.NoInlining)] static int Level4(int i) { int r = Level5(i); return r + 1; }
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Level5(int i) => throw new InvalidOperationException("known");

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int AfterCatch(int i) => i & 1;

    // Calls of known least duration: four 50 ms pauses, 5,000 spins of at least 20 microseconds each, and 20
    // nested layers, each called once and spinning at least 50 microseconds before it calls the next.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void RunTimed()
    {
        for (int i = 0; i < 4; i++) Pause();
        for (int i = 0; i < 5000; i++) Spin();
        if (Layer(20) != 20) throw new InvalidOperationException("layers");
        sink++;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Pause() => Thread.Sleep(50);

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Spin()
    {
        long until = System.Diagnostics.Stopwatch.GetTimestamp() + System.Diagnostics.Stopwatch.Frequency / 50000;
        while (System.Diagnostics.Stopwatch.GetTimestamp() < until) { }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Layer(int depth)
    {
        long until = System.Diagnostics.Stopwatch.GetTimestamp() + System.Diagnostics.Stopwatch.Frequency / 20000;
        while (System.Diagnostics.Stopwatch.GetTimestamp() < until) { }
        int below = depth > 1 ? Layer(depth - 1) : 0;
        return below + 1;
    }

    // Arguments and return values that live in registers while the enter and leave hooks run: six integer and
    // eight floating-point arguments, and structs returned in rax:rdx and xmm0:xmm1. Counts the calls whose
    // results come back intact (50 when the hooks preserve every register).
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int RunRegisterArguments()
    {
        int intact = 0;
        for (int i = 0; i < 50; i++)
        {
            double d = ManyArguments(i, i + 1, i + 2, i + 3, i + 4, i + 5, 0.5 * i, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5);
            DoublePair p = TwoDoubles(i);
            LongPair l = TwoLongs(i);
            if (d == 6 * i + 15 + 0.5 * i + 31.5 && p.A == i * 0.25 && p.B == -i && l.A == i * 3L && l.B == -(long)i)
                intact++;
        }
        return intact;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static double ManyArguments(int a, int b, int c, int d, int e, int f, double x0, double x1, double x2, double x3,
                                double x4, double x5, double x6, double x7) =>
        a + b + c + d + e + f + x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static DoublePair TwoDoubles(int i) => new DoublePair(i * 0.25, -i);

    [MethodImpl(MethodImplOptions.NoInlining)]
    static LongPair TwoLongs(int i) => new LongPair(i * 3L, -(long)i);
}

public readonly record struct DoublePair(double A, double B);
public readonly record struct LongPair(long A, long B);

public sealed class Box<T>
{
    readonly T value;
    public Box(T value) { this.value = value; }
    [MethodImpl(MethodImplOptions.NoInlining)]
    public T Get() => value;
}

public static class Outer
{
    public static class Inner
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Nested() => 2;
    }
}
