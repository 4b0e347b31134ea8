import Foundation

/// Peak memory of a process, as Linux reports it.
public enum ProcessMemory {
    /// The largest resident set of process `processID` so far (`VmHWM` of `/proc/<pid>/status`),
    /// in bytes; `nil` once it has exited.
    public static func peakResidentBytes(of processID: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(processID)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap({ Int($0) }) else { return nil }
        return kilobytes * 1024
    }
}
