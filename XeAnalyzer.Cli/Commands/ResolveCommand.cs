using System.CommandLine;
using System.Text;
using XeAnalyzer.Analysis;
using XeAnalyzer.Callstacks;
using XeAnalyzer.Capture;
using XeAnalyzer.Cli.Commands.Common;
using XeAnalyzer.Cli.Progress;
using XeAnalyzer.IO;
using XeAnalyzer.Output;
using XeAnalyzer.Symbols.Resolution;

namespace XeAnalyzer.Cli.Commands;

/// <summary>
/// <c>xeanalyze resolve &lt;file|-&gt;</c>: callstack text of any shape in (frames, histogram/ring-buffer/event XML,
/// callstack_rva frames, CSV metadata, SQLDumper text), resolved text out; summary on stderr. Exit codes: 0 done (also
/// when some frames stay unresolved: that is normal, the summary says why), 1 unreadable or malformed input, 2 usage.
/// </summary>
internal static class ResolveCommand
{
    public static Command Create()
    {
        var input = new Argument<string>("input")
        {
            Description = "The callstack text (a file, or - for standard input).",
        }.AcceptsPaths("a file, or - for standard input");
        var symbols = new SymbolCommandOptions();
        var singleLine = new Option<bool>("--single-line")
        {
            Description = "The input has several frames per line, separated by blanks (SSMS grid copies).",
        };
        var decimalInput = new Option<bool>("--resolved-input")
        {
            Description =
                "The input is a resolver's output: read displacements without 0x as decimal (sqlmin!Name+425).",
        };
        var outputFile = new Option<string?>("--output", "-o")
        {
            Description = "Write the resolved text to this file instead of standard output.",
        }.AcceptsPaths("a file");
        var summaryJson = new Option<string?>("--summary-json")
        {
            Description = "Also write the summary as JSON to this file.",
        }.AcceptsPaths("a file");
        var command = new Command(
            "resolve",
            "Resolve callstacks offline: any input shape in, sqlmin.dll!Function+0x1a9 out, with a summary of what "
                + "was resolved and why the rest was not."
        );
        command.Arguments.Add(input);
        symbols.AddPathOptions(command);
        command.Options.Add(symbols.Modules);
        symbols.AddBuildOptions(command);
        command.Options.Add(symbols.Binaries);
        symbols.AddFrameOptions(command);
        command.Options.Add(singleLine);
        command.Options.Add(decimalInput);
        command.Options.Add(symbols.NoReasons);
        command.Options.Add(outputFile);
        command.Options.Add(summaryJson);
        command.SetAction(
            (parse, cancellationToken) =>
                Task.FromResult(
                    CaptureCommandSupport.Run(
                        parse,
                        (output, error) =>
                        {
                            string path = parse.GetValue(input)!;
                            bool stdin = path == "-";
                            if (!stdin && !File.Exists(path))
                            {
                                throw new FileNotFoundException("the input " + path + " does not exist", path);
                            }

                            string? modulesPath = parse.GetValue(symbols.Modules);
                            if (modulesPath is null && !stdin)
                            {
                                modulesPath = ModuleListSidecar.Find(path);
                                if (modulesPath is not null)
                                {
                                    error.WriteLine(
                                        "xeanalyze: using the module list " + modulesPath + " (beside the input)"
                                    );
                                }
                            }

                            ModuleMap? map = modulesPath is null
                                ? null
                                : ModuleMap.Load(modulesPath, cancellationToken);
                            CallstackResolverOptions options = symbols.GetResolverOptions(
                                parse,
                                cancellationToken,
                                map
                            );
                            var textOptions = new CallstackTextResolverOptions
                            {
                                InputName = stdin ? "-" : path,
                                FramesOnSingleLine = parse.GetValue(singleLine),
                                SymbolizedOffsetRadix = parse.GetValue(decimalInput)
                                    ? OffsetRadix.Decimal
                                    : OffsetRadix.Hex,
                                WriteReasons = !parse.GetValue(symbols.NoReasons),
                            };

                            using var resolver = new CallstackResolver(options);
                            ResolutionSummary summary;
                            TextReader reader = stdin
                                ? Console.In
                                : TextInput.OpenText(
                                    path,
                                    TerminalProgress.Current is TerminalProgress progress
                                        ? stream => progress.Track(stream, path)
                                        : null
                                );
                            try
                            {
                                string? outPath = parse.GetValue(outputFile);
                                if (outPath is not null)
                                {
                                    using var stream = OutputFile.Create(outPath, 0);
                                    summary = CallstackTextResolver.Resolve(
                                        reader,
                                        stream,
                                        resolver,
                                        textOptions,
                                        cancellationToken
                                    );
                                }
                                else if (ReferenceEquals(output, Console.Out))
                                {
                                    using Stream stdout = Console.OpenStandardOutput();
                                    summary = CallstackTextResolver.Resolve(
                                        reader,
                                        stdout,
                                        resolver,
                                        textOptions,
                                        cancellationToken
                                    );
                                }
                                else
                                {
                                    summary = CallstackTextResolver.Resolve(
                                        reader,
                                        output,
                                        resolver,
                                        textOptions,
                                        cancellationToken
                                    );
                                }
                            }
                            finally
                            {
                                if (!stdin)
                                {
                                    reader.Dispose();
                                }
                            }

                            var document = new ResolutionSummaryDocument(summary);
                            CaptureCommandSupport.WriteLines(document, "xeanalyze: ", output, error);
                            if (parse.GetValue(summaryJson) is string jsonPath)
                            {
                                CaptureCommandSupport.WriteFile(
                                    jsonPath,
                                    s => OutputFormats.Write(document, "json", s, cancellationToken)
                                );
                            }

                            return ExitCodes.Ok;
                        }
                    )
                )
        );
        command.WithExamples(
            "xeanalyze resolve XeAnalyzer.Tests/TestData/text/sqldumper_stack.txt --symbols symbols-cache "
                + "--binaries symbols-cache --offline",
            "xeanalyze resolve stacks.txt --sql-build 13.0.4001.0 --symbols "
                + "\"srv*./syms*https://msdl.microsoft.com/download/symbols\""
        );
        return command;
    }
}
