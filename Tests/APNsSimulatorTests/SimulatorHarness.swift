import APNsClient
import APNsCore
import APNsSimulator
import Foundation
import PushlineTestKit
import Synchronization
import TLS
import Testing

/// A clock the tests move by hand, UNIX milliseconds.
final class TestClock: Sendable {
    private let milliseconds = Atomic<Int64>(1_800_000_000_000)

    var now: Int64 { milliseconds.load(ordering: .relaxed) }
    var nowSeconds: Int64 { now / 1000 }

    func advance(milliseconds delta: Int64) {
        milliseconds.add(delta, ordering: .relaxed)
    }

    func advance(minutes: Int64) {
        advance(milliseconds: minutes * 60_000)
    }
}

/// Fixtures shared by the simulator tests.
enum Fixture {
    static let topic = "com.example.pushline"
    static let deviceToken = String(repeating: "ab", count: 32)
    static let otherDeviceToken = String(repeating: "cd", count: 32)
    static let payload = Array(#"{"aps":{"alert":"hello"}}"#.utf8)

    static func devSigningKey() throws -> ES256SigningKey {
        try ES256SigningKey(pem: String(contentsOfFile: DevCredentials.privateKeyFile, encoding: .utf8))
    }

    /// A provider token signed with the development key.
    static func devToken(issuedAt: Int64) throws -> String {
        let credentials = ProviderTokenCredentials(keyID: DevCredentials.keyID, teamID: DevCredentials.teamID,
                                                   signingKey: try devSigningKey())
        return try ProviderToken(credentials: credentials, issuedAt: issuedAt).authorization
    }

    /// A JWT with any header and claims, signed by `key`; DER-encoded signature when `der`.
    static func jwt(header: JSONObject, claims: JSONObject, key: ES256SigningKey, der: Bool = false) throws -> String {
        var headerBytes: [UInt8] = []
        JSONWriter.appendValue(.object(header), to: &headerBytes)
        var claimBytes: [UInt8] = []
        JSONWriter.appendValue(.object(claims), to: &claimBytes)
        let signingInput = Base64URL.encode(headerBytes) + "." + Base64URL.encode(claimBytes)
        var signature = try key.sign(Array(signingInput.utf8))
        if der { signature = OpenSSLCommandLine.derSignature(r: Array(signature[0..<32]), s: Array(signature[32..<64])) }
        return signingInput + "." + Base64URL.encode(signature)
    }
}

/// One simulator with a fake clock and one connection, driven through `handle`.
struct SimulatorHarness {
    let clock = TestClock()
    let simulator: APNsSimulator
    let connection: SimulatedConnection

    init(_ configure: (inout SimulatorConfiguration) throws -> Void = { _ in },
         port: ServicePort = .device, certificateTopics: [String]? = nil) throws {
        var configuration = SimulatorConfiguration()
        try configure(&configuration)
        let clock = self.clock
        simulator = try APNsSimulator(configuration: configuration, now: { clock.now })
        connection = simulator.makeConnection(port: port, clientCertificateTopics: certificateTopics)
    }

    private let tokens = TokenMemo()

    /// A valid token for now, from the development key: the same one while the clock stays in one
    /// second (ES256 signatures are randomized, and a new JWT on every request is exactly what
    /// APNs punishes with TooManyProviderTokenUpdates).
    func devAuthorization() throws -> String {
        let issuedAt = clock.nowSeconds
        if let token = tokens.byIssueTime[issuedAt] { return token }
        let token = try Fixture.devToken(issuedAt: issuedAt)
        tokens.byIssueTime[issuedAt] = token
        return token
    }

    /// The headers of a valid alert push, with `changes` applied (nil removes a header).
    func pushHeaders(_ changes: [String: String?] = [:]) throws -> [HTTPHeader] {
        var headers: [(String, String)] = [
            ("authorization", try devAuthorization()), ("apns-topic", Fixture.topic), ("apns-push-type", "alert"),
        ]
        for (name, value) in changes.sorted(by: { $0.key < $1.key }) {
            headers.removeAll { $0.0 == name }
            if let value { headers.append((name, value)) }
        }
        return headers.map { HTTPHeader($0.0, $0.1) }
    }

    /// Sends a device push; the token, headers, body and method default to a valid alert push.
    func push(token: String = Fixture.deviceToken, _ changes: [String: String?] = [:], body: [UInt8] = Fixture.payload,
              method: String = "POST", path: String? = nil, on connection: SimulatedConnection? = nil) throws -> SimulatorResponse {
        let request = SimulatorRequest(method: method, path: path ?? "/3/device/\(token)",
                                       headers: try pushHeaders(changes), body: body)
        return try send(request, on: connection)
    }

    /// Sends any request and expects an answer.
    func send(_ request: SimulatorRequest, on connection: SimulatedConnection? = nil) throws -> SimulatorResponse {
        let action = simulator.handle(request, on: connection ?? self.connection)
        guard case .respond(let response, _) = action else {
            Issue.record("expected a response, got \(action)")
            throw TestKitError("no response")
        }
        return response
    }
}

/// Tokens already signed by a harness, by issue time.
final class TokenMemo {
    var byIssueTime: [Int64: String] = [:]
}

extension SimulatorResponse {
    /// The value of a response header.
    func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// The parsed JSON body, or nil when there is none.
    var json: JSONObject? {
        (try? JSONParser.parse(body))?.objectValue
    }

    /// The `reason` of a rejection body.
    var reason: String? {
        json?["reason"]?.stringValue
    }
}
