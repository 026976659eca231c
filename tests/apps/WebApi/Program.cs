// An ASP.NET Core minimal API on 127.0.0.1 for umbra's real-program tests. Usage: WebApi PORT_FILE [ROUNDS]
// Binds an ephemeral port and writes its address to PORT_FILE; GET /orders/{id} prices an order (ROUNDS rounds of
// arithmetic, 200 unless given: more make the pricing a larger share of each request); POST /shutdown stops it,
// after which it prints how many orders it served.
using System.Runtime.CompilerServices;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;

if (args.Length > 1) Orders.Rounds = int.Parse(args[1]);
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

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Price(int id)
    {
        Interlocked.Increment(ref Served);
        long price = id;
        for (int i = 0; i < Rounds; i++) price = price * 31 + (i ^ id);
        return price & 0xffff;
    }
}
