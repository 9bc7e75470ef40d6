// Source of the undecorator's committed name corpus (XeAnalyzer.Tests/TestData/undname/clang-corpus.tsv).
// Compiled by tools/undname/build-corpus.sh with clang-14 for x86_64-pc-windows-msvc and i686-pc-windows-msvc;
// every defined symbol's decorated name is recorded with llvm-undname-14's full undecoration (identity oracle).
// Each construct exercises one part of the MSVC decoration grammar; the names echo SQL Server's.
typedef __SIZE_TYPE__ size_t;
typedef decltype(nullptr) nullptr_t;
namespace std { using ::nullptr_t; }
void* operator new(size_t, void* p) noexcept { return p; }

namespace XeSosPkg { struct spinlock_backoff { static int Publish(void* ctx, int n); }; }
int XeSosPkg::spinlock_backoff::Publish(void* ctx, int n) { return ctx ? n : 0; }

template <int A, int B, int C> struct Spinlock { static int SpinToAcquireWithExponentialBackoff(unsigned long long); };
template <int A, int B, int C> int Spinlock<A, B, C>::SpinToAcquireWithExponentialBackoff(unsigned long long v) {
    return (int)v + A + B + C;
}
template struct Spinlock<143, 7, 1>;
template struct Spinlock<244, 2, 1>;
template struct Spinlock<-5, 0, 100000>;

struct CMsqlExecContext { template <int X, int Y> int ExecuteStmts(int); };
template <int X, int Y> int CMsqlExecContext::ExecuteStmts(int n) { return n * X + Y; }
template int CMsqlExecContext::ExecuteStmts<1, 1>(int);
template int CMsqlExecContext::ExecuteStmts<0, 1>(int);

class LatchBase {
public:
    LatchBase();
    LatchBase(const LatchBase&);
    virtual ~LatchBase();
    LatchBase& operator=(const LatchBase&);
    bool operator<(const LatchBase&) const;
    bool operator==(const LatchBase&) const;
    int operator()(int) const;
    int operator[](int) const;
    operator int() const;
    operator const char*() const;
    LatchBase& operator<<(int);
    LatchBase& operator>>=(int);
    LatchBase* operator->();
    void* operator new(size_t);
    void operator delete(void*);
    void* operator new[](size_t);
    void operator delete[](void*);
    int AcquireInternal(int mode) volatile;
    static int s_count;
private:
    int m_state;
};
LatchBase::LatchBase() : m_state(0) {}
LatchBase::LatchBase(const LatchBase& o) : m_state(o.m_state) {}
LatchBase::~LatchBase() {}
LatchBase& LatchBase::operator=(const LatchBase& o) { m_state = o.m_state; return *this; }
bool LatchBase::operator<(const LatchBase& o) const { return m_state < o.m_state; }
bool LatchBase::operator==(const LatchBase& o) const { return m_state == o.m_state; }
int LatchBase::operator()(int x) const { return x + m_state; }
int LatchBase::operator[](int x) const { return x - m_state; }
LatchBase::operator int() const { return m_state; }
LatchBase::operator const char*() const { return "latch"; }
LatchBase& LatchBase::operator<<(int x) { m_state <<= x; return *this; }
LatchBase& LatchBase::operator>>=(int x) { m_state >>= x; return *this; }
LatchBase* LatchBase::operator->() { return this; }
static char s_pool[256];
void* LatchBase::operator new(size_t) { return s_pool; }
void LatchBase::operator delete(void*) {}
void* LatchBase::operator new[](size_t) { return s_pool; }
void LatchBase::operator delete[](void*) {}
int LatchBase::AcquireInternal(int mode) volatile { return mode + m_state; }
int LatchBase::s_count = 3;

struct CBulkAllocator {
    int AllocatePageId(int);
    int AllocatePageId(int, int);
    int AllocatePageId(__int64, unsigned __int64, long, unsigned long, short, unsigned short, signed char,
                       unsigned char, wchar_t, bool, float, double, long double);
};
int CBulkAllocator::AllocatePageId(int a) { return a; }
int CBulkAllocator::AllocatePageId(int a, int b) { return a + b; }
int CBulkAllocator::AllocatePageId(__int64 a, unsigned __int64, long, unsigned long, short, unsigned short, signed char,
                                   unsigned char, wchar_t, bool, float, double, long double) { return (int)a; }

namespace { int AnonHelper(int x) { return x * 3; } }
int UseAnon(int x) { return AnonHelper(x) + 1; }
namespace { struct Hidden { int Work(int); }; int Hidden::Work(int x) { return x; } }
int UseHidden(int x) { Hidden h; return h.Work(x); }

extern "C" int lck_lockInternal(int mode) { return mode; }
extern "C" int __stdcall StdcallExport(int a, int b) { return a - b; }
extern "C" int __fastcall FastcallExport(int a, int b) { return a ^ b; }
extern "C" int __vectorcall VectorcallExport(int a) { return a; }
int __stdcall CxxStdcall(int a) { return a; }
int __fastcall CxxFastcall(int a) { return a; }

template <class T> struct char_traits {};
template <class T> struct allocator {};
template <class C, class Tr = char_traits<C>, class Al = allocator<C> > class basic_string {
public:
    basic_string();
    ~basic_string();
    int size() const;
};
template <class C, class Tr, class Al> basic_string<C, Tr, Al>::basic_string() {}
template <class C, class Tr, class Al> basic_string<C, Tr, Al>::~basic_string() {}
template <class C, class Tr, class Al> int basic_string<C, Tr, Al>::size() const { return 0; }
template class basic_string<char>;
template class basic_string<wchar_t>;

template <class T> struct Holder { static T* s_value; T Get(T) const; };
template <class T> T* Holder<T>::s_value = nullptr;
template <class T> T Holder<T>::Get(T v) const { return v; }
template struct Holder<int>;
template struct Holder<const char*>;
template struct Holder<char* const*>;
template struct Holder<void (*)(int, char*)>;
template struct Holder<int (*)(void)>;
template struct Holder<LatchBase>;
template struct Holder<Holder<Holder<int> > >;
template struct Holder<__int64>;
template struct Holder<unsigned __int64>;
template struct Holder<std::nullptr_t>;

enum SpinlockType { SpinA = 1, SpinB = 2 };
enum class Mode : unsigned char { Shared, Exclusive };
union Payload { int i; float f; };
template <class T> int TakeType(T*) { return sizeof(T); }
template int TakeType<SpinlockType>(SpinlockType*);
template int TakeType<Mode>(Mode*);
template int TakeType<Payload>(Payload*);
template int TakeType<LatchBase>(LatchBase*);
template int TakeType<const volatile int>(const volatile int*);

template <class T> int TakeRef(T&) { return 1; }
template int TakeRef<char[261]>(char (&)[261]);
template int TakeRef<int* const>(int* const&);

template <class T> int TakeRvalue(T&&) { return 2; }
template int TakeRvalue<int>(int&&);

int g_value = 5;
template <int* P> int ByAddress() { return *P; }
template int ByAddress<&g_value>();
template <int& R> int ByReference() { return R; }
template int ByReference<g_value>();
template <bool B, char C, long long L> int Literals() { return B + C + (int)L; }
template int Literals<true, 'a', -9000000000LL>();
template int Literals<false, 0, 0>();

template <class... Ts> int Pack(Ts...) { return sizeof...(Ts); }
template int Pack<>();
template int Pack<int, char, double>(int, char, double);

int ManyParams(const char*, const char*, char*, char*, const char*, int*, int*);
int ManyParams(const char* a, const char*, char*, char*, const char*, int*, int*) { return a ? 1 : 0; }
int FnPtrParams(void (*)(int), void (*)(int), int (*)(const char*, ...));
int FnPtrParams(void (*a)(int), void (*)(int), int (*)(const char*, ...)) { return a ? 1 : 0; }
int Variadic(int, ...);
int Variadic(int a, ...) { return a; }
int MemberPtr(int LatchBase::*, int (LatchBase::*)(int) const);
int MemberPtr(int LatchBase::*, int (LatchBase::*)(int) const) { return 0; }
int ArrayOfFnPtr(void (* const (&)[1])(const wchar_t*));
int ArrayOfFnPtr(void (* const (&)[1])(const wchar_t*)) { return 1; }

int LocalStatic(int x) {
    static int counter = x;
    counter++;
    return counter;
}
struct WithLocal { int F(int x) { static int s = x; return ++s; } };
int UseLocal(int x) { WithLocal w; return w.F(x); }

const char* StringLiteral() { return "hello, spinlock"; }
const wchar_t* WideLiteral() { return L"wide"; }

struct Base1 { virtual ~Base1(); virtual int V1(); };
struct Base2 { virtual ~Base2(); virtual int V2(); };
struct Derived : Base1, Base2 { ~Derived() override; int V1() override; int V2() override; };
Base1::~Base1() {}
int Base1::V1() { return 1; }
Base2::~Base2() {}
int Base2::V2() { return 2; }
Derived::~Derived() {}
int Derived::V1() { return 3; }
int Derived::V2() { return 4; }
Base1* MakeDerived() { static char buf[64]; return new (buf) Derived(); }

template <class T> struct Outer { struct Inner { template <class U> static int Deep(U); }; };
template <class T> template <class U> int Outer<T>::Inner::Deep(U) { return 0; }
template int Outer<int>::Inner::Deep<char>(char);

namespace SOS_Scheduler_ns { struct Task { int SwitchContext(); }; int Task::SwitchContext() { return 0; } }
namespace a { namespace b { namespace c {
struct D { static int E(a::b::c::D*, a::b::c::D*); }; int D::E(D*, D*) { return 0; }
} } }

struct Converter { template <class T> operator T*() const { return nullptr; } };
template Converter::operator int*() const;
template Converter::operator LatchBase*() const;

template <class T> struct Pair { template <class U> Pair(U); ~Pair(); };
template <class T> template <class U> Pair<T>::Pair(U) {}
template <class T> Pair<T>::~Pair() {}
template Pair<int>::Pair(char);
template Pair<int>::~Pair();

int g_array[4][8];
int* const g_const_ptr = &g_value;
const char* volatile g_volatile_ptr = nullptr;
int (*g_fn_ptr)(int) = &lck_lockInternal;
