import PushlineTestKit
import Testing

@Suite("pushline-dev bench kafka", .timeLimit(.minutes(2)))
struct BenchKafkaCommandTests {
    @Test("--help explains the command and exits 0")
    func help() throws {
        let result = try pushlineDev("bench", "kafka", "--help")
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("Usage: pushline-dev bench kafka"))
    }

    @Test("a small run prints both workloads with both rates and a ratio, and progress on standard error")
    func smallRun() async throws {
        let result = try await DedicatedThread.run {
            try pushlineDev("bench", "kafka", "--messages", "2000", "--rounds", "1", "--brokers", "1", "--partitions", "2")
        }
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        for workload in ["produce", "consume"] {
            let line = try #require(lines.first { $0.hasPrefix("\(workload): ") }, "\(result.standardOutput)")
            #expect(line.contains("C loop ") && line.contains("wrapper ") && line.contains("ratio "))
        }
        #expect(result.standardError.contains("round 1/1"))
    }

    @Test("a non-positive count is a usage error")
    func badCount() throws {
        let result = try pushlineDev("bench", "kafka", "--messages", "0")
        #expect(result.status == 2)
        #expect(result.standardError.contains("--messages must be positive"))
    }
}
