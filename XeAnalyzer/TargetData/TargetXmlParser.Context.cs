using System.Globalization;
using System.Text;
using System.Xml;
using XeAnalyzer.IO;

namespace XeAnalyzer.TargetData;

internal static partial class TargetXmlParser
{
    /// <summary>XmlReader wrapper: every call that can fail converts <see cref="XmlException"/> to
    /// <see cref="InvalidTextInputException"/> with the input line.</summary>
    private sealed class Context : IDisposable
    {
        private readonly XmlReader _xr;
        private readonly IXmlLineInfo _lineInfo;
        private readonly long _baseLine;
        private readonly TextSource _source;
        private readonly TextInputLimits _limits;
        private readonly CancellationToken _ct;
        private readonly StringBuilder _text = new();
        private readonly char[] _chunk = new char[8192];
        private int _reads;

        public Context(XmlReader xr, long baseLine, TextSource source, CancellationToken ct)
        {
            _xr = xr;
            _lineInfo = (IXmlLineInfo)xr;
            _baseLine = baseLine;
            _source = source;
            _limits = source.Limits;
            _ct = ct;
        }

        public long Line => _baseLine + Math.Max(_lineInfo.LineNumber, 1) - 1;

        public int Depth => _xr.Depth;

        /// <summary>The line of the last end tag (or self-closing element) that <see cref="NextChild"/>
        /// consumed.</summary>
        public long LastEndLine { get; private set; }

        public void Dispose() => _xr.Dispose();

        public bool IsElement(string name) => string.Equals(_xr.LocalName, name, StringComparison.Ordinal);

        public void MoveToRoot(string name)
        {
            while (Read())
            {
                if (_xr.NodeType == XmlNodeType.Element)
                {
                    if (!IsElement(name))
                    {
                        throw Error($"the root element <{name}>, found <{_xr.Name}>");
                    }

                    return;
                }
            }

            throw Error($"the root element <{name}>");
        }

        /// <summary>After the root's end (or self-closing start), reads to the end of the segment; anything but
        /// whitespace is an error.</summary>
        public void FinishRoot()
        {
            while (Read())
            {
                if (
                    _xr.NodeType
                    is not (XmlNodeType.Whitespace or XmlNodeType.SignificantWhitespace or XmlNodeType.EndElement)
                )
                {
                    throw Error($"the end of the target after its root element, found {_xr.NodeType}");
                }
            }
        }

        /// <summary>
        /// From an element at <paramref name="parentDepth"/> (or a previous child), moves to its next child element;
        /// false at the parent's end. Call on the parent's start tag first; after a child has been handled the reader
        /// must sit after that child.
        /// </summary>
        public bool NextChild(int parentDepth)
        {
            if (_xr.Depth == parentDepth && _xr.NodeType == XmlNodeType.Element)
            {
                if (_xr.IsEmptyElement)
                {
                    LastEndLine = Line;
                    Read();
                    return false;
                }

                Read();
            }

            while (true)
            {
                if (_xr.EOF)
                {
                    throw Error("the end tag of the enclosing element");
                }

                if (_xr.NodeType == XmlNodeType.EndElement && _xr.Depth <= parentDepth)
                {
                    LastEndLine = Line;
                    Read();
                    return false;
                }

                if (_xr.NodeType == XmlNodeType.Element)
                {
                    CheckDepth();
                    return true;
                }

                Read();
            }
        }

        /// <summary>Skips the element the reader is on (and its subtree), checking the depth limit; leaves the reader
        /// after it.</summary>
        public void SkipElement()
        {
            if (_xr.NodeType != XmlNodeType.Element)
            {
                Read();
                return;
            }

            int depth = _xr.Depth;
            if (_xr.IsEmptyElement)
            {
                Read();
                return;
            }

            while (Read())
            {
                if (_xr.NodeType == XmlNodeType.Element)
                {
                    CheckDepth();
                }
                else if (_xr.NodeType == XmlNodeType.EndElement && _xr.Depth == depth)
                {
                    Read();
                    return;
                }
            }

            throw Error("the end tag of the skipped element");
        }

        public List<KeyValuePair<string, string>> ReadAttributes()
        {
            var list = new List<KeyValuePair<string, string>>(_xr.AttributeCount);
            try
            {
                if (_xr.MoveToFirstAttribute())
                {
                    do
                    {
                        if (list.Count >= _limits.MaxAttributesPerElement)
                        {
                            throw Error(
                                string.Create(
                                    CultureInfo.InvariantCulture,
                                    $"at most {_limits.MaxAttributesPerElement} attributes per element "
                                        + $"(TextInputLimits.MaxAttributesPerElement)"
                                )
                            );
                        }

                        list.Add(new(_xr.Name, _xr.Value));
                    } while (_xr.MoveToNextAttribute());

                    _xr.MoveToElement();
                }
            }
            catch (XmlException ex)
            {
                throw Wrap(ex);
            }

            return list;
        }

        public string? Attribute(string name)
        {
            try
            {
                return _xr.GetAttribute(name);
            }
            catch (XmlException ex)
            {
                throw Wrap(ex);
            }
        }

        public ulong RequiredUInt64(string name)
        {
            string? text = Attribute(name);
            return ParseUInt64(text, name)
                ?? throw Error($"a '{name}' attribute (unsigned decimal integer) on <{_xr.Name}>");
        }

        public ulong? OptionalUInt64(string name) => ParseUInt64(Attribute(name), name);

        /// <summary>
        /// The slots the empty <c>&lt;Slot/&gt;</c> the reader is on stands for, when they were lifted (see
        /// <see cref="XmlValueLifter.TakeSlots"/>).
        /// </summary>
        public LiftedSlot[]? TakeLiftedSlots()
        {
            _ct.ThrowIfCancellationRequested();

            // XmlTextReader reports an element at the column of its name, one after the '<'.
            return _xr.IsEmptyElement
                ? _source.Lifter?.TakeSlots(_lineInfo.LineNumber, _lineInfo.LinePosition - 2)
                : null;
        }

        /// <summary>The slot <see cref="ReadSlot"/> reads from the same text, for a slot the segment lifted.</summary>
        public HistogramSlot MakeSlot(LiftedSlot slot, int targetIndex, int slotIndex) =>
            new(
                _baseLine + slot.Line - 1,
                targetIndex,
                slotIndex,
                slot.Count,
                slot.Trunc,
                new TargetValue(slot.Text, [], _baseLine + slot.ValueLine - 1)
            );

        public HistogramSlot ReadSlot(int targetIndex, int slotIndex)
        {
            long line = Line;
            ulong count = RequiredUInt64("count");
            ulong? trunc = OptionalUInt64("trunc");
            TargetValue? value = null;
            int depth = _xr.Depth;
            while (NextChild(depth))
            {
                if (value is null && IsElement("value"))
                {
                    value = ReadContent();
                }
                else
                {
                    SkipElement();
                }
            }

            return new HistogramSlot(line, targetIndex, slotIndex, count, trunc, value);
        }

        public TargetEvent ReadEvent(
            int targetIndex,
            TargetDataKind container,
            List<KeyValuePair<string, string>> attributes,
            long line
        )
        {
            var fields = new List<EventField>();
            var actions = new List<EventField>();
            int depth = _xr.Depth;
            while (NextChild(depth))
            {
                bool isData = IsElement("data");
                if (!isData && !IsElement("action"))
                {
                    SkipElement();
                    continue;
                }

                if (fields.Count + actions.Count >= _limits.MaxFieldsPerEvent)
                {
                    throw Error(
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"at most {_limits.MaxFieldsPerEvent} data and action elements per event "
                                + $"(TextInputLimits.MaxFieldsPerEvent)"
                        )
                    );
                }

                (isData ? fields : actions).Add(ReadField(!isData));
            }

            return new TargetEvent(line, targetIndex, container, attributes, fields, actions);
        }

        private EventField ReadField(bool isAction)
        {
            long line = Line;
            string name = Attribute("name") ?? string.Empty;
            string? package = Attribute("package");
            string? typeName = null;
            string? typePackage = null;
            TargetValue? value = null;
            string? mapText = null;
            int depth = _xr.Depth;
            while (NextChild(depth))
            {
                if (IsElement("type"))
                {
                    typeName = Attribute("name");
                    typePackage = Attribute("package");
                    SkipElement();
                }
                else if (value is null && IsElement("value"))
                {
                    value = ReadContent();
                }
                else if (mapText is null && IsElement("text"))
                {
                    mapText = ReadContent().Text;
                }
                else
                {
                    SkipElement();
                }
            }

            return new EventField(isAction, name, package, typeName, typePackage, value, mapText, line);
        }

        /// <summary>Reads the content of the element the reader is on: text (bounded) and child elements' attributes;
        /// leaves the reader after the element.</summary>
        public TargetValue ReadContent()
        {
            long line = Line;
            _text.Clear();

            // XmlTextReader reports an element at the column of its name, one after the '<'.
            string? lifted = _source.Lifter?.TakeValue(_lineInfo.LineNumber, _lineInfo.LinePosition - 2);
            List<XmlChildElement>? elements = null;
            int depth = _xr.Depth;
            if (_xr.IsEmptyElement)
            {
                Read();
                return new TargetValue(string.Empty, [], line);
            }

            bool first = true;
            Read();
            while (true)
            {
                if (_xr.EOF)
                {
                    throw Error("the end tag of the value");
                }

                switch (_xr.NodeType)
                {
                    case XmlNodeType.EndElement when _xr.Depth == depth:
                        Read();
                        return new TargetValue(
                            lifted ?? _text.ToString(),
                            (IReadOnlyList<XmlChildElement>?)elements ?? [],
                            line
                        );

                    case XmlNodeType.Text:
                    case XmlNodeType.CDATA:
                    case XmlNodeType.Whitespace:
                    case XmlNodeType.SignificantWhitespace:
                        if (first)
                        {
                            line = Line;
                            first = false;
                        }

                        if (lifted is null)
                        {
                            AppendNodeText();
                        }

                        Read();
                        break;

                    case XmlNodeType.Element:
                    {
                        CheckDepth();
                        elements ??= [];
                        if (elements.Count >= _limits.MaxChildElementsPerValue)
                        {
                            throw Error(
                                string.Create(
                                    CultureInfo.InvariantCulture,
                                    $"at most {_limits.MaxChildElementsPerValue} child elements in one value "
                                        + $"(TextInputLimits.MaxChildElementsPerValue)"
                                )
                            );
                        }

                        first = false;
                        long childLine = Line;
                        string name = _xr.LocalName;
                        var attributes = ReadAttributes();
                        elements.Add(new XmlChildElement(name, attributes, childLine, _text.Length));
                        SkipElement();
                        break;
                    }

                    default:
                        Read();
                        break;
                }
            }
        }

        private void AppendNodeText()
        {
            try
            {
                if (_xr.CanReadValueChunk)
                {
                    int n;
                    while ((n = _xr.ReadValueChunk(_chunk, 0, _chunk.Length)) > 0)
                    {
                        CheckTextLength(n);
                        _text.Append(_chunk, 0, n);
                    }
                }
                else
                {
                    string v = _xr.Value;
                    CheckTextLength(v.Length);
                    _text.Append(v);
                }
            }
            catch (XmlException ex)
            {
                throw Wrap(ex);
            }
        }

        private void CheckTextLength(int adding)
        {
            if ((long)_text.Length + adding > _limits.MaxValueLength)
            {
                throw Error(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"a value of at most {_limits.MaxValueLength} characters (TextInputLimits.MaxValueLength)"
                    )
                );
            }
        }

        private void CheckDepth()
        {
            if (_xr.Depth > _limits.MaxXmlDepth)
            {
                throw Error(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"XML nested at most {_limits.MaxXmlDepth} elements deep (TextInputLimits.MaxXmlDepth), "
                            + $"found <{_xr.Name}> at depth {_xr.Depth}"
                    )
                );
            }
        }

        private ulong? ParseUInt64(string? text, string name)
        {
            if (text is null)
            {
                return null;
            }

            return ulong.TryParse(text.AsSpan().Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out ulong v)
                ? v
                : throw Error(
                    $"attribute '{name}' of <{_xr.Name}> to be an unsigned decimal integer, found \"{Shorten(text)}\""
                );
        }

        private bool Read()
        {
            if ((++_reads & 1023) == 0)
            {
                _ct.ThrowIfCancellationRequested();
            }

            try
            {
                return _xr.Read();
            }
            catch (XmlException ex)
            {
                throw Wrap(ex);
            }
        }

        private InvalidTextInputException Wrap(XmlException ex)
        {
            long line = ex.LineNumber > 0 ? _baseLine + ex.LineNumber - 1 : Line;
            return _source.Error(line, "well-formed target-data XML: " + ex.Message, ex);
        }

        private InvalidTextInputException Error(string detail) => _source.Error(Line, detail);

        private static string Shorten(string s) => s.Length <= 40 ? s : string.Concat(s.AsSpan(0, 40), "…");
    }
}
