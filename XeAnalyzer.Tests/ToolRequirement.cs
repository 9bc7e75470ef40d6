namespace XeAnalyzer.Tests;

/// <summary>
/// What a test does when an external tool it compares against (llvm-pdbutil, cabextract, gcab, Chromium, DuckDB) is
/// missing: fail when <c>CI=true</c> (.ci/run installs every one, so a missing tool there is a broken install step, not
/// a reason to skip), be ignored with the reason elsewhere.
/// </summary>
internal static class ToolRequirement
{
    /// <summary>What to do.</summary>
    public enum Outcome
    {
        Run,
        Fail,
        Ignore,
    }

    /// <summary>The decision, separated from NUnit so it can be tested.</summary>
    public static Outcome Decide(bool available, string? ciVariable) =>
        available ? Outcome.Run
        : string.Equals(ciVariable, "true", StringComparison.OrdinalIgnoreCase) ? Outcome.Fail
        : Outcome.Ignore;

    /// <summary>Returns when the tool is available; otherwise fails (CI=true) or ignores the test with
    /// <paramref name="missingMessage"/>.</summary>
    public static void Require(bool available, string missingMessage)
    {
        switch (Decide(available, Environment.GetEnvironmentVariable("CI")))
        {
            case Outcome.Fail:
                Assert.Fail(missingMessage + " CI=true, so this is a failure, not a skip.");
                break;
            case Outcome.Ignore:
                Assert.Ignore(missingMessage);
                break;
        }
    }
}
