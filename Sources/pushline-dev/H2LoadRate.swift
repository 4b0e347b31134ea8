import CLI
import LocalStack
import Runtime

/// h2load's raw rate against an APNs-like server: the neutral reference a benchmark's own rate is
/// compared with, measured against the same server in the same run.
struct H2LoadRate {
    let requests: Int
    let connections: Int
    let streams: Int
    /// The device token of h2load's requests.
    static let deviceToken = String(repeating: "ab", count: 32)

    /// Runs h2load (Debian package nghttp2-client) against `https://127.0.0.1:<port>/3/device/<token>`
    /// with a provider token of the dev key and returns the answered-2xx requests per second.
    func measure(port: UInt16, authorization jwt: String) throws -> Double {
        let h2load = try ExternalCommand.locate("h2load", package: "nghttp2-client")
        let result = try ExternalCommand.run(h2load, [
            "-n", String(requests), "-c", String(connections), "-m", String(streams),
            "-d", SharedFiles.path("Config/examples/alert/new-message.json"),
            "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: com.example.pushline", "-H", "apns-push-type: alert",
            "https://127.0.0.1:\(port)/3/device/\(Self.deviceToken)",
        ])
        // "finished in 2.73s, 73260.60 req/s, …" and "requests: 200000 total, …, 200000 succeeded, …"
        let words = result.standardOutput.split(whereSeparator: \.isWhitespace)
        guard result.status == 0,
              let finished = words.firstIndex(of: "finished"), finished + 2 < words.count,
              let seconds = Self.seconds(words[finished + 2].trimmingCharacters(in: [","])),
              let succeeded = words.firstIndex(where: { $0.hasPrefix("succeeded") }).flatMap({ Int(words[$0 - 1]) }) else {
            throw UsageError(message: "h2load failed (status \(result.status)): \(result.standardError)\(result.standardOutput)")
        }
        return Double(succeeded) / seconds
    }

    /// "2.73s" or "873.12ms" in seconds.
    private static func seconds(_ text: String) -> Double? {
        if text.hasSuffix("ms") { return Double(text.dropLast(2)).map { $0 / 1000 } }
        if text.hasSuffix("s") { return Double(text.dropLast()) }
        return nil
    }
}
