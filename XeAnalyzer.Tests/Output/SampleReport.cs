using System.Globalization;
using XeAnalyzer.Output;

namespace XeAnalyzer.Tests.Output;

/// <summary>
/// A synthetic report with every block type, built from the figures and stacks of the seed material (SEED-STACKS.md):
/// the NESTING_TRANSACTION_FULL latch buckets, latches per scheduler, a page_allocated/page_freed running total with
/// three rowgroup cycles, the wait summary of the blob-storage case, and a differential flame graph of its waits.
/// Used by the HTML, determinism and browser tests and for docs/report-example.png.
/// </summary>
internal static class SampleReport
{
    private static readonly DateTime Start = new(2024, 5, 1, 10, 0, 0, DateTimeKind.Utc);

    public static readonly string[] StackA =
    [
        "sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9",
        "sqlmin.dll!LatchBase::RecordAcquire+0x191",
        "sqlmin.dll!LatchBase::AcquireInternal+0x499",
        "sqlmin.dll!ParNestedXdes::GenerateLogRec+0x98",
        "sqlmin.dll!PFSPageRef::ModifyPFSRow+0x68b",
        "sqlmin.dll!ChangeExtStateInPFS+0x2a9",
        "sqlmin.dll!AllocationReq::AllocateExtent+0x33e",
        "sqlmin.dll!AllocationReq::AllocatePages+0x123b",
        "sqlmin.dll!AllocationReq::Allocate+0xf3",
        "sqlmin.dll!ExtentAllocator::PreAllocateExtents+0x457",
        "sqlmin.dll!ExtentAllocatorSingleAlloc::PreAllocate+0x72",
        "sqlmin.dll!ExtentAllocatorSingleAlloc::AllocateExtents+0x26c",
        "sqlmin.dll!CBulkAllocator::AllocateExtent+0x226",
        "sqlmin.dll!CBulkAllocator::AllocatePageId+0xe4",
        "sqlmin.dll!CBulkAllocator::AllocateLinkedAndFormattedLeafPage+0xc1",
        "sqlmin.dll!CHeapBuild::AllocateNextHeapPage+0x1f",
        "sqlmin.dll!CHeapBuild::InsertRow+0x1b1",
        "sqlmin.dll!RowsetBulk::InsertRow+0x23a9",
        "sqlmin.dll!CValRow::SetDataX+0x5b",
        "sqlTsEs.dll!CDefaultCollation::IHashW+0x227",
        "sqlmin.dll!CQScanUpdateNew::GetRow+0x516",
        "sqlmin.dll!CQScanXProducerNew::GetRowHelper+0x386",
        "sqlmin.dll!CQScanXProducerNew::GetRow+0x15",
        "sqlmin.dll!FnProducerOpen+0x5b",
    ];

    public static readonly string[] StackB =
    [
        "sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9",
        "sqlmin.dll!LatchBase::RecordAcquire+0x191",
        "sqlmin.dll!LatchBase::AcquireInternal+0x499",
        "sqlmin.dll!ParNestedXdes::GenerateLogRec+0x98",
        "sqlmin.dll!PageRef::ModifyBits+0x3e0",
        "sqlmin.dll!ModifyGAMBitAfterNewExtentFound+0xac",
        "sqlmin.dll!AllocExtentFromGAMPage+0x8ef",
        "sqlmin.dll!AllocationReq::AllocateExtent+0x1bb",
        "sqlmin.dll!AllocationReq::AllocatePages+0x123b",
        "sqlmin.dll!AllocationReq::Allocate+0xf3",
        "sqlmin.dll!ExtentAllocator::PreAllocateExtents+0x457",
        "sqlmin.dll!ExtentAllocatorSingleAlloc::PreAllocate+0x72",
        "sqlmin.dll!ExtentAllocatorSingleAlloc::AllocateExtents+0x26c",
        "sqlmin.dll!CBulkAllocator::AllocateExtent+0x226",
        "sqlmin.dll!CBulkAllocator::AllocatePageId+0xe4",
        "sqlmin.dll!CBulkAllocator::AllocateLinkedAndFormattedLeafPage+0xc1",
        "sqlmin.dll!CHeapBuild::AllocateNextHeapPage+0x1f",
        "sqlmin.dll!CHeapBuild::InsertRow+0x1b1",
        "sqlmin.dll!RowsetBulk::InsertRow+0x23a9",
        "sqlmin.dll!CValRow::SetDataX+0x5b",
        "sqlTsEs.dll!CDefaultCollation::IHashW+0x227",
        "sqlmin.dll!CQScanUpdateNew::GetRow+0x516",
        "sqlmin.dll!CQScanXProducerNew::GetRowHelper+0x386",
        "sqlmin.dll!CQScanXProducerNew::GetRow+0x15",
    ];

    public static readonly string[] StackC =
    [
        "sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9",
        "sqlmin.dll!LatchBase::RecordAcquire+0x191",
        "sqlmin.dll!LatchBase::AcquireInternal+0x499",
        "sqlmin.dll!ParNestedXdes::GenerateLogRec+0x98",
        "sqlmin.dll!PageRef::ModifyBits+0x3e0",
        "sqlmin.dll!ChangeExtStateInIAM+0x2ac",
        "sqlmin.dll!AllocationReq::AllocatePages+0x17e5",
        "sqlmin.dll!AllocationReq::Allocate+0xf3",
        "sqlmin.dll!ExtentAllocator::PreAllocateExtents+0x457",
        "sqlmin.dll!ExtentAllocatorSingleAlloc::PreAllocate+0x72",
        "sqlmin.dll!ExtentAllocatorSingleAlloc::AllocateExtents+0x26c",
        "sqlmin.dll!CBulkAllocator::AllocateExtent+0x226",
        "sqlmin.dll!CBulkAllocator::AllocatePageId+0xe4",
        "sqlmin.dll!CBulkAllocator::AllocateLinkedAndFormattedLeafPage+0xc1",
        "sqlmin.dll!CHeapBuild::AllocateNextHeapPage+0x1f",
        "sqlmin.dll!CHeapBuild::InsertRow+0x1b1",
        "sqlmin.dll!RowsetBulk::InsertRow+0x23a9",
        "sqlmin.dll!CValRow::SetDataX+0x5b",
        "sqlTsEs.dll!CDefaultCollation::IHashW+0x227",
        "sqlmin.dll!CQScanUpdateNew::GetRow+0x516",
        "sqlmin.dll!CQScanXProducerNew::GetRowHelper+0x386",
        "sqlmin.dll!CQScanXProducerNew::GetRow+0x15",
        "sqlmin.dll!FnProducerOpen+0x5b",
        "sqlmin.dll!FnProducerThread+0x80b",
    ];

    private static readonly string[] StackD =
    [
        "sqldk!XeSosPkg::wait_info_external::Publish",
        "sqldk!SOS_Task::PushWait",
        "sqlmin!SOS_Task::AutoSwitchPreemptive::AutoSwitchPreemptive",
        "sqlmin!BlobAccess::AsyncHttpIOInternal",
        "sqlmin!BlobAccess::AsyncIOInternal",
        "sqlmin!XFCB2::ScatterReadInternal",
        "sqlmin!FCB::ScatterRead",
        "sqlmin!RecoveryUnit::ScatterRead",
        "sqlmin!BPool::GetFromDisk",
        "sqlmin!BPool::Get",
        "sqlmin!BlobBase::FixNode",
        "sqlmin!BlobManager::LocateBlob",
        "sqlmin!BlobManager::OpenInternal",
        "sqlmin!BlobManager::Open",
        "sqlmin!LockBytesSS::Open",
        "sqlmin!OpenLockBytesNew",
        "sqlmin!OpenIlbssWithSeLobHandleRO",
        "sqlmin!IndexDataSetSession::OpenStreamWithSeLobHandle",
        "sqlmin!RowsetNewSS::OpenWithSeLobHandle",
        "sqlmin!CBlobHandleBaseTableFactory::PilbGet",
        "sqlTsEs!CompareLegacyLobNull",
        "sqlTsEs!CTEsCompare<35,35>::BlCompareXcArgArgImpl",
        "sqlTsEs!CEsExec::GeneralEval4",
        "sqlmin!CQScanStreamAggregateNew::GetRowHelper",
    ];

    private static readonly string[] StackF =
    [
        "sqldk!XeSosPkg::wait_info_external::Publish",
        "sqldk!SOS_Scheduler::UpdateWaitTimeStats",
        "sqldk!SOS_Task::PopWait",
        "sqlmin!SOS_ExternalAutoWait::~SOS_ExternalAutoWait",
        "sqlmin!SOS_Task::AutoSwitchPreemptive::~AutoSwitchPreemptive",
        "sqlmin!BlobAccess::AsyncHttpIOInternal",
        "sqlmin!BlobAccess::AsyncIOInternal",
        "sqlmin!XFCB2::AsyncWriteInternal",
        "sqlmin!FCB::AsyncWrite",
        "sqlmin!SQLServerLogMgr::FlushLCOld",
        "sqlmin!SQLServerLogMgr::LogWriter",
        "sqldk!SOS_Task::Param::Execute",
        "sqldk!SOS_Scheduler::RunTask",
        "sqldk!SOS_Scheduler::ProcessTasks",
        "sqldk!SchedulerManager::WorkerEntryPoint",
        "sqldk!SystemThreadDispatcher::ProcessWorker",
        "sqldk!SchedulerManager::ThreadEntryPoint",
        "KERNEL32.DLL+0x0000000000017974",
        "ntdll.dll+0x000000000006A271",
    ];

    private static readonly string[] StackG =
    [
        "sqldk!XeSosPkg::wait_info_external::Publish",
        "sqldk!SOS_Task::PushWait",
        "sqlmin!SOS_Task::AutoSwitchPreemptive::AutoSwitchPreemptive",
        "sqlmin!BlobAccess::AsyncHttpIOInternal",
        "sqlmin!BlobAccess::AsyncIOInternal",
        "sqlmin!LeaseRenewalManager2::RenewLeases",
        "sqlmin!XStoreLeaseRenewalTask2",
        "sqldk!SOS_Task::Param::Execute",
        "sqldk!SOS_Scheduler::RunTask",
        "sqldk!SOS_Scheduler::ProcessTasks",
        "sqldk!SchedulerManager::WorkerEntryPoint",
        "sqldk!SystemThreadDispatcher::ProcessWorker",
        "sqldk!SchedulerManager::ThreadEntryPoint",
    ];

    public static CallTree LatchTree()
    {
        var b = new CallTreeBuilder();
        b.AddStack(StackA, 115_192);
        b.AddStack(StackB, 115_189);
        b.AddStack(StackC, 115_187);
        b.AddStack(StackA[..6], 472);
        return b.Build();
    }

    public static CallTree WaitDiffTree()
    {
        var before = new CallTreeBuilder(WeightUnit.Milliseconds);
        before.AddStack(StackD, 21_000);
        before.AddStack(StackF, 9_000);
        before.AddStack(StackG, 2_000);
        var after = new CallTreeBuilder(WeightUnit.Milliseconds);
        after.AddStack(StackD, 30_500);
        after.AddStack(StackF, 6_300);
        after.AddStack(StackG, 7_001);
        return CallTree.Diff(before.Build(), after.Build());
    }

    public static BarChart SchedulerChart()
    {
        string[] schedulers = [.. Enumerable.Range(24, 24).Select(i => i.ToString(CultureInfo.InvariantCulture))];
        double[] values = [.. Enumerable.Range(24, 24).Select(i => i == 27 ? 39_961.0 : 44_100 + (i * 37 % 400))];
        return new BarChart(
            "latch_acquired per scheduler (MAXDOP 8)",
            schedulers,
            values,
            ["27"],
            ReferenceLine.Mean(values)
        )
        {
            CategoryAxisLabel = "scheduler_id",
            ValueAxisLabel = "latch acquires",
        };
    }

    /// <summary>A running total of allocated pages: three rowgroups, each allocating steadily then freeing
    /// fast.</summary>
    public static LineChart MemoryChart(int pointsPerCycle = 4000)
    {
        var total = new List<(DateTime, double)>();
        var freed = new List<(DateTime, double)>();
        double pages = 0,
            freedPages = 0;
        DateTime t = Start;
        for (int cycle = 0; cycle < 3; cycle++)
        {
            for (int i = 0; i < pointsPerCycle; i++)
            {
                t = t.AddMilliseconds(5);
                pages += 1 + ((i * 7919) % 64 == 0 ? 64 : 0);
                total.Add((t, pages));
                freed.Add((t, freedPages));
            }

            double peak = pages;
            for (int i = 0; i < pointsPerCycle / 8; i++)
            {
                t = t.AddMilliseconds(4);
                double step = peak / (pointsPerCycle / 8);
                pages = Math.Max(0, pages - step);
                freedPages += step;
                total.Add((t, pages));
                freed.Add((t, freedPages));
            }
        }

        return new LineChart(
            "Pages allocated (running total) during a CCI insert",
            XAxisKind.Time,
            [
                LineSeries.FromTimestamps("pages allocated now", total),
                LineSeries.FromTimestamps("pages freed (cumulative)", freed),
            ]
        )
        {
            YAxisLabel = "8 KB pages",
        };
    }

    public static ReportTable WaitTable() =>
        new TableBuilder("Wait statistics of the slow plan")
            .AddColumn(TableColumn.Text("Wait type"))
            .AddColumn(TableColumn.Integer("Waits"))
            .AddColumn(TableColumn.Duration("Wait time"))
            .AddColumn(TableColumn.Decimal("Avg wait (ms)", 1))
            .AddColumn(TableColumn.Percentage("Share of wait time", 1))
            .AddRow(
                "LATCH_EX",
                1_971,
                TimeSpan.FromMilliseconds(5_423_928),
                5_423_928.0 / 1_971,
                TableCell.FromPercentage(5_423_928.0 / 7_254_695)
            )
            .AddRow(
                "PAGEIOLATCH_SH",
                29_210,
                TimeSpan.FromMilliseconds(977_288),
                977_288.0 / 29_210,
                TableCell.FromPercentage(977_288.0 / 7_254_695)
            )
            .AddRow(
                "CXPACKET",
                700,
                TimeSpan.FromMilliseconds(809_678),
                809_678.0 / 700,
                TableCell.FromPercentage(809_678.0 / 7_254_695)
            )
            .AddRow(
                "PREEMPTIVE_HTTP_REQUEST",
                50_344,
                TimeSpan.FromMilliseconds(43_801),
                43_801.0 / 50_344,
                TableCell.FromPercentage(43_801.0 / 7_254_695)
            )
            .AddNote(
                "MAXDOP 8, 13 minutes: about 6.7 LATCH_EX wait seconds per second (ACCESS_METHODS_DATASET_PARENT)."
            )
            .AddWarning(
                "Every PAGEIOLATCH_SH wait was immediately preceded by a PREEMPTIVE_HTTP_REQUEST wait on the same "
                    + "worker."
            )
            .Build();

    public static ReportTable BucketTable()
    {
        var t = new TableBuilder("Top callstack buckets of latch_acquired (NESTING_TRANSACTION_FULL)")
            .AddColumn(TableColumn.Integer("Bucket"))
            .AddColumn(TableColumn.Integer("Events"))
            .AddColumn(TableColumn.Percentage("Share"))
            .AddColumn(TableColumn.Text("Distinguishing frame"))
            .AddColumn(TableColumn.Timestamp("First seen (UTC)"));
        long total = 347_435;
        (long Count, string Frame)[] rows =
        [
            (115_192, "sqlmin.dll!PFSPageRef::ModifyPFSRow+0x68b"),
            (115_189, "sqlmin.dll!ModifyGAMBitAfterNewExtentFound+0xac"),
            (115_187, "sqlmin.dll!ChangeExtStateInIAM+0x2ac"),
            (472, "sqlmin.dll!ChangeExtStateInPFS+0x2a9"),
        ];
        for (int i = 0; i < rows.Length; i++)
        {
            t.AddRow(
                i + 1,
                rows[i].Count,
                TableCell.FromPercentage((double)rows[i].Count / total),
                rows[i].Frame,
                Start.AddMilliseconds(12.5 * (i + 1))
            );
        }

        return t.AddNote(
                "347,435 latch_acquired events; 347,321 log records; the temp table took 7,373,280 KB (about 115,208 "
                    + "extents): latches \u2248 3 \u00D7 extents."
            )
            .Build();
    }

    public static ReportDocument Build() =>
        new(
            "XeAnalyzer sample report: minimal logging into a heap",
            [
                new ReportSection(
                    "Summary",
                    new Paragraph(
                        "A synthetic report built from the published figures of a parallel SELECT INTO a heap "
                            + "(MAXDOP 2 and 8). "
                            + "It shows every block type of the report model; the real sample-based report will "
                            + "replace it."
                    ),
                    new KeyValueList(
                        [
                            new("Capture", "latch_acquired, class NESTING_TRANSACTION_FULL"),
                            new("Events", 347_435),
                            new("Log records written", 347_321),
                            new("Capture start", Start),
                            new("Duration", TimeSpan.FromMinutes(13)),
                            new("Top-3 share", TableCell.FromPercentage(345_568.0 / 347_435)),
                        ],
                        "Capture"
                    )
                ),
                new ReportSection(
                    "Stack buckets",
                    BucketTable(),
                    new FlameGraph(
                        LatchTree(),
                        new FlameGraphOptions
                        {
                            Title = "latch_acquired callstacks (346,040 events)",
                            CountName = "events",
                        }
                    ),
                    new Preformatted(string.Join('\n', StackA), "Stack A (PFS), leaf first")
                ),
                new ReportSection(
                    "Latches per scheduler",
                    new Paragraph(
                        "Workers ran on schedulers 24 to 47; the busy scheduler 27 got about 10% fewer latch acquires."
                    ),
                    SchedulerChart()
                ),
                new ReportSection(
                    "Memory",
                    MemoryChart(),
                    BarChart.Histogram(
                        "Pages per page_freed event",
                        Enumerable.Range(0, 2000).Select(i => (double)(1 + (1 << (i % 9)))),
                        12
                    )
                ),
                new ReportSection(
                    "Waits",
                    WaitTable(),
                    new FlameGraph(
                        WaitDiffTree(),
                        new FlameGraphOptions
                        {
                            Title = "PREEMPTIVE_HTTP_REQUEST wait time: slow plan vs. baseline",
                            ChildOrder = FlameChildOrder.HeaviestFirst,
                            Inverted = true,
                        }
                    )
                ),
            ]
        );
}
