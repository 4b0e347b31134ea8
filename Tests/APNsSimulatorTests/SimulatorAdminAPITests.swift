import APNsCore
import APNsSimulator
import EmbeddedHTTP
import Foundation
import PushlineTestKit
import Testing

@Suite("Admin API over HTTP")
struct SimulatorAdminAPITests {
    /// Calls the admin API with curl; returns the status and the parsed JSON body.
    private func curl(_ method: String, _ server: EmbeddedHTTPServer, _ pathAndQuery: String,
                      body: String? = nil) throws -> (status: Int, json: JSONObject) {
        let curl = try ExternalCommand.locate("curl", package: "curl")
        var arguments = ["-s", "-S", "-X", method, "-w", "\n%{http_code}"]
        if body != nil { arguments += ["--data-binary", "@-"] }
        arguments.append("http://127.0.0.1:\(server.port)\(pathAndQuery)")
        let result = try ExternalCommand.run(curl, arguments, standardInput: body.map { Data($0.utf8) })
        try #require(result.status == 0, "curl failed: \(result.standardError)")
        let split = try #require(result.standardOutput.range(of: "\n", options: .backwards))
        let document = try JSONParser.parse(Array(result.standardOutput[..<split.lowerBound].utf8))
        return (Int(result.standardOutput[split.upperBound...]) ?? -1, try #require(document.objectValue))
    }

    private func start() throws -> (SimulatorHarness, EmbeddedHTTPServer) {
        let harness = try SimulatorHarness()
        return (harness, try SimulatorAdminAPI(simulator: harness.simulator).start())
    }

    @Test("GET /inbox lists what devices received, and ?token= filters")
    func inbox() throws {
        let (harness, server) = try start()
        defer { server.stop() }
        _ = try harness.push()
        _ = try harness.push(token: Fixture.otherDeviceToken)
        let all = try curl("GET", server, "/inbox")
        #expect(all.status == 200)
        guard case .array(let notifications)? = all.json["notifications"] else {
            Issue.record("no notifications array")
            return
        }
        #expect(notifications.count == 2)
        #expect(notifications.first?.objectValue?["payload"] == .object(["aps": .object(["alert": "hello"])]))
        let filtered = try curl("GET", server, "/inbox?token=\(Fixture.otherDeviceToken)")
        guard case .array(let mine)? = filtered.json["notifications"] else {
            Issue.record("no notifications array")
            return
        }
        #expect(mine.map { $0.objectValue?["token"] } == [.string(Fixture.otherDeviceToken)])
        #expect(try curl("GET", server, "/inbox?token=xyz").status == 400)
    }

    @Test("DELETE /inbox empties the inbox")
    func clearInbox() throws {
        let (harness, server) = try start()
        defer { server.stop() }
        _ = try harness.push()
        #expect(try curl("DELETE", server, "/inbox").status == 200)
        #expect(harness.simulator.inbox().isEmpty)
    }

    @Test("GET /stats counts by status and reason")
    func stats() throws {
        let (harness, server) = try start()
        defer { server.stop() }
        _ = try harness.push()
        _ = try harness.push(body: [])
        let stats = try curl("GET", server, "/stats")
        #expect(stats.status == 200)
        #expect(stats.json["requests"] == .integer(2))
        #expect(stats.json["rejections_by_reason"] == .object(["PayloadEmpty": 1]))
    }

    @Test("POST /devices registers tokens that pushes then respect")
    func registerDevices() throws {
        let (harness, server) = try start()
        defer { server.stop() }
        let document = """
            {"devices":[{"token":"\(Fixture.deviceToken)","topic":"\(Fixture.topic)","environment":"sandbox","unregistered_at":1767225600000}]}
            """
        let result = try curl("POST", server, "/devices", body: document)
        #expect(result.status == 200)
        #expect(result.json["registered"] == .integer(1))
        let response = try harness.push()
        #expect(response.status == 410)
        #expect(response.json?["timestamp"] == .integer(1_767_225_600_000))
    }

    @Test("POST /devices with a bad document is 400 naming the key, and changes nothing")
    func registerDevicesRejectsBadDocument() throws {
        let (harness, server) = try start()
        defer { server.stop() }
        let result = try curl("POST", server, "/devices", body: #"{"devices":[{"token":"ab","topic":"t","environment":"mars"}]}"#)
        #expect(result.status == 400)
        #expect(result.json["error"]?.stringValue?.contains("devices[0].environment") == true)
        #expect(try harness.push(token: "ab").status == 200)
    }

    @Test("POST /faults changes faults at run time and answers the faults in force")
    func changeFaults() throws {
        let (harness, server) = try start()
        defer { server.stop() }
        let result = try curl("POST", server, "/faults", body: #"{"internal_server_error_rate":1,"latency_ms":25}"#)
        #expect(result.status == 200)
        #expect(result.json["latency_ms"] == .integer(25))
        #expect(try harness.push().reason == "InternalServerError")
        #expect(try curl("GET", server, "/faults").json["internal_server_error_rate"]?.numberValue == 1)
    }

    @Test("POST /faults with a bad document is 400 and changes nothing")
    func changeFaultsRejectsBadDocument() throws {
        let (harness, server) = try start()
        defer { server.stop() }
        #expect(try curl("POST", server, "/faults", body: #"{"latency_ms":5,"shutdown_rate":2}"#).status == 400)
        #expect(harness.simulator.faults == SimulatorFaults())
    }

    @Test("unknown resources are 404 and wrong methods 405")
    func unknownRoutes() throws {
        let (_, server) = try start()
        defer { server.stop() }
        #expect(try curl("GET", server, "/nothing").status == 404)
        #expect(try curl("PUT", server, "/stats").status == 405)
    }
}
