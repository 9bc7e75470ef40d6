using XeAnalyzer.Capture;

namespace XeAnalyzer.Reporting;

/// <summary>
/// The event sessions SQL Server (or its cluster resource) runs and manages itself: <c>system_health</c>,
/// <c>AlwaysOn_health</c> and the SQLDIAG logs of the failover-cluster resource. A report on one of them analyses what
/// it holds and lists once what other analyses would need, instead of telling the user to alter a session they should
/// not.
/// </summary>
internal sealed class BuiltInSession
{
    // Events only these sessions collect; two of them mark the capture when its files are renamed.
    private static readonly (string Name, string[] Events)[] s_signatures =
    [
        (
            "system_health",
            [
                "sqlserver.sp_server_diagnostics_component_result",
                "sqlserver.scheduler_monitor_system_health_ring_buffer_recorded",
                "sqlserver.security_error_ring_buffer_recorded",
                "sqlserver.connectivity_ring_buffer_recorded",
                "sqlos.scheduler_monitor_non_yielding_ring_buffer_recorded",
                "sqlserver.memory_broker_ring_buffer_recorded",
            ]
        ),
        (
            "AlwaysOn_health",
            [
                "sqlserver.availability_replica_state_change",
                "sqlserver.alwayson_ddl_executed",
                "sqlserver.availability_replica_manager_state_change",
                "sqlserver.availability_group_lease_expired",
                "sqlserver.hadr_db_partner_set_sync_state",
                "sqlserver.lock_redo_blocked",
            ]
        ),
        (
            "SQLDIAG",
            [
                "sqlserver.component_health_result",
                "sqlserver.info_message",
                "sqlserver.availability_group_is_alive_failure",
            ]
        ),
    ];

    private BuiltInSession(string name, string how)
    {
        Name = name;
        How = how;
    }

    /// <summary>The session's name.</summary>
    public string Name { get; }

    /// <summary>How it was recognised (file names, or the events it holds).</summary>
    public string How { get; }

    /// <summary>The built-in session a capture comes from, or <see langword="null"/> when it is none of them.</summary>
    public static BuiltInSession? Recognise(CaptureSummary capture)
    {
        foreach (FileSummary f in capture.Files)
        {
            string file = Path.GetFileName(f.Path);
            if (file.StartsWith("system_health", StringComparison.OrdinalIgnoreCase))
            {
                return new BuiltInSession("system_health", "file name " + file);
            }

            if (file.StartsWith("AlwaysOn_health", StringComparison.OrdinalIgnoreCase))
            {
                return new BuiltInSession("AlwaysOn_health", "file name " + file);
            }

            if (file.Contains("_SQLDIAG_", StringComparison.OrdinalIgnoreCase))
            {
                return new BuiltInSession("SQLDIAG", "file name " + file);
            }
        }

        var names = new HashSet<string>(capture.EventsByName.Select(e => e.Name), StringComparer.Ordinal);
        foreach ((string name, string[] events) in s_signatures)
        {
            string[] seen = [.. events.Where(names.Contains)];
            if (seen.Length >= 2)
            {
                return new BuiltInSession(name, "its events " + string.Join(", ", seen));
            }
        }

        return null;
    }
}
