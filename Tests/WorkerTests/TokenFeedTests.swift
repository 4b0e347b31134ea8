import APNsCore
import Foundation
import Pipeline
import PushlineTestKit
import TLS
import Telemetry
import Testing
import Worker

/// The token feed against a mock Kafka cluster and a real redis-server.
@Suite("Token feed", .timeLimit(.minutes(2)))
struct TokenFeedTests {
    @Test("registrations on pushline.tokens appear in the registry with their times, and a locale in the user's profile")
    func registrationsAppear() async throws {
        let (devices, locales) = try await DedicatedThread.run {
            let fixture = try TokenFeedFixture()
            let feed = try fixture.startFeed()
            try fixture.publish([
                TokenFeedFixture.record(user: "anna", token: try TokenFeedFixture.token(1), at: 100, locale: "ja"),
                TokenFeedFixture.record(user: "anna", token: try TokenFeedFixture.token(2), at: 200),
                TokenFeedFixture.record(user: "bo", token: try TokenFeedFixture.token(3), at: 300),
            ])
            try fixture.waitUntilHandled(3, by: feed)
            try feed.stop()
            return (try fixture.devices(["anna", "bo"]), try fixture.locales(["anna", "bo"]))
        }
        let hex = try (1...3).map { try TokenFeedFixture.token($0).hex }
        #expect(devices == [[hex[0] + "@100", hex[1] + "@200"], [hex[2] + "@300"]])
        #expect(locales == ["ja", nil])
    }

    @Test("an unregistration removes the token unless the device registered it again later")
    func unregisterRespectsLaterRegistration() async throws {
        let devices = try await DedicatedThread.run {
            let fixture = try TokenFeedFixture()
            let feed = try fixture.startFeed()
            let loggedOut = try TokenFeedFixture.token(1)
            let registeredAgain = try TokenFeedFixture.token(2)
            try fixture.publish([
                TokenFeedFixture.record(user: "anna", token: loggedOut, at: 100),
                TokenFeedFixture.record(.unregister, user: "anna", token: loggedOut, at: 200),
                TokenFeedFixture.record(user: "anna", token: registeredAgain, at: 300),
                // Published late, but the device registered again after it: the token stays.
                TokenFeedFixture.record(.unregister, user: "anna", token: registeredAgain, at: 250),
            ])
            try fixture.waitUntilHandled(4, by: feed)
            try feed.stop()
            return try fixture.devices(["anna"])[0]
        }
        #expect(devices == [try TokenFeedFixture.token(2).hex + "@300"])
    }

    @Test("bad records go to the DLQ with their reason and JSON path while later records are applied and offsets move past them")
    func badRecordsToDLQ() async throws {
        let registry = MetricsRegistry()
        let (values, devices, committed, statistics) = try await DedicatedThread.run {
            let fixture = try TokenFeedFixture()
            let feed = try fixture.startFeed(metrics: registry)
            let missingTime = #"{"action":"register","app":"com.example.app","environment":"sandbox","user":"anna","token":"abcd"}"#
            try fixture.publish([
                Array(#"{"action":"register","#.utf8),
                TokenFeedFixture.record(user: "anna", token: try TokenFeedFixture.token(1), at: 100),
                Array(missingTime.utf8),
                TokenFeedFixture.record(user: "anna", token: try TokenFeedFixture.token(2), at: 200),
            ])
            try fixture.waitUntilHandled(4, by: feed)
            let letters = try fixture.deadLetters(count: 2)
            try feed.stop()
            return (letters, try fixture.devices(["anna"])[0], try fixture.committedOffset(), feed.statistics)
        }
        let letters = values.map { (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] ?? [:] }
        #expect(letters.map { $0["reason"] as? String } == ["MalformedJSON", "MissingField"])
        #expect((letters[1]["detail"] as? String)?.hasPrefix("MissingField: $.occurred_at") == true)
        #expect(letters.map { ($0["source"] as? [String: Any])?["offset"] as? Int } == [0, 2])
        #expect(letters.map { ($0["source"] as? [String: Any])?["topic"] as? String } == ["pushline.tokens", "pushline.tokens"])
        #expect(letters[0]["original_text"] as? String == #"{"action":"register","#)
        #expect(devices == [try TokenFeedFixture.token(1).hex + "@100", try TokenFeedFixture.token(2).hex + "@200"])
        #expect(committed == 4, "the partition moved past the bad records")
        #expect(statistics.recordsApplied == 2 && statistics.deadLetters == 2)
        let metrics = registry.exposition
        #expect(metrics.contains(#"pushline_token_records_total{result="applied"} 2"#), "\(metrics)")
        #expect(metrics.contains(#"pushline_token_records_total{result="dead_letter"} 2"#), "\(metrics)")
    }

    @Test("Redis stopped and restarted: the records published meanwhile are all applied once it is back")
    func redisRestartLosesNothing() async throws {
        let registry = MetricsRegistry()
        let (devices, statistics, events, availableDuringOutage) = try await DedicatedThread.run {
            let fixture = try TokenFeedFixture()
            let events = RecordLog<TokenFeed.Event>()
            let feed = try fixture.startFeed(events: events, metrics: registry)
            try fixture.publish([TokenFeedFixture.record(user: "anna", token: try TokenFeedFixture.token(0), at: 100)])
            try fixture.waitUntilHandled(1, by: feed)
            fixture.redis.stop()
            try fixture.publish(try (1...20).map { TokenFeedFixture.record(user: "anna", token: try TokenFeedFixture.token($0), at: 1000 + Int64($0)) })
            try Deadline.wait(for: "the feed to retry against the stopped Redis") { feed.statistics.redisRetries >= 3 }
            #expect(feed.statistics.recordsApplied == 1, "nothing is counted as applied while Redis is down")
            let availableDuringOutage = registry.exposition.contains("pushline_token_feed_redis_available 0")
            try fixture.redis.restart()  // empty: no persistence
            try fixture.waitUntilHandled(21, by: feed)
            try feed.stop()
            return (try fixture.devices(["anna"])[0], feed.statistics, events.all, availableDuringOutage)
        }
        #expect(devices == (try (1...20).map { try TokenFeedFixture.token($0).hex + "@\(1000 + $0)" }).sorted())
        #expect(statistics.redisRetries >= 3)
        #expect(availableDuringOutage)
        #expect(registry.exposition.contains("pushline_token_feed_redis_available 1"))
        // One report when the outage starts, one when it ends, whatever the number of attempts between.
        #expect(events.count == 2)
        if case .redisUnreachable(let error)? = events.first { #expect(error.isRetryable) } else { Issue.record("\(events)") }
        if case .redisRecovered(let attempts)? = events.last { #expect(attempts == statistics.redisRetries) } else { Issue.record("\(events)") }
    }

    @Test("ready once it has joined its group and Redis answers; not ready while Redis is down, even with nothing to apply; ready again after")
    func readinessFollowsRedis() async throws {
        let (readyAtFirst, readyWhileDown, readyAgain) = try await DedicatedThread.run {
            let fixture = try TokenFeedFixture()
            let feed = try fixture.startFeed()
            defer { try? feed.stop() }
            let readyAtFirst = (try? Deadline.wait(.seconds(30), for: "the feed to be ready") { feed.isReady }) != nil
            fixture.redis.stop()
            let readyWhileDown = (try? Deadline.wait(.seconds(10), for: "the feed to notice Redis is down") { !feed.isReady }) == nil
            try fixture.redis.restart()
            let readyAgain = (try? Deadline.wait(.seconds(10), for: "the feed to be ready again") { feed.isReady }) != nil
            return (readyAtFirst, readyWhileDown, readyAgain)
        }
        #expect(readyAtFirst)
        #expect(!readyWhileDown)
        #expect(readyAgain)
    }

    @Test("a Redis error that waiting cannot fix stops the feed and reports it; the record stays uncommitted")
    func unfixableRedisErrorStopsFeed() async throws {
        let (failures, stopError, committed) = try await DedicatedThread.run {
            let fixture = try TokenFeedFixture()
            // A string where the registry keeps a hash: every write to it is refused with WRONGTYPE.
            try fixture.redisCommand("SET", "pushline:tokens:{\(TokenFeedFixture.app):sandbox}:anna", "not a hash")
            let failures = RecordLog<String>()
            let feed = try fixture.startFeed(failures: failures)
            try fixture.publish([TokenFeedFixture.record(user: "anna", token: try TokenFeedFixture.token(1), at: 100)])
            try Deadline.wait(for: "the feed to fail") { !failures.all.isEmpty }
            var stopError = ""
            do { try feed.stop() } catch { stopError = "\(error)" }
            return (failures.all, stopError, try fixture.committedOffset())
        }
        #expect(failures.count == 1)
        #expect(failures.first?.contains("WRONGTYPE") == true, "\(failures)")
        #expect(stopError == failures.first, "stop() throws the error the feed failed on")
        #expect(committed == nil, "the record was neither applied nor dead-lettered, so its offset is not committed")
    }

    @Test("a feed stopped while Redis is down leaves the batch uncommitted; the next feed applies it")
    func stopDuringOutageHandsBatchOn() async throws {
        let (committedWhileDown, devices) = try await DedicatedThread.run {
            let fixture = try TokenFeedFixture()
            let first = try fixture.startFeed()
            try fixture.publish([TokenFeedFixture.record(user: "anna", token: try TokenFeedFixture.token(0), at: 100)])
            try fixture.waitUntilHandled(1, by: first)
            fixture.redis.stop()
            try fixture.publish([TokenFeedFixture.record(user: "anna", token: try TokenFeedFixture.token(1), at: 200)])
            try Deadline.wait(for: "the feed to retry against the stopped Redis") { first.statistics.redisRetries >= 1 }
            try first.stop()  // returns while Redis is still down
            let committedWhileDown = try fixture.committedOffset()
            try fixture.redis.restart()
            let second = try fixture.startFeed()
            try fixture.waitUntilHandled(1, by: second)
            try second.stop()
            return (committedWhileDown, try fixture.devices(["anna"])[0])
        }
        #expect(committedWhileDown == 1, "only the record applied before the outage is committed")
        #expect(devices == [try TokenFeedFixture.token(1).hex + "@200"])
    }

    @Test("key records register a user's and a device's key, sealed under the key-encryption key; an older version does not replace a later one")
    func keyRecordsRegisterKeys() async throws {
        let registry = MetricsRegistry()
        let (found, statistics, stored) = try await DedicatedThread.run {
            let fixture = try TokenFeedFixture()
            let kek = try KeyEncryptionKey(base64: Base64.encode(try AES256GCM.randomKey()), source: "the test")
            let feed = try fixture.startFeed(metrics: registry, keyEncryptionKey: kek)
            let device = try TokenFeedFixture.token(1)
            try fixture.publish([
                EncryptionKeyRecord(app: TokenFeedFixture.app, subject: .user("anna"), id: "chat", version: 2, key: try AES256GCM.randomKey()).encoded,
                EncryptionKeyRecord(app: TokenFeedFixture.app, subject: .device(device), id: "phone", version: 1, key: try AES256GCM.randomKey()).encoded,
                // Replayed late: version 2 stands.
                EncryptionKeyRecord(app: TokenFeedFixture.app, subject: .user("anna"), id: "chat", version: 1, key: try AES256GCM.randomKey()).encoded,
            ])
            try fixture.waitUntilHandled(3, by: feed)
            try feed.stop()
            let keys = try fixture.keyRegistry(kek).keys(for: [
                EncryptionKeyRegistry.Lookup(app: TokenFeedFixture.app, token: try TokenFeedFixture.token(2), user: "anna"),
                EncryptionKeyRegistry.Lookup(app: TokenFeedFixture.app, token: device, user: "anna"),
            ])
            let found = try keys.map { try $0.get().map { "\($0.id) v\($0.version)" } ?? "none" }
            let stored = try fixture.redisValue("pushline:e2e-key:\(TokenFeedFixture.app):user:anna")
            return (found, feed.statistics, stored)
        }
        #expect(found == ["chat v2", "phone v1"])
        #expect(statistics.recordsApplied == 3 && statistics.keysApplied == 3 && statistics.deadLetters == 0)
        #expect(stored?.hasPrefix("v1 chat 2 ") == true, "stored sealed, in the registry's format")
        let metrics = registry.exposition
        #expect(metrics.contains(#"pushline_token_records_total{result="applied"} 2"#), "\(metrics)")
        #expect(metrics.contains(#"pushline_token_records_total{result="superseded"} 1"#), "\(metrics)")
    }

    @Test("a malformed key record, and a key record while the feed has no key-encryption key, reach the DLQ with the key redacted")
    func keyRecordsRedactedInDLQ() async throws {
        let key = try AES256GCM.randomKey()
        let keyBase64 = Base64.encode(key)
        let (values, statistics) = try await DedicatedThread.run {
            let fixture = try TokenFeedFixture()
            let kek = try KeyEncryptionKey(base64: Base64.encode(try AES256GCM.randomKey()), source: "the test")
            let withKey = try fixture.startFeed(keyEncryptionKey: kek)
            try fixture.publish([
                Array(#"{"action":"key","app":"\#(TokenFeedFixture.app)","user":"anna","key_id":"chat","key_version":0,"key":"\#(keyBase64)"}"#.utf8),
                Array(#"{"action":"key","app":"\#(TokenFeedFixture.app)","user":"anna","key_id":"chat","key":"\#(keyBase64)""#.utf8),
            ])
            try fixture.waitUntilHandled(2, by: withKey)
            try withKey.stop()
            let withoutKey = try fixture.startFeed()
            try fixture.publish([EncryptionKeyRecord(app: TokenFeedFixture.app, subject: .user("bo"), id: "chat", version: 1, key: key).encoded])
            try fixture.waitUntilHandled(1, by: withoutKey)
            try withoutKey.stop()
            return (try fixture.deadLetters(count: 3), withoutKey.statistics)
        }
        #expect(statistics.deadLetters == 1 && statistics.recordsApplied == 0)
        let letters = values.map { (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] ?? [:] }
        #expect(letters.map { $0["reason"] as? String } == ["InvalidValue", "MalformedJSON", "MissingKeyEncryptionKey"])
        #expect((letters[0]["detail"] as? String)?.hasPrefix("InvalidValue: $.key_version") == true)
        for (value, letter) in zip(values, letters) {
            let text = String(decoding: value, as: UTF8.self)
            #expect(!text.contains(keyBase64), "the dead letter carries the key: \(text)")
            let copy = Base64.decode(letter["original_base64"] as? String ?? "") ?? []
            #expect(!String(decoding: copy, as: UTF8.self).contains(keyBase64))
            #expect(!copy.indices.contains { copy[$0...].starts(with: key) }, "the key's bytes are not in the copy")
            #expect(letter["original_size"] as? Int != copy.count, "never taken for the whole original (replay reads the source)")
        }
        #expect((letters[0]["original_text"] as? String)?.contains(#""key":"<redacted>""#) == true, "\(letters[0])")
        #expect((letters[2]["original_text"] as? String)?.contains(#""user":"bo""#) == true, "\(letters[2])")
    }
}
