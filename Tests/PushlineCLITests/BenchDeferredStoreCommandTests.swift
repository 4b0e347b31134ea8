import PushlineTestKit
import Testing

@Suite("pushline-dev bench deferred-store")
struct BenchDeferredStoreCommandTests {
    @Test("a short run keeps and releases every entry and takes over every deferred claim (it fails otherwise), and prints the rates and ratios, progress on stderr")
    func shortRun() async throws {
        let executable = try RepositoryPaths.builtExecutable("pushline-dev")
        let result = try await DedicatedThread.run {
            try ExternalCommand.run(executable, ["bench", "deferred-store", "--entries", "2500", "--body", "64", "--rounds", "1"])
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("deferred store: 2500 entries of 64 bytes, 1 rounds"))
        #expect(result.standardOutput.contains("kept: "))
        #expect(result.standardOutput.contains("released: "))
        #expect(result.standardOutput.contains("release claims: "))
        #expect(result.standardOutput.contains("of SET NX PX"))
        #expect(result.standardError.contains("bench deferred-store: round 1/1: kept"))
    }

    @Test("zero entries is a usage error")
    func zeroEntries() throws {
        let result = try pushlineDev("bench", "deferred-store", "--entries", "0")
        #expect(result.status == 2)
        #expect(result.standardError.contains("--entries must be at least 1"))
    }
}
