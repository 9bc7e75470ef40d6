using XeAnalyzer.IO;

namespace XeAnalyzer.Callstacks.Scanning;

/// <summary>Why a piece of text is not a frame (the grammar that rejected it is part of the name).</summary>
internal enum FrameFailureReason : byte
{
    /// <summary>The text is not a frame of any grammar (a label, prose): kept as text, never a diagnostic.</summary>
    NotAFrame,

    /// <summary>A blank token.</summary>
    Empty,

    /// <summary>The line already holds <see cref="TextInputLimits.MaxFramesPerLine"/> frames.</summary>
    TooManyFrames,

    /// <summary>General grammar: a <c>0x</c> address with more than 16 significant hex digits.</summary>
    AddressOverflow,

    /// <summary>Module+offset grammar: an offset with more than 16 significant hex digits.</summary>
    OffsetOverflow,

    /// <summary>General grammar: the offset of <c>mod!OrdinalN+off</c> does not fit in 64 bits.</summary>
    OrdinalOffsetOverflow,

    /// <summary>General grammar: the displacement of a symbolized frame does not fit in 64 bits.</summary>
    DisplacementOverflow,

    /// <summary><c>callstack_rva</c>: <c>&lt;frame</c> followed by more name characters (<c>&lt;frameX</c>).</summary>
    RvaNotAFrameElement,

    /// <summary><c>callstack_rva</c>: the text ends inside the element.</summary>
    RvaTruncated,

    /// <summary><c>callstack_rva</c>: the text ends before the closing <c>/&gt;</c>.</summary>
    RvaTruncatedNoClose,

    /// <summary><c>callstack_rva</c>: another element starts before the closing <c>/&gt;</c>.</summary>
    RvaTruncatedByElement,

    /// <summary><c>callstack_rva</c>: an attribute value has no closing quote before the next element.</summary>
    RvaUnterminatedValue,

    /// <summary><c>callstack_rva</c>: something other than an attribute name (detail: the text there).</summary>
    RvaAttributeNameExpected,

    /// <summary><c>callstack_rva</c>: no '=' after an attribute name (detail: the name).</summary>
    RvaEqualsExpected,

    /// <summary><c>callstack_rva</c>: no quoted value after '=' (detail: the attribute name).</summary>
    RvaQuotedValueExpected,

    /// <summary><c>callstack_rva</c>: more attributes than the scanner keeps.</summary>
    RvaTooManyAttributes,

    /// <summary><c>callstack_rva</c>: <c>id</c> is not a decimal number (detail: the value).</summary>
    RvaBadId,

    /// <summary><c>callstack_rva</c>: <c>age</c> without <c>guid</c>.</summary>
    RvaAgeWithoutGuid,

    /// <summary><c>callstack_rva</c>: <c>guid</c> is not a GUID (detail: the value).</summary>
    RvaBadGuid,

    /// <summary><c>callstack_rva</c>: <c>guid</c> without <c>age</c>.</summary>
    RvaGuidWithoutAge,

    /// <summary><c>callstack_rva</c>: <c>age</c> is not a decimal number (detail: the value).</summary>
    RvaBadAge,

    /// <summary><c>callstack_rva</c>: <c>rva</c> is not a hex number (detail: the value).</summary>
    RvaBadRva,

    /// <summary><c>callstack_rva</c>: <c>address</c> is not a hex number (detail: the value).</summary>
    RvaBadAddress,

    /// <summary><c>callstack_rva</c>: neither <c>rva</c> nor <c>address</c>.</summary>
    RvaNoRvaNorAddress,

    /// <summary><c>callstack_rva</c>: <c>module</c>/<c>name</c> is not a module file name (detail: the
    /// value).</summary>
    RvaBadModule,

    /// <summary><c>callstack_rva</c>: <c>pdb</c> is not a PDB file name (detail: the value).</summary>
    RvaBadPdb,

    /// <summary>A child element of a callstack value other than <c>&lt;frame&gt;</c> (detail: its name).</summary>
    UnexpectedElement,

    /// <summary>SQLDumper: <c>Module(</c> without <c>)</c>.</summary>
    DumperTruncated,

    /// <summary>SQLDumper: the offset in <c>Module(…)</c> does not fit in 64 bits.</summary>
    DumperOffsetOverflow,

    /// <summary>SQLDumper: <c>Module(…)</c> does not hold module+hex offset.</summary>
    DumperNotModuleOffset,
}

/// <summary>
/// A typed scan failure: the reason, where it is, and the offending text when the message names it.
/// </summary>
/// <param name="Reason">Why the text is not a frame.</param>
/// <param name="Position">0-based character offset in the scanned line (after HTML decoding of an escaped
/// <c>callstack_rva</c> line) of the token, element or character that failed.</param>
/// <param name="Detail">The attribute name or value, or the text, that the message quotes; otherwise
/// <see langword="null"/>.</param>
internal readonly record struct FrameFailure(FrameFailureReason Reason, int Position, string? Detail = null)
{
    /// <summary>
    /// True when the text looked like a frame of some grammar but was malformed (an overflowing offset, a bad GUID, a
    /// truncated element): a line without frames reports it as its diagnostic. False for plain text and for limits.
    /// </summary>
    public bool IsMalformedFrame =>
        Reason is not (FrameFailureReason.NotAFrame or FrameFailureReason.Empty or FrameFailureReason.TooManyFrames);

    /// <summary>The message shown to users (<see cref="StackLine.Diagnostic"/>,
    /// <see cref="UnparsedToken.Reason"/>).</summary>
    public string Message =>
        Reason switch
        {
            FrameFailureReason.NotAFrame => "not a frame",
            FrameFailureReason.Empty => "empty",
            FrameFailureReason.TooManyFrames => "more frames on one line than TextInputLimits.MaxFramesPerLine",
            FrameFailureReason.AddressOverflow => "address does not fit in 64 bits",
            FrameFailureReason.OffsetOverflow => "offset does not fit in 64 bits",
            FrameFailureReason.OrdinalOffsetOverflow => "ordinal offset does not fit in 64 bits",
            FrameFailureReason.DisplacementOverflow => "displacement does not fit in 64 bits",
            FrameFailureReason.RvaNotAFrameElement => "not a <frame> element",
            FrameFailureReason.RvaTruncated => "truncated <frame> element",
            FrameFailureReason.RvaTruncatedNoClose => "truncated <frame> element (no closing '/>')",
            FrameFailureReason.RvaTruncatedByElement =>
                "truncated <frame> element (another element starts before '/>')",
            FrameFailureReason.RvaUnterminatedValue => "truncated <frame> element (unterminated attribute value)",
            FrameFailureReason.RvaAttributeNameExpected => $"attribute name expected in <frame> at \"{Detail}\"",
            FrameFailureReason.RvaEqualsExpected => $"'=' expected after attribute {Detail} in <frame>",
            FrameFailureReason.RvaQuotedValueExpected => $"quoted value expected for attribute {Detail} in <frame>",
            FrameFailureReason.RvaTooManyAttributes => "too many attributes in <frame>",
            FrameFailureReason.RvaBadId => $"frame id \"{Detail}\" is not a decimal number",
            FrameFailureReason.RvaAgeWithoutGuid => "frame has an age but no guid",
            FrameFailureReason.RvaBadGuid => $"frame guid \"{Detail}\" is not a valid GUID",
            FrameFailureReason.RvaGuidWithoutAge => "frame has a guid but no age",
            FrameFailureReason.RvaBadAge => $"frame age \"{Detail}\" is not a decimal number",
            FrameFailureReason.RvaBadRva => $"frame rva \"{Detail}\" is not a hex number",
            FrameFailureReason.RvaBadAddress => $"frame address \"{Detail}\" is not a hex number",
            FrameFailureReason.RvaNoRvaNorAddress => "frame has neither rva nor address",
            FrameFailureReason.RvaBadModule => $"frame module \"{Detail}\" is not a module file name",
            FrameFailureReason.RvaBadPdb => $"frame pdb \"{Detail}\" is not a PDB file name",
            FrameFailureReason.UnexpectedElement => $"unexpected <{Detail}> element in a callstack value",
            FrameFailureReason.DumperTruncated => "truncated Module(…) frame",
            FrameFailureReason.DumperOffsetOverflow => "offset in Module(…) does not fit in 64 bits",
            FrameFailureReason.DumperNotModuleOffset => "Module(…) does not hold module+hex offset",
            _ => Reason.ToString(),
        };

    /// <inheritdoc/>
    public override string ToString() => Message;
}

/// <summary>The outcome of scanning one token: a frame, or a typed failure.</summary>
internal readonly struct TokenScan
{
    private TokenScan(StackFrame? frame, FrameFailure failure)
    {
        Frame = frame;
        Failure = failure;
    }

    /// <summary>The frame, or <see langword="null"/> when the token is not one.</summary>
    public StackFrame? Frame { get; }

    /// <summary>Why the token is not a frame; meaningless when <see cref="Frame"/> is set.</summary>
    public FrameFailure Failure { get; }

    public static implicit operator TokenScan(StackFrame frame) => new(frame, default);

    public static implicit operator TokenScan(FrameFailure failure) => new(null, failure);
}

/// <summary>The outcome of scanning one logical line.</summary>
/// <param name="FrameCount">Frames appended to the output.</param>
/// <param name="Unparsed">Pieces of a frame line that are not frames, or <see langword="null"/>.</param>
/// <param name="Diagnostic">For a line without frames that looked like a frame line: the first malformed frame.</param>
internal readonly record struct LineScan(int FrameCount, List<UnparsedToken>? Unparsed, FrameFailure? Diagnostic)
{
    /// <summary>True when the line was read as one compact token whose result depends on its text alone (no scanner
    /// state), so it may be reused for the same text.</summary>
    public bool TextOnly { get; init; }
}
