using System.Text;

namespace XeAnalyzer.Symbols.Undecoration;

/// <summary>
/// A decoded C++ type, rendered around a declarator the way the Microsoft undecorator writes it
/// (<c>char const * __ptr64 const</c>, <c>void (__cdecl*const)(void)</c>, <c>char (&amp;)[261]</c>).
/// </summary>
internal abstract class UndecoratedType
{
    /// <summary>A saturating estimate of the rendered length, used to refuse names whose back-references
    /// explode.</summary>
    public int Weight { get; protected init; }

    /// <summary>Renders the type with <paramref name="declarator"/> (possibly empty) in the declarator
    /// position.</summary>
    public abstract void Render(StringBuilder sb, string declarator);

    /// <summary>Renders the type with an empty declarator.</summary>
    public string Render()
    {
        var sb = new StringBuilder(Weight);
        Render(sb, string.Empty);
        return sb.ToString();
    }

    protected static int Add(int a, int b) => (int)Math.Min((long)a + b, int.MaxValue / 2);

    protected static bool EndsWithIdentifierChar(StringBuilder sb) =>
        sb.Length > 0 && (char.IsAsciiLetterOrDigit(sb[^1]) || sb[^1] == '_');
}

/// <summary>A type written as one piece of text (<c>int</c>, <c>std::nullptr_t</c>, a class name), optionally
/// cv-qualified.</summary>
internal sealed class NamedType : UndecoratedType
{
    public NamedType(string text)
    {
        Text = text;
        Weight = text.Length + 1;
    }

    public string Text { get; }

    public override void Render(StringBuilder sb, string declarator)
    {
        sb.Append(Text);
        if (declarator.Length > 0)
        {
            sb.Append(' ').Append(declarator);
        }
    }
}

/// <summary>
/// A cv-qualified type spelled with <c>$$C</c> (template arguments): the Microsoft undecorator writes a trailing
/// space after the qualifier (<c>char const </c>), which DIA output shows.
/// </summary>
internal sealed class CvQualifiedType : UndecoratedType
{
    private readonly UndecoratedType _inner;
    private readonly string _qualifiers;

    public CvQualifiedType(UndecoratedType inner, string qualifiers)
    {
        _inner = inner;
        _qualifiers = qualifiers;
        Weight = Add(inner.Weight, qualifiers.Length + 2);
    }

    public override void Render(StringBuilder sb, string declarator)
    {
        _inner.Render(sb, string.Empty);
        if (_qualifiers.Length > 0)
        {
            sb.Append(' ').Append(_qualifiers);
        }

        sb.Append(' ').Append(declarator);
    }
}

/// <summary>A function type: return type, calling convention, parameters and the member function's cv
/// qualifiers.</summary>
internal sealed class FunctionType : UndecoratedType
{
    public FunctionType(UndecoratedType? returnType, string callingConvention, string parameters, string thisQualifiers)
    {
        ReturnType = returnType;
        CallingConvention = callingConvention;
        Parameters = parameters;
        ThisQualifiers = thisQualifiers;
        Weight = Add(
            Add(returnType?.Weight ?? 0, parameters.Length),
            callingConvention.Length + thisQualifiers.Length + 4
        );
    }

    public UndecoratedType? ReturnType { get; }

    public string CallingConvention { get; }

    public string Parameters { get; }

    public string ThisQualifiers { get; }

    public override void Render(StringBuilder sb, string declarator)
    {
        if (declarator.Length == 0)
        {
            // A bare function type (a $$A template argument): DIA prints only the return type and a space
            // (basic32-min.old.sym: "__crt_interlocked_read_pointer<void >").
            ReturnType?.Render(sb, string.Empty);
            sb.Append(' ');
            return;
        }

        if (ReturnType is not null)
        {
            ReturnType.Render(sb, string.Empty);
            sb.Append(' ');
        }

        sb.Append(declarator).Append('(').Append(Parameters).Append(')');
        if (ThisQualifiers.Length > 0)
        {
            sb.Append(ThisQualifiers);
        }
    }
}

/// <summary>An array type (<c>Y</c>): element type and dimensions.</summary>
internal sealed class ArrayType : UndecoratedType
{
    private readonly UndecoratedType _element;
    private readonly string _dimensions;

    public ArrayType(UndecoratedType element, string dimensions)
    {
        _element = element;
        _dimensions = dimensions;
        Weight = Add(element.Weight, dimensions.Length + 2);
    }

    public override void Render(StringBuilder sb, string declarator)
    {
        string inner = declarator.Length == 0 ? _dimensions : "(" + declarator + ")" + _dimensions;
        _element.Render(sb, inner);
    }
}

/// <summary>A pointer, reference, rvalue reference or pointer to member.</summary>
internal sealed class PointerType : UndecoratedType
{
    private readonly UndecoratedType _pointee;
    private readonly string _op;
    private readonly string _modifiers;
    private readonly string _qualifiers;

    /// <param name="pointee">The pointed-to type (already carrying its own cv qualifiers).</param>
    /// <param name="op"><c>*</c>, <c>&amp;</c>, <c>&amp;&amp;</c> or <c>Class::*</c>.</param>
    /// <param name="modifiers">Pointer modifiers written after the operator (<c>__ptr64</c>, <c>__restrict</c>...),
    /// space-separated.</param>
    /// <param name="qualifiers">cv qualifiers of the pointer itself (<c>const</c>, <c>volatile</c>, <c>const
    /// volatile</c>).</param>
    public PointerType(UndecoratedType pointee, string op, string modifiers, string qualifiers)
    {
        _pointee = pointee;
        _op = op;
        _modifiers = modifiers;
        _qualifiers = qualifiers;
        Weight = Add(pointee.Weight, op.Length + modifiers.Length + qualifiers.Length + 6);
    }

    /// <summary>The same pointer without its own cv qualifiers.</summary>
    public PointerType WithoutQualifiers() =>
        _qualifiers.Length == 0 ? this : new PointerType(_pointee, _op, _modifiers, string.Empty);

    public override void Render(StringBuilder sb, string declarator)
    {
        var d = new StringBuilder(declarator.Length + 32);
        if (_pointee is FunctionType function)
        {
            // void (__cdecl*const)(void), void (__cdecl** const)(void), void (__cdecl*const volatile *)(void)
            d.Append('(').Append(function.CallingConvention).Append(_op);
            if (_modifiers.Length > 0)
            {
                d.Append(' ').Append(_modifiers);
            }

            if (_qualifiers.Length > 0)
            {
                if (_modifiers.Length > 0)
                {
                    d.Append(' ');
                }

                d.Append(_qualifiers);
            }

            if (declarator.Length > 0)
            {
                if (EndsWithIdentifierChar(d))
                {
                    d.Append(' ');
                }

                d.Append(declarator);
            }

            d.Append(')');
            function.Render(sb, d.ToString());
            return;
        }

        // char * __ptr64 const, char * * const, char const * const volatile *
        d.Append(_op);
        if (_modifiers.Length > 0)
        {
            d.Append(' ').Append(_modifiers);
        }

        if (_qualifiers.Length > 0)
        {
            d.Append(' ').Append(_qualifiers);
        }

        if (declarator.Length > 0)
        {
            if (_pointee is ArrayType)
            {
                d.Append(declarator);
            }
            else
            {
                d.Append(' ').Append(declarator);
            }
        }

        _pointee.Render(sb, d.ToString());
    }
}
