// A bounded HTTP load for umbra's real-program tests.
// Usage: LoadClient BASE_URL SECONDS CONNECTIONS [ROUNDS [STOP_FILE]]
// Each connection sends GET /orders/{n} back to back for SECONDS (or until STOP_FILE exists) and checks every answer
// against the price the server must compute (ROUNDS as the server was given, 200 unless given); then one
// POST /shutdown. Prints requests, failures, throughput and latency percentiles.
using System.Diagnostics;

string baseUrl = args[0];
int seconds = int.Parse(args[1]), connections = int.Parse(args[2]);
int rounds = args.Length > 3 ? int.Parse(args[3]) : 200;
string? stopFile = args.Length > 4 ? args[4] : null;
bool stopped = false;
using var client = new HttpClient { BaseAddress = new Uri(baseUrl), Timeout = TimeSpan.FromSeconds(30) };
var latencies = new List<double>[connections];
long failures = 0;
var clock = Stopwatch.StartNew();
var workers = Enumerable.Range(0, connections).Select(c => Task.Run(async () =>
{
    var mine = latencies[c] = new List<double>();
    for (int n = c; clock.Elapsed.TotalSeconds < seconds && !Volatile.Read(ref stopped); n += connections)
    {
        long start = Stopwatch.GetTimestamp();
        try
        {
            string body = await client.GetStringAsync($"/orders/{n}");
            if (body != Price(n, rounds).ToString()) Interlocked.Increment(ref failures);
        }
        catch (Exception) { Interlocked.Increment(ref failures); }
        mine.Add(Stopwatch.GetElapsedTime(start).TotalMilliseconds);
    }
})).ToArray();
if (stopFile != null)
{
    while (!Task.WhenAll(workers).Wait(50))
        if (File.Exists(stopFile)) Volatile.Write(ref stopped, true);
}
Task.WaitAll(workers);
double elapsed = clock.Elapsed.TotalSeconds;
(await client.PostAsync("/shutdown", null)).EnsureSuccessStatusCode();
var all = latencies.SelectMany(l => l).OrderBy(x => x).ToArray();
double Percentile(double p) => all.Length == 0 ? 0 : all[Math.Min(all.Length - 1, (int)(p * all.Length))];
Console.WriteLine($"requests={all.Length} failures={failures} rps={all.Length / elapsed:F0} " +
                  $"p50_ms={Percentile(0.5):F2} p99_ms={Percentile(0.99):F2}");

static long Price(int id, int rounds)
{
    long price = id;
    for (int i = 0; i < rounds; i++) price = price * 31 + (i ^ id);
    return price & 0xffff;
}
