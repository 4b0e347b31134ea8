import APNsCore
import Foundation
import Pipeline
import PushlineTestKit
import Testing

private let schema = "Config/schemas/token-registration-v1.schema.json"
private let hex = String(repeating: "ab", count: 32)

private func registration(_ action: TokenRegistration.Action = .register, user: String = "anna", token: String = hex,
                          at occurredAt: Int64, locale: String? = nil, timeZone: String? = nil) throws -> TokenRegistration {
    TokenRegistration(action: action, app: "com.example.app", environment: .sandbox, user: user, token: try DeviceToken(token),
                      occurredAt: occurredAt, locale: locale, timeZone: timeZone)
}

@Suite("Token registration records")
struct TokenRegistrationRecordTests {
    @Test("a register record with a locale and an unregister record match the schema and decode to themselves")
    func encodedRecordsMatchSchema() throws {
        let records = [try registration(at: 1_764_489_600_000, locale: "ja-JP"), try registration(.unregister, at: 1_764_489_700_000)]
        let problems = try JSONSchemaValidator.problems(of: records.map(\.encoded), schemaFile: RepositoryPaths.file(schema))
        #expect(problems == [[], []])
        #expect(try records.map { try TokenRegistrationDecoder.decode($0.encoded) } == records)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(records[1].encoded)) as? [String: Any])
        #expect(object["locale"] == nil, "absent fields are left out, not null")
        #expect(object["occurred_at"] as? Int == 1_764_489_700_000)
    }

    @Test("a record with a time zone matches the schema and decodes to itself")
    func timeZoneRecord() throws {
        let record = try registration(at: 1_764_489_600_000, locale: "de", timeZone: "Europe/Berlin")
        #expect(try JSONSchemaValidator.problems(of: [record.encoded], schemaFile: RepositoryPaths.file(schema)) == [[]])
        #expect(try TokenRegistrationDecoder.decode(record.encoded) == record)
        #expect(String(decoding: record.encoded, as: UTF8.self).contains(#""time_zone":"Europe/Berlin""#))
    }

    @Test("a time zone this machine's tzdata does not know is refused by the decoder with its path and reason")
    func unknownTimeZoneIsRefused() throws {
        for zone in ["Mars/Olympus", "europe/berlin", "GMT+2"] {
            let bytes = Array(#"{"action":"register","app":"a","environment":"sandbox","user":"u","token":"abcd","occurred_at":1,"time_zone":"\#(zone)"}"#.utf8)
            let error = #expect(throws: TokenRegistrationDecodingError.self) { try TokenRegistrationDecoder.decode(bytes) }
            #expect(error?.code == .invalidValue, "\(zone)")
            #expect(error?.path == "$.time_zone", "\(zone)")
            #expect(error?.reason.contains("is not an IANA time zone") == true, "\(zone)")
        }
    }

    @Test("a record without schema_version, with upper-case hex and an unknown field decodes; the token is normalised")
    func tolerantDecoding() throws {
        let bytes = Array(#"{"action":"register","app":"com.example.app","environment":"production","user":"bo","token":"ABCD","occurred_at":5,"device_model":"iPhone"}"#.utf8)
        let decoded = try TokenRegistrationDecoder.decode(bytes)
        #expect(decoded.token.hex == "abcd")
        #expect(decoded.environment == .production)
        #expect(try JSONSchemaValidator.problems(of: [bytes], schemaFile: RepositoryPaths.file(schema)) == [[]])
    }

    /// Bad records, each with the code and path the decoder must report; the schema refuses each too.
    static let badRecords: [(fields: String, code: TokenRegistrationDecodingError.Code, path: String)] = [
        (#""app":"a","environment":"sandbox","user":"u","token":"abcd","occurred_at":1"#, .missingField, "$.action"),
        (#""action":"delete","app":"a","environment":"sandbox","user":"u","token":"abcd","occurred_at":1"#, .invalidValue, "$.action"),
        (#""action":"register","app":"a:b","environment":"sandbox","user":"u","token":"abcd","occurred_at":1"#, .invalidValue, "$.app"),
        (#""action":"register","app":"a","environment":"staging","user":"u","token":"abcd","occurred_at":1"#, .invalidValue, "$.environment"),
        (#""action":"register","app":"a","user":"u","token":"abcd","occurred_at":1"#, .missingField, "$.environment"),
        (#""action":"register","app":"a","environment":"sandbox","user":"","token":"abcd","occurred_at":1"#, .invalidValue, "$.user"),
        (#""action":"register","app":"a","environment":"sandbox","user":"u","token":"abc","occurred_at":1"#, .invalidValue, "$.token"),
        (#""action":"register","app":"a","environment":"sandbox","user":"u","token":"zz","occurred_at":1"#, .invalidValue, "$.token"),
        (#""action":"register","app":"a","environment":"sandbox","user":"u","token":42,"occurred_at":1"#, .wrongType, "$.token"),
        (#""action":"register","app":"a","environment":"sandbox","user":"u","token":"abcd""#, .missingField, "$.occurred_at"),
        (#""action":"register","app":"a","environment":"sandbox","user":"u","token":"abcd","occurred_at":"17""#, .wrongType, "$.occurred_at"),
        (#""action":"register","app":"a","environment":"sandbox","user":"u","token":"abcd","occurred_at":-1"#, .invalidValue, "$.occurred_at"),
        (#""action":"register","app":"a","environment":"sandbox","user":"u","token":"abcd","occurred_at":1.5"#, .wrongType, "$.occurred_at"),
        (#""action":"register","app":"a","environment":"sandbox","user":"u","token":"abcd","occurred_at":1,"locale":"not a tag""#, .invalidValue, "$.locale"),
        (#""action":"register","app":"a","environment":"sandbox","user":"u","token":"abcd","occurred_at":1,"time_zone":"""#, .invalidValue, "$.time_zone"),
        (#""action":"register","app":"a","environment":"sandbox","user":"u","token":"abcd","occurred_at":1,"time_zone":60"#, .wrongType, "$.time_zone"),
        (#""schema_version":2,"action":"register","app":"a","environment":"sandbox","user":"u","token":"abcd","occurred_at":1"#, .invalidValue, "$.schema_version"),
    ]

    @Test("bad records are refused with a code and the JSON path of the mistake, and the schema refuses them too")
    func badRecordsAreRefused() throws {
        let documents = Self.badRecords.map { Array("{\($0.fields)}".utf8) }
        for (document, expected) in zip(documents, Self.badRecords) {
            let error = #expect(throws: TokenRegistrationDecodingError.self) { try TokenRegistrationDecoder.decode(document) }
            #expect(error?.code == expected.code, "\(expected.fields)")
            #expect(error?.path == expected.path, "\(expected.fields)")
        }
        let problems = try JSONSchemaValidator.problems(of: documents, schemaFile: RepositoryPaths.file(schema))
        for (problem, expected) in zip(problems, Self.badRecords) {
            #expect(!problem.isEmpty, "the schema accepts \(expected.fields)")
        }
    }

    @Test("bytes that are not a JSON object, and a field given twice, are refused with their codes")
    func notRecords() throws {
        let cases: [(String, TokenRegistrationDecodingError.Code, String)] = [
            (#"{"action":"register","#, .malformedJSON, "$"),
            (#"[1,2]"#, .notAnObject, "$"),
            (#"{"action":"register","action":"unregister"}"#, .duplicateField, "$.action"),
        ]
        for (text, code, path) in cases {
            let error = #expect(throws: TokenRegistrationDecodingError.self) { try TokenRegistrationDecoder.decode(Array(text.utf8)) }
            #expect(error?.code == code, "\(text)")
            #expect(error?.path == path, "\(text)")
        }
    }
}

@Suite("Token registrations applied to the registry")
struct TokenRegistrationRegistryTests {
    @Test("registrations appear with their times, and a locale becomes the user's profile locale", arguments: StoreBackend.allCases)
    func registrationsAppear(backend: StoreBackend) async throws {
        let (effects, devices, locales) = try await withStores(backend) { stores in
            let registry = stores.tokenRegistry()
            let second = String(repeating: "cd", count: 32)
            let effects = try registry.apply([try registration(at: 100, locale: "de"), try registration(token: second, at: 200)])
            return (effects, try registry.devices(users: ["anna"], app: "com.example.app", environment: "sandbox")[0],
                    try registry.locales(users: ["anna"]))
        }
        #expect(effects == [.applied, .applied])
        #expect(Set(devices.map { "\($0.token.hex)@\($0.registeredAt)" }) == [hex + "@100", String(repeating: "cd", count: 32) + "@200"])
        #expect(locales == ["de"])
    }

    @Test("a time zone joins the locale in the user's profile; a later record with only one of them keeps the other",
          arguments: StoreBackend.allCases)
    func timeZoneInProfile(backend: StoreBackend) async throws {
        let (profiles, recipients) = try await withStores(backend) { stores in
            let registry = stores.tokenRegistry()
            _ = try registry.apply([try registration(at: 100, locale: "de", timeZone: "Europe/Berlin"),
                                    try registration(user: "bo", token: String(repeating: "cd", count: 32), at: 100, timeZone: "Asia/Tokyo"),
                                    try registration(user: "bo", token: String(repeating: "cd", count: 32), at: 200, locale: "ja")])
            return (try registry.profiles(users: ["anna", "bo", "cy"]),
                    try registry.recipients([UserQuery(user: "anna", app: "com.example.app", environment: "sandbox"),
                                             UserQuery(user: "bo", app: "com.example.app", environment: "sandbox")]))
        }
        #expect(profiles == [UserProfile(locale: "de", timeZone: "Europe/Berlin"), UserProfile(locale: "ja", timeZone: "Asia/Tokyo"),
                             UserProfile()])
        #expect(recipients.map(\.timeZone) == ["Europe/Berlin", "Asia/Tokyo"])
        #expect(recipients.map { $0.devices.count } == [1, 1])
    }

    @Test("an unregistration removes the token, but not when the device registered it again later", arguments: StoreBackend.allCases)
    func unregisterRespectsLaterRegistration(backend: StoreBackend) async throws {
        let (effects, devices) = try await withStores(backend) { stores in
            let registry = stores.tokenRegistry()
            let effects = try registry.apply([
                try registration(at: 100), try registration(.unregister, at: 200),  // logged out: removed
                try registration(at: 300), try registration(.unregister, at: 250),  // an older logout arriving late: kept
            ])
            return (effects, try registry.devices(users: ["anna"], app: "com.example.app", environment: "sandbox")[0])
        }
        #expect(effects == [.applied, .applied, .applied, .superseded])
        #expect(devices.map(\.registeredAt) == [300])
    }

    @Test("an unregistration of a token the user does not have changes nothing", arguments: StoreBackend.allCases)
    func unregisterUnknownToken(backend: StoreBackend) async throws {
        let effects = try await withStores(backend) { stores in
            try stores.tokenRegistry().apply([try registration(.unregister, at: 100), try registration(user: "bo", at: 100),
                                              try registration(.unregister, user: "anna", at: 200)])
        }
        #expect(effects == [.notRegistered, .applied, .notRegistered])
    }

    @Test("a token registered by another user later moves to that user; an older registration does not take it back", arguments: StoreBackend.allCases)
    func tokenChangesHands(backend: StoreBackend) async throws {
        let (effects, anna, bo) = try await withStores(backend) { stores in
            let registry = stores.tokenRegistry()
            let effects = try registry.apply([try registration(user: "anna", at: 100), try registration(user: "bo", at: 200),
                                              try registration(user: "anna", at: 150)])
            let devices = try registry.devices(users: ["anna", "bo"], app: "com.example.app", environment: "sandbox")
            return (effects, devices[0], devices[1])
        }
        #expect(effects == [.applied, .applied, .superseded])
        #expect(anna.isEmpty)
        #expect(bo.map(\.registeredAt) == [200])
    }

    @Test("applying the same records again (a batch read again after a crash) leaves the same registry", arguments: StoreBackend.allCases)
    func replayIsHarmless(backend: StoreBackend) async throws {
        let (first, again) = try await withStores(backend) { stores in
            let registry = stores.tokenRegistry()
            let records = [try registration(at: 100), try registration(.unregister, at: 200), try registration(at: 300),
                           try registration(user: "bo", token: String(repeating: "ef", count: 32), at: 400)]
            _ = try registry.apply(records)
            let first = try registry.devices(users: ["anna", "bo"], app: "com.example.app", environment: "sandbox")
            _ = try registry.apply(records)
            return (first, try registry.devices(users: ["anna", "bo"], app: "com.example.app", environment: "sandbox"))
        }
        #expect(first == again)
        #expect(first.map { $0.map(\.registeredAt) } == [[300], [400]])
    }

    @Test("a 410 removal after a re-registration through the feed keeps the token (the worker's path sees feed times)", arguments: StoreBackend.allCases)
    func workerRemovalSeesFeedTimes(backend: StoreBackend) async throws {
        let removed = try await withStores(backend) { stores in
            let registry = stores.tokenRegistry()
            _ = try registry.apply([try registration(at: 500)])
            return try registry.remove(app: "com.example.app", environment: "sandbox", token: try DeviceToken(hex), invalidatedAt: 400)
        }
        #expect(!removed)
    }
}
