import APNsCore
import Foundation
import Pipeline
import PushlineTestKit
import Redis
import TLS
import Testing

private let schema = "Config/schemas/token-key-v1.schema.json"
private let hex = String(repeating: "ab", count: 32)
/// A key whose base64 is easy to look for.
private let key = [UInt8](repeating: 0x5A, count: 32)
private let keyBase64 = Base64.encode(key)

@Suite("Encryption key records on pushline.tokens")
struct EncryptionKeyRecordTests {
    @Test("a user's and a device's key record match the schema and decode to themselves; a registration still decodes as one")
    func encodedRecordsMatchSchema() throws {
        let records = [EncryptionKeyRecord(app: "com.example.app", subject: .user("anna"), id: "chat-2026", version: 2, key: key),
                       EncryptionKeyRecord(app: "com.example.app", subject: .device(try DeviceToken(hex)), id: "d", version: 1, key: key)]
        let problems = try JSONSchemaValidator.problems(of: records.map(\.encoded), schemaFile: RepositoryPaths.file(schema))
        #expect(problems == [[], []])
        #expect(try records.map { try TokenRegistrationDecoder.decodeRecord($0.encoded) } == records.map(TokenFeedRecord.key))
        let registration = TokenRegistration(action: .register, app: "com.example.app", environment: .sandbox, user: "anna",
                                             token: try DeviceToken(hex), occurredAt: 5)
        #expect(try TokenRegistrationDecoder.decodeRecord(registration.encoded) == .registration(registration))
        #expect(!"\(records[0])".contains(keyBase64) && !String(reflecting: records[0]).contains("90, 90"), "the key never prints")
        #expect("\(records[0])" == "key chat-2026 v2 of user:anna (com.example.app)")
    }

    /// Bad key records, each with the code and path the decoder must report; the schema refuses each too.
    static let badRecords: [(fields: String, code: TokenRegistrationDecodingError.Code, path: String)] = [
        (#""action":"key","app":"a","key_id":"k","key_version":1,"key":"\#(keyBase64)""#, .missingField, "$.user"),
        (#""action":"key","app":"a","user":"u","token":"\#(hex)","key_id":"k","key_version":1,"key":"\#(keyBase64)""#, .invalidValue, "$.token"),
        (#""action":"key","app":"a","user":"u","key_version":1,"key":"\#(keyBase64)""#, .missingField, "$.key_id"),
        (#""action":"key","app":"a","user":"u","key_id":"a b","key_version":1,"key":"\#(keyBase64)""#, .invalidValue, "$.key_id"),
        (#""action":"key","app":"a","user":"u","key_id":"k","key":"\#(keyBase64)""#, .missingField, "$.key_version"),
        (#""action":"key","app":"a","user":"u","key_id":"k","key_version":0,"key":"\#(keyBase64)""#, .invalidValue, "$.key_version"),
        (#""action":"key","app":"a","user":"u","key_id":"k","key_version":1"#, .missingField, "$.key"),
        (#""action":"key","app":"a","user":"u","key_id":"k","key_version":1,"key":"\#(keyBase64.dropLast(4))""#, .invalidValue, "$.key"),
        (#""action":"key","app":"a","user":"u","key_id":"k","key_version":1,"key":"\#(keyBase64)!""#, .invalidValue, "$.key"),
        (#""action":"key","app":"a","user":"u","key_id":"k","key_version":1,"key":42"#, .wrongType, "$.key"),
        (#""action":"key","app":"a:b","user":"u","key_id":"k","key_version":1,"key":"\#(keyBase64)""#, .invalidValue, "$.app"),
    ]

    @Test("bad key records are refused with a code and the JSON path, never quoting the key, and the schema refuses them too")
    func badRecordsAreRefused() throws {
        let documents = Self.badRecords.map { Array("{\($0.fields)}".utf8) }
        for (document, expected) in zip(documents, Self.badRecords) {
            let error = #expect(throws: TokenRegistrationDecodingError.self) { try TokenRegistrationDecoder.decodeRecord(document) }
            #expect(error?.code == expected.code, "\(expected.fields)")
            #expect(error?.path == expected.path, "\(expected.fields)")
            #expect(error.map { !$0.description.contains(String(keyBase64.prefix(20))) } == true, "\(expected.fields)")
        }
        let problems = try JSONSchemaValidator.problems(of: documents, schemaFile: RepositoryPaths.file(schema))
        for (problem, expected) in zip(problems, Self.badRecords) {
            #expect(!problem.isEmpty, "the schema accepts \(expected.fields)")
        }
    }

    @Test("redaction: a record's key is replaced, unparseable bytes are cut before any key, other records stay as they are")
    func redaction() throws {
        let bad = Array(#"{"action":"key","app":"a","user":"u","key_id":"k","key_version":0,"key":"\#(keyBase64)"}"#.utf8)
        let shown = EncryptionKeyRecord.redacted(bad)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown)) as? [String: Any])
        #expect(object["key"] as? String == "<redacted>" && object["key_version"] as? Int == 0)
        #expect(shown.count != bad.count, "never taken for the whole original")
        let broken = Array(#"{"user":"u","key":"\#(keyBase64)"#.utf8)
        #expect(EncryptionKeyRecord.redacted(broken) == Array(#"{"user":"u",""#.utf8))
        let escaped = Array(#"{"user":"u","k\u0065y":"\#(keyBase64)"#.utf8)
        #expect(EncryptionKeyRecord.redacted(escaped) == Array(#"{"user":"u","k"#.utf8))
        let registration = Array(#"{"action":"register","app":"a","user":"u"}"#.utf8)
        #expect(EncryptionKeyRecord.redacted(registration) == registration)
        let letter = DeadLetter(reason: "InvalidValue", detail: "", source: SourcePosition(topic: "pushline.tokens", partition: 0, offset: 1),
                                original: DeadLetter.Original(bad, showing: shown), intentID: nil, recordedAt: 0)
        let text = String(decoding: letter.encoded, as: UTF8.self)
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(letter.encoded)) as? [String: Any])
        let copyBase64 = try #require(fields["original_base64"] as? String)
        let copy = try #require(Base64.decode(copyBase64))
        #expect(!text.contains(keyBase64) && !String(decoding: copy, as: UTF8.self).contains(keyBase64))
        #expect(letter.original.size == bad.count)
    }

    @Test("a key read once is not kept; read again it is, and then comes from the cache; a rotated value is opened anew")
    func keysReadAgainAreCached() async throws {
        let (ids, cached) = try await withRegistry { registry, _ in
            let lookup = EncryptionKeyRegistry.Lookup(app: "com.example.app", token: try DeviceToken(hex), user: "anna")
            var ids: [String] = []
            var cached: [Int] = []
            func read(times: Int = 1) throws {
                let found = try registry.keys(for: Array(repeating: lookup, count: times))
                ids += try found.map { try $0.get().map { "\($0.id) v\($0.version)" } ?? "none" }
                cached.append(registry.cachedKeyCount)
            }
            try read()
            _ = try registry.register(app: "com.example.app", subject: .user("anna"), id: "chat", version: 1, key: key)
            try read()
            try read()
            try read(times: 2)
            _ = try registry.register(app: "com.example.app", subject: .user("anna"), id: "chat", version: 2, key: try AES256GCM.randomKey())
            try read()
            return (ids, cached)
        }
        #expect(ids == ["none", "chat v1", "chat v1", "chat v1", "chat v1", "chat v2"])
        #expect(cached == [0, 0, 1, 1, 1], "kept at the second read; the rotated value replaced it")
    }

    @Test("keys each read once, one per device, are not kept; read a second time they are")
    func keysReadOnceAreNotKept() async throws {
        let cached = try await withRegistry { registry, _ in
            let tokens = try (0..<50).map { try DeviceToken(String(repeating: "0", count: 60) + String(format: "%04x", $0)) }
            _ = try registry.register(app: "com.example.app", tokens.map { .init(subject: .device($0), id: "d", version: 1, key: key) })
            let lookups = tokens.map { EncryptionKeyRegistry.Lookup(app: "com.example.app", token: $0, user: nil) }
            var cached: [Int] = []
            for _ in 0..<2 {
                #expect(try registry.keys(for: lookups).allSatisfy { (try? $0.get())??.id == "d" })
                cached.append(registry.cachedKeyCount)
            }
            return cached
        }
        #expect(cached[0] == 0, "a stream of keys each read once keeps nothing")
        // Two of the 50 Redis keys may share one of the 16,384 slots (then neither is kept).
        #expect(cached[1] > 40 && cached[1] <= 50)
    }

    @Test("a batch's keys are read in one call, a device's before its user's, on one server and on a Redis Cluster (keys in many slots)",
          arguments: [StoreBackend.redis, .redisCluster])
    func batchOfKeys(backend: StoreBackend) async throws {
        let found = try await withRegistry(backend) { registry, _ in
            let tokens = try (0..<30).map { try DeviceToken(String(repeating: "0", count: 60) + String(format: "%04x", $0)) }
            // Every third device has a key of its own; every second user has one.
            _ = try registry.register(app: "com.example.app", stride(from: 0, to: 30, by: 3).map {
                .init(subject: .device(tokens[$0]), id: "device-\($0)", version: 1, key: key)
            } + stride(from: 0, to: 30, by: 2).map { .init(subject: .user("user-\($0)"), id: "user-\($0)", version: 2, key: key) })
            let lookups = tokens.indices.map { EncryptionKeyRegistry.Lookup(app: "com.example.app", token: tokens[$0], user: $0 < 20 ? "user-\($0)" : nil) }
            return try registry.keys(for: lookups).map { try $0.get().map { "\($0.id) v\($0.version)" } ?? "none" }
        }
        let expected = (0..<30).map { index in
            index % 3 == 0 ? "device-\(index) v1" : index < 20 && index % 2 == 0 ? "user-\(index) v2" : "none"
        }
        #expect(found == expected)
    }

    @Test("stored values that are not v1 registry values, or a value copied to another user, are UnreadableKey in their place; the rest open")
    func unreadableValues() async throws {
        let found = try await withRegistry { registry, connection in
            _ = try registry.register(app: "com.example.app", subject: .user("anna"), id: "chat", version: 3, key: key)
            let stored = try #require(try connection.send(RedisCommand("GET", "pushline:e2e-key:com.example.app:user:anna")).bytes)
            let text = String(decoding: stored, as: UTF8.self)
            let box = String(text.split(separator: " ")[3])
            let values = ["bob": text, "carl": "v2 chat 3 \(box)", "dora": "v1 chat 3", "emil": "v1 chat x \(box)",
                          "finn": "v1 chat 3 \(box) more", "gina": "v1", "hugo": "v1 chat 3 \(box.dropLast(4))"]
            for (user, value) in values {
                _ = try connection.send(RedisCommand("SET", "pushline:e2e-key:com.example.app:user:\(user)", value))
            }
            let users = ["anna", "bob", "carl", "dora", "emil", "finn", "gina", "hugo", "ivan"]
            let lookups = try users.map { EncryptionKeyRegistry.Lookup(app: "com.example.app", token: try DeviceToken(hex), user: $0) }
            return try registry.keys(for: lookups).map { result -> String in
                switch result {
                case .success(let key?): "\(key.id) v\(key.version)"
                case .success(nil): "none"
                case .failure(let error): "\(error.code.rawValue): \(error.description.contains(box) ? "shows the key" : "")"
                }
            }
        }
        #expect(found == ["chat v3"] + Array(repeating: "UnreadableKey: ", count: 7) + ["none"])
    }
}

/// Runs `body` on a thread of its own with a registry (under a random key-encryption key) and its
/// connection, on a redis-server (or a Redis Cluster) started for the test.
private func withRegistry<Result: Sendable>(_ backend: StoreBackend = .redis,
                                            _ body: @escaping @Sendable (EncryptionKeyRegistry, RedisConnection) throws -> Result) async throws -> Result {
    try await withStores(backend) { stores in
        let kek = try KeyEncryptionKey(base64: Base64.encode(try AES256GCM.randomKey()), source: "the test")
        let connection = try #require(stores.connection, "a Redis backend")
        return try body(EncryptionKeyRegistry(connection: connection, keyEncryptionKey: kek), connection)
    }
}
