import APNsCore
import Foundation
import Testing

/// The worker end to end: mock Kafka cluster, real redis-server, in-process APNs simulator.
@Suite("Worker", .serialized)
struct WorkerTests {
    @Test("intents for several tokens: one accepted outcome per device, and the inbox holds exactly those")
    func acceptedOutcomes() async throws {
        let fixture = try await WorkerFixture()
        let tokens = try (0..<3).map(WorkerFixture.token)
        try await fixture.publish([WorkerFixture.intent(id: "i-1", tokens: tokens), WorkerFixture.intent(id: "i-2", tokens: [tokens[0]])])
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 4)
        try await fixture.stop()

        #expect(outcomes.allSatisfy { $0["status"] as? String == "accepted" })
        let deliveries = outcomes.map { "\($0["intent_id"] ?? "")/\($0["token"] ?? "")" }
        #expect(Set(deliveries) == Set(tokens.map { "i-1/\($0.hex)" } + ["i-2/\(tokens[0].hex)"]))
        #expect(deliveries.count == 4, "exactly one outcome per delivery")
        let inbox = fixture.harness.simulator.inbox()
        #expect(inbox.count == 4)
        #expect(Set(inbox.map { $0.apnsID.lowercased() }) == Set(outcomes.compactMap { ($0["apns_id"] as? String)?.lowercased() }))
    }

    @Test("the same intent twice: the second gives suppressed outcomes and nothing more is sent")
    func duplicateIntent() async throws {
        let fixture = try await WorkerFixture()
        let tokens = try (0..<2).map(WorkerFixture.token)
        let intent = WorkerFixture.intent(id: "dup", tokens: tokens)
        try await fixture.publish([intent])
        _ = try await fixture.records(on: "pushline.outcomes", count: 2)
        try await fixture.publish([intent])
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 4)
        try await fixture.stop()

        #expect(outcomes.prefix(2).allSatisfy { $0["status"] as? String == "accepted" })
        #expect(outcomes.suffix(2).allSatisfy { $0["status"] as? String == "suppressed" && $0["reason"] as? String == "DuplicateIntent" })
        #expect(fixture.harness.simulator.inbox().count == 2)
    }

    @Test("the same intent twice in one publish (possibly one batch): still exactly one outcome per message and device")
    func duplicateInOneBatch() async throws {
        let fixture = try await WorkerFixture()
        let tokens = try (0..<2).map(WorkerFixture.token)
        let intent = WorkerFixture.intent(id: "dup-batch", tokens: tokens)
        try await fixture.publish([intent, intent])
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 4)
        try await fixture.stop()

        #expect(outcomes.filter { $0["status"] as? String == "accepted" }.count == 2)
        #expect(outcomes.filter { $0["status"] as? String == "suppressed" && $0["reason"] as? String == "DuplicateIntent" }.count == 2)
        #expect(fixture.harness.simulator.inbox().count == 2)
    }

    @Test("a broken intent goes to the DLQ with its bytes and an invalid outcome; the partition keeps moving")
    func brokenIntent() async throws {
        let fixture = try await WorkerFixture()
        let token = try WorkerFixture.token(7)
        let broken = Array(#"{"schema_version":1,"id":"#.utf8)
        try await fixture.publish([broken, WorkerFixture.intent(id: "after", tokens: [token])])
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 2)
        let letters = try await fixture.records(on: "pushline.dlq", count: 1)
        try await fixture.stop()

        #expect(outcomes.map { $0["status"] as? String } == ["invalid", "accepted"])
        #expect(outcomes.first?["reason"] as? String == "MalformedJSON")
        #expect(outcomes.last?["intent_id"] as? String == "after")
        let letter = try #require(letters.first)
        #expect(letter["reason"] as? String == "MalformedJSON")
        #expect((letter["original_base64"] as? String).flatMap { Data(base64Encoded: $0) } == Data(broken))
        #expect(fixture.harness.simulator.inbox().map(\.token) == [token.hex])
    }

    @Test("an unregistered token: a rejected outcome with 410 and a token event")
    func unregisteredToken() async throws {
        let gone = try WorkerFixture.token(9)
        let fixture = try await WorkerFixture(unregistered: [(token: gone, at: 1_767_225_600_123)])
        try await fixture.publish([WorkerFixture.intent(id: "to-gone", tokens: [gone])])
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 1)
        let events = try await fixture.records(on: "pushline.token-events", count: 1)
        try await fixture.stop()

        let outcome = try #require(outcomes.first)
        #expect(outcome["status"] as? String == "rejected")
        #expect(outcome["apns_status"] as? Int == 410)
        #expect(outcome["reason"] as? String == "Unregistered")
        let event = try #require(events.first)
        #expect(event["kind"] as? String == "unregistered")
        #expect(event["token"] as? String == gone.hex)
        #expect(event["apns_timestamp"] as? Int == 1_767_225_600_123)
        #expect(fixture.harness.simulator.inbox().isEmpty)
    }

    @Test("a user's intent goes to every device the token registry holds for the user")
    func userRecipients() async throws {
        let fixture = try await WorkerFixture()
        let tokens = try (20..<22).map(WorkerFixture.token)
        try await fixture.register(tokens, user: "u-1")
        try await fixture.publish([WorkerFixture.intent(id: "for-user", user: "u-1")])
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 2)
        try await fixture.stop()

        #expect(outcomes.allSatisfy { $0["status"] as? String == "accepted" && $0["user"] as? String == "u-1" })
        #expect(Set(outcomes.compactMap { $0["token"] as? String }) == Set(tokens.map(\.hex)))
        #expect(Set(fixture.harness.simulator.inbox().compactMap(\.token)) == Set(tokens.map(\.hex)))
    }

    @Test("an older intent with the same collapse id inside the dedupe window is suppressed as stale")
    func staleCollapse() async throws {
        let fixture = try await WorkerFixture()
        let token = try WorkerFixture.token(30)
        let window = #""collapse_id":"score","dedupe_window":60,"#
        try await fixture.publish([
            WorkerFixture.intent(id: "newer", tokens: [token], extra: window + #""created_at":1700000002000,"#),
            WorkerFixture.intent(id: "older", tokens: [token], extra: window + #""created_at":1700000001000,"#),
        ])
        let outcomes = try await fixture.records(on: "pushline.outcomes", count: 2)
        try await fixture.stop()

        // Within a batch, suppressed outcomes are recorded before the sent ones.
        let byIntent = Dictionary(uniqueKeysWithValues: outcomes.map { ($0["intent_id"] as? String ?? "", $0) })
        #expect(byIntent["newer"]?["status"] as? String == "accepted")
        #expect(byIntent["older"]?["status"] as? String == "suppressed")
        #expect(byIntent["older"]?["reason"] as? String == "StaleCollapse")
        #expect(fixture.harness.simulator.inbox().count == 1)
    }

    @Test("an intent that names no dedupe window gets the pipeline's collapse window; a window of 0 turns it off")
    func pipelineCollapseWindow() async throws {
        for (seconds, olderStatus) in [(600, "suppressed"), (0, "accepted")] {
            let fixture = try await WorkerFixture { $0.collapseWindowSeconds = seconds }
            let token = try WorkerFixture.token(31)
            try await fixture.publish([
                WorkerFixture.intent(id: "newer", tokens: [token], extra: #""collapse_id":"score","created_at":1700000002000,"#),
                WorkerFixture.intent(id: "older", tokens: [token], extra: #""collapse_id":"score","created_at":1700000001000,"#),
            ])
            let outcomes = try await fixture.records(on: "pushline.outcomes", count: 2)
            try await fixture.stop()

            let byIntent = Dictionary(uniqueKeysWithValues: outcomes.map { ($0["intent_id"] as? String ?? "", $0) })
            #expect(byIntent["newer"]?["status"] as? String == "accepted", "window \(seconds) s")
            #expect(byIntent["older"]?["status"] as? String == olderStatus, "window \(seconds) s")
            // The device keeps one notification per collapse id either way; APNs was asked once or twice.
            #expect(fixture.harness.simulator.stats().responsesByStatus[200] == (olderStatus == "accepted" ? 2 : 1), "window \(seconds) s")
        }
    }
}
