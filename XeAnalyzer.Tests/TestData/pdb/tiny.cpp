// Source of the XeAnalyzer PDB-reader test fixture (see build.sh). No CRT: every body only touches a volatile sink.
// Shapes covered: a large function (offsets of several hundred bytes), a class with ctor/dtor, a template,
// two overloads, two identical functions folded by /opt:icf, extern "C", a static function, an
// anonymous-namespace function, and an external function that is not exported (a public but no export).

volatile int g_sink;

#define PAD1 g_sink = g_sink * 3 + 1;
#define PAD8 PAD1 PAD1 PAD1 PAD1 PAD1 PAD1 PAD1 PAD1
#define PAD32 PAD8 PAD8 PAD8 PAD8

namespace TinyPkg {
struct Widget {
    int value;
    Widget();
    ~Widget();
    static int Publish(void* target, int n);
    int Poke(int n);
};

Widget::Widget() : value(7) { g_sink = 1; }
Widget::~Widget() { g_sink = value; }

int Widget::Publish(void* target, int n)
{
    PAD32 PAD32
    return n + (target != nullptr ? g_sink : 0);
}

int Widget::Poke(int n)
{
    PAD8
    value += n;
    return value;
}
} // namespace TinyPkg

template <int A, int B>
struct Spin {
    static int Acquire(unsigned long long spins)
    {
        for (unsigned long long i = 0; i < spins; i++) {
            g_sink = g_sink + A * B;
        }
        PAD8
        return g_sink;
    }
};

template struct Spin<143, 7>;

int AllocPage(int pages)
{
    PAD8
    return pages + g_sink;
}

int AllocPage(int pages, int node)
{
    PAD8 PAD8
    return pages * node + g_sink;
}

// Identical bodies: /opt:icf folds these two into one address (an ICF tie).
int FoldFirst(int x)
{
    PAD8
    return x * 5 + g_sink;
}

int FoldSecond(int x)
{
    PAD8
    return x * 5 + g_sink;
}

static __attribute__((noinline)) int StaticHelper(int x)
{
    PAD32
    return x + g_sink;
}

namespace {
__attribute__((noinline)) int AnonHelper(int x)
{
    PAD8
    return x - g_sink;
}
} // namespace

extern "C" int lock_internal(int mode)
{
    PAD8
    return StaticHelper(mode) + AnonHelper(mode);
}

// External but not exported: present in the publics stream, absent from the export table.
int NotExported(int x)
{
    PAD8
    return x ^ g_sink;
}

extern "C" int call_all(int x)
{
    TinyPkg::Widget w;
    return w.Poke(x) + NotExported(x) + lock_internal(x);
}
