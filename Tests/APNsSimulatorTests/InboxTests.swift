import APNsCore
import APNsSimulator
import Foundation
import Testing

@Suite("Device inbox and stats")
struct InboxTests {
    @Test("an accepted push is recorded with every header and the payload as JSON")
    func acceptedPushIsRecorded() throws {
        let harness = try SimulatorHarness()
        let id = "6f2c6ab1-6a3c-4a2b-9c2e-0d7f1a1b2c3d"
        _ = try harness.push(["apns-id": id, "apns-priority": "5", "apns-expiration": "1900000000", "apns-collapse-id": "score"])
        let notification = try #require(harness.simulator.inbox().first)
        #expect(notification.token == Fixture.deviceToken)
        #expect(notification.topic == Fixture.topic)
        #expect(notification.pushType == "alert")
        #expect(notification.priority == 5)
        #expect(notification.expiration == 1_900_000_000)
        #expect(notification.collapseID == "score")
        #expect(notification.apnsID == id)
        #expect(notification.receivedAt == harness.clock.now)
        #expect(notification.payload == .object(["aps": .object(["alert": "hello"])]))
    }

    @Test("defaults are recorded as APNs applies them: priority 10, no expiration")
    func defaultsAreRecorded() throws {
        let harness = try SimulatorHarness()
        _ = try harness.push()
        let notification = try #require(harness.simulator.inbox().first)
        #expect(notification.priority == 10)
        #expect(notification.expiration == nil)
        #expect(notification.collapseID == nil)
    }

    @Test("a rejected push is not recorded")
    func rejectedPushIsNotRecorded() throws {
        let harness = try SimulatorHarness()
        _ = try harness.push(["apns-priority": "2"])
        #expect(harness.simulator.inbox().isEmpty)
    }

    @Test("a collapse id replaces the earlier notification with that id on the same device only")
    func collapseIDReplaces() throws {
        let harness = try SimulatorHarness()
        _ = try harness.push(["apns-collapse-id": "score"], body: Array(#"{"n":1}"#.utf8))
        _ = try harness.push(token: Fixture.otherDeviceToken, ["apns-collapse-id": "score"], body: Array(#"{"n":2}"#.utf8))
        _ = try harness.push(["apns-collapse-id": "other"], body: Array(#"{"n":3}"#.utf8))
        _ = try harness.push(["apns-collapse-id": "score"], body: Array(#"{"n":4}"#.utf8))
        let payloads = harness.simulator.inbox().map(\.payload)
        #expect(payloads == [.object(["n": 2]), .object(["n": 3]), .object(["n": 4])])
    }

    @Test("the inbox filters by device token")
    func inboxFiltersByToken() throws {
        let harness = try SimulatorHarness()
        _ = try harness.push()
        _ = try harness.push(token: Fixture.otherDeviceToken)
        let mine = harness.simulator.inbox(token: try DeviceToken(Fixture.otherDeviceToken))
        #expect(mine.map(\.token) == [Fixture.otherDeviceToken])
    }

    @Test("beyond its capacity the inbox drops the oldest notifications")
    func inboxCapacity() throws {
        let harness = try SimulatorHarness { $0.inboxCapacity = 2 }
        for n in 1...3 { _ = try harness.push(body: Array("{\"n\":\(n)}".utf8)) }
        #expect(harness.simulator.inbox().map(\.payload) == [.object(["n": 2]), .object(["n": 3])])
    }

    @Test("notifications stay whole across the inbox's byte chunks, which are let go oldest first")
    func inboxAcrossChunks() throws {
        // About 4 KiB per notification: 1,000 of them fill four 1 MiB chunks, of which the inbox of
        // 300 needs the last two.
        let harness = try SimulatorHarness { $0.inboxCapacity = 300 }
        let filler = String(repeating: "x", count: 4000)
        func body(_ n: Int) -> [UInt8] { Array("{\"n\":\(n),\"f\":\"\(filler)\"}".utf8) }
        let tokens = [Fixture.deviceToken, Fixture.otherDeviceToken]
        for n in 1...1000 {
            // Every fifth push carries a collapse id; n and n + 10 share it (and a token) when n % 20
            // is 0 or 5, so the later replaces the earlier, across chunk boundaries.
            let collapse: [String: String?] = n % 5 == 0 ? ["apns-collapse-id": "c\(n / 20)"] : [:]
            _ = try harness.push(token: tokens[n % 2], collapse, body: body(n))
        }
        let held = harness.simulator.inbox()
        #expect(held.count == 300)
        func number(_ notification: DeliveredNotification) -> Int {
            notification.payload.objectValue?["n"]?.numberValue.map { Int($0) } ?? -1
        }
        let numbers = held.map(number)
        #expect(numbers == numbers.sorted())
        #expect(numbers.last == 1000)
        for notification in held {
            let n = number(notification)
            #expect(notification.body == body(n))
            #expect(notification.token == tokens[n % 2])
            #expect(notification.topic == Fixture.topic)
            #expect(notification.collapseID == (n % 5 == 0 ? "c\(n / 20)" : nil))
            #expect(n % 20 != 0 && n % 20 != 5 || n + 10 > 1000)
        }
        #expect(numbers.contains(990) && numbers.contains(995) && !numbers.contains(980) && !numbers.contains(985))
    }

    @Test("a body that is not JSON is kept as a string")
    func nonJSONBodyIsKept() throws {
        let harness = try SimulatorHarness()
        _ = try harness.push(body: Array("plain".utf8))
        #expect(harness.simulator.inbox().first?.payload == .string("plain"))
    }

    @Test("the inbox file gets one JSON line per accepted push, marking collapse replacements")
    func inboxFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("inbox-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        let harness = try SimulatorHarness { $0.inboxFile = file.path }
        let first = "6f2c6ab1-6a3c-4a2b-9c2e-0d7f1a1b2c3d"
        _ = try harness.push(["apns-id": first, "apns-collapse-id": "score"], body: Array("{\"n\":\n1}".utf8))
        _ = try harness.push(["apns-collapse-id": "score"])
        _ = try harness.push(body: [])
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        let records = try lines.map { try #require(try JSONParser.parse(Array($0.utf8)).objectValue) }
        #expect(records[0]["apns_id"] == .string(first))
        #expect(records[0]["payload"] == .object(["n": 1]))
        #expect(records[0]["token"] == .string(Fixture.deviceToken))
        #expect(records[0]["replaces"] == nil)
        #expect(records[1]["replaces"] == .string(first))
    }

    @Test("an inbox file that cannot be opened is a configuration error")
    func inboxFileUnwritable() {
        var configuration = SimulatorConfiguration()
        configuration.inboxFile = "/nonexistent/dir/inbox.jsonl"
        #expect(throws: SimulatorConfigurationError.self) { try APNsSimulator(configuration: configuration) }
    }

    @Test("clearing the inbox empties it")
    func clearInbox() throws {
        let harness = try SimulatorHarness()
        _ = try harness.push()
        harness.simulator.clearInbox()
        #expect(harness.simulator.inbox().isEmpty)
    }

    @Test("stats count answers by status and rejections by reason")
    func statsCount() throws {
        let harness = try SimulatorHarness()
        _ = try harness.push()
        _ = try harness.push()
        _ = try harness.push(body: [])
        _ = try harness.push(["authorization": nil])
        let stats = harness.simulator.stats()
        #expect(stats.requests == 4)
        #expect(stats.responsesByStatus == [200: 2, 400: 1, 403: 1])
        #expect(stats.rejectionsByReason == ["PayloadEmpty": 1, "MissingProviderToken": 1])
        let summary = harness.simulator.statsSummary()
        #expect(summary.contains("4 requests"))
        #expect(summary.contains("PayloadEmpty: 1"))
        #expect(stats.json.objectValue?["responses_by_status"] == .object(["200": 2, "400": 1, "403": 1]))
    }
}
