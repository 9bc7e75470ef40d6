using System.Globalization;
using XeAnalyzer.Cli;
using XeAnalyzer.IO;
using XeAnalyzer.Symbols.Pdb;
using XeAnalyzer.Tests.Fixtures;
using XeAnalyzer.Tests.Symbols.Resolution;

namespace XeAnalyzer.Tests.Symbols.Pdb;

/// <summary>
/// Sweeps every integer field of the MSF superblock, the stream directory, the DBI header and its substream sizes, the
/// optional debug header, module records, section headers, the publics/GSI headers and the symbol records
/// (<see cref="PdbFieldMap"/>) with 0, 1, max−1, max and a value just past the end: the reader either reads the PDB or
/// throws an <see cref="InvalidPdbDataException"/> naming the file and a byte offset; and <c>xeanalyze resolve</c> on
/// the same files reports a damaged PDB on its own frames, never an internal error. Fixtures: the committed tiny PDBs
/// (TestData/pdb) and sqlmin's PDBs (symbols-cache, TestData/symbols-private).
/// </summary>
public sealed class PdbFieldSweepTests
{
    private const string Name = "swept.pdb";
    private const string SqlminKey = "9C072258C83813094C4C44205044422E1";

    private static readonly uint[] Rvas = [0, 0x1000, 0x11D9, 0x11E9, 0x1D00, 0x2000, 0x7FFFFFFF, uint.MaxValue];

    /// <summary>
    /// The fixture's bytes; a <c>-512</c> suffix re-blocks it to 512-byte blocks, scattered, with an unused 64 KB
    /// stream added, so that the stream directory spans several blocks and every field of its block map is swept (the
    /// reported overflow was there).
    /// </summary>
    private static byte[] FixtureBytes(string fixture)
    {
        if (!fixture.EndsWith("-512", StringComparison.Ordinal))
        {
            return File.ReadAllBytes(FixturePath(fixture));
        }

        var msf = MsfTestFile.Read(File.ReadAllBytes(FixturePath(fixture[..^4])));
        msf.Streams.Add(new byte[64 * 1024]);
        return msf.Write(512, scatter: true);
    }

    private static string FixturePath(string fixture) =>
        fixture switch
        {
            "tiny-full" => TinyFixture.Pdb("full"),
            "tiny-publics" => TinyFixture.Pdb("publics"),
            "sqlmin-stripped" => FixtureFiles.StrippedPdb("sqlmin"),
            "sqlmin-full" => FixtureFiles.FullPdb("sqlmin"),
            _ => throw new ArgumentException(fixture),
        };

    /// <summary>Every (field, value) case of a fixture.</summary>
    internal static IEnumerable<(string What, byte[] Data)> Cases(string fixture)
    {
        PdbFieldMap map = PdbFieldMap.Build(FixtureBytes(fixture));
        foreach (PdbField field in map.Fields)
        {
            foreach (ulong value in map.ValuesFor(field))
            {
                yield return (
                    field.Name + " = 0x" + value.ToString("X", CultureInfo.InvariantCulture),
                    map.With(field, value)
                );
            }
        }
    }

    /// <summary>Reads everything the resolver would; returns the failure, or null when the PDB reads cleanly. Other
    /// exceptions escape.</summary>
    private static InvalidPdbDataException? ReadAll(byte[] data, out PdbIdentity? identity, out bool identityRead)
    {
        identity = null;
        identityRead = false;
        try
        {
            using PdbFile pdb = PdbFile.Open(new MemoryRandomAccessSource(data, Name), ownsSource: true);
            identity = pdb.Identity;
            identityRead = true;
            _ = pdb.Dbi?.IsStripped;
            _ = pdb.Sections.Count + pdb.OriginalSections.Count;
            _ = pdb.GetModules().Count;
            _ = pdb.GetPublics().Count;
            _ = pdb.GetProcedures().Count;
            _ = pdb.HasOmap();
            foreach (uint rva in Rvas)
            {
                _ = pdb.Lookup(rva)?.ToString();
            }

            return null;
        }
        catch (InvalidPdbDataException ex)
        {
            return ex;
        }
    }

    [TestCase("tiny-full")]
    [TestCase("tiny-publics")]
    [TestCase("sqlmin-stripped")]
    [TestCase("sqlmin-full")]
    [TestCase("tiny-full-512")]
    [TestCase("sqlmin-stripped-512")]
    public void Library_EveryFieldAtEveryEdgeValue_ReadsOrThrowsALocatedInvalidPdbData(string fixture)
    {
        var failures = new List<string>();
        int cases = 0;
        int rejected = 0;
        foreach ((string what, byte[] data) in Cases(fixture))
        {
            cases++;
            long before = GC.GetAllocatedBytesForCurrentThread();
            try
            {
                InvalidPdbDataException? ex = ReadAll(data, out _, out _);
                if (ex is not null)
                {
                    rejected++;
                    if (
                        ex.FilePath != Name
                        || ex.Offset is not long o
                        || o < 0
                        || o > data.Length
                        || !ex.Detail.Contains("expected", StringComparison.Ordinal)
                    )
                    {
                        failures.Add(
                            $"{what}: exception without file, offset inside the file or what was expected: {ex.Message}"
                        );
                    }
                }
            }
#pragma warning disable CA1031 // the sweep records every other exception as a failure
            catch (Exception ex)
#pragma warning restore CA1031
            {
                failures.Add($"{what}: {ex.GetType().Name}: {ex.Message}");
            }

            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            if (allocated > (32L * data.Length) + (16 << 20))
            {
                failures.Add($"{what}: allocated {allocated} bytes for a {data.Length}-byte file");
            }
        }

        TestContext.Out.WriteLine(
            $"{fixture}: {cases} field/value cases, {rejected} rejected with a located InvalidPdbDataException, "
                + $"{cases - rejected} read"
        );
        Assert.That(cases, Is.GreaterThan(300), "the field map covers the fixture");
        Assert.That(rejected, Is.GreaterThan(0));
        Assert.That(failures, Is.Empty, string.Join('\n', failures.Take(30)));
    }

    [TestCase("sqlmin-stripped")]
    [TestCase("sqlmin-full")]
    [TestCase("sqlmin-stripped-512")]
    public void Cli_ResolveAgainstEveryCase_ReportsTheDamagedPdbOnItsOwnFrames_NeverAnInternalError(string fixture)
    {
        string scratch = ResolutionFixtures.NewScratch();
        try
        {
            string store = Path.Combine(scratch, "store");
            foreach (string m in FixtureFiles.Modules.Where(m => m != "sqlmin"))
            {
                string pdb = FixtureFiles.StrippedPdb(m);
                ResolutionFixtures.PlaceInStore(
                    store,
                    m + ".pdb",
                    Path.GetFileName(Path.GetDirectoryName(pdb)!),
                    File.ReadAllBytes(pdb)
                );
            }

            string input = Path.Combine(scratch, "a.txt");
            File.WriteAllText(input, ResolutionFixtures.StackAModuleOffsetText());
            PdbIdentity original = PdbFile.ReadIdentity(
                FixturePath(fixture.Replace("-512", string.Empty, StringComparison.Ordinal))
            );
            string[] args =
            [
                "resolve",
                input,
                "--symbols",
                store,
                "--offline",
                "--sql-build",
                ResolutionFixtures.FixtureBuild,
                "--catalog",
                ResolutionFixtures.CatalogPath,
            ];
            var failures = new List<string>();
            int cases = 0;
            int damaged = 0;
            foreach ((string what, byte[] data) in Cases(fixture))
            {
                cases++;
                ResolutionFixtures.PlaceInStore(store, "sqlmin.pdb", SqlminKey, data);
                (int exit, string output, string err) = CliRunner.Run(args);
                string[] lines = ResolutionFixtures.Lines(output);
                if (err.Contains("internal error", StringComparison.Ordinal) || exit != 0)
                {
                    failures.Add($"{what}: exit {exit}: {err.Split('\n')[0]}");
                    continue;
                }

                if (lines.Length != 24 || lines[19] != ResolutionFixtures.PublishedStackA[19])
                {
                    failures.Add($"{what}: the other PDBs' frames did not resolve ({lines.Length} lines)");
                    continue;
                }

                // What the resolver must say about sqlmin's frames follows from what the reader says about the file.
                InvalidPdbDataException? ex = ReadAll(data, out PdbIdentity? identity, out bool identityRead);
                bool expectDamaged = ex is not null && (!identityRead || identity == original);
                if (expectDamaged)
                {
                    damaged++;
                    if (
                        !lines[0].Contains(" -- unresolved: PDB damaged: sqlmin.pdb ", StringComparison.Ordinal)
                        || !lines[0].Contains("byte offset ", StringComparison.Ordinal)
                    )
                    {
                        failures.Add(
                            $"{what}: expected 'PDB damaged' with the byte offset ({ex!.Message}), got: {lines[0]}"
                        );
                    }
                }
                else if (lines[0].Contains("PDB damaged", StringComparison.Ordinal))
                {
                    failures.Add($"{what}: the reader reads this file, but the resolver says: {lines[0]}");
                }
            }

            TestContext.Out.WriteLine(
                $"{fixture}: {cases} cases through 'xeanalyze resolve', {damaged} reported as 'PDB damaged'"
            );
            Assert.That(damaged, Is.GreaterThan(0));
            Assert.That(failures, Is.Empty, string.Join('\n', failures.Take(30)));
        }
        finally
        {
            ResolutionFixtures.DeleteScratch(scratch);
        }
    }
}
