// YamlDotNet on the four object graphs (round trips, polymorphism by tags, JSON read as YAML) and on generated
// configuration documents read through the representation model (anchors and aliases as shared nodes), the event
// parser and the merging parser (merge keys).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using Newtonsoft.Json;
using Newtonsoft.Json.Converters;
using Newtonsoft.Json.Serialization;
using Xunit;
using YamlDotNet.Core;
using YamlDotNet.Core.Events;
using YamlDotNet.RepresentationModel;
using YamlDotNet.Serialization;
using YamlDotNet.Serialization.NamingConventions;

namespace LibrarySuite;

public class YamlTests
{
    static readonly ISerializer Serializer = new SerializerBuilder()
        .WithNamingConvention(CamelCaseNamingConvention.Instance)
        .WithTagMapping("!circle", typeof(Circle)).WithTagMapping("!rect", typeof(Rect))
        .WithTagMapping("!polygon", typeof(Polygon))
        .WithQuotingNecessaryStrings()
        .EnsureRoundtrip()
        .Build();
    static readonly IDeserializer Deserializer = new DeserializerBuilder()
        .WithNamingConvention(CamelCaseNamingConvention.Instance)
        .WithTagMapping("!circle", typeof(Circle)).WithTagMapping("!rect", typeof(Rect))
        .WithTagMapping("!polygon", typeof(Polygon))
        .Build();

    public static TheoryData<GraphShape, int> Graphs => Make.ShapesAndSeeds(35);
    // $type means nothing to YAML: no drawings.
    public static TheoryData<GraphShape, int> PlainGraphs =>
        Make.ShapesAndSeeds(35, GraphShape.Order, GraphShape.Tree, GraphShape.Inventory);
    public static TheoryData<int> Documents => Make.Seeds(100, 300);

    [Theory, MemberData(nameof(Graphs))]
    public void RoundTrips(GraphShape shape, int seed)
    {
        object graph = Make.Graph(shape, seed);
        string yaml = Serializer.Serialize(graph);
        object back = Deserializer.Deserialize(yaml, graph.GetType())!;
        Assert.Equal(Fingerprint.Of(graph), Fingerprint.Of(back));
        Assert.Equal(yaml, Serializer.Serialize(back));
    }

    // JSON is YAML: what Newtonsoft.Json writes, YamlDotNet reads into the same objects.
    [Theory, MemberData(nameof(PlainGraphs))]
    public void ReadsJson(GraphShape shape, int seed)
    {
        object graph = Make.Graph(shape, seed);
        string json = JsonConvert.SerializeObject(graph, new JsonSerializerSettings
        {
            ContractResolver = new DefaultContractResolver { NamingStrategy = new CamelCaseNamingStrategy() },
            Converters = { new StringEnumConverter() },
            Formatting = seed % 2 == 0 ? Formatting.Indented : Formatting.None,
        });
        object back = Deserializer.Deserialize(json, graph.GetType())!;
        Assert.Equal(Fingerprint.Of(graph), Fingerprint.Of(back));
    }

    // A configuration with shared defaults: an anchor on the defaults, an alias or a merge key in each service.
    static (string Yaml, int Services, int Ports, List<string> Names) Config(int seed)
    {
        var r = new Random(seed);
        var yaml = new StringBuilder("# generated\nversion: ").Append(r.Next(1, 5)).Append('\n');
        yaml.Append("defaults: &defaults\n  retries: ").Append(r.Next(1, 9)).Append("\n  timeout: ")
            .Append(r.Next(5, 120)).Append("\n  region: ").Append(Make.Word(r)).Append('\n');
        yaml.Append("services:\n");
        int services = r.Next(1, 25), ports = 0;
        var names = new List<string>();
        for (int i = 0; i < services; i++)
        {
            string name = $"{Make.Word(r)}-{i}";
            names.Add(name);
            yaml.Append("  - name: ").Append(name).Append('\n');
            if (i % 2 == 0) yaml.Append("    settings: *defaults\n");
            else yaml.Append("    settings:\n      <<: *defaults\n      timeout: ").Append(1000 + i).Append('\n');
            int p = r.Next(0, 5);
            ports += p;
            if (r.Next(2) == 0)
                yaml.Append("    ports: [").Append(string.Join(", ", Enumerable.Range(8000 + i * 10, p))).Append("]\n");
            else
            {
                yaml.Append("    ports:").Append(p == 0 ? " []\n" : "\n");
                for (int j = 0; j < p; j++) yaml.Append("      - ").Append(8000 + i * 10 + j).Append('\n');
            }
            yaml.Append("    description: |\n      ").Append(Make.Phrase(r, 3, 9)).Append("\n      ")
                .Append(Make.Phrase(r, 1, 5)).Append('\n');
        }
        return (yaml.ToString(), services, ports, names);
    }

    [Theory, MemberData(nameof(Documents))]
    public void RepresentationModelSharesAliasedNodes(int seed)
    {
        var (text, services, ports, names) = Config(seed);
        var stream = new YamlStream();
        stream.Load(new StringReader(text));
        var root = (YamlMappingNode)stream.Documents[0].RootNode;
        var defaults = root["defaults"];
        var list = (YamlSequenceNode)root["services"];
        Assert.Equal(services, list.Children.Count);
        Assert.Equal(names, list.Children.Select(s => ((YamlScalarNode)s["name"]).Value));
        Assert.Equal(ports, list.Children.Sum(s => ((YamlSequenceNode)s["ports"]).Children.Count));
        for (int i = 0; i < services; i += 2) Assert.Same(defaults, list[i]["settings"]);
        Assert.All(list.Children, s => Assert.EndsWith("\n", ((YamlScalarNode)s["description"]).Value));

        // Saved and loaded again: the same tree.
        var saved = new StringWriter();
        stream.Save(saved, assignAnchors: false);
        var again = new YamlStream();
        again.Load(new StringReader(saved.ToString()));
        Assert.Equal(Shape(stream.Documents[0].RootNode), Shape(again.Documents[0].RootNode));
    }

    static string Shape(YamlNode node) => node switch
    {
        YamlScalarNode s => $"'{s.Value}'",
        YamlSequenceNode q => $"[{string.Join(",", q.Children.Select(Shape))}]",
        YamlMappingNode m => $"{{{string.Join(",", m.Children.Select(kv => Shape(kv.Key) + ":" + Shape(kv.Value)))}}}",
        _ => "?",
    };

    [Theory, MemberData(nameof(Documents))]
    public void MergeKeysAndEvents(int seed)
    {
        var (text, services, ports, _) = Config(seed);
        var parser = new Parser(new StringReader(text));
        int aliases = 0, sequences = 0;
        while (parser.MoveNext())
        {
            switch (parser.Current)
            {
                case AnchorAlias: aliases++; break;
                case SequenceStart: sequences++; break;
            }
        }
        Assert.Equal(services, aliases);
        Assert.Equal(1 + services, sequences);

        var merged = new DeserializerBuilder().Build()
            .Deserialize<Dictionary<string, object>>(new MergingParser(new Parser(new StringReader(text))));
        var list = (List<object>)merged["services"];
        Assert.Equal(services, list.Count);
        for (int i = 0; i < services; i++)
        {
            var settings = (Dictionary<object, object>)((Dictionary<object, object>)list[i])["settings"];
            Assert.Equal(3, settings.Count);
            var defaults = (Dictionary<object, object>)merged["defaults"];
            Assert.Equal(defaults["retries"], settings["retries"]);
            Assert.Equal(i % 2 == 0 ? defaults["timeout"] : (1000 + i).ToString(), settings["timeout"]);
        }
        Assert.Equal(ports, list.Sum(s => ((List<object>)((Dictionary<object, object>)s)["ports"]).Count));
    }
}
