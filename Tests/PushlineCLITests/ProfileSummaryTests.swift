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

    private static func samples(_ count: Int, _ thread: String, _ frames: [(String, String)]) -> [String] {
        Array(repeating: sample(thread, frames), count: count)
    }

    private static let serve = ("$s6Worker0A4LoopC5serve33_422917A8BFEC969247999B638846CB0ALLyyKF", "pushline")

    /// The summary's output for `samples`; fails the test when the script does not succeed.
    private static func summary(_ samples: [String], _ arguments: [String] = []) throws -> String {
        let result = try ExternalCommand.run("/usr/bin/python3", [RepositoryPaths.file("scripts/profile-summary.py")] + arguments,
                                             standardInput: Data(samples.joined().utf8))
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutput
    }

    /// The line of the table under the heading that starts with `table` whose text ends with `label`, trimmed.
    private static func line(_ output: String, in table: String, endingWith label: String) -> String? {
        let lines = output.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix(table) }) else { return nil }
        return lines[(start + 1)...].prefix { !$0.isEmpty }.first { $0.hasSuffix(label) }?.trimmingCharacters(in: .whitespaces)
    }

    @Test("each thread is named by the stage it runs, with its share of every sample and its µs per delivery")
    func threadsAsSharesAndMicroseconds() throws {
        let output = try Self.summary(Self.samples(6, "pushline-worker", [("swift_retain", "libswiftCore.so")])
            + Self.samples(3, "apns-sender", [("nghttp2_session_send", "libnghttp2.so.14")])
            + Self.samples(1, "rdk:broker1", [("rd_kafka_poll", "librdkafka.so.1")]), ["--us-per-delivery", "20"])
        #expect(output.hasPrefix("10 samples; 20.0 µs per delivery in all\n"))
        #expect(Self.line(output, in: "by thread", endingWith: "(pushline-worker)")
            == "60.0 %  12.00 µs  worker loop: state machine, Kafka poll and produce (pushline-worker)")
        #expect(Self.line(output, in: "by thread", endingWith: "(apns-sender)") == "30.0 %   6.00 µs  sender loop: HTTP/2, TLS (apns-sender)")
        #expect(Self.line(output, in: "by thread", endingWith: "(rdk:…)") == "10.0 %   2.00 µs  librdkafka's own threads (rdk:…)")
    }

    @Test("each library's share is that of the samples whose own function lies in it")
    func librariesBySampleFunction() throws {
        let output = try Self.summary(Self.samples(3, "pushline-worker", [("swift_retain", "libswiftCore.so"), Self.serve])
            + Self.samples(1, "pushline-worker", [("rd_kafka_poll", "librdkafka.so.1"), Self.serve]))
        #expect(Self.line(output, in: "by library", endingWith: "libswiftCore.so") == "75.0 %  libswiftCore.so")
        #expect(Self.line(output, in: "by library", endingWith: "librdkafka.so.1") == "25.0 %  librdkafka.so.1")
    }

    @Test("runtime costs are told by their functions (through the PLT or split off too), jemalloc by its library; the kernel's look-alikes and copies are not counted")
    func runtimeCostsRecognised() throws {
        let output = try Self.summary(
            Self.samples(1, "pushline-worker", [("swift_retain@plt", "pushline")])
                + Self.samples(1, "pushline-worker", [("swift::RefCounts<swift::RefCountBitsT<(swift::RefCountInlinedness)1> >::doDecrementSlow<(swift::PerformDeinit)1>", "libswiftCore.so")])
                + Self.samples(1, "pushline-worker", [("[unknown]", "libjemalloc.so.2")])
                + Self.samples(1, "pushline-worker", [("swift_deallocClassInstance.cold.1", "libswiftCore.so")])
                + Self.samples(1, "pushline-worker", [("memcpy@plt", "pushline")])
                + Self.samples(1, "pushline-worker", [("__memmove_avx512_unaligned_erms", "libc.so.6")])
                + Self.samples(1, "pushline-worker", [("finish_task_switch.isra.0", "[kernel.kallsyms]")])
                + Self.samples(2, "pushline-worker", [("free_pages_and_swap_cache", "[kernel.kallsyms]")])
                + Self.samples(1, "pushline-worker", [("memcpy_orig", "[kernel.kallsyms]")]))
        #expect(Self.line(output, in: "the runtime's", endingWith: "reference counting") == "20.0 %  reference counting")
        #expect(Self.line(output, in: "the runtime's", endingWith: "allocation and freeing") == "20.0 %  allocation and freeing")
        #expect(Self.line(output, in: "the runtime's", endingWith: "copies in user space (memmove, memcpy)") == "20.0 %  copies in user space (memmove, memcpy)")
        #expect(Self.line(output, in: "the runtime's", endingWith: "context switches (kernel)") == "10.0 %  context switches (kernel)")
    }

    @Test("within each thread, the runtime's costs are shares of that thread's own samples")
    func runtimeCostsWithinThreads() throws {
        let output = try Self.summary(Self.samples(1, "pushline-worker", [("swift_retain", "libswiftCore.so")])
            + Self.samples(3, "pushline-worker", [("rd_kafka_poll", "librdkafka.so.1")])
            + Self.samples(4, "apns-sender", [("nghttp2_session_send", "libnghttp2.so.14")])
            + Self.samples(1, "apns-sender", [("finish_task_switch.isra.0", "[kernel.kallsyms]")]))
        let worker = Self.line(output, in: "the same costs within each thread", endingWith: "context switches (kernel) 0.0 %")
        #expect(worker?.hasPrefix("worker loop: state machine, Kafka poll and produce (pushline-worker): reference counting 25.0 %,") == true,
                "\(worker ?? output)")
    }

    @Test("a library without symbols is one line among the heaviest functions, not one per address")
    func unknownFunctionsOfALibraryAreOneLine() throws {
        let output = try Self.summary(Self.samples(3, "apns-sender", [("[unknown]", "libnghttp2.so.14")])
            + Self.samples(1, "apns-sender", [("swift_retain", "libswiftCore.so")]))
        #expect(Self.line(output, in: "heaviest functions", endingWith: "[unknown] in libnghttp2.so.14") == "75.0 %  [unknown] in libnghttp2.so.14")
    }

    @Test("a function of Pushline's counts once per sample however often its stack holds it, under its demangled name")
    func inclusiveCountsOncePerSample() throws {
        // The demangled name is `swift demangle`'s; without it the script keeps the mangled one.
        let swift = try ExternalCommand.run("/usr/bin/env", ["swift", "demangle", "--version"])
        #expect(swift.status == 0, "`swift` must be on PATH for this test: \(swift.standardError)")
        let output = try Self.summary(Self.samples(2, "pushline-worker", [("swift_release", "libswiftCore.so"), Self.serve, Self.serve])
            + Self.samples(2, "pushline-worker", [("free", "libc.so.6")]))
        #expect(Self.line(output, in: "worker loop", endingWith: "WorkerLoop.serve()") == "50.0 %  WorkerLoop.serve()")
    }

    @Test("input without call stacks is refused with what was expected")
    func refusesInputWithoutStacks() throws {
        let result = try ExternalCommand.run("/usr/bin/python3", [RepositoryPaths.file("scripts/profile-summary.py")],
                                             standardInput: Data("pushline-worker 4242 100.000001:     500250 cpu-clock:ppp: \n\n".utf8))
        #expect(result.status != 0)
        #expect(result.standardError.contains("no samples with call stacks on standard input"))
    }
}
