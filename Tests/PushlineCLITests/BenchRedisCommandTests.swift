import PushlineTestKit
import Testing

@Suite("pushline-dev bench redis")
struct BenchRedisCommandTests {
    @Test("a short run prints both rates and their ratio, with progress on stderr")
    func shortRun() async throws {
        let executable = try RepositoryPaths.builtExecutable("pushline-dev")
        let result = try await DedicatedThread.run {
            try ExternalCommand.run(executable, ["bench", "redis", "--requests", "2000", "--depth", "16", "--rounds", "1"])
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("redis-benchmark: "))
        #expect(result.standardOutput.contains("pushline Redis: "))
        #expect(result.standardOutput.contains("ratio: "))
        #expect(result.standardError.contains("bench redis: round 1/1: pushline"))
    }

    @Test("a depth of zero is a usage error")
    func zeroDepth() throws {
        let result = try pushlineDev("bench", "redis", "--depth", "0")
        #expect(result.status == 2)
        #expect(result.standardError.contains("--depth must be at least 1"))
    }
}
