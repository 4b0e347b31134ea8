import Foundation
import PushlineTestKit
import Testing

/// scripts/count-summary.py, the tables of scripts/count-e2e.sh, on callgrind files written here in
/// callgrind's own format: names compressed as `(id) name` and then `(id)`, a call's `calls=` line
/// followed by the line of its inclusive cost.
@Suite("scripts/count-summary.py")
struct CountSummaryTests {
    /// A callgrind file of `totals` instructions over `body`.
    private static func callgrindFile(totals: Int, positions: String = "line", _ body: String) -> String {
        "version: 1\ncreator: callgrind-3.19.0\npid: 4242\ncmd: pushline run\npart: 1\n\npositions: \(positions)\nevents: Ir\n"
            + "summary: \(totals)\n\n" + body + "\ntotals: \(totals)\n"
    }

    /// The summary's output for `file` over `outcomes` outcomes; fails the test when the script does not succeed.
    private static func summary(_ file: String, outcomes: Int) throws -> String {
        let result = try run(file, ["--outcomes", String(outcomes)])
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutput
    }

    private static func run(_ file: String, _ arguments: [String]) throws -> CommandResult {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("callgrind-\(UUID().uuidString).out").path
        try Data(file.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try ExternalCommand.run("/usr/bin/python3", [RepositoryPaths.file("scripts/count-summary.py")] + arguments + [path])
    }

    /// The line of the table under the heading that starts with `table` whose text ends with `label`, trimmed.
    private static func line(_ output: String, in table: String, endingWith label: String) -> String? {
        let lines = output.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix(table) }) else { return nil }
        return lines[(start + 1)...].prefix { !$0.isEmpty }.first { $0.hasSuffix(label) }?.trimmingCharacters(in: .whitespaces)
    }

    /// `serve` in the worker (630 own instructions) calls `swift_retain` 30 times and
    /// `swift_bridgeObjectRetain` 10 times, which calls `swift_retain` once each; nghttp2's unnamed
    /// function runs 200; 1,000 instructions in all.
    private static let worker = callgrindFile(totals: 1000, """
        ob=(1) /tmp/count/bin/pushline-counted
        fl=(1) ???
        fn=(1) serve
        0 630
        cfn=(2) swift_retain
        calls=30 0
        0 90
        cfn=(3) swift_bridgeObjectRetain
        calls=10 0
        0 80
        fn=(2)
        0 90
        fn=(3)
        0 50
        cfn=(2)
        calls=10 0
        0 30
        fn=(2)
        0 30
        ob=(2) /usr/lib/x86_64-linux-gnu/libnghttp2.so.14.24.1
        fn=(4) 0x0000000000019530
        0 200

        """)

    @Test("instructions per outcome in all and by library: the library each function's own instructions lie in")
    func instructionsInAllAndByLibrary() throws {
        let output = try Self.summary(Self.worker, outcomes: 10)
        #expect(output.hasPrefix("10 outcomes; 100 instructions per outcome in all\n"))
        #expect(Self.line(output, in: "by library", endingWith: "pushline-counted") == "80.0 %         80  pushline-counted")
        #expect(Self.line(output, in: "by library", endingWith: "libnghttp2.so.14.24.1") == "20.0 %         20  libnghttp2.so.14.24.1")
    }

    @Test("the runtime's calls are those into it from outside it: a bridge retain that retains counts once")
    func runtimeCallsFromOutside() throws {
        let output = try Self.summary(Self.worker, outcomes: 10)
        #expect(Self.line(output, in: "the runtime's", endingWith: "(17.0 %)") == "reference counting: 4.0 calls, 17 instructions (17.0 %)")
        #expect(Self.line(output, in: "where reference counting", endingWith: "serve") == "4.00  serve")
        #expect(Self.line(output, in: "where reference counting", endingWith: "swift_bridgeObjectRetain") == nil)
    }

    @Test("a function first named in a call is in the called object's library (cob=), or the caller's when the call names none")
    func calledFunctionsLibraries() throws {
        let file = Self.callgrindFile(totals: 160, """
            ob=(1) /tmp/count/bin/pushline-counted
            fn=(1) serve
            0 100
            cob=(2) /usr/lib/x86_64-linux-gnu/libc.so.6
            cfn=(2) __memcpy_avx_unaligned_erms
            calls=4 0
            0 40
            cfn=(3) swift_retain
            calls=2 0
            0 20
            fn=(3)
            0 20
            ob=(2)
            fn=(2)
            0 40

            """)
        let output = try Self.summary(file, outcomes: 2)
        #expect(Self.line(output, in: "by library", endingWith: "pushline-counted") == "75.0 %         60  pushline-counted")
        #expect(Self.line(output, in: "by library", endingWith: "libc.so.6") == "25.0 %         20  libc.so.6")
        #expect(Self.line(output, in: "the runtime's", endingWith: "(25.0 %)") == "copies in user space (memmove, memcpy): 2.0 calls, 20 instructions (25.0 %)")
    }

    @Test("a function's recursion depths (callgrind's `'2`) are one function, and one without a symbol is named with its library")
    func recursionMergedAndUnnamedFunctionsLabelled() throws {
        let file = Self.callgrindFile(totals: 400, """
            ob=(1) /tmp/count/bin/pushline-counted
            fn=(1) swift_release
            0 100
            cfn=(2) swift_release'2
            calls=1 0
            0 100
            fn=(2)
            0 100
            ob=(2) /usr/lib/x86_64-linux-gnu/liblz4.so.1.9.4
            fn=(3) 0x00000000000113b0
            0 200

            """)
        let output = try Self.summary(file, outcomes: 1)
        #expect(Self.line(output, in: "heaviest functions", endingWith: "  swift_release") == "50.0 %        200      1.00  swift_release")
        #expect(Self.line(output, in: "heaviest functions", endingWith: "in liblz4.so.1.9.4")
            == "50.0 %        200      0.00  0x00000000000113b0 in liblz4.so.1.9.4")
    }

    @Test("a file that is not callgrind's, one whose positions are not lines, or no outcomes, is refused with what was wrong")
    func refusesWhatItCannotCount() throws {
        let byInstruction = try Self.run(Self.callgrindFile(totals: 10, positions: "instr line", "fn=(1) serve\n0x4010 1 10\n"), ["--outcomes", "1"])
        #expect(byInstruction.status != 0)
        #expect(byInstruction.standardError.contains("positions 'instr line': only callgrind's default, 'line', is read"))
        let notCallgrind = try Self.run("pushline-worker 4242 100.000001: 500250 cpu-clock:ppp:\n", ["--outcomes", "10"])
        #expect(notCallgrind.status != 0)
        #expect(notCallgrind.standardError.contains("not a callgrind output file with costs"))
        let noOutcomes = try Self.run(Self.worker, ["--outcomes", "0"])
        #expect(noOutcomes.status != 0)
        #expect(noOutcomes.standardError.contains("--outcomes must be at least 1"))
    }
}
