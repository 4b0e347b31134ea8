import APNsCore
import Enrichment
import Testing

/// The smallest valid intent, as JSON members, so each test can break exactly one thing.
private let validMembers = #""id":"i-1","app":"com.example.app","tokens":["0a1b2c"],"template":"hello""#

private func decode(_ json: String) throws(IntentDecodingError) -> Intent {
    try IntentDecoder.decode(Array(json.utf8))
}

@Suite("Intent decoding (schema v1)")
struct IntentDecoderTests {
    @Test("a full intent decodes every field")
    func fullIntent() throws {
        let intent = try decode("""
            {"schema_version":1,"id":"i-1","app":"com.example.app","environment":"sandbox","tokens":["0A1B2C"],
             "template":"hello","args":{"name":"Anna"},"locale":"zh-Hant-TW","push_type":"alert","priority":5,
             "expiration":1700000000,"collapse_id":"c","thread_id":"t","interruption_level":"passive",
             "relevance_score":0.5,"badge":3,"sound":"ping.caf","category":"CAT","custom":{"k":1},
             "dedupe_window":60,"created_at":1700000000123,"future_field":{"ignored":true}}
            """)
        #expect(intent.id == "i-1")
        #expect(intent.environment == .sandbox)
        #expect(intent.recipients == .tokens([try DeviceToken("0a1b2c")]))
        #expect(intent.content == .template("hello"))
        #expect(intent.args == ["name": "Anna"])
        #expect(intent.locale == "zh-Hant-TW")
        #expect(intent.overrides.pushType == .alert)
        #expect(intent.overrides.priority == .powerConsiderate)
        #expect(intent.overrides.collapseID == "c")
        #expect(intent.overrides.threadID == "t")
        #expect(intent.overrides.sound == "ping.caf")
        #expect(intent.overrides.category == "CAT")
        #expect(intent.overrides.expiration == .at(unixSeconds: 1_700_000_000))
        #expect(intent.overrides.interruptionLevel == .passive)
        #expect(intent.overrides.relevanceScore == 0.5)
        #expect(intent.overrides.badge == 3)
        #expect(intent.custom == ["k": 1])
        #expect(intent.dedupeWindow == 60)
        #expect(intent.createdAt == 1_700_000_000_123)
    }

    @Test("defaults: production, no overrides, empty args")
    func defaults() throws {
        let intent = try decode("{\(validMembers)}")
        #expect(intent.environment == .production)
        #expect(intent.overrides == Intent.Overrides())
        #expect(intent.args == JSONObject())
        #expect(intent.liveActivity == nil)
    }

    @Test("a user recipient and a raw payload decode")
    func userAndPayload() throws {
        let intent = try decode(#"{"id":"i","app":"a.b","user":"u-42","payload":{"aps":{"alert":"hi"}},"priority":10}"#)
        #expect(intent.recipients == .user("u-42"))
        #expect(intent.content == .payload(["aps": .object(["alert": "hi"])]))
    }

    @Test("expiration 0 means deliver once, store nothing")
    func expirationZero() throws {
        #expect(try decode("{\(validMembers),\"expiration\":0}").overrides.expiration == .immediately)
    }

    @Test("a Live Activity intent decodes its event, dates and attributes")
    func liveActivity() throws {
        let intent = try decode("""
            {\(validMembers),"created_at":5000,"live_activity":{"event":"start","stale_date":10,"dismissal_date":20,
             "attributes":{"order":"77"}}}
            """)
        #expect(intent.liveActivity == Intent.LiveActivity(event: .start, staleDate: 10, dismissalDate: 20, attributes: ["order": "77"]))
    }

    /// Every way an intent can be wrong, with the code and JSON path the error must carry.
    static let errorCases: [(json: String, code: IntentDecodingError.Code, path: String)] = [
        ("{\"id\":", .malformedJSON, "$"),
        ("[1,2]", .notAnObject, "$"),
        (#"{"app":"a","tokens":["00"],"template":"t"}"#, .missingField, "$.id"),
        (#"{"id":"i","tokens":["00"],"template":"t"}"#, .missingField, "$.app"),
        (#"{"id":"i","app":"a","template":"t"}"#, .missingField, "$"),
        (#"{"id":"i","app":"a","tokens":["00"]}"#, .missingField, "$"),
        ("{\(validMembers),\"id\":\"again\"}", .duplicateField, "$.id"),
        (#"{"id":7,"app":"a","tokens":["00"],"template":"t"}"#, .wrongType, "$.id"),
        (#"{"id":"","app":"a","tokens":["00"],"template":"t"}"#, .invalidValue, "$.id"),
        (#"{"id":"i","app":"","tokens":["00"],"template":"t"}"#, .invalidValue, "$.app"),
        ("{\(validMembers),\"schema_version\":2}", .invalidValue, "$.schema_version"),
        ("{\(validMembers),\"schema_version\":\"1\"}", .wrongType, "$.schema_version"),
        ("{\(validMembers),\"environment\":\"staging\"}", .invalidValue, "$.environment"),
        ("{\(validMembers),\"environment\":1}", .wrongType, "$.environment"),
        (#"{"id":"i","app":"a","tokens":"00","template":"t"}"#, .wrongType, "$.tokens"),
        (#"{"id":"i","app":"a","tokens":[],"template":"t"}"#, .invalidValue, "$.tokens"),
        (#"{"id":"i","app":"a","tokens":["00",5],"template":"t"}"#, .wrongType, "$.tokens[1]"),
        (#"{"id":"i","app":"a","tokens":["00","xyz"],"template":"t"}"#, .invalidValue, "$.tokens[1]"),
        (#"{"id":"i","app":"a","tokens":["0"],"template":"t"}"#, .invalidValue, "$.tokens[0]"),
        (#"{"id":"i","app":"a","tokens":["00"],"user":"u","template":"t"}"#, .conflictingFields, "$"),
        (#"{"id":"i","app":"a","user":"","template":"t"}"#, .invalidValue, "$.user"),
        (#"{"id":"i","app":"a","user":3,"template":"t"}"#, .wrongType, "$.user"),
        (#"{"id":"i","app":"a","tokens":["00"],"template":"t","payload":{}}"#, .conflictingFields, "$"),
        (#"{"id":"i","app":"a","tokens":["00"],"template":""}"#, .invalidValue, "$.template"),
        (#"{"id":"i","app":"a","tokens":["00"],"payload":"{}"}"#, .wrongType, "$.payload"),
        (#"{"id":"i","app":"a","tokens":["00"],"payload":{},"thread_id":"t"}"#, .conflictingFields, "$.thread_id"),
        // Template-only fields read after the check (which tells them from the fields given, not
        // from those still unread) and the first of two in the check's order.
        (#"{"id":"i","app":"a","tokens":["00"],"payload":{},"args":{}}"#, .conflictingFields, "$.args"),
        (#"{"id":"i","app":"a","tokens":["00"],"payload":{},"live_activity":{}}"#, .conflictingFields, "$.live_activity"),
        (#"{"id":"i","app":"a","tokens":["00"],"payload":{},"custom":{},"badge":1}"#, .conflictingFields, "$.badge"),
        ("{\(validMembers),\"args\":[1]}", .wrongType, "$.args"),
        ("{\(validMembers),\"locale\":\"not a tag\"}", .invalidValue, "$.locale"),
        ("{\(validMembers),\"locale\":5}", .wrongType, "$.locale"),
        ("{\(validMembers),\"push_type\":\"email\"}", .invalidValue, "$.push_type"),
        ("{\(validMembers),\"priority\":7}", .invalidValue, "$.priority"),
        ("{\(validMembers),\"priority\":\"10\"}", .wrongType, "$.priority"),
        ("{\(validMembers),\"expiration\":-1}", .invalidValue, "$.expiration"),
        ("{\(validMembers),\"expiration\":1.5}", .wrongType, "$.expiration"),
        ("{\(validMembers),\"collapse_id\":\"\(String(repeating: "x", count: 65))\"}", .invalidValue, "$.collapse_id"),
        ("{\(validMembers),\"thread_id\":[]}", .wrongType, "$.thread_id"),
        ("{\(validMembers),\"interruption_level\":\"loud\"}", .invalidValue, "$.interruption_level"),
        ("{\(validMembers),\"relevance_score\":\"high\"}", .wrongType, "$.relevance_score"),
        ("{\(validMembers),\"badge\":-2}", .invalidValue, "$.badge"),
        ("{\(validMembers),\"sound\":true}", .wrongType, "$.sound"),
        ("{\(validMembers),\"category\":null}", .wrongType, "$.category"),
        ("{\(validMembers),\"custom\":\"x\"}", .wrongType, "$.custom"),
        ("{\(validMembers),\"custom\":{\"aps\":{}}}", .invalidValue, "$.custom.aps"),
        ("{\(validMembers),\"dedupe_window\":-5}", .invalidValue, "$.dedupe_window"),
        ("{\(validMembers),\"created_at\":\"yesterday\"}", .wrongType, "$.created_at"),
        ("{\(validMembers),\"created_at\":1,\"live_activity\":[]}", .wrongType, "$.live_activity"),
        ("{\(validMembers),\"created_at\":1,\"live_activity\":{}}", .missingField, "$.live_activity.event"),
        ("{\(validMembers),\"created_at\":1,\"live_activity\":{\"event\":\"pause\"}}", .invalidValue, "$.live_activity.event"),
        ("{\(validMembers),\"created_at\":1,\"live_activity\":{\"event\":\"start\"}}", .missingField, "$.live_activity.attributes"),
        ("{\(validMembers),\"created_at\":1,\"live_activity\":{\"event\":\"end\",\"dismissal_date\":-1}}", .invalidValue,
         "$.live_activity.dismissal_date"),
        ("{\(validMembers),\"created_at\":1,\"live_activity\":{\"event\":\"update\",\"event\":\"end\"}}", .duplicateField,
         "$.live_activity.event"),
        ("{\(validMembers),\"live_activity\":{\"event\":\"update\"}}", .missingField, "$.created_at"),
    ]

    /// Every name the decoder reads, at the top level or inside `live_activity`.
    static let fieldNames = [
        "schema_version", "id", "app", "environment", "tokens", "user", "template", "payload", "args", "locale",
        "push_type", "priority", "expiration", "collapse_id", "thread_id", "interruption_level", "relevance_score",
        "badge", "sound", "category", "custom", "dedupe_window", "created_at", "live_activity", "event", "stale_date",
        "dismissal_date", "attributes", "policy_category", "lane", "expires_at", "respect_quiet_hours", "campaign",
    ]

    @Test("every field name is recognised: given twice, it is a DuplicateField", arguments: fieldNames)
    func everyFieldNameIsRecognised(name: String) {
        #expect {
            _ = try decode("{\(validMembers),\"\(name)\":0,\"\(name)\":0}")
        } throws: { error in
            (error as? IntentDecodingError)?.code == .duplicateField && (error as? IntentDecodingError)?.path == "$.\(name)"
        }
    }

    @Test("a name that differs from a field's by case, length or one letter is an unknown field, ignored",
          arguments: ["ID", "apps", "ap", "Tokens", "template_", "creatad_at", "interruption_levels", "x"])
    func nearMissNamesAreIgnored(name: String) throws {
        let intent = try decode("{\(validMembers),\"\(name)\":0,\"\(name)\":0}")
        #expect(intent.id == "i-1")
    }

    @Test("every schema error names its code and JSON path", arguments: errorCases)
    func schemaError(json: String, code: IntentDecodingError.Code, path: String) {
        #expect {
            _ = try decode(json)
        } throws: { error in
            guard let error = error as? IntentDecodingError else { return false }
            return error.code == code && error.path == path && !error.reason.isEmpty
        }
    }

    @Test("bytes over the reader's limit are IntentTooLarge, unread; at the limit they decode")
    func intentTooLarge() throws {
        let bytes = Array("{\(validMembers)}".utf8)
        #expect(try IntentDecoder.decode(bytes, maximumBytes: bytes.count).id == "i-1")
        #expect(throws: IntentDecodingError(.intentTooLarge, at: "$", "the message is \(bytes.count) bytes, more than the limit of \(bytes.count - 1)")) {
            _ = try IntentDecoder.decode(bytes, maximumBytes: bytes.count - 1)
        }
    }

    @Test("every error code is reachable from the cases above (IntentTooLarge: from its own test)")
    func everyCodeIsCovered() {
        let covered = Set(Self.errorCases.map(\.code) + [.intentTooLarge])
        #expect(covered == Set(IntentDecodingError.Code.allCases))
    }

    @Test("the description reads <Code>: <path>: <reason>")
    func description() {
        #expect(throws: IntentDecodingError(.missingField, at: "$.id", "required")) {
            _ = try decode(#"{"app":"a","tokens":["00"],"template":"t"}"#)
        }
        #expect(IntentDecodingError(.missingField, at: "$.id", "required").description == "MissingField: $.id: required")
    }
}
