import Foundation
import PushlineTestKit
import Testing

/// scripts/profile-summary.py, the tables of scripts/profile-e2e.sh, on samples written here in the
/// form `perf script` prints them (a line per sample, then its stack, innermost first).
@Suite("scripts/profile-summary.py")
struct ProfileSummaryTests {
    /// One sample of `thread` with these frames (symbol, library), innermost first.
    private static func sample(_ thread: String, _ frames: [(String, String)]) -> String {
        "\(thread) 4242 100.000001:     500250 cpu-clock:ppp: \n"
            + frames.enumerated().map { "\t          \(String(0x1000 + $0.offset, radix: 16)) \($0.element.0)+0x1f (/usr/lib/\($0.element.1))\n" }.joined()
            + "\n"
    }

    private static let serve = ("$s6Worker0A4LoopC5serve33_422917A8BFEC969247999B638846CB0ALLyyKF", "pushline")

    private static func summary(_ samples: [String], _ arguments: [String] = []) throws -> CommandResult {
        try ExternalCommand.run("/usr/bin/python3", [RepositoryPaths.file("scripts/profile-summary.py")] + arguments,
                                standardInput: Data(samples.joined().utf8))
    }

    /// The line of `table` (the heading it follows) that ends with `label`, trimmed.
    private static func line(_ output: String, in table: String, endingWith label: String) -> String? {
        let lines = output.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix(table) }) else { return nil }
        return lines[(start + 1)...].prefix { !$0.isEmpty }.first { $0.hasSuffix(label) }?.trimmingCharacters(in: .whitespaces)
    }

    @Test("threads, libraries and runtime costs as shares of every sample and in µs per delivery")
    func sharesByThreadLibraryAndCost() throws {
        let samples = Array(repeating: Self.sample("pushline-worker", [("swift_retain", "libswiftCore.so"), Self.serve]), count: 5)
            + [Self.sample("pushline-worker", [("__memmove_avx512_unaligned_erms", "libc.so.6"), Self.serve])]
            + Array(repeating: Self.sample("apns-sender", [("[unknown]", "libnghttp2.so.14")]), count: 3)
            + [Self.sample("rdk:broker1", [("malloc", "libjemalloc.so.2")])]
        let result = try Self.summary(samples, ["--us-per-delivery", "20"])
        #expect(result.status == 0, "\(result.standardError)")
        let output = result.standardOutput
        #expect(output.hasPrefix("10 samples; 20.0 µs per delivery in all\n"))
        #expect(Self.line(output, in: "by thread", endingWith: "(pushline-worker)")
            == "60.0 %  12.00 µs  worker loop: state machine, Kafka poll and produce (pushline-worker)")
        #expect(Self.line(output, in: "by thread", endingWith: "(apns-sender)") == "30.0 %   6.00 µs  sender loop: HTTP/2, TLS (apns-sender)")
        #expect(Self.line(output, in: "by thread", endingWith: "(rdk:…)") == "10.0 %   2.00 µs  librdkafka's own threads (rdk:…)")
        #expect(Self.line(output, in: "by library", endingWith: "libswiftCore.so") == "50.0 %  10.00 µs  libswiftCore.so")
        #expect(Self.line(output, in: "the runtime's", endingWith: "reference counting") == "50.0 %  10.00 µs  reference counting")
        #expect(Self.line(output, in: "the runtime's", endingWith: "allocation and freeing") == "10.0 %   2.00 µs  allocation and freeing")
        #expect(Self.line(output, in: "the runtime's", endingWith: "copies (memmove, memcpy)") == "10.0 %   2.00 µs  copies (memmove, memcpy)")
        #expect(Self.line(output, in: "the runtime's", endingWith: "context switches (kernel)") == "0.0 %   0.00 µs  context switches (kernel)")
        // A library without symbols is one entry, not one per address.
        #expect(Self.line(output, in: "heaviest functions", endingWith: "[unknown] in libnghttp2.so.14") == "30.0 %   6.00 µs  [unknown] in libnghttp2.so.14")
    }

    @Test("a function counts once per sample however often its stack holds it, under its demangled name")
    func inclusiveCountsOncePerSample() throws {
        let recursive = Self.sample("pushline-worker", [("swift_release", "libswiftCore.so"), Self.serve, Self.serve])
        let other = Self.sample("pushline-worker", [("free", "libc.so.6")])
        let result = try Self.summary([recursive, recursive, other, other])
        #expect(result.status == 0, "\(result.standardError)")
        // Without --us-per-delivery, shares only.
        #expect(Self.line(result.standardOutput, in: "worker loop", endingWith: "WorkerLoop.serve()") == "50.0 %  WorkerLoop.serve()")
    }

    @Test("input without call stacks is refused with what was expected")
    func refusesInputWithoutStacks() throws {
        let result = try Self.summary(["pushline-worker 4242 100.000001:     500250 cpu-clock:ppp: \n\n"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("no samples with call stacks on standard input"))
    }
}
