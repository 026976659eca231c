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
        Console.WriteLine($"fib={fib} caught={caught} sink={sink}");
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
}

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
