import PushlineTestKit
import Testing

@Suite("pushline-dev bench digest")
struct BenchDigestCommandTests {
    @Test("the ways agree, each prints its nanoseconds per digest (the SHA extensions' where the kernel lists them), then the ratio")
    func printsEachWayAndTheRatio() throws {
        let result = try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline-dev"), ["bench", "digest", "--seconds", "1"])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        func nanoseconds(_ label: String) -> Double? {
            lines.first { $0.contains(label) }.flatMap { line in
                line.split(separator: " ").dropLast(3).last.flatMap { Double($0) }
            }
        }
        let hasExtensions = try CPUFlags.listSHAExtensions()
        #expect((nanoseconds("Digests, portable Swift") ?? 0) > 0, "\(lines)")
        #expect((nanoseconds("OpenSSL EVP_Digest") ?? 0) > 0, "\(lines)")
        #expect((nanoseconds("Digests, SHA extensions") != nil) == hasExtensions, "\(lines)")
        #expect(lines.last?.hasPrefix("  ratio, OpenSSL's time over Digests' fastest: ") == true, "\(lines)")
    }
}
