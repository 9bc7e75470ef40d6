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
                    errors.Add(
                        name
                            + ": expected a value, found the option '"
                            + token.Value
                            + "' (write "
                            + name
                            + "="
                            + token.Value
                            + " to pass it as the value)"
                    );
                }

                continue;
            }

            if (token.Type != TokenType.Argument || literal)
            {
                continue;
            }

            if (LooksLikeOption(token.Value))
            {
                errors.Add(
                    "unknown option '"
                        + token.Value
                        + "'; did you mean '"
                        + Nearest(token.Value, OptionNames(command))
                        + "'?"
                );
            }
            else if (!argumentTokens.Contains(token) && command.Subcommands.Count > 0 && command.Arguments.Count == 0)
            {
                // The first unknown command explains the rest of the line, which belonged to it.
                errors.Add(
                    "unknown command '"
                        + token.Value
                        + "'; did you mean '"
                        + Nearest(token.Value, command.Subcommands.Where(c => !c.Hidden).Select(c => c.Name))
                        + "'?"
                );
                break;
            }
        }

        return errors;
    }

    /// <summary>The valid name nearest to <paramref name="word"/>, by the library's one rule
    /// (<see cref="NearestNames"/>).</summary>
    internal static string Nearest(string word, IEnumerable<string> names) => NearestNames.Find(word, names)[0];

    /// <summary>
    /// Whether <paramref name="word"/> is written as an option: <c>-x</c> or <c>--x</c>, not <c>-</c>, <c>-1</c> or
    /// <c>-.5</c>.
    /// </summary>
    internal static bool LooksLikeOption(string word) =>
        word.Length > 1 && word[0] == '-' && !char.IsAsciiDigit(word[1]) && word[1] != '.';

    private static void Collect(
        SymbolResult result,
        Dictionary<Token, OptionResult> optionOf,
        HashSet<Token> argumentTokens
    )
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
        LooksLikeOption(value)
        && (
            value.StartsWith("--", StringComparison.Ordinal)
            || OptionNames(command).Contains(value, StringComparer.Ordinal)
        );

    /// <summary>
    /// Whether the value was attached to its option in one word (<c>--output=--x</c>, <c>-o:--x</c>), so meant as
    /// given.
    /// </summary>
    private static bool IsAttached(OptionResult option, string value, IReadOnlyList<string> args) =>
        option
            .Option.Aliases.Append(option.Option.Name)
            .Any(a => args.Contains(a + "=" + value) || args.Contains(a + ":" + value));

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
}
