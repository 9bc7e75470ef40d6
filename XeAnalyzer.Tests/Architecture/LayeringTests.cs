using System.Globalization;
using System.Reflection;
using System.Reflection.Emit;
using System.Text.RegularExpressions;
using XeAnalyzer.Callstacks;

namespace XeAnalyzer.Tests.Architecture;

/// <summary>
/// Dependencies point down, as ARCHITECTURE.md states them (its "Layers" table is read here, so the document cannot
/// drift from the code): every type of the library, with everything it refers to (base type, interfaces, attributes,
/// fields, signatures, locals, and every type, method and field its IL names), may use its own namespace and those of
/// strictly lower layers only. A namespace's component is its folder under <c>XeAnalyzer/</c>
/// (<c>XeAnalyzer.Capture</c> is <c>Capture</c>), or, for a folder whose own folders the table orders too
/// (<c>Symbols.Pdb</c>, <c>Symbols.Catalog</c>…), the folder below it (<c>XeAnalyzer.Symbols.Store.Cab</c> is
/// <c>Symbols.Store</c>); such components are ordered among their siblings by that table.
/// </summary>
public sealed class LayeringTests
{
    private static readonly Assembly s_library = typeof(StackFrame).Assembly;

    private static readonly Lazy<IReadOnlyDictionary<string, int>> s_layers = new(() =>
        ReadLayers(Path.Combine(TestPaths.RepoRoot, "ARCHITECTURE.md"))
    );

    [Test]
    public void EveryNamespace_HasALayer()
    {
        string[] missing = LibraryTypes()
            .Select(t => Component(t))
            .Distinct()
            .Where(c => LayerOf(c) < 0)
            .Order(StringComparer.Ordinal)
            .ToArray();
        Assert.That(missing, Is.Empty, "namespaces without a layer in ARCHITECTURE.md's Layers table");
    }

    [Test]
    public void NoNamespace_UsesItsOwnLayerOrAHigherOne()
    {
        IReadOnlyList<string> violations = Violations(LibraryTypes(), s_layers.Value);
        Assert.That(violations, Is.Empty, "references that do not point down:\n" + string.Join('\n', violations));
    }

    [Test]
    public void TheCheck_SeesReferencesBetweenTheFoldersOfSymbols()
    {
        // The resolver takes a build's PDB identities from the catalog (CallstackResolverOptions.SqlBuild). With the
        // two folders swapped in an otherwise real table, that reference is a violation the check must report; the real
        // table allows it.
        string md = Path.Combine(Path.GetTempPath(), "layers-" + Guid.NewGuid().ToString("N") + ".md");
        string swapped = File.ReadAllText(Path.Combine(TestPaths.RepoRoot, "ARCHITECTURE.md"))
            .Replace("`Symbols.Catalog`", "`Symbols.Swap`", StringComparison.Ordinal)
            .Replace("`Symbols.Resolution`", "`Symbols.Catalog`", StringComparison.Ordinal)
            .Replace("`Symbols.Swap`", "`Symbols.Resolution`", StringComparison.Ordinal);
        File.WriteAllText(md, swapped);
        try
        {
            IReadOnlyDictionary<string, int> layers = ReadLayers(md);
            Assert.That(
                layers["Symbols.Resolution"],
                Is.LessThan(layers["Symbols.Catalog"]),
                "the synthetic table " + "swaps the two"
            );
            Assert.That(
                Violations(LibraryTypes(), layers),
                Has.Some.StartsWith(
                    "Symbols.Resolution -> " + "Symbols.Catalog: CallstackResolverOptions uses SqlBuildInfo"
                )
            );
            Assert.That(
                Violations(LibraryTypes(), s_layers.Value),
                Has.None.StartsWith("Symbols.Resolution -> " + "Symbols.Catalog")
            );
        }
        finally
        {
            File.Delete(md);
        }
    }

    [TestCase("Symbols.Catalog", "Symbols.Resolution", false)]
    [TestCase("Symbols.Resolution", "Symbols.Catalog", true)]
    [TestCase("Symbols.Pdb", "Symbols.Pe", false)]
    [TestCase("Symbols.Store", "Capture", false)]
    [TestCase("Capture", "Symbols.Resolution", true)]
    [TestCase("Symbols.Pe", "Callstacks", true)]
    public void MayUse_ComparesSiblingFoldersByTheirOwnTable(string own, string other, bool allowed)
    {
        Assert.That(MayUse(own, other, s_layers.Value), Is.EqualTo(allowed));
    }

    [Test]
    public void TheTable_StatesTheRulesTheProjectHolds()
    {
        // IO depends on nothing but the root namespace (the exception family).
        Assert.That(LayerOf("XeAnalyzer"), Is.Zero);
        Assert.That(
            s_layers
                .Value.Where(l => !l.Key.Contains('.', StringComparison.Ordinal) && l.Value <= LayerOf("IO"))
                .Select(l => l.Key),
            Is.EquivalentTo(new[] { "XeAnalyzer", "IO" })
        );

        // The format readers and the symbol resolver know nothing of captures, analyses or how results are written.
        foreach (string reader in new[] { "Xel", "TargetData", "Callstacks", "Symbols" })
        {
            foreach (string upper in new[] { "Capture", "Analysis", "Output", "Reporting", "Export", "Sql" })
            {
                Assert.That(LayerOf(reader), Is.LessThan(LayerOf(upper)), reader + " below " + upper);
            }
        }

        // The capture pipeline does not write (and the writers do not read captures): one layer, so neither uses the
        // other.
        Assert.That(LayerOf("Capture"), Is.EqualTo(LayerOf("Output")));
        Assert.That(LayerOf("Analysis"), Is.GreaterThan(LayerOf("Capture")));

        // Inside Symbols: the resolver sits on top; the catalog below it (it records builds from PE images, never
        // resolves); the file readers at the bottom, where none uses another.
        Assert.That(LayerOf("Symbols.Resolution"), Is.GreaterThan(LayerOf("Symbols.Catalog")));
        Assert.That(LayerOf("Symbols.Catalog"), Is.GreaterThan(LayerOf("Symbols.Store")));
        Assert.That(
            new[] { "Symbols.Pdb", "Symbols.Undecoration" }.Select(LayerOf),
            Is.All.EqualTo(LayerOf("Symbols.Pe"))
        );
    }

    [Test]
    public void References_SeeTypesNamedOnlyInsideMethodBodies()
    {
        // StackTextReader names TextInput only in IL (a static call in OpenFile); the walk must see it, or the layering
        // test above could not fail for such a reference.
        Assert.That(
            References(typeof(StackTextReader)).Select(r => r.Type),
            Does.Contain(typeof(XeAnalyzer.IO.TextInput))
        );

        // And types from lambdas and iterators, compiled into nested types, count for the namespace that wrote them.
        Assert.That(
            LibraryTypes()
                .Where(t => t.IsNested && t.Name.Contains('<', StringComparison.Ordinal))
                .All(t => LayerOf(Component(t)) >= 0),
            Is.True
        );
    }

    [TestCase("XeAnalyzer.Symbols.Pdb", "Symbols.Pdb")]
    [TestCase("XeAnalyzer.Symbols.Store.Cab", "Symbols.Store")]
    [TestCase("XeAnalyzer.Analysis.Stacks", "Analysis")]
    [TestCase("XeAnalyzer", "XeAnalyzer")]
    public void Component_IsTheFolderUnderTheLibrary(string ns, string component)
    {
        Assert.That(ComponentOf(ns, s_layers.Value), Is.EqualTo(component));
    }

    [Test]
    public void ReadLayers_ReadsTheRowsOfTheLayersSection_Only()
    {
        string md = Path.Combine(Path.GetTempPath(), "layers-" + Guid.NewGuid().ToString("N") + ".md");
        File.WriteAllText(
            md,
            "# A\n| 9 | `Other` |\n## Layers\n\n| Layer | Namespaces |\n|---|---|\n| 1 | `B`, `C` "
                + "(text) |\n| 0 | `A` |\n\n"
                + "| Layer in `B` | Namespaces |\n|---|---|\n| 1 | `B.Y` |\n| 0 | `B.X` |\n\n## Next\n| 5 | `D` |\n"
        );
        try
        {
            Assert.That(
                ReadLayers(md),
                Is.EquivalentTo(
                    new Dictionary<string, int>
                    {
                        ["A"] = 0,
                        ["B"] = 1,
                        ["C"] = 1,
                        ["B.X"] = 0,
                        ["B.Y"] = 1,
                    }
                )
            );
        }
        finally
        {
            File.Delete(md);
        }
    }

    /// <summary>The layers of ARCHITECTURE.md: the rows <c>| n | `Name`, `Name` |</c> of its <c>## Layers</c>
    /// section.</summary>
    internal static IReadOnlyDictionary<string, int> ReadLayers(string path)
    {
        var layers = new Dictionary<string, int>(StringComparer.Ordinal);
        bool inSection = false;
        foreach (string line in File.ReadLines(path))
        {
            if (line.StartsWith("## ", StringComparison.Ordinal))
            {
                inSection = line.Trim() == "## Layers";
                continue;
            }

            Match row = Regex.Match(line, @"^\|\s*(\d+)\s*\|(.*)\|\s*$");
            if (!inSection || !row.Success)
            {
                continue;
            }

            int layer = int.Parse(row.Groups[1].Value, CultureInfo.InvariantCulture);
            string names = Regex.Replace(row.Groups[2].Value, @"\([^)]*\)", string.Empty);
            foreach (Match name in Regex.Matches(names, "`([A-Za-z]+(?:\\.[A-Za-z]+)?)`"))
            {
                Assert.That(
                    layers.TryAdd(name.Groups[1].Value, layer),
                    Is.True,
                    name.Groups[1].Value + " appears twice in " + path
                );
            }
        }

        Assert.That(layers, Is.Not.Empty, "a Layers table in " + path);
        return layers;
    }

    /// <summary>
    /// The library's own types: those of the <c>XeAnalyzer</c> namespaces (not what the compiler adds in others, such
    /// as
    /// <c>&lt;PrivateImplementationDetails&gt;</c> or the regex generator's helpers).
    /// </summary>
    private static IEnumerable<Type> LibraryTypes() => s_library.GetTypes().Where(IsLibraryType);

    private static bool IsLibraryType(Type t) =>
        t.Assembly == s_library
        && t.Namespace is string ns
        && (ns == "XeAnalyzer" || ns.StartsWith("XeAnalyzer.", StringComparison.Ordinal));

    /// <summary>The layer of a component, or -1.</summary>
    internal static int LayerOf(string component) => s_layers.Value.TryGetValue(component, out int layer) ? layer : -1;

    /// <summary>
    /// The references of <paramref name="types"/> to library types of their own layer or a higher one under
    /// <paramref name="layers"/>, one line each (<c>own -> other: Type uses Type (where)</c>), in order.
    /// </summary>
    internal static IReadOnlyList<string> Violations(IEnumerable<Type> types, IReadOnlyDictionary<string, int> layers)
    {
        var violations = new SortedSet<string>(StringComparer.Ordinal);
        foreach (Type type in types)
        {
            string own = ComponentOf(type.Namespace ?? string.Empty, layers);
            foreach ((Type used, string where) in References(type))
            {
                string other = ComponentOf(used.Namespace ?? string.Empty, layers);
                if (IsLibraryType(used) && !MayUse(own, other, layers))
                {
                    violations.Add($"{own} -> {other}: {Name(type)} uses {Name(used)} ({where})");
                }
            }
        }

        return [.. violations];
    }

    /// <summary>
    /// Whether component <paramref name="own"/> may use <paramref name="other"/>: its own, or one of a strictly lower
    /// layer; two folders of one parent (<c>Symbols.Pe</c>, <c>Symbols.Catalog</c>) by the parent's own table, anything
    /// else by the main one.
    /// </summary>
    internal static bool MayUse(string own, string other, IReadOnlyDictionary<string, int> layers)
    {
        if (own == other)
        {
            return true;
        }

        string ownTop = own.Split('.')[0];
        string otherTop = other.Split('.')[0];
        return ownTop == otherTop ? Layer(other) < Layer(own) : Layer(otherTop) < Layer(ownTop);

        int Layer(string component) => layers.TryGetValue(component, out int layer) ? layer : int.MaxValue;
    }

    private static string Component(Type t) => ComponentOf(t.Namespace ?? string.Empty, s_layers.Value);

    private static string ComponentOf(string ns, IReadOnlyDictionary<string, int> layers)
    {
        string[] parts = ns.Split('.');
        if (parts.Length < 2 || parts[0] != "XeAnalyzer")
        {
            return parts[0];
        }

        bool ordersItsFolders =
            parts.Length >= 3 && layers.Keys.Any(k => k.StartsWith(parts[1] + ".", StringComparison.Ordinal));
        return ordersItsFolders ? parts[1] + "." + parts[2] : parts[1];
    }

    private static string Name(Type t) => t.IsNested ? Name(t.DeclaringType!) + "+" + t.Name : t.Name;

    /// <summary>Every type <paramref name="type"/> refers to, with where.</summary>
    internal static IEnumerable<(Type Type, string Where)> References(Type type)
    {
        var found = new List<(Type, string)>();
        void Add(Type? t, string where)
        {
            if (t is null)
            {
                return;
            }

            if (t.HasElementType)
            {
                Add(t.GetElementType(), where);
                return;
            }

            if (t.IsGenericParameter)
            {
                foreach (Type c in t.GetGenericParameterConstraints())
                {
                    Add(c, where);
                }

                return;
            }

            if (t.IsConstructedGenericType)
            {
                foreach (Type a in t.GetGenericArguments())
                {
                    Add(a, where);
                }

                t = t.GetGenericTypeDefinition();
            }

            found.Add((t, where));
        }

        const BindingFlags All =
            BindingFlags.Public
            | BindingFlags.NonPublic
            | BindingFlags.Instance
            | BindingFlags.Static
            | BindingFlags.DeclaredOnly;
        Add(type.BaseType, "base type");
        foreach (Type i in type.GetInterfaces())
        {
            Add(i, "interface");
        }

        foreach (CustomAttributeData a in type.CustomAttributes)
        {
            Add(a.AttributeType, "attribute");
        }

        if (type.IsGenericTypeDefinition)
        {
            foreach (Type p in type.GetGenericArguments())
            {
                Add(p, "type parameter");
            }
        }

        foreach (FieldInfo f in type.GetFields(All))
        {
            Add(f.FieldType, "field " + f.Name);
        }

        foreach (PropertyInfo p in type.GetProperties(All))
        {
            Add(p.PropertyType, "property " + p.Name);
        }

        foreach (EventInfo e in type.GetEvents(All))
        {
            Add(e.EventHandlerType, "event " + e.Name);
        }

        foreach (MethodBase m in type.GetMethods(All).Cast<MethodBase>().Concat(type.GetConstructors(All)))
        {
            string where = "member " + m.Name;
            if (m is MethodInfo mi)
            {
                Add(mi.ReturnType, where);
            }

            foreach (ParameterInfo p in m.GetParameters())
            {
                Add(p.ParameterType, where);
            }

            foreach (CustomAttributeData a in m.CustomAttributes)
            {
                Add(a.AttributeType, where);
            }

            MethodBody? body = m.GetMethodBody();
            if (body is null)
            {
                continue;
            }

            foreach (LocalVariableInfo l in body.LocalVariables)
            {
                Add(l.LocalType, where + " (local)");
            }

            foreach (MemberInfo member in IlMembers(m, body))
            {
                switch (member)
                {
                    case Type t:
                        Add(t, where + " (IL)");
                        break;
                    case FieldInfo f:
                        Add(f.DeclaringType, where + " (IL)");
                        Add(f.FieldType, where + " (IL)");
                        break;
                    case MethodBase callee:
                        Add(callee.DeclaringType, where + " (IL)");
                        if (callee is MethodInfo { IsGenericMethod: true } g)
                        {
                            foreach (Type a in g.GetGenericArguments())
                            {
                                Add(a, where + " (IL)");
                            }
                        }

                        break;
                    default:
                        break;
                }
            }
        }

        return found;
    }

    private static readonly Dictionary<short, OpCode> s_opCodes = typeof(OpCodes)
        .GetFields(BindingFlags.Public | BindingFlags.Static)
        .Select(f => (OpCode)f.GetValue(null)!)
        .ToDictionary(o => o.Value);

    /// <summary>The types, methods and fields named by the IL of one method body.</summary>
    private static IEnumerable<MemberInfo> IlMembers(MethodBase method, MethodBody body)
    {
        byte[] il = body.GetILAsByteArray() ?? [];
        Module module = method.Module;
        Type[] typeArgs = method.DeclaringType is { IsGenericType: true } d ? d.GetGenericArguments() : [];
        Type[] methodArgs = method.IsGenericMethod ? method.GetGenericArguments() : [];
        int i = 0;
        while (i < il.Length)
        {
            short value = il[i] == 0xFE && i + 1 < il.Length ? unchecked((short)(0xFE00 | il[i + 1])) : il[i];
            i += value > 0xFF || value < 0 ? 2 : 1;
            OpCode op = s_opCodes[value];
            switch (op.OperandType)
            {
                case OperandType.InlineField:
                case OperandType.InlineMethod:
                case OperandType.InlineType:
                case OperandType.InlineTok:
                    int token = BitConverter.ToInt32(il, i);
                    MemberInfo? member = module.ResolveMember(token, typeArgs, methodArgs);
                    if (member is not null)
                    {
                        yield return member;
                    }

                    i += 4;
                    break;
                case OperandType.InlineSwitch:
                    int count = BitConverter.ToInt32(il, i);
                    i += 4 + (count * 4);
                    break;
                case OperandType.InlineNone:
                    break;
                case OperandType.ShortInlineBrTarget:
                case OperandType.ShortInlineI:
                case OperandType.ShortInlineVar:
                    i += 1;
                    break;
                case OperandType.InlineVar:
                    i += 2;
                    break;
                case OperandType.InlineI8:
                case OperandType.InlineR:
                    i += 8;
                    break;
                default:
                    i += 4;
                    break;
            }
        }
    }
}
