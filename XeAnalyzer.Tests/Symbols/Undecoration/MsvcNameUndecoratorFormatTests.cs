using XeAnalyzer.Symbols.Undecoration;

namespace XeAnalyzer.Tests.Symbols.Undecoration;

/// <summary>
/// Hand-checked DIA-format expectations (not produced by our code): each case cites where the expected spelling comes
/// from. "§n" refers to /work/shared/reference/PDB-AND-SYMBOLS.md; "basic32-min.old.sym" to the DIA-produced breakpad
/// file in the shared vectors (its decorated names were read from basic32-min.pdb with llvm-pdbutil-14);
/// "memobj_resolved.txt" to SQLCallStackResolver's DIA output in the shared vectors (target-xml). Cases marked
/// [unverified] are the Microsoft undecorator's spelling that no DIA output at hand confirms.
/// </summary>
[TestFixture]
public sealed class MsvcNameUndecoratorFormatTests
{
    [TestCase(
        "?SpinToAcquireWithExponentialBackoff@?$Spinlock@$0IP@$06$00@@SAH_K@Z",
        "Spinlock<143,7,1>::SpinToAcquireWithExponentialBackoff",
        Description = "§5 observed output and §7 decorated name: no space after commas in template arguments"
    )]
    [TestCase(
        "??$ExecuteStmts@$00$00@CMsqlExecContext@@QEAAHH@Z",
        "CMsqlExecContext::ExecuteStmts<1,1>",
        Description = "§5 observed output: template function arguments"
    )]
    [TestCase(
        "?Publish@spinlock_backoff@XeSosPkg@@SAHPEAXH@Z",
        "XeSosPkg::spinlock_backoff::Publish",
        Description = "§5 observed output: [scope::]name, no parameters, no return type"
    )]
    [TestCase(
        "??_ENTGroupInfo@@UEAAPEAXI@Z",
        "NTGroupInfo::`vector deleting destructor'",
        Description = "§5 observed output: special names in backticks"
    )]
    [TestCase(
        "?AnonHelper@?A0x57a4fa56@@YAHH@Z",
        "`anonymous namespace'::AnonHelper",
        Description = "§5 rules and §7 expected symbols: `anonymous namespace'"
    )]
    [TestCase(
        "??1?$basic_string@DU?$char_traits@D@std@@V?$allocator@D@2@@std@@QAE@XZ",
        "std::basic_string<char,std::char_traits<char>,std::allocator<char> "
            + ">::~basic_string<char,std::char_traits<char>,std::allocator<char> >",
        Description = "§5 rules (nested templates close with ' >', destructors repeat the template arguments, "
            + "class/struct dropped); basic32-min.old.sym RVA 6e00"
    )]
    [TestCase(
        "?_Get_first@?$_Compressed_pair@V?$allocator@D@std@@V?$_String_val@U?$_Simple_types@D@std@@@2@$00@std@@QAEAAV"
            + "?$allocator@D@2@XZ",
        "std::_Compressed_pair<std::allocator<char>,std::_String_val<std::_Simple_types<char> >,1>::_Get_first",
        Description = "basic32-min.old.sym RVA 7250: name back-references inside template arguments, ' >' only "
            + "before '>'"
    )]
    [TestCase("?Get@?$Holder@_J@@QEBA_J_J@Z", "Holder<__int64>::Get", Description = "§5 rules: __int64, never int64_t")]
    [TestCase(
        "?Get@?$Holder@_K@@QEBA_K_K@Z",
        "Holder<unsigned __int64>::Get",
        Description = "§5 rules; basic32-min.old.sym common_xtox<unsigned __int64,char>"
    )]
    [TestCase(
        "?detach@?$__crt_unique_heap_ptr@PADU__crt_internal_free_policy@@@@QAEPAPADXZ",
        "__crt_unique_heap_ptr<char *,__crt_internal_free_policy>::detach",
        Description = "basic32-min.old.sym RVA 176c8: pointer template argument spelled 'char *'"
    )]
    [TestCase(
        "?Get@?$Holder@PEBD@@QEBAPEBDPEBD@Z",
        "Holder<char const * __ptr64>::Get",
        Description = "memobj_resolved.txt (DIA NAME_ONLY on x64): CTHashTable<COptExpr * __ptr64,...>"
    )]
    [TestCase(
        "??$__crt_interlocked_compare_exchange_pointer@$$CBDPAD$$T@@YAPBDPDSBDQAD$$T@Z",
        "__crt_interlocked_compare_exchange_pointer<char const ,char *,std::nullptr_t>",
        Description = "basic32-min.old.sym: DIA writes a $$C-qualified template argument with a trailing space"
    )]
    [TestCase(
        "??$__crt_interlocked_read_pointer@$$A6AXXZ@@YAP6AXXZPDS6AXXZ@Z",
        "__crt_interlocked_read_pointer<void >",
        Description = "basic32-min.old.sym: DIA writes a function-type template argument as its return type and a space"
    )]
    [TestCase(
        "??$?0AAViterator@TryBlockMap@__FrameHandler3@@AAV012@$0A@@?$pair@Viterator@TryBlockMap@__FrameHandler3@@V123"
            + "@@std@@QAE@AAViterator@TryBlockMap@__FrameHandler3@@0@Z",
        "std::pair<__FrameHandler3::TryBlockMap::iterator,__FrameHandler3::TryBlockMap::iterator>::pair<__FrameHandle"
            + "r3::TryBlockMap::iterator,__FrameHandler3::TryBlockMap::iterator><__FrameHandler3::TryBlockMap::iterator"
            + " "
            + "&,__FrameHandler3::TryBlockMap::iterator &,0>",
        Description = "basic32-min.old.sym: a constructor template repeats the class with its arguments, then its "
            + "own arguments"
    )]
    [TestCase(
        "?SpinToAcquireWithExponentialBackoff@?$Spinlock@$0?4$0A@$0BIGKA@@@SAH_K@Z",
        "Spinlock<-5,0,100000>::SpinToAcquireWithExponentialBackoff",
        Description = "§5 rules: encoded numbers (negative, zero, hex) as decimal, no spaces"
    )]
    [TestCase(
        "??4LatchBase@@QEAAAEAV0@AEBV0@@Z",
        "LatchBase::operator=",
        Description = "§7 expected symbols: LatchBase::operator="
    )]
    [TestCase(
        "??0LatchBase@@QEAA@XZ",
        "LatchBase::LatchBase",
        Description = "§7 expected symbols: LatchBase::LatchBase"
    )]
    [TestCase(
        "??1LatchBase@@UEAA@XZ",
        "LatchBase::~LatchBase",
        Description = "§7 expected symbols: LatchBase::~LatchBase"
    )]
    [TestCase(
        "??MLatchBase@@QEBA_NAEBV0@@Z",
        "LatchBase::operator<",
        Description = "operator name table; basic32-min.old.sym operator|"
    )]
    [TestCase("??2LatchBase@@SAPEAX_K@Z", "LatchBase::operator new", Description = "operator name table: operator new")]
    [TestCase(
        "??_VLatchBase@@SAXPEAX@Z",
        "LatchBase::operator delete[]",
        Description = "operator name table: operator delete[]"
    )]
    [TestCase(
        "??B?$__crt_unique_heap_ptr@DU__crt_internal_free_policy@@@@QBE_NXZ",
        "__crt_unique_heap_ptr<char,__crt_internal_free_policy>::operator bool",
        Description = "basic32-min.old.sym: conversion operators print the target type"
    )]
    [TestCase(
        "??GLatchBase@@UEAAPEAXI@Z",
        "LatchBase::operator-",
        Description = "operator name table: ?G is operator-"
    )]
    [TestCase(
        "??_GLatchBase@@UEAAPEAXI@Z",
        "LatchBase::`scalar deleting destructor'",
        Description = "§5 rules: `scalar deleting destructor'"
    )]
    [TestCase(
        "??_7LatchBase@@6B@",
        "LatchBase::`vftable'",
        Description = "brief: `vftable' (the {for ...} suffix is type information, not name) [unverified for {for}]"
    )]
    [TestCase(
        "??_C@_0BA@DJGCHOIC@hello?0?5spinlock?$AA@",
        "`string'",
        Description = "brief: string literals are `string'"
    )]
    [TestCase(
        "??__Eg_value@@YAXXZ",
        "`dynamic initializer for 'g_value''",
        Description = "brief: `dynamic initializer for 'x''"
    )]
    [TestCase(
        "??_R0?AVLatchBase@@@8",
        "LatchBase `RTTI Type Descriptor'",
        Description = "RTTI type descriptor, class keyword dropped as in §5 [unverified]"
    )]
    [TestCase(
        "??_R1A@?0A@EA@LatchBase@@8",
        "LatchBase::`RTTI Base Class Descriptor at (0,-1,0,64)'",
        Description = "RTTI base class descriptor, no spaces after commas as in §5 [unverified]"
    )]
    [TestCase("?s_count@LatchBase@@2HA", "LatchBase::s_count", Description = "static data member: [scope::]name")]
    [TestCase(
        "?counter@?1??LocalStatic@@YAHH@Z@4HA",
        "`LocalStatic'::`2'::counter",
        Description = "local static: the enclosing function name-only in backticks [unverified]"
    )]
    [TestCase(
        "?Get@?$Holder@P6AXHPEAD@Z@@QEBAP6AXHPEAD@ZP6AXH0@Z@Z",
        "Holder<void (__cdecl*)(int,char * __ptr64)>::Get",
        Description = "function-pointer template argument, Microsoft undecorator spelling with the calling "
            + "convention [unverified]"
    )]
    [TestCase(
        "_lck_lockInternal",
        "lck_lockInternal",
        Description = "§5 observed lck_lockInternal; basic32-min.old.sym: x86 _f is f"
    )]
    [TestCase("_TlsAlloc@0", "TlsAlloc", Description = "basic32-min.old.sym RVA 536a1: x86 stdcall _f@N is f")]
    [TestCase(
        "@__security_check_cookie@4",
        "__security_check_cookie",
        Description = "basic32-min.old.sym RVA 9b20: x86 fastcall @f@N is f"
    )]
    [TestCase("__read", "_read", Description = "basic32-min.old.sym RVA 4b09c: only one leading underscore goes")]
    [TestCase(
        "VectorcallExport@@4",
        "VectorcallExport",
        Description = "§8 llvm-symbolizer test names: vectorcall f@@N"
    )]
    [TestCase("main", "main", Description = "an undecorated C name stays as it is")]
    public void UndecorateNameOnly_ReturnsDiaSpelling_ForFormatRule(string decorated, string expected)
    {
        Assert.That(MsvcNameUndecorator.TryUndecorate(decorated, out string result), Is.True);
        Assert.That(result, Is.EqualTo(expected));
        Assert.That(MsvcNameUndecorator.UndecorateNameOnly(decorated), Is.EqualTo(expected));
    }

    [TestCase(
        "?f@?A0x1234@@YAXPAUx@1@@Z",
        "`anonymous namespace'::f",
        Description = "back-reference table: f=0, `anonymous namespace'=1"
    )]
    [TestCase(
        "?g@?1??f@@YAXXZ@YAXPAUy@1@@Z",
        "`f'::`2'::g",
        Description = "numbered scopes are not memorised (llvm-undname agrees: back-reference 1 is f)"
    )]
    [TestCase("?f@@YAXP6AXH@Z0@Z", "f", Description = "parameter back-reference 0 to a function pointer")]
    [TestCase(
        "?f@@YAXP6AXH@Z5@Z",
        "f",
        Description = "a top-level name's type encoding is not needed for name-only and is not validated (a nested "
            + "one is: see the malformed cases)"
    )]
    public void TryUndecorate_Succeeds_ForBackReferences(string decorated, string expected)
    {
        Assert.That(MsvcNameUndecorator.TryUndecorate(decorated, out string result), Is.True);
        Assert.That(result, Is.EqualTo(expected));
    }

    [TestCase("")]
    [TestCase("?")]
    [TestCase("??")]
    [TestCase("?f@")]
    [TestCase("??$f@")]
    [TestCase("??@8c2d0a1b5f3e@", Description = "MD5-hashed name: no undecoration exists")]
    [TestCase("_CT??_R0PEAX@88", Description = "not an identifier, not a C++ name")]
    [TestCase("?x@?1??f@@YAXP6AXH@Z5@Z@4HA", Description = "nested symbol with an undefined parameter back-reference")]
    public void TryUndecorate_ReturnsFalseAndTheInput_WhenNameIsMalformed(string decorated)
    {
        Assert.That(MsvcNameUndecorator.TryUndecorate(decorated, out string result), Is.False);
        Assert.That(result, Is.EqualTo(decorated));
    }

    [Test]
    public void TryUndecorate_ReturnsFalseAndEmpty_WhenNameIsNull()
    {
        Assert.That(MsvcNameUndecorator.TryUndecorate(null, out string result), Is.False);
        Assert.That(result, Is.Empty);
    }

    [Test]
    public void UndecorateNameOnly_Throws_WhenNameIsNull() =>
        Assert.That(() => MsvcNameUndecorator.UndecorateNameOnly(null!), Throws.ArgumentNullException);

    [Test]
    public void UndecorateNameOnly_ReturnsTheInput_WhenNameCannotBeUndecorated() =>
        Assert.That(MsvcNameUndecorator.UndecorateNameOnly("?broken@"), Is.EqualTo("?broken@"));
}
