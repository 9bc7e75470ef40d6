using System.CommandLine;
using System.CommandLine.Parsing;

namespace XeAnalyzer.Cli;

/// <summary>
/// The usage errors System.CommandLine lets through, found on the parse before any command runs (exit code 2): a word
/// that looks like an option but is none (without this, <c>--fromat</c> is taken as an input file), an unknown command,
/// and an option given where a value was due (<c>--format --chart</c>). After <c>--</c> every word is an input, so a
/// capture whose name starts with <c>-</c> can still be named; <c>-</c> alone (standard input) and negative numbers are
/// never options.
/// </summary>
internal static class CommandLineChecks
{
    /// <summary>
    /// The usage errors of <paramref name="parse"/>, one line each, in command-line order; empty when there is none.
    /// </summary>
    /// <param name="parse">The parse of <paramref name="args"/>.</param>
    /// <param name="args">The command line as given (to tell <c>--output=--x</c>, a value given on purpose, from a
    /// slip).</param>
    public static IReadOnlyList<string> Find(ParseResult parse, IReadOnlyList<string> args)
    {
        var optionOf = new Dictionary<Token, OptionResult>(ReferenceEqualityComparer.Instance);
        var argumentTokens = new HashSet<Token>(ReferenceEqualityComparer.Instance);
        Collect(parse.RootCommandResult, optionOf, argumentTokens);

        Command command = parse.CommandResult.Command;
        var errors = new List<string>();
        bool literal = false;
        foreach (Token token in parse.Tokens)
        {
            if (token.Type == TokenType.DoubleDash)
            {
                literal = true;
                continue;
            }

            if (optionOf.TryGetValue(token, out OptionResult? option))
            {
                if (!literal && IsOptionGivenAsValue(token.Value, command) && !IsAttached(option, token.Value, args))
                {
                    string name = option.IdentifierToken?.Value ?? option.Option.Name;
                    errors.Add(name + ": expected a value, found the option '" + token.Value + "' (write " + name
                        + "=" + token.Value
                        + " to pass it as the value)");
                }

                continue;
            }

            if (token.Type != TokenType.Argument || literal)
            {
                continue;
            }

            if (LooksLikeOption(token.Value))
            {
                errors.Add("unknown option '" + token.Value + "'; did you mean '" + Nearest(token.Value,
                    OptionNames(command)) + "'?");
            }
            else if (!argumentTokens.Contains(token) && command.Subcommands.Count > 0 && command.Arguments.Count == 0)
            {
                // The first unknown command explains the rest of the line, which belonged to it.
                errors.Add("unknown command '" + token.Value + "'; did you mean '"
                    + Nearest(token.Value, command.Subcommands.Where(c => !c.Hidden).Select(c => c.Name)) + "'?");
                break;
            }
        }

        return errors;
    }

    /// <summary>
    /// The valid name nearest to <paramref name="word"/>: fewest single-character edits (insertions, deletions,
    /// substitutions, swaps of neighbours), ignoring case; on a tie, the one sharing the longest prefix, then the first
    /// in order.
    /// </summary>
    internal static string Nearest(string word, IEnumerable<string> names) =>
        names.Select((n, i) => (Name: n, Distance: Distance(word, n), Prefix: CommonPrefix(word, n), Index: i))
            .OrderBy(c => c.Distance).ThenByDescending(c => c.Prefix).ThenBy(c => c.Index).First().Name;

    /// <summary>
    /// Whether <paramref name="word"/> is written as an option: <c>-x</c> or <c>--x</c>, not <c>-</c>, <c>-1</c> or
    /// <c>-.5</c>.
    /// </summary>
    internal static bool LooksLikeOption(string word) =>
        word.Length > 1 && word[0] == '-' && !char.IsAsciiDigit(word[1]) && word[1] != '.';

    private static void Collect(SymbolResult result, Dictionary<Token, OptionResult> optionOf,
        HashSet<Token> argumentTokens)
    {
        switch (result)
        {
            case OptionResult option:
                foreach (Token t in option.Tokens)
                {
                    optionOf[t] = option;
                }

                break;
            case ArgumentResult argument when argument.Parent is CommandResult:
                argumentTokens.UnionWith(argument.Tokens);
                break;
            case CommandResult command:
                foreach (SymbolResult child in command.Children)
                {
                    Collect(child, optionOf, argumentTokens);
                }

                break;
            default:
                break;
        }
    }

    /// <summary>A value that is one of the command's options, or written as a long option.</summary>
    private static bool IsOptionGivenAsValue(string value, Command command) =>
        LooksLikeOption(value) && (value.StartsWith("--", StringComparison.Ordinal)
            || OptionNames(command).Contains(value, StringComparer.Ordinal));

    /// <summary>
    /// Whether the value was attached to its option in one word (<c>--output=--x</c>, <c>-o:--x</c>), so meant as
    /// given.
    /// </summary>
    private static bool IsAttached(OptionResult option, string value, IReadOnlyList<string> args) =>
        option.Option.Aliases.Append(option.Option.Name).Any(a => args.Contains(a + "=" + value) || args.Contains(a
            + ":" + value));

    /// <summary>
    /// The names and aliases of the options <paramref name="command"/> accepts: its own and its ancestors' recursive
    /// ones.
    /// </summary>
    private static List<string> OptionNames(Command command)
    {
        var names = new List<string>();
        for (Command? c = command; c is not null; c = c.Parents.OfType<Command>().FirstOrDefault())
        {
            foreach (Option o in c.Options.Where(o => !o.Hidden && (c == command || o.Recursive)))
            {
                names.Add(o.Name);
                names.AddRange(o.Aliases.Order(StringComparer.Ordinal));
            }
        }

        return names;
    }

    private static int CommonPrefix(string a, string b)
    {
        int n = 0;
        while (n < a.Length && n < b.Length && char.ToLowerInvariant(a[n]) == char.ToLowerInvariant(b[n]))
        {
            n++;
        }

        return n;
    }

    /// <summary>
    /// The optimal string alignment distance (Damerau-Levenshtein without repeated edits of one substring), ignoring
    /// case.
    /// </summary>
    private static int Distance(string a, string b)
    {
        a = a.ToLowerInvariant();
        b = b.ToLowerInvariant();
        int w = b.Length + 1;
        int[] d = new int[(a.Length + 1) * w];
        for (int i = 0; i <= a.Length; i++)
        {
            d[i * w] = i;
        }

        for (int j = 0; j <= b.Length; j++)
        {
            d[j] = j;
        }

        for (int i = 1; i <= a.Length; i++)
        {
            for (int j = 1; j <= b.Length; j++)
            {
                int cost = a[i - 1] == b[j - 1] ? 0 : 1;
                int best = Math.Min(Math.Min(d[((i - 1) * w) + j] + 1, d[(i * w) + j - 1] + 1), d[((i - 1) * w)
                    + j - 1] + cost);
                if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                {
                    best = Math.Min(best, d[((i - 2) * w) + j - 2] + 1);
                }

                d[(i * w) + j] = best;
            }
        }

        return d[(a.Length * w) + b.Length];
    }
}
