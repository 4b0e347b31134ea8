import Foundation

/// What the kernel lists of this CPU's features: the flags of `/proc/cpuinfo`'s first `flags` line.
public enum CPUFlags {
    /// The flags the kernel lists; throws when `/proc/cpuinfo` cannot be read.
    public static func listed() throws -> Set<String> {
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        guard let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return [] }
        return Set(line.split(separator: " ").map(String.init))
    }

    /// Whether the kernel lists the SHA extensions and the SSE levels their code needs
    /// (`sha_ni`, `ssse3`, `sse4_1`): where Digests compresses SHA-1 blocks with them.
    public static func listSHAExtensions() throws -> Bool {
        try listed().isSuperset(of: ["sha_ni", "ssse3", "sse4_1"])
    }
}
