// An ASP.NET Core minimal API on 127.0.0.1 for umbra's real-program tests.
// Usage: WebApi PORT_FILE [ROUNDS [FAULT_EVERY]]
// Binds an ephemeral port and writes its address to PORT_FILE; GET /orders/{id} prices an order (ROUNDS rounds of
// arithmetic, 200 unless given: more make the pricing a larger share of each request; with FAULT_EVERY, every
// order whose id it divides also reads through a null reference and catches the NullReferenceException, which the
// runtime raises from a SIGSEGV); POST /shutdown stops it, after which it prints how many orders it served.
using System.Runtime.CompilerServices;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;

if (args.Length > 1) Orders.Rounds = int.Parse(args[1]);
if (args.Length > 2) Orders.FaultEvery = int.Parse(args[2]);
var builder = WebApplication.CreateSlimBuilder(args);
builder.Logging.ClearProviders();
builder.WebHost.UseUrls("http://127.0.0.1:0");
var app = builder.Build();
app.MapGet("/orders/{id:int}", (int id) => Results.Text(Orders.Price(id).ToString()));
app.MapPost("/shutdown", (IHostApplicationLifetime life) =>
{
    life.StopApplication();
    return Results.Text("bye");
});
await app.StartAsync();
string address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
File.WriteAllText(args[0] + ".tmp", address);
File.Move(args[0] + ".tmp", args[0]);
await app.WaitForShutdownAsync();
Console.WriteLine($"served {Orders.Served}");

static class Orders
{
    public static long Served;
    public static int Rounds = 200;
    public static int FaultEvery = 0;
    static Box? s_nothing = null;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Price(int id)
    {
        Interlocked.Increment(ref Served);
        long price = id;
        for (int i = 0; i < Rounds; i++) price = price * 31 + (i ^ id);
        if (FaultEvery > 0 && id % FaultEvery == 0) price += ReadThroughNull();
        return price & 0xffff;
    }

    // 0, after a fault the runtime turns into a NullReferenceException.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static long ReadThroughNull()
    {
        try { return Volatile.Read(ref s_nothing)!.Value; }
        catch (NullReferenceException) { return 0; }
    }
}

sealed class Box
{
    public long Value = 1;
}
