using System.CommandLine;
using System.CommandLine.Parsing;

namespace XeAnalyzer.Cli.Commands.Common;

/// <summary>
/// The one rule for every option and argument that names a file or folder: an empty (or blank) value is a usage error
/// naming the option as it was written and what it expects, found while parsing (exit code 2), before a command touches
/// the file system, where an empty path would fail deep inside with an unhelpful message.
/// </summary>
internal static class PathValues
{
    /// <summary>Makes <paramref name="option"/> a path option: it refuses an empty value.</summary>
    /// <param name="option">The option.</param>
    /// <param name="expected">What a value names, for the message (<c>a file</c>, <c>a folder</c>).</param>
    /// <returns>The option.</returns>
    public static Option<T> AcceptsPaths<T>(this Option<T> option, string expected)
    {
        option.Validators.Add(result => Check(result, result.IdentifierToken?.Value ?? option.Name, expected));
        return option;
    }

    /// <summary>Makes <paramref name="argument"/> a path argument: it refuses an empty value.</summary>
    /// <param name="argument">The argument.</param>
    /// <param name="expected">What a value names, for the message.</param>
    /// <returns>The argument.</returns>
    public static Argument<T> AcceptsPaths<T>(this Argument<T> argument, string expected)
    {
        argument.Validators.Add(result => Check(result, "<" + argument.Name + ">", expected));
        return argument;
    }

    private static void Check(SymbolResult result, string name, string expected)
    {
        if (result.Tokens.Any(t => string.IsNullOrWhiteSpace(t.Value)))
        {
            result.AddError(name + ": expected " + expected + ", found an empty value");
        }
    }
}
