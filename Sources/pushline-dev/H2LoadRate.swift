import CLI
import Foundation
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

    /// One run: its rate and the CPU each side spent per request.
    struct Run {
        /// Answered-2xx requests per second.
        let rate: Double
        /// h2load's own CPU per request, µs: a bare HTTP/2 client's cost, beside the worker's per delivery.
        let clientMicroseconds: Double
        /// The server's CPU per request under h2load, µs; nil when it could not be read. h2load sends
        /// one token and the same fields every time, which HPACK indexes after the first request,
        /// and no `apns-id`, where each of the pipeline's requests has a token and an id of its own:
        /// compare it with the server's figure beside each workload's (docs/BENCHMARKS.md).
        let serverMicroseconds: Double?
    }

    /// Runs h2load (Debian package nghttp2-client) against `https://127.0.0.1:<port>/3/device/<token>`
    /// with a provider token of the dev key, the server being process `server`.
    func measure(port: UInt16, authorization jwt: String, server: pid_t) throws -> Run {
        let h2load = try ExternalCommand.locate("h2load", package: "nghttp2-client")
        // The server's CPU per request: each request counted as a delivery.
        let serverCPU = CPUPerDelivery([("server", server)])
        let clientBefore = ProcessCPUTime.childrenSeconds()
        let result = try ExternalCommand.run(h2load, [
            "-n", String(requests), "-c", String(connections), "-m", String(streams),
            "-d", SharedFiles.path("Config/examples/alert/new-message.json"),
            "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: com.example.pushline", "-H", "apns-push-type: alert",
            "https://127.0.0.1:\(port)/3/device/\(Self.deviceToken)",
        ])
        // h2load is the one child ended and waited for meanwhile: the children's CPU grew by its own.
        let clientSeconds = ProcessCPUTime.childrenSeconds() - clientBefore
        // "finished in 2.73s, 73260.60 req/s, …" and "requests: 200000 total, …, 200000 succeeded, …"
        let words = result.standardOutput.split(whereSeparator: \.isWhitespace)
        guard result.status == 0,
              let finished = words.firstIndex(of: "finished"), finished + 2 < words.count,
              let seconds = Self.seconds(words[finished + 2].trimmingCharacters(in: [","])),
              let succeeded = words.firstIndex(where: { $0.hasPrefix("succeeded") }).flatMap({ Int(words[$0 - 1]) }) else {
            throw UsageError(message: "h2load failed (status \(result.status)): \(result.standardError)\(result.standardOutput)")
        }
        return Run(rate: Double(succeeded) / seconds, clientMicroseconds: clientSeconds / Double(succeeded) * 1_000_000,
                   serverMicroseconds: serverCPU.microseconds(deliveries: succeeded)[0])
    }

    /// "2.73s" or "873.12ms" in seconds.
    private static func seconds(_ text: String) -> Double? {
        if text.hasSuffix("ms") { return Double(text.dropLast(2)).map { $0 / 1000 } }
        if text.hasSuffix("s") { return Double(text.dropLast()) }
        return nil
    }
}
