import APNsSimulator
import Foundation
import PushlineTestKit
import Testing

private let pushHeaders = ["authorization: bearer ", "apns-topic: com.example.app", "apns-push-type: alert"]

/// The device push URL of a simulator on `port`.
private func pushURL(_ port: UInt16) -> String {
    "https://127.0.0.1:\(port)/3/device/\(String(repeating: "ab", count: 32))"
}

/// A file holding a small alert payload, for `-d`.
private func payloadFile() throws -> URL {
    let payload = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-faults-\(UUID().uuidString).json")
    try Data(#"{"aps":{"alert":"hi"}}"#.utf8).write(to: payload)
    return payload
}

/// The `-H` arguments of a push with a fresh provider token of the dev key.
private func headerArguments() throws -> [String] {
    let jwt = try devToken()
    return pushHeaders.flatMap { ["-H", $0.hasPrefix("authorization") ? $0 + jwt : $0] }
}

/// What `nghttp -v` (Debian package nghttp2-client, an HTTP/2 client independent of Pushline) logged
/// of one connection that sent the same push `count` times.
private func nghttpFrames(_ harness: SimulatorHarness, count: Int) throws -> String {
    let nghttp = try ExternalCommand.locate("nghttp", package: "nghttp2-client")
    let payload = try payloadFile()
    defer { try? FileManager.default.removeItem(at: payload) }
    let result = try ExternalCommand.run(nghttp, ["-nv", "-m", String(count), "-d", payload.path] + (try headerArguments())
        + [pushURL(harness.devicePort)])
    return result.standardOutput + result.standardError
}

/// The value of every `SETTINGS_MAX_CONCURRENT_STREAMS` nghttp received, in order (not the ones it sent).
private func receivedStreamLimits(_ frames: String) -> [Int] {
    var receiving = false
    var limits: [Int] = []
    for line in frames.split(separator: "\n") {
        if line.contains(" frame <") { receiving = line.contains("recv SETTINGS frame") }
        if receiving, let range = line.range(of: "[SETTINGS_MAX_CONCURRENT_STREAMS(0x03):") {
            limits += Int(line[range.upperBound...].prefix { $0.isNumber }).map { [$0] } ?? []
        }
    }
    return limits
}

/// How many of `requests` pushes `h2load` (nghttp2-client) got a 2xx for, one at a time on one connection.
private func h2loadSucceeded(_ harness: SimulatorHarness, requests: Int) throws -> Int {
    let h2load = try ExternalCommand.locate("h2load", package: "nghttp2-client")
    let payload = try payloadFile()
    defer { try? FileManager.default.removeItem(at: payload) }
    let result = try ExternalCommand.run(h2load, ["-n", String(requests), "-c", "1", "-m", "1", "-d", payload.path] + (try headerArguments())
        + [pushURL(harness.devicePort)])
    guard let summary = result.standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("requests:") }) else {
        throw TestKitError("h2load printed no summary: \(result.standardOutput)\(result.standardError)")
    }
    // requests: T total, S started, D done, OK succeeded, F failed, E errored, 0 timeout
    return summary.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }[3]
}

/// The simulator's connection faults as an independent client sees them on the wire: the premise of
/// the fault matrix's GOAWAY and stream-collapse rows (docs/RELIABILITY.md).
@Suite("apns-sim connection faults seen by nghttp and h2load", .serialized)
struct ConnectionFaultTests {
    @Test("goaway_every_streams 3: h2load, one stream at a time on one connection, has 3 pushes answered, then GOAWAY ends the connection")
    func goAwayEveryThreeStreams() throws {
        let normal = try SimulatorHarness()
        defer { normal.stop() }
        #expect(try h2loadSucceeded(normal, requests: 9) == 9, "the control run must have every push answered")

        var configuration = SimulatorConfiguration()
        configuration.faults.goAwayEveryStreams = 3
        let harness = try SimulatorHarness(configuration: configuration)
        defer { harness.stop() }
        #expect(try h2loadSucceeded(harness, requests: 9) == 3)
        let stats = harness.simulator.stats()
        #expect(stats.goAwaysByReason["Shutdown"] == 1)
        #expect(stats.connectionResets == 0)
    }

    @Test("max_concurrent_streams 1: after an accepted push nghttp is still offered one stream, where without the fault it is offered 1000")
    func streamLimitCollapsedToOne() throws {
        let normal = try SimulatorHarness()
        defer { normal.stop() }
        let withoutFault = receivedStreamLimits(try nghttpFrames(normal, count: 1))
        #expect(withoutFault.contains(1000), "the control run must see the configured limit: \(withoutFault)")

        var configuration = SimulatorConfiguration()
        configuration.faults.maxConcurrentStreams = 1
        let collapsed = try SimulatorHarness(configuration: configuration)
        defer { collapsed.stop() }
        let frames = try nghttpFrames(collapsed, count: 1)
        let limits = receivedStreamLimits(frames)
        #expect(!limits.isEmpty && limits.allSatisfy { $0 == 1 }, "\(limits)")
        #expect(frames.contains(":status: 200"), "\(frames)")
    }
}
