import APNsCore

/// Decodes schema v1 intents from bytes with APNsCore's Foundation-free ``JSONParser``: one pass
/// over the members, unknown fields ignored, the first mistake thrown with its JSON path.
public enum IntentDecoder {
    /// The schema version this decoder reads; `schema_version` may be omitted or must equal it.
    public static let schemaVersion: Int64 = 1

    /// Like ``decode(_:)-([UInt8])``, but bytes over `maximumBytes` are refused unread
    /// (`IntentTooLarge`): a reader bounds what one message may cost it.
    public static func decode(_ bytes: [UInt8], maximumBytes: Int) throws(IntentDecodingError) -> Intent {
        guard bytes.count <= maximumBytes else {
            throw IntentDecodingError(.intentTooLarge, at: "$", "the message is \(bytes.count) bytes, more than the limit of \(maximumBytes)")
        }
        return try decode(bytes)
    }

    /// Decodes one intent document. The root's members go straight into their fields as they are
    /// parsed, each key matched from its bytes: no root object, and no `String` per key, is built.
    public static func decode(_ bytes: [UInt8]) throws(IntentDecodingError) -> Intent {
        var fields = FieldSet(path: "$")
        let nonObjectRoot: JSONValue?
        // The tables read once per intent, not per member: each is a lazily made global.
        let byName = IntentField.byName, bySlot = IntentField.bySlot
        do {
            nonObjectRoot = try JSONParser.parseMembers(bytes, field: { byName[utf8: $0]?.slot }) { slot, value in
                fields.add(slot.map { bySlot[$0] }, value)
            }
        } catch {
            throw IntentDecodingError(.malformedJSON, at: "$", error.description)
        }
        if let nonObjectRoot {
            throw IntentDecodingError(.notAnObject, at: "$", "an intent is a JSON object, got \(nonObjectRoot.typeName)")
        }
        try fields.checkMembers()
        return try decode(&fields)
    }

    /// Decodes an intent that is already parsed.
    public static func decode(_ object: JSONObject) throws(IntentDecodingError) -> Intent {
        var fields = try FieldSet(object, path: "$")
        return try decode(&fields)
    }

    /// Reads the intent out of `fields`, each field taken from its slot. In place: handed over by
    /// value (`consuming`), the whole set (832 bytes, its 33 slots and their bookkeeping) was copied
    /// once more per intent.
    private static func decode(_ fields: inout FieldSet) throws(IntentDecodingError) -> Intent {
        if let version = try fields.integer(.schemaVersion), version != schemaVersion {
            throw fields.invalid(.schemaVersion, "this decoder reads schema \(schemaVersion), got \(version)")
        }
        let id = try fields.requiredString(.id)
        let app = try fields.requiredString(.app)
        let environment = try fields.environment()
        let recipients = try fields.recipients()
        let content = try fields.content()
        let overrides = try fields.overrides()
        if case .payload = content, let templateOnly = fields.firstPresent(Self.templateOnlyFields) {
            throw IntentDecodingError(.conflictingFields, at: fields.path(templateOnly),
                                      "a raw payload is sent as given; \(templateOnly.rawValue) applies to templates only")
        }
        let args = try fields.object(.args) ?? JSONObject()
        let locale = try fields.locale()
        let custom = try fields.object(.custom) ?? JSONObject()
        if custom["aps"] != nil {
            throw IntentDecodingError(.invalidValue, at: "$.custom.aps", "\"aps\" is reserved for APNs")
        }
        let dedupeWindow = try fields.nonNegativeInteger(.dedupeWindow)
        let createdAt = try fields.nonNegativeInteger(.createdAt)
        let liveActivity = try fields.liveActivity()
        let policy = Intent.Policy(category: try fields.string(.policyCategory), lane: try fields.string(.lane),
                                   expiresAt: try fields.nonNegativeInteger(.expiresAt),
                                   respectQuietHours: try fields.boolean(.respectQuietHours), campaign: try fields.string(.campaign))
        if liveActivity != nil, createdAt == nil {
            throw IntentDecodingError(.missingField, at: "$.created_at",
                                      "required with live_activity: it becomes aps.timestamp")
        }
        // Built once with every field: setting them one by one after `init` copied the intent.
        return Intent(id: id, app: app, environment: environment, recipients: recipients, content: content, args: args,
                      locale: locale, overrides: overrides, custom: custom, dedupeWindow: dedupeWindow, createdAt: createdAt,
                      liveActivity: liveActivity, policy: policy)
    }

    /// Overrides that change `aps` and so make no sense with a raw payload.
    private static let templateOnlyFields: [IntentField] = [
        .args, .threadID, .interruptionLevel, .relevanceScore, .badge, .sound, .category, .custom, .liveActivity,
    ]
}

/// The fields of schema v1, top level and inside `live_activity`.
private enum IntentField: String, CaseIterable {
    case schemaVersion = "schema_version", id, app, environment, tokens, user, template, payload, args, locale
    case pushType = "push_type", priority, expiration, collapseID = "collapse_id", threadID = "thread_id"
    case interruptionLevel = "interruption_level", relevanceScore = "relevance_score", badge, sound, category, custom
    case dedupeWindow = "dedupe_window", createdAt = "created_at", liveActivity = "live_activity"
    case event, staleDate = "stale_date", dismissalDate = "dismissal_date", attributes
    case policyCategory = "policy_category", lane, expiresAt = "expires_at", respectQuietHours = "respect_quiet_hours", campaign

    /// A table rather than the synthesized `init(rawValue:)`, which compares the name with every
    /// case in turn.
    static let byName = NameTable(allCases.map { ($0.rawValue, $0) })

    /// The fields by ``slot``: the parser hands a key's slot back (``JSONParser/parseMembers(_:field:_:)``).
    static let bySlot = allCases

    /// The field's slot in a ``FieldSet``: its place among ``allCases``.
    var slot: Int {
        switch self {
        case .schemaVersion: 0
        case .id: 1
        case .app: 2
        case .environment: 3
        case .tokens: 4
        case .user: 5
        case .template: 6
        case .payload: 7
        case .args: 8
        case .locale: 9
        case .pushType: 10
        case .priority: 11
        case .expiration: 12
        case .collapseID: 13
        case .threadID: 14
        case .interruptionLevel: 15
        case .relevanceScore: 16
        case .badge: 17
        case .sound: 18
        case .category: 19
        case .custom: 20
        case .dedupeWindow: 21
        case .createdAt: 22
        case .liveActivity: 23
        case .event: 24
        case .staleDate: 25
        case .dismissalDate: 26
        case .attributes: 27
        case .policyCategory: 28
        case .lane: 29
        case .expiresAt: 30
        case .respectQuietHours: 31
        case .campaign: 32
        }
    }
}

/// The known fields of one JSON object, read with typed accessors that throw errors naming the
/// field's path. Unknown members are skipped; a known field given twice is rejected, since parsers
/// disagree on which one wins. A slot per field holds its value: no dictionary per intent.
private struct FieldSet {
    /// Per field (by ``IntentField/slot``), its value: one slot per case of ``IntentField`` (a slot
    /// past the end traps in every test). Inline: no allocation per object.
    private var values = InlineArray<33, JSONValue?>(repeating: .none)
    /// Which slots were given, a bit per slot: a reader takes the value out of its slot, so after
    /// that the slot no longer tells.
    private var present: UInt64 = 0
    private var memberCount = 0
    /// The first known field given twice.
    private var repeated: IntentField?
    let path: String

    /// An empty set, to ``add(_:_:)`` members to, then ``checkMembers()``.
    init(path: String) {
        self.path = path
    }

    /// The known fields of `object`.
    init(_ object: JSONObject, path: String) throws(IntentDecodingError) {
        self.path = path
        for member in object.members { add(IntentField.byName[member.key], member.value) }
        try checkMembers()
    }

    /// Keeps the member if its field is known (nil: an unknown member, only counted).
    mutating func add(_ field: IntentField?, _ value: consuming JSONValue) {
        memberCount += 1
        guard let field else { return }
        guard present & Self.bit(field) == 0 else {
            if repeated == nil { repeated = field }
            return
        }
        present |= Self.bit(field)
        values[field.slot] = value
    }

    /// Throws for a known field given twice, or for more members than an intent may have.
    func checkMembers() throws(IntentDecodingError) {
        // The limit of the first decoder, which addressed members by 16-bit index; no real intent comes near it.
        guard memberCount <= Int(Int16.max) else {
            throw IntentDecodingError(.invalidValue, at: path, "has more than \(Int16.max) members")
        }
        if let repeated {
            throw IntentDecodingError(.duplicateField, at: path(repeated), "appears more than once")
        }
    }

    private static func bit(_ field: IntentField) -> UInt64 { 1 << UInt64(field.slot) }

    /// A field's value, taken out of the set: each field is read once, so its value is moved rather
    /// than copied, and the set releases only what was never read. A second read gives nil, as for
    /// a field not given: ``firstPresent(_:)`` asks ``present`` instead. `mutating`, like the
    /// readers built on it (read through a borrowed set, the inline slots, 33 × 24 bytes, were also
    /// copied whole for every field read).
    mutating func take(_ field: IntentField) -> JSONValue? {
        values[field.slot].take()
    }

    func path(_ field: IntentField) -> String { "\(path).\(field.rawValue)" }

    func invalid(_ field: IntentField, _ reason: String) -> IntentDecodingError {
        IntentDecodingError(.invalidValue, at: path(field), reason)
    }

    /// The first of `fields` the object gave, read or not.
    func firstPresent(_ fields: [IntentField]) -> IntentField? {
        fields.first { present & Self.bit($0) != 0 }
    }

    private func wrongType(_ field: IntentField, _ value: JSONValue, expected: String) -> IntentDecodingError {
        IntentDecodingError(.wrongType, at: path(field), "must be \(expected), got \(value.typeName)")
    }

    mutating func string(_ name: IntentField) throws(IntentDecodingError) -> String? {
        guard let value = take(name) else { return nil }
        guard case .string(let text) = value else { throw wrongType(name, value, expected: "a string") }
        return text
    }

    mutating func requiredString(_ name: IntentField) throws(IntentDecodingError) -> String {
        guard let text = try string(name) else {
            throw IntentDecodingError(.missingField, at: path(name), "required")
        }
        guard !text.isEmpty else { throw invalid(name, "must not be empty") }
        return text
    }

    mutating func integer(_ name: IntentField) throws(IntentDecodingError) -> Int64? {
        guard let value = take(name) else { return nil }
        guard case .integer(let number) = value else { throw wrongType(name, value, expected: "an integer") }
        return number
    }

    mutating func nonNegativeInteger(_ name: IntentField) throws(IntentDecodingError) -> Int64? {
        guard let number = try integer(name) else { return nil }
        guard number >= 0 else { throw invalid(name, "must not be negative, got \(number)") }
        return number
    }

    mutating func boolean(_ name: IntentField) throws(IntentDecodingError) -> Bool? {
        guard let value = take(name) else { return nil }
        guard case .bool(let flag) = value else { throw wrongType(name, value, expected: "a boolean") }
        return flag
    }

    mutating func number(_ name: IntentField) throws(IntentDecodingError) -> Double? {
        guard let value = take(name) else { return nil }
        guard let number = value.numberValue else { throw wrongType(name, value, expected: "a number") }
        return number
    }

    mutating func object(_ name: IntentField) throws(IntentDecodingError) -> JSONObject? {
        guard let value = take(name) else { return nil }
        guard case .object(let object) = value else { throw wrongType(name, value, expected: "an object") }
        return object
    }

    mutating func vocabulary<Value: APNsVocabulary>(_ name: IntentField, _ type: Value.Type) throws(IntentDecodingError) -> Value?
    where Value.RawValue == String {
        guard let text = try string(name) else { return nil }
        guard let value = Value(rawValue: text) else {
            throw invalid(name, "\"\(text)\" is not one of \(Value.all.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    /// `environment`'s values: a table rather than `Intent.Environment(rawValue:)`, which compares
    /// the text with each case's name as `String`s.
    private static let environments = NameTable(Intent.Environment.allCases.map { ($0.rawValue, $0) })

    mutating func environment() throws(IntentDecodingError) -> Intent.Environment {
        guard let text = try string(.environment) else { return .production }
        guard let environment = Self.environments[text] else {
            throw invalid(.environment, "must be production or sandbox, got \"\(text)\"")
        }
        return environment
    }

    mutating func recipients() throws(IntentDecodingError) -> Intent.Recipients {
        switch (take(.tokens), try string(.user)) {
        case (nil, nil):
            throw IntentDecodingError(.missingField, at: path, "needs tokens or user")
        case (_?, _?):
            throw IntentDecodingError(.conflictingFields, at: path, "has both tokens and user; give one")
        case (nil, let user?):
            guard !user.isEmpty else { throw invalid(.user, "must not be empty") }
            return .user(user)
        case (let value?, nil):
            guard case .array(let elements) = value else { throw wrongType(.tokens, value, expected: "an array") }
            guard !elements.isEmpty else { throw invalid(.tokens, "must hold at least one token") }
            var tokens: [DeviceToken] = []
            tokens.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                // The path is spelled only for an error: building it for every token costs more than the token.
                func elementPath() -> String { "\(path(.tokens))[\(index)]" }
                guard case .string(let hex) = element else {
                    throw IntentDecodingError(.wrongType, at: elementPath(), "must be a string, got \(element.typeName)")
                }
                do {
                    tokens.append(try DeviceToken(hex))
                } catch {
                    throw IntentDecodingError(.invalidValue, at: elementPath(), error.detail)
                }
            }
            return .tokens(tokens)
        }
    }

    mutating func content() throws(IntentDecodingError) -> Intent.Content {
        switch (try string(.template), try object(.payload)) {
        case (nil, nil):
            throw IntentDecodingError(.missingField, at: path, "needs template or payload")
        case (_?, _?):
            throw IntentDecodingError(.conflictingFields, at: path, "has both template and payload; give one")
        case (let name?, nil):
            guard !name.isEmpty else { throw invalid(.template, "must not be empty") }
            return .template(name)
        case (nil, let payload?):
            return .payload(payload)
        }
    }

    mutating func overrides() throws(IntentDecodingError) -> Intent.Overrides {
        let pushType = try vocabulary(.pushType, PushType.self)
        var priority: APNsPriority?
        if let value = try integer(.priority) {
            guard let given = APNsPriority(rawValue: Int(value)) else { throw invalid(.priority, "must be 10, 5 or 1, got \(value)") }
            priority = given
        }
        let expiration: APNsExpiration = switch try nonNegativeInteger(.expiration) {
        case nil: .unspecified
        case 0: .immediately
        case let seconds?: .at(unixSeconds: seconds)
        }
        var collapseID: String?
        if let given = try string(.collapseID) {
            do {
                collapseID = try CollapseID(given).value
            } catch {
                throw invalid(.collapseID, error.detail)
            }
        }
        return Intent.Overrides(pushType: pushType, priority: priority, expiration: expiration, collapseID: collapseID,
                                threadID: try string(.threadID),
                                interruptionLevel: try vocabulary(.interruptionLevel, InterruptionLevel.self),
                                relevanceScore: try number(.relevanceScore),
                                badge: try nonNegativeInteger(.badge).map { Int($0) }, sound: try string(.sound),
                                category: try string(.category))
    }

    mutating func locale() throws(IntentDecodingError) -> String? {
        guard let tag = try string(.locale) else { return nil }
        guard LanguageTag.isWellFormed(tag) else { throw invalid(.locale, "\"\(tag)\" is not a BCP 47 language tag") }
        return tag
    }

    mutating func liveActivity() throws(IntentDecodingError) -> Intent.LiveActivity? {
        guard let object = try object(.liveActivity) else { return nil }
        var fields = try FieldSet(object, path: path(.liveActivity))
        guard let event = try fields.vocabulary(.event, LiveActivityEvent.self) else {
            throw IntentDecodingError(.missingField, at: fields.path(.event), "required: start, update or end")
        }
        let attributes = try fields.object(.attributes)
        if event == .start, attributes == nil {
            throw IntentDecodingError(.missingField, at: fields.path(.attributes), "required for a start event")
        }
        return Intent.LiveActivity(
            event: event,
            staleDate: try fields.nonNegativeInteger(.staleDate),
            dismissalDate: try fields.nonNegativeInteger(.dismissalDate),
            attributes: attributes
        )
    }
}
