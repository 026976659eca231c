// Newtonsoft.Json on the four object graphs: round trips under several settings (polymorphism by $type through a
// binder that knows the model), LINQ to JSON and JSONPath against the objects, token-by-token copies through the
// streaming reader and writer; and System.Text.Json reading what Newtonsoft.Json writes, and the other way round.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Newtonsoft.Json;
using Newtonsoft.Json.Converters;
using Newtonsoft.Json.Linq;
using Newtonsoft.Json.Serialization;
using Xunit;
using Stj = System.Text.Json;

namespace LibrarySuite;

// $type names only this model's types: a document cannot make the serializer build anything else.
sealed class ModelBinder : ISerializationBinder
{
    public Type BindToType(string? assemblyName, string typeName)
    {
        Type? type = typeof(Shape).Assembly.GetType(typeName);
        if (type == null || type.Namespace != nameof(LibrarySuite))
            throw new JsonSerializationException($"type {typeName} is not part of the model");
        return type;
    }

    public void BindToName(Type serializedType, out string? assemblyName, out string? typeName)
    {
        assemblyName = null;
        typeName = serializedType.FullName;
    }
}

public class JsonTests
{
    static readonly JsonSerializerSettings[] Settings =
    {
        new() { TypeNameHandling = TypeNameHandling.Auto, SerializationBinder = new ModelBinder() },
        new()
        {
            TypeNameHandling = TypeNameHandling.Auto, SerializationBinder = new ModelBinder(),
            ContractResolver = new DefaultContractResolver { NamingStrategy = new CamelCaseNamingStrategy() },
            Formatting = Formatting.Indented, Converters = { new StringEnumConverter() },
        },
        new()
        {
            TypeNameHandling = TypeNameHandling.Auto, SerializationBinder = new ModelBinder(),
            NullValueHandling = NullValueHandling.Ignore, DefaultValueHandling = DefaultValueHandling.Ignore,
            ContractResolver = new DefaultContractResolver { NamingStrategy = new SnakeCaseNamingStrategy() },
            DateFormatString = "yyyy'-'MM'-'dd'T'HH':'mm':'ss.FFFFFFFK",
        },
    };

    // The settings both libraries agree on: camelCase names, enums by name, ISO 8601 dates.
    static readonly JsonSerializerSettings Camel = Settings[1];
    static readonly Stj.JsonSerializerOptions StjCamel = new(Stj.JsonSerializerDefaults.Web)
    {
        Converters = { new System.Text.Json.Serialization.JsonStringEnumConverter() },
    };

    public static TheoryData<GraphShape, int> Graphs => Make.ShapesAndSeeds(70);
    public static TheoryData<int> Orders => Make.Seeds(200, 1000);

    [Theory, MemberData(nameof(Graphs))]
    public void RoundTripsUnderEverySetting(GraphShape shape, int seed)
    {
        object graph = Make.Graph(shape, seed);
        string expected = Fingerprint.Of(graph);
        foreach (var settings in Settings)
        {
            string json = JsonConvert.SerializeObject(graph, settings);
            object back = JsonConvert.DeserializeObject(json, graph.GetType(), settings)!;
            Assert.Equal(expected, Fingerprint.Of(back));
            Assert.Equal(json, JsonConvert.SerializeObject(back, settings));
        }
    }

    [Theory, MemberData(nameof(Graphs))]
    public void SystemTextJsonAgreesWithNewtonsoft(GraphShape shape, int seed)
    {
        object graph = Make.Graph(shape, seed);
        string expected = Fingerprint.Of(graph);
        Type type = graph.GetType();

        JToken written = JToken.Parse(JsonConvert.SerializeObject(graph, Camel));
        if (graph is Drawing) Rename(written, "$type", "kind", Discriminator);
        object read = Stj.JsonSerializer.Deserialize(written.ToString(Formatting.None), type, StjCamel)!;
        Assert.Equal(expected, Fingerprint.Of(read));

        JToken other = JToken.Parse(Stj.JsonSerializer.Serialize(graph, type, StjCamel));
        if (graph is Drawing) Rename(other, "kind", "$type", TypeName);
        Assert.Equal(expected, Fingerprint.Of(other.ToObject(type, JsonSerializer.Create(Camel))!));
    }

    static string Discriminator(string typeName) => typeName[(typeName.LastIndexOf('.') + 1)..].ToLowerInvariant();

    static string TypeName(string discriminator) =>
        $"{nameof(LibrarySuite)}.{char.ToUpperInvariant(discriminator[0])}{discriminator[1..]}";

    // Moves each shape's type to the other library's property, first in the object, where both look for it.
    static void Rename(JToken root, string from, string to, Func<string, string> convert)
    {
        foreach (JObject shape in root["shapes"]!.Cast<JObject>())
        {
            var type = (string)shape[from]!;
            shape.Remove(from);
            shape.AddFirst(new JProperty(to, convert(type)));
        }
    }

    [Theory, MemberData(nameof(Orders))]
    public void LinqToJsonAgreesWithTheObjects(int seed)
    {
        Order order = Make.Order(seed);
        var serializer = JsonSerializer.Create(Camel);
        JObject o = JObject.FromObject(order, serializer);
        JArray lines = (JArray)o["lines"]!;
        Assert.Equal(order.Lines.Count, lines.Count);
        Assert.Equal(order.Lines.Count(l => l.Quantity >= 10), o.SelectTokens("$.lines[?(@.quantity >= 10)]").Count());
        Assert.Equal(order.Lines.Sum(l => l.Quantity), o.SelectTokens("$.lines[*].quantity").Sum(t => (int)t));
        Assert.Equal(order.Lines.SelectMany(l => l.Tags), o.SelectTokens("$..tags[*]").Select(t => (string)t!));
        Assert.Equal(order.Customer.Address.City, (string)o.SelectToken("customer.address.city")!);
        decimal total = lines.Sum(l => (decimal)l["quantity"]! * (decimal)l["unitPrice"]!)
                        - ((decimal?)o["discount"] ?? 0);
        Assert.Equal(order.Total(), total);

        // Changed through the DOM, then read back as objects.
        foreach (JObject line in lines.Cast<JObject>()) line["quantity"] = (int)line["quantity"]! * 2;
        o["note"] = "changed";
        Order changed = o.ToObject<Order>(serializer)!;
        Assert.Equal("changed", changed.Note);
        Assert.Equal(order.Lines.Sum(l => 2 * l.Quantity * l.UnitPrice),
                     changed.Lines.Sum(l => l.Quantity * l.UnitPrice));

        Assert.True(JToken.DeepEquals(o, JToken.Parse(o.ToString(Formatting.Indented))));
        Assert.False(JToken.DeepEquals(o, JObject.FromObject(order, serializer)));
    }

    [Theory, MemberData(nameof(Graphs))]
    public void StreamingCopyKeepsEveryToken(GraphShape shape, int seed)
    {
        object graph = Make.Graph(shape, seed);
        string json = JsonConvert.SerializeObject(graph, Settings[0]);
        var reader = new JsonTextReader(new StringReader(json)) { DateParseHandling = DateParseHandling.None };
        var text = new StringWriter();
        var writer = new JsonTextWriter(text) { Formatting = Formatting.Indented };
        var seen = new Dictionary<JsonToken, int>();
        while (reader.Read())
        {
            seen[reader.TokenType] = seen.GetValueOrDefault(reader.TokenType) + 1;
            writer.WriteToken(reader, writeChildren: false);
        }
        writer.Flush();

        var load = new JsonSerializerSettings { DateParseHandling = DateParseHandling.None };
        JToken original = JsonConvert.DeserializeObject<JToken>(json, load)!;
        JToken copy = JsonConvert.DeserializeObject<JToken>(text.ToString(), load)!;
        Assert.True(JToken.DeepEquals(original, copy));
        var all = ((JContainer)original).DescendantsAndSelf().ToList();
        Assert.Equal(all.OfType<JProperty>().Count(), seen.GetValueOrDefault(JsonToken.PropertyName));
        Assert.Equal(all.OfType<JObject>().Count(), seen.GetValueOrDefault(JsonToken.StartObject));
        Assert.Equal(all.OfType<JArray>().Count(), seen.GetValueOrDefault(JsonToken.EndArray));
        object back = copy.ToObject(graph.GetType(), JsonSerializer.Create(Settings[0]))!;
        Assert.Equal(Fingerprint.Of(graph), Fingerprint.Of(back));
    }

    [Theory]
    [InlineData("System.IO.FileInfo")]
    [InlineData("System.Diagnostics.Process")]
    [InlineData("LibrarySuite.Missing")]
    public void BinderRefusesTypesOutsideTheModel(string typeName)
    {
        string json = $"{{\"Title\":\"t\",\"Shapes\":[{{\"$type\":\"{typeName}\",\"Id\":\"x\"}}]}}";
        Assert.Throws<JsonSerializationException>(() => JsonConvert.DeserializeObject<Drawing>(json, Settings[0]));
    }
}
