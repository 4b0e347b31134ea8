import APNsCore
import Foundation
import Pipeline
import PushlineTestKit
import Testing

private let source = SourcePosition(topic: "pushline.intents", partition: 3, offset: 1234)

private func object(_ bytes: [UInt8]) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
}

@Suite("Event records and their schemas")
struct EventRecordTests {
    @Test("a full outcome event and a minimal one both match outcome-v1.schema.json")
    func outcomeMatchesSchema() throws {
        let full = OutcomeEvent(
            intentID: "intent-1", app: "com.example.app", environment: "production", status: .accepted, source: source,
            completedAt: 1_764_489_600_500, token: String(repeating: "ab", count: 32), user: "anna", template: "chat_message",
            pushType: "alert", topic: "com.example.app", collapseID: "chat-4521", apnsID: "949d31e3-556c-4088-806a-0d08f05d0c78",
            apnsUniqueID: "0f01f601-506c-4300-a8c7-c9dc335565da", apnsStatus: 200, attempts: 1, locale: "ja",
            localeFellBack: true, createdAt: 1_764_489_600_000, latencyMilliseconds: 12.5)
        let minimal = OutcomeEvent(intentID: "broken", app: "com.example.app", environment: "sandbox", status: .invalid,
                                   source: source, completedAt: 1_764_489_600_000, reason: "MissingField")
        let problems = try JSONSchemaValidator.problems(of: [full.encoded, minimal.encoded],
                                                        schemaFile: RepositoryPaths.file("Config/schemas/outcome-v1.schema.json"))
        #expect(problems == [[], []])
        let decoded = try object(full.encoded)
        #expect(decoded["status"] as? String == "accepted")
        #expect((decoded["source"] as? [String: Any])?["offset"] as? Int == 1234)
        #expect(try object(minimal.encoded)["token"] == nil, "absent fields are left out, not null")
        // The exact bytes: fields in the schema's order, the source nested in place.
        #expect(String(decoding: minimal.encoded, as: UTF8.self) == """
            {"schema_version":1,"intent_id":"broken","app":"com.example.app","environment":"sandbox","status":"invalid",\
            "reason":"MissingField","attempts":0,"locale_fell_back":false,\
            "source":{"topic":"pushline.intents","partition":3,"offset":1234},"completed_at":1764489600000}
            """)
    }

    @Test("an outcome written with its apns_id as a NotificationID has the same bytes as with the id's text, upper-case input too")
    func apnsIDFromNotificationID() throws {
        let id = try #require(NotificationID("949D31E3-556C-4088-806A-0D08F05D0C78"))
        let event = OutcomeEvent(intentID: "intent-1", app: "com.example.app", environment: "production", status: .accepted,
                                 source: source, completedAt: 1_764_489_600_500, apnsID: id.description, attempts: 1,
                                 latencyMilliseconds: 12.345678901234567)
        let written = OutcomeEvent.encoded(
            intentID: event.intentID, app: event.app, environment: event.environment, token: event.token, user: event.user,
            template: event.template, pushType: event.pushType, topic: event.topic, collapseID: event.collapseID, apnsID: id,
            locale: event.locale, localeFellBack: event.localeFellBack, createdAt: event.createdAt, decided: SettledOutcome(event))
        #expect(written == event.encoded)
        #expect(String(decoding: written, as: UTF8.self).contains(#""apns_id":"949d31e3-556c-4088-806a-0d08f05d0c78","#))
    }

    @Test("an outcome longer than its writer's room (1 KiB) is written whole, escapes and all, and matches the schema")
    func outcomeOutgrowingItsRoom() throws {
        let reason = String(repeating: "é\"\n\\\u{1}", count: 400)  // 5.6 KB escaped
        let user = String(repeating: "u", count: 1_000)
        let event = OutcomeEvent(intentID: "intent-1", app: "com.example.app", environment: "production", status: .failed,
                                 source: source, completedAt: 1_764_489_600_500, token: String(repeating: "ab", count: 32),
                                 user: user, reason: reason, attempts: 3, createdAt: 1_764_489_600_000, latencyMilliseconds: 0.25)
        let text = String(decoding: event.encoded, as: UTF8.self)
        #expect(try JSONSchemaValidator.problems(of: [event.encoded], schemaFile: RepositoryPaths.file("Config/schemas/outcome-v1.schema.json"))
                == [[]])
        let decoded = try object(event.encoded)
        #expect(decoded["reason"] as? String == reason)
        #expect(decoded["user"] as? String == user)
        #expect(decoded["token"] as? String == String(repeating: "ab", count: 32))
        #expect((decoded["source"] as? [String: Any])?["offset"] as? Int == 1234)
        #expect(text.hasPrefix(#"{"schema_version":1,"intent_id":"intent-1","#))
        #expect(text.hasSuffix(#""created_at":1764489600000,"completed_at":1764489600500,"latency_ms":0.25}"#))
        #expect(text.contains(#""reason":"é\"\n\\\u0001é"#))
    }

    @Test("a deferred outcome (quiet hours) carries its release time and matches the schema")
    func deferredOutcome() throws {
        let event = OutcomeEvent(intentID: "intent-1", app: "com.example.app", environment: "production", status: .deferred, source: source,
                                 completedAt: 1_764_489_600_000, token: String(repeating: "ab", count: 32), reason: "QuietHours",
                                 releaseAt: 1_764_525_600_000)
        #expect(try JSONSchemaValidator.problems(of: [event.encoded], schemaFile: RepositoryPaths.file("Config/schemas/outcome-v1.schema.json"))
                == [[]])
        let decoded = try object(event.encoded)
        #expect(decoded["status"] as? String == "deferred")
        #expect(decoded["release_at"] as? Int == 1_764_525_600_000)
    }

    @Test("integers are written in decimal as Swift writes them, at their extremes too")
    func integersAtTheirExtremes() throws {
        for value in [0, 7, -1, 10, 1_764_489_600_000, Int64.max, Int64.min] {
            let event = OutcomeEvent(intentID: "i", app: "a", environment: "production", status: .accepted,
                                     source: SourcePosition(topic: "t", partition: 0, offset: value), completedAt: value,
                                     apnsStatus: 200, createdAt: value)
            let text = String(decoding: event.encoded, as: UTF8.self)
            #expect(text.contains("\"offset\":\(value)}"), "\(text)")
            #expect(text.contains("\"created_at\":\(value),\"completed_at\":\(value)}"), "\(text)")
            #expect(text.contains("\"apns_status\":200,\"attempts\":0,"), "\(text)")
        }
    }

    @Test("the outcome schema is strict: an unknown status or field is refused")
    func outcomeSchemaIsStrict() throws {
        var event = try object(OutcomeEvent(intentID: "i", app: "a", environment: "production", status: .accepted,
                                            source: source, completedAt: 1).encoded)
        event["status"] = "delivered"
        event["extra"] = 1
        let problems = try JSONSchemaValidator.problems(of: [Array(try JSONSerialization.data(withJSONObject: event))],
                                                        schemaFile: RepositoryPaths.file("Config/schemas/outcome-v1.schema.json"))
        #expect(problems[0].count == 2)
    }

    @Test("token events: 410 reasons are terminal, BadDeviceToken and DeviceTokenNotForTopic only suspect; all match the schema")
    func tokenEvents() throws {
        #expect(TokenEvent.kind(for: .unregistered) == .unregistered)
        #expect(TokenEvent.kind(for: .expiredToken) == .expired)
        #expect(TokenEvent.kind(for: .badDeviceToken) == .suspect)
        #expect(TokenEvent.kind(for: .deviceTokenNotForTopic) == .suspect)
        #expect(TokenEvent.kind(for: .payloadTooLarge) == nil)
        let events = [
            TokenEvent(kind: .unregistered, reason: "Unregistered", app: "com.example.app", environment: "production",
                       token: "abcd", user: "anna", intentID: "i", apnsTimestamp: 1_767_225_600_000, observedAt: 1_767_225_601_000,
                       removedFromRegistry: true),
            TokenEvent(kind: .suspect, reason: "BadDeviceToken", app: "com.example.app", environment: "sandbox",
                       token: "abcd", user: nil, intentID: "i", apnsTimestamp: nil, observedAt: 1, removedFromRegistry: false),
        ]
        let problems = try JSONSchemaValidator.problems(of: events.map(\.encoded),
                                                        schemaFile: RepositoryPaths.file("Config/schemas/token-event-v1.schema.json"))
        #expect(problems == [[], []])
    }

    @Test("a dead letter keeps the original bytes exactly (base64), with text when they are UTF-8, and matches its schema")
    func deadLetters() throws {
        let binary: [UInt8] = [0x7B, 0x00, 0xFF, 0xFE, 0x22]
        let text = Array(#"{"id": "x", "tokens": [}"#.utf8)
        let letters = [
            DeadLetter(reason: "MalformedJSON", detail: "unexpected character at byte 1", source: source, original: binary,
                       intentID: nil, recordedAt: 1),
            DeadLetter(reason: "MalformedJSON", detail: "expected a value at byte 24", source: source, original: text,
                       intentID: "x", recordedAt: 2),
        ]
        let problems = try JSONSchemaValidator.problems(of: letters.map(\.encoded),
                                                        schemaFile: RepositoryPaths.file("Config/schemas/dlq-v1.schema.json"))
        #expect(problems == [[], []])
        let first = try object(letters[0].encoded)
        #expect(Data(base64Encoded: try #require(first["original_base64"] as? String)).map(Array.init) == binary)
        #expect(first["original_text"] == nil)
        let second = try object(letters[1].encoded)
        #expect(second["original_text"] as? String == String(decoding: text, as: UTF8.self))
        #expect(Data(base64Encoded: try #require(second["original_base64"] as? String)).map(Array.init) == text)
    }

    @Test("a dead letter of a large original carries its first 4 KiB (a character cut at the end left out of the text), its size and SHA-256, and bounded texts")
    func deadLetterOfLargeOriginal() throws {
        // 4095 ASCII bytes, then "é" (2 bytes) straddles the 4096-byte cut.
        let original = Array(String(repeating: "a", count: 4095).utf8) + Array("é".utf8) + Array(String(repeating: "b", count: 100_000).utf8)
        let letter = DeadLetter(reason: "IntentTooLarge", detail: String(repeating: "d", count: 5000), source: source, original: original,
                                intentID: String(repeating: "i", count: 3000), recordedAt: 1)
        let problems = try JSONSchemaValidator.problems(of: [letter.encoded], schemaFile: RepositoryPaths.file("Config/schemas/dlq-v1.schema.json"))
        #expect(problems == [[]])
        let json = try object(letter.encoded)
        #expect(json["original_size"] as? Int == original.count)
        let sha256sum = try ExternalCommand.run(try ExternalCommand.locate("sha256sum", package: "coreutils"), ["-"], standardInput: Data(original))
        #expect(json["original_sha256"] as? String == String(sha256sum.standardOutput.prefix(64)))
        #expect(Data(base64Encoded: try #require(json["original_base64"] as? String)).map(Array.init) == Array(original.prefix(4096)))
        #expect(json["original_text"] as? String == String(repeating: "a", count: 4095))
        #expect((json["detail"] as? String)?.utf8.count == 1024 && (json["intent_id"] as? String)?.utf8.count == 1024)
        #expect(letter.encoded.count < 12_000)
    }

    @Test("a dead letter whose original escapes to more than its writer's room is written whole: original text and bytes as they were")
    func deadLetterOutgrowingItsRoom() throws {
        // Quotes and control characters escape to 2 and 6 bytes: 4 KiB of them outgrow the room
        // made for three times the original's bytes.
        let original = Array(String(repeating: "\"\u{1}", count: 2048).utf8)
        let letter = DeadLetter(reason: "MalformedJSON", detail: "expected a value at byte 0", source: source, original: original,
                                intentID: nil, recordedAt: 1)
        #expect(letter.encoded.count > 512 + 3 * original.count)
        #expect(try JSONSchemaValidator.problems(of: [letter.encoded], schemaFile: RepositoryPaths.file("Config/schemas/dlq-v1.schema.json"))
                == [[]])
        let json = try object(letter.encoded)
        #expect(json["original_text"] as? String == String(decoding: original, as: UTF8.self))
        #expect(Data(base64Encoded: try #require(json["original_base64"] as? String)).map(Array.init) == original)
        #expect(json["recorded_at"] as? Int == 1)
    }

    @Test("a stand-in keeps a record's fields with texts cut to 128 bytes and says what was replaced; it matches the record's schema")
    func standIns() throws {
        let longID = String(repeating: "é", count: 1000)
        var outcome = OutcomeEvent(intentID: longID, app: "com.example.app", environment: "sandbox", status: .invalid,
                                   source: source, completedAt: 2, reason: "IntentTooLarge")
        outcome.token = String(repeating: "ab", count: 500)
        let letter = DeadLetter(reason: "MalformedJSON", detail: "x", source: source, original: Array(repeating: 0x41, count: 9000),
                                intentID: nil, recordedAt: 1)
        let event = TokenEvent(kind: .suspect, reason: "BadDeviceToken", app: "com.example.app", environment: "sandbox",
                               token: String(repeating: "cd", count: 300), user: nil, intentID: longID, apnsTimestamp: nil, observedAt: 1,
                               removedFromRegistry: false)
        let records = [(outcome.encoded, "outcome"), (letter.encoded, "dlq"), (event.encoded, "token-event")]
        for (record, schema) in records {
            let standIn = RefusedRecord.standIn(for: record, error: "MSG_SIZE_TOO_LARGE")
            let problems = try JSONSchemaValidator.problems(of: [standIn], schemaFile: RepositoryPaths.file("Config/schemas/\(schema)-v1.schema.json"))
            #expect(problems == [[]], "\(schema)")
            let json = try object(standIn)
            let replaced = try #require(json["replaced"] as? [String: Any])
            #expect(replaced["size"] as? Int == record.count && replaced["error"] as? String == "MSG_SIZE_TOO_LARGE")
            #expect(json.values.compactMap { $0 as? String }.allSatisfy { $0.utf8.count <= 128 }, "\(schema)")
            #expect((json["source"] as? [String: Any])?["offset"] as? Int ?? 1234 == 1234)
        }
        let outcomeStandIn = try object(RefusedRecord.standIn(for: outcome.encoded, error: "INVALID_RECORD"))
        #expect(outcomeStandIn["status"] as? String == "invalid" && outcomeStandIn["reason"] as? String == "IntentTooLarge")
        #expect(outcomeStandIn["intent_id"] as? String == String(repeating: "é", count: 64))
    }

    @Test("every example intent in docs/examples/intents matches intent-v1.schema.json")
    func exampleIntentsMatchSchema() throws {
        let folder = RepositoryPaths.root.appendingPathComponent("docs/examples/intents")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(!files.isEmpty)
        let documents = try files.map { file -> [UInt8] in
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            return Array(try JSONSerialization.data(withJSONObject: try JSONSerialization.jsonObject(with: data))) // one line each
        }
        let problems = try JSONSchemaValidator.problems(of: documents, schemaFile: RepositoryPaths.file("Config/schemas/intent-v1.schema.json"))
        for (file, found) in zip(files, problems) { #expect(found.isEmpty, "\(file): \(found)") }
    }
}
