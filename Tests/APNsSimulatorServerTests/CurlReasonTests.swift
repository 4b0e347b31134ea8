import APNsClient
import APNsCore
import APNsSimulator
import Foundation
import PushlineTestKit
import Testing

/// A provider token signed with the dev key, issued `age` seconds ago.
func devToken(age: Int64 = 0) throws -> String {
    let credentials = try ProviderTokenCredentials(keyID: DevCredentials.keyID, teamID: DevCredentials.teamID,
                                                   p8: String(contentsOfFile: DevCredentials.privateKeyFile, encoding: .utf8))
    return try ProviderToken(credentials: credentials, issuedAt: ProviderTokenSource.systemNow() - age).jwt
}

/// What curl saw: status, headers (lower-case names) and body.
struct CurlResponse {
    var status = 0
    var headers: [String: String] = [:]
    var body = ""
    var reason: String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
        return object["reason"] as? String
    }
}

/// Sends one request with `curl --http2` (an HTTP/2 client independent of Pushline) to the simulator.
func curl(_ harness: SimulatorHarness, method: String = "POST", path: String, headers: [String], body: String?) throws -> CurlResponse {
    let curl = try ExternalCommand.locate("curl", package: "curl")
    var arguments = ["--silent", "--show-error", "--http2", "--include", "--cacert", harness.certificateFile, "-X", method]
    for header in headers { arguments += ["-H", header] }
    if let body { arguments += ["--data-binary", body] }
    arguments.append("https://localhost:\(harness.devicePort)\(path)")
    let result = try ExternalCommand.run(curl, arguments)
    guard result.status == 0 else { throw TestKitError("curl failed: \(result.standardError)") }
    var response = CurlResponse()
    let parts = result.standardOutput.components(separatedBy: "\r\n\r\n")
    let head = parts[0].components(separatedBy: "\r\n")
    response.status = Int(head[0].split(separator: " ")[1]) ?? 0
    for line in head.dropFirst() {
        let pieces = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        if pieces.count == 2 { response.headers[pieces[0].lowercased()] = pieces[1] }
    }
    response.body = parts.dropFirst().joined(separator: "\r\n\r\n")
    return response
}

/// One row of the reason table: a request and the answer APNs gives it.
struct ReasonCase: CustomStringConvertible, Sendable {
    let reason: String
    let status: Int
    var method = "POST"
    var path = "/3/device/\(ReasonCase.token)"
    var headers: [String] = ReasonCase.alertHeaders
    var body: String? = #"{"aps":{"alert":"hi"}}"#
    var tokenAge: Int64? = 0

    static let token = String(repeating: "ab", count: 32)
    static let alertHeaders = ["apns-topic: com.example.app", "apns-push-type: alert"]
    var description: String { reason }
}

let reasonCases: [ReasonCase] = [
    ReasonCase(reason: "MethodNotAllowed", status: 405, method: "GET", body: nil),
    ReasonCase(reason: "BadPath", status: 404, path: "/3/device/\(ReasonCase.token)/extra"),
    ReasonCase(reason: "MissingDeviceToken", status: 400, path: "/3/device/"),
    ReasonCase(reason: "BadDeviceToken", status: 400, path: "/3/device/not-hex"),
    ReasonCase(reason: "DuplicateHeaders", status: 400, headers: alertTopicTwice),
    ReasonCase(reason: "MissingTopic", status: 400, headers: ["apns-push-type: alert"]),
    ReasonCase(reason: "TopicDisallowed", status: 400, headers: ["apns-topic: com.example.app", "apns-push-type: voip"]),
    ReasonCase(reason: "InvalidPushType", status: 400, headers: ["apns-topic: com.example.app", "apns-push-type: email"]),
    ReasonCase(reason: "BadPriority", status: 400, headers: ReasonCase.alertHeaders + ["apns-priority: 7"]),
    ReasonCase(reason: "BadExpirationDate", status: 400, headers: ReasonCase.alertHeaders + ["apns-expiration: soon"]),
    ReasonCase(reason: "BadMessageId", status: 400, headers: ReasonCase.alertHeaders + ["apns-id: 1234"]),
    ReasonCase(reason: "BadCollapseId", status: 400, headers: ReasonCase.alertHeaders + ["apns-collapse-id: \(String(repeating: "c", count: 65))"]),
    ReasonCase(reason: "PayloadEmpty", status: 400, body: ""),
    ReasonCase(reason: "MissingProviderToken", status: 403, tokenAge: nil),
    ReasonCase(reason: "ExpiredProviderToken", status: 403, tokenAge: 2 * 3600),
    ReasonCase(reason: "PayloadTooLarge", status: 413, body: #"{"aps":{"alert":"\#(String(repeating: "x", count: 4100))"}}"#),
]

private let alertTopicTwice = ["apns-topic: com.example.app", "apns-topic: com.example.app", "apns-push-type: alert"]

@Suite("apns-sim over HTTP/2, driven by curl", .serialized)
struct CurlReasonTests {
    @Test("each rejection reason comes back with its status, JSON body and an apns-id", arguments: reasonCases)
    func reason(_ row: ReasonCase) throws {
        let harness = try SimulatorHarness()
        defer { harness.stop() }
        let authorization = try row.tokenAge.map { ["authorization: bearer \(try devToken(age: $0))"] } ?? []
        let response = try curl(harness, method: row.method, path: row.path, headers: row.headers + authorization, body: row.body)
        #expect(response.status == row.status)
        #expect(response.reason == row.reason)
        #expect(response.headers["content-type"] == "application/json")
        // Every answer carries apns-id (clients such as aioapns match on it); a malformed one is echoed.
        #expect(response.headers["apns-id"]?.isEmpty == false)
    }

    @Test("an accepted push gets 200, the request's apns-id echoed, an apns-unique-id in sandbox, and no body")
    func accepted() throws {
        let harness = try SimulatorHarness()
        defer { harness.stop() }
        let id = "0F9B6E4A-63B6-4C0E-9A43-0B7F7C1E2D3A"
        let response = try curl(harness, path: "/3/device/\(ReasonCase.token)",
                                headers: ReasonCase.alertHeaders + ["apns-id: \(id)", "authorization: bearer \(try devToken())"],
                                body: #"{"aps":{"alert":"hi"}}"#)
        #expect(response.status == 200)
        #expect(response.headers["apns-id"] == id)
        #expect(response.headers["apns-unique-id"].flatMap(NotificationID.init) != nil)
        #expect(response.body.isEmpty)
        #expect(harness.simulator.inbox().map(\.token) == [ReasonCase.token])
    }

    @Test("a token the registry marks unregistered gets 410 with the timestamp in milliseconds")
    func unregistered() throws {
        var configuration = SimulatorConfiguration()
        configuration.devices = DeviceRegistry(acceptsUnknownTokens: true, entries: [
            .init(token: try DeviceToken(ReasonCase.token), topic: "com.example.app", environment: .sandbox,
                  unregisteredAt: 1_767_225_600_123),
        ])
        let harness = try SimulatorHarness(configuration: configuration)
        defer { harness.stop() }
        let response = try curl(harness, path: "/3/device/\(ReasonCase.token)",
                                headers: ReasonCase.alertHeaders + ["authorization: bearer \(try devToken())"],
                                body: #"{"aps":{"alert":"hi"}}"#)
        #expect(response.status == 410)
        #expect(response.reason == "Unregistered")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
        #expect((object["timestamp"] as? NSNumber)?.int64Value == 1_767_225_600_123)
    }

    @Test("a registered token of the other environment is BadDeviceToken; of another app, DeviceTokenNotForTopic")
    func registryReasons() throws {
        let production = String(repeating: "cd", count: 32)
        let otherApp = String(repeating: "ef", count: 32)
        var configuration = SimulatorConfiguration()
        configuration.devices = DeviceRegistry(acceptsUnknownTokens: false, entries: [
            .init(token: try DeviceToken(production), topic: "com.example.app", environment: .production),
            .init(token: try DeviceToken(otherApp), topic: "com.example.other", environment: .sandbox),
        ])
        let harness = try SimulatorHarness(configuration: configuration)
        defer { harness.stop() }
        let headers = ReasonCase.alertHeaders + ["authorization: bearer \(try devToken())"]
        let wrongEnvironment = try curl(harness, path: "/3/device/\(production)", headers: headers, body: #"{"aps":{"alert":"hi"}}"#)
        #expect(wrongEnvironment.status == 400)
        #expect(wrongEnvironment.reason == "BadDeviceToken")
        let wrongTopic = try curl(harness, path: "/3/device/\(otherApp)", headers: headers, body: #"{"aps":{"alert":"hi"}}"#)
        #expect(wrongTopic.status == 400)
        #expect(wrongTopic.reason == "DeviceTokenNotForTopic")
    }

    @Test("a token signed by a key the simulator does not trust is InvalidProviderToken")
    func untrustedKey() throws {
        let harness = try SimulatorHarness()
        defer { harness.stop() }
        let foreign = ProviderTokenCredentials(keyID: DevCredentials.keyID, teamID: DevCredentials.teamID, signingKey: try .generate())
        let token = try ProviderToken(credentials: foreign, issuedAt: ProviderTokenSource.systemNow()).jwt
        let response = try curl(harness, path: "/3/device/\(ReasonCase.token)",
                                headers: ReasonCase.alertHeaders + ["authorization: bearer \(token)"], body: #"{"aps":{"alert":"hi"}}"#)
        #expect(response.status == 403)
        #expect(response.reason == "InvalidProviderToken")
    }
}
