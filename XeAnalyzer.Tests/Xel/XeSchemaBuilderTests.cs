using System.Reflection;
using XeAnalyzer.Events;

namespace XeAnalyzer.Tests.Xel;

[TestFixture]
public sealed class XeSchemaBuilderTests
{
    [Test]
    public void Build_HandsOutTheSchemaWithWhatWasAdded_AndRefusesChangesAfterwards()
    {
        var builder = new XeSchemaBuilder(4);
        XePackage sqlos = builder.AddPackage("sqlos", 1);
        XeMap opcode = builder.AddMap(sqlos, "event_opcode", [new(0, "Begin"), new(1, "End")]);
        XeEventType wait = builder.AddEvent(
            sqlos,
            "wait_info",
            Guid.Parse("992caa1d-ef90-4278-9821-ebdd0180db0c"),
            [XeFieldDefinition.Of("opcode", opcode), XeFieldDefinition.Of("duration", XeBaseType.UInt64)]
        );
        XeColumn scheduler = builder.AddAction(sqlos, "scheduler_id", XeBaseType.UInt32);

        XeSchema schema = builder.Build();

        Assert.Multiple(() =>
        {
            Assert.That(schema.PointerSize, Is.EqualTo(4));
            Assert.That(schema.FindEventType("wait_info"), Is.SameAs(wait));
            Assert.That(schema.FindAction("scheduler_id"), Is.SameAs(scheduler));
            Assert.That(schema.Maps, Does.Contain(opcode));
            Assert.That(builder.Build(), Is.SameAs(schema), "Build is idempotent");
        });
        var e = Assert.Throws<InvalidOperationException>(() =>
            builder.AddAction(sqlos, "session_id", XeBaseType.UInt16)
        );
        Assert.That(e!.Message, Does.Contain("built"));
        Assert.Throws<InvalidOperationException>(() => _ = builder.Package0);
        Assert.That(schema.FindAction("session_id"), Is.Null, "the refused action did not reach the schema");
    }

    [Test]
    public void XeSchema_HasNoPublicMutatorsOrConstructor()
    {
        Type t = typeof(XeSchema);
        Assert.That(t.GetConstructors(BindingFlags.Public | BindingFlags.Instance), Is.Empty);
        string[] mutators =
        [
            .. t.GetMethods(BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static)
                .Where(m =>
                    m.Name.StartsWith("Add", StringComparison.Ordinal)
                    || m.Name.StartsWith("Import", StringComparison.Ordinal)
                )
                .Select(m => m.Name),
        ];
        Assert.That(mutators, Is.Empty);
        Assert.That(t.GetProperties().Where(p => p.SetMethod is { IsPublic: true }), Is.Empty);
    }

    [Test]
    public void ImportAll_CopiesAReadSchemaWithItsIdentities()
    {
        XeSchema source = XelFixtures.LatchSchema(out XeEventType latch, out _);
        var builder = new XeSchemaBuilder(source.PointerSize);
        builder.ImportAll(source);
        XeSchema copy = builder.Build();
        XeEventType copied = copy.FindEventType(latch.Name)!;
        Assert.That(copied, Is.Not.Null);
        Assert.That(copied.Rid, Is.EqualTo(latch.Rid));
        Assert.That(copied.Uuid, Is.EqualTo(latch.Uuid));
        Assert.That(copied.Fields.Select(f => f.Name), Is.EqualTo(latch.Fields.Select(f => f.Name)));
    }
}
