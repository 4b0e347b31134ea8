import APNsCore
import APNsSimulator
import Foundation
import HTTP2
import PushlineTestKit
import Testing

private let token = String(repeating: "ab", count: 32)
private let path = "/3/device/\(token)"
private let body = #"{"aps":{"alert":"hi"}}"#

private func headers(authorization: String?, priority: String? = nil) -> [HTTP2Header] {
    var fields = [HTTP2Header("apns-topic", "com.example.app"), HTTP2Header("apns-push-type", "alert")]
    if let authorization { fields.append(HTTP2Header("authorization", "bearer \(authorization)")) }
    if let priority { fields.append(HTTP2Header("apns-priority", priority)) }
    return fields
}

private func reason(_ response: HTTP2Response) -> String? {
    (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["reason"] as? String
}

@Suite("apns-sim connection behaviour over HTTP/2", .serialized)
struct ConnectionBehaviourOverHTTP2Tests {
    @Test("a new connection may open one stream until a valid provider token, then the configured limit")
    func oneStreamUntilFirstValidToken() throws {
        var configuration = SimulatorConfiguration()
        configuration.maxConcurrentStreams = 700
        let harness = try SimulatorHarness(configuration: configuration)
        defer { harness.stop() }
        let client = try TestClient(port: harness.devicePort, caFile: harness.certificateFile)
        #expect(client.maxConcurrentStreams == 1)
        let response = try client.send(path: path, headers: headers(authorization: devToken()), body: body).get()
        #expect(response.status == 200)
        #expect(client.waitForMaxConcurrentStreams(700) == 700)
    }

    @Test("with collapse-streams a rejection drops the limit to 1 and an acceptance restores it")
    func collapseAndRestore() throws {
        var configuration = SimulatorConfiguration()
        configuration.maxConcurrentStreams = 500
        configuration.collapseStreams = true
        let harness = try SimulatorHarness(configuration: configuration)
        defer { harness.stop() }
        let client = try TestClient(port: harness.devicePort, caFile: harness.certificateFile)
        let jwt = try devToken()
        #expect(try client.send(path: path, headers: headers(authorization: jwt), body: body).get().status == 200)
        #expect(client.waitForMaxConcurrentStreams(500) == 500)
        let rejected = try client.send(path: path, headers: headers(authorization: jwt, priority: "7"), body: body).get()
        #expect(reason(rejected) == "BadPriority")
        #expect(client.waitForMaxConcurrentStreams(1) == 1)
        #expect(try client.send(path: path, headers: headers(authorization: jwt), body: body).get().status == 200)
        #expect(client.waitForMaxConcurrentStreams(500) == 500)
    }

    @Test("changing the token again within 20 minutes on one connection is 429 TooManyProviderTokenUpdates")
    func tooManyTokenUpdates() throws {
        let harness = try SimulatorHarness()
        defer { harness.stop() }
        let client = try TestClient(port: harness.devicePort, caFile: harness.certificateFile)
        let statuses = try [0, 1, 2].map { age in
            let response = try client.send(path: path, headers: headers(authorization: devToken(age: Int64(age))), body: body).get()
            return "\(response.status) \(reason(response) ?? "")"
        }
        #expect(statuses == ["200 ", "200 ", "429 TooManyProviderTokenUpdates"])
    }

    @Test("shutdown sends GOAWAY with {\"reason\":\"Shutdown\"} and the connection closes")
    func goAwayOnShutdown() throws {
        let harness = try SimulatorHarness()
        let client = try TestClient(port: harness.devicePort, caFile: harness.certificateFile)
        #expect(try client.send(path: path, headers: headers(authorization: devToken()), body: body).get().status == 200)
        harness.stop()
        #expect(client.waitForClose())
        let goAway = try #require(client.onLoop { client.goAways }.first)
        #expect(goAway.errorCode == HTTP2ErrorCode.noError)
        #expect(String(decoding: goAway.debugData, as: UTF8.self) == #"{"reason":"Shutdown"}"#)
    }

    @Test("h2load, an independent client with 50 streams per connection: all answered 200, at most the pre-token burst refused")
    func h2loadStreamLimit() throws {
        let harness = try SimulatorHarness()
        defer { harness.stop() }
        let h2load = try ExternalCommand.locate("h2load", package: "nghttp2-client")
        let payload = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-h2load-\(UUID().uuidString).json")
        try Data(body.utf8).write(to: payload)
        let result = try ExternalCommand.run(h2load, [
            "-n", "2000", "-c", "2", "-m", "50", "-d", payload.path,
            "-H", "authorization: bearer \(try devToken())", "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert",
            "https://127.0.0.1:\(harness.devicePort)\(path)",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let summary = try #require(result.standardOutput.split(separator: "\n").first { $0.hasPrefix("requests:") })
        let numbers = summary.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        // requests: T total, S started, D done, OK succeeded, F failed, E errored, 0 timeout
        let (done, succeeded, errored) = (numbers[2], numbers[3], numbers[5])
        #expect(done == 2000)
        #expect(succeeded + errored == 2000)
        // A client that opens streams before reading the server's first SETTINGS (limit 1 until a
        // valid token) has the extra streams of that first burst refused; whether h2load does
        // depends on timing, so only the bound is certain.
        #expect(errored <= 2 * 49, "only the first burst of each connection may be refused")
        #expect(result.standardOutput.contains("status codes: \(succeeded) 2xx, 0 3xx, 0 4xx, 0 5xx"))
        #expect(harness.simulator.stats().responsesByStatus[200] == succeeded)
    }
}
