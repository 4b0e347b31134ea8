import Foundation

/// CPU time of a process, as Linux reports it.
public enum ProcessCPUTime {
    /// The user and system CPU time process `processID` has used so far (`utime` + `stime` of
    /// `/proc/<pid>/stat`, all its threads), in seconds; `nil` once it has exited.
    public static func seconds(of processID: pid_t) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(processID)/stat", encoding: .utf8),
              let afterName = stat.lastIndex(of: ")") else { return nil }
        // Fields after the command name (which may hold spaces) start at field 3 (state); utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: afterName)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The user and system CPU time this process has used so far, all its threads, in seconds.
    public static func ownSeconds() -> Double {
        usageSeconds(RUSAGE_SELF)
    }

    /// The user and system CPU time of this process's children that have ended and been waited
    /// for, in seconds: around one child's run (and no other child's end), that child's own.
    public static func childrenSeconds() -> Double {
        usageSeconds(RUSAGE_CHILDREN)
    }

    private static func usageSeconds(_ who: __rusage_who) -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(who.rawValue), &usage)
        return [usage.ru_utime, usage.ru_stime].reduce(0) { $0 + Double($1.tv_sec) + Double($1.tv_usec) / 1_000_000 }
    }
}
