// Start-up cost: a program that touches common framework code (collections, LINQ, string formatting, a task)
// and exits, so its run time is mostly the runtime starting and compiling or loading that code.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;

public static class Program
{
    public static async Task<int> Main()
    {
        var words = new List<string> { "umbra", "start", "up", "time" };
        var lengths = words.Select(w => w.Length).Where(n => n > 1).OrderBy(n => n).ToArray();
        var map = words.ToDictionary(w => w, w => w.ToUpperInvariant());
        int sum = await Task.Run(() => lengths.Sum());
        Console.WriteLine($"startup ok {sum} {map["up"]} {string.Join(',', lengths)}");
        return 0;
    }
}
