import APNsCore
import APNsSimulator
import Foundation
import PushlineTestKit
import Testing

@Suite("pushline send", .serialized)
struct SendCommandTests {
    private let token = String(repeating: "ab", count: 32)

    private func send(_ harness: SimulatorHarness, _ extra: [String], caFile: Bool = true,
                      payload text: String = #"{"aps":{"alert":"hi"}}"#) throws -> CommandResult {
        let payload = try temporaryFile(text)
        var arguments = ["send", "--key", DevCredentials.privateKeyFile, "--key-id", DevCredentials.keyID,
                         "--team-id", DevCredentials.teamID, "--host", "localhost", "--port", String(harness.devicePort)]
        if caFile { arguments += ["--ca-file", harness.certificateFile] }
        return try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline"), arguments + extra + [payload])
    }

    @Test("an accepted push prints '<token> 200 <apns-id>' and exits 0; the given apns-id is used")
    func accepted() throws {
        let harness = try SimulatorHarness()
        defer { harness.stop() }
        let id = "5e9b6e4a-63b6-4c0e-9a43-0b7f7c1e2d3a"
        let result = try send(harness, ["--topic", "com.example.app", "--push-type", "alert", "--apns-id", id, "--token", token])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "\(token) 200 \(id)\n")
        #expect(harness.simulator.inbox().first?.token == token)
    }

    @Test("a background push without --priority goes at priority 5 (APNs calls 10 an error for background); an alert at 10")
    func backgroundDefaultsToPriorityFive() throws {
        let harness = try SimulatorHarness()
        defer { harness.stop() }
        let background = try send(harness, ["--topic", "com.example.app", "--push-type", "background", "--token", token],
                                  payload: #"{"aps":{"content-available":1}}"#)
        let alert = try send(harness, ["--topic", "com.example.app", "--push-type", "alert", "--token", token])
        #expect(background.status == 0 && alert.status == 0, "\(background.standardError) \(alert.standardError)")
        #expect(harness.simulator.inbox().map { "\($0.pushType) \($0.priority)" } == ["background 5", "alert 10"])
    }

    @Test("against nghttpd, an independent HTTP/2 server (as `bench e2e --server nghttpd` runs it): a token it has a file for is accepted, another gets 404")
    func againstNghttpd() throws {
        let other = String(repeating: "cd", count: 32)
        let nghttpd = try NghttpdProcess(deviceTokens: [token])
        defer { nghttpd.stop() }
        let payload = try temporaryFile(#"{"aps":{"alert":"hi"}}"#)
        let result = try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline"), [
            "send", "--key", DevCredentials.privateKeyFile, "--key-id", DevCredentials.keyID, "--team-id", DevCredentials.teamID,
            "--host", "localhost", "--port", String(nghttpd.devicePort), "--ca-file", nghttpd.certificateFile,
            "--topic", "com.example.app", "--push-type", "alert", "--token", token, "--token", other, payload,
        ])
        #expect(result.status == 1, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(lines.map { Array($0.prefix(2)) } == [[token, "200"], [other, "404"]], "\(result.standardOutput)")
    }

    @Test("a rejection prints the reason, and a 410 its timestamp; the exit status is 1")
    func rejections() throws {
        var configuration = SimulatorConfiguration()
        let gone = String(repeating: "cd", count: 32)
        configuration.devices = DeviceRegistry(acceptsUnknownTokens: true, entries: [
            .init(token: try DeviceToken(gone), topic: "com.example.app", environment: .sandbox, unregisteredAt: 1_767_225_600_000),
        ])
        let harness = try SimulatorHarness(configuration: configuration)
        defer { harness.stop() }
        let result = try send(harness, ["--topic", "com.example.app", "--push-type", "alert", "--token", token, "--token", gone])
        #expect(result.status == 1)
        let lines = result.standardOutput.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(lines.count == 2)
        #expect(lines[0].first == token && lines[0][1] == "200")
        #expect(lines[1].first == gone && lines[1][1] == "410")
        #expect(Array(lines[1].suffix(2)) == ["Unregistered", "1767225600000"])
    }

    @Test("a payload that breaks APNs rules is not sent: each violation is named, exit 2")
    func invalidPayloadNotSent() throws {
        let harness = try SimulatorHarness()
        defer { harness.stop() }
        let result = try send(harness, ["--topic", "com.example.app.voip", "--push-type", "alert", "--token", token])
        #expect(result.status == 2)
        #expect(result.standardError.contains("invalid: TopicSuffixMismatch"))
        #expect(harness.simulator.stats().requests == 0)
    }

    @Test("a server certificate that cannot be verified is a connection error, exit 2, with the TLS reason")
    func unverifiedServer() throws {
        let harness = try SimulatorHarness()
        defer { harness.stop() }
        let result = try send(harness, ["--topic", "com.example.app", "--push-type", "alert", "--token", token], caFile: false)
        #expect(result.status == 2)
        #expect(result.standardOutput.contains("\(token) failed"))
        #expect(result.standardOutput.contains("certificate verify failed"))
    }

    @Test("credentials and a destination are required")
    func usage() throws {
        let payload = try temporaryFile(#"{"aps":{"alert":"hi"}}"#)
        let noCredentials = try pushline("send", "--sandbox", "--topic", "t", "--push-type", "alert", "--token", "ab", payload)
        #expect(noCredentials.status == 2)
        #expect(noCredentials.standardError.contains("credentials are required"))
        let noDestination = try pushline("send", "--key", DevCredentials.privateKeyFile, "--key-id", "K", "--team-id", "T",
                                         "--topic", "t", "--push-type", "alert", "--token", "ab", payload)
        #expect(noDestination.status == 2)
        #expect(noDestination.standardError.contains("--sandbox, --production, or --host"))
    }
}
