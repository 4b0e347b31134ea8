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
}
