import APNsCore
import IntentCore
import Runtime
import TLS

/// Decodes schema v1 `pushline.tokens` records from bytes with APNsCore's ``JSONParser``: unknown
/// fields are ignored (newer producers may add some), a known field given twice is refused, and
/// the first mistake is thrown with its JSON path.
public enum TokenRegistrationDecoder {
    /// The schema version this decoder reads; `schema_version` may be omitted or must equal it.
    public static let schemaVersion = TokenRegistration.schemaVersion

    /// Decodes one token registration.
    public static func decode(_ bytes: [UInt8]) throws(TokenRegistrationDecodingError) -> TokenRegistration {
        try decode(RecordFields(parse(bytes)))
    }

    /// Decodes one record of the feed: a token registration, or (`"action":"key"`) an encryption
    /// key. No error quotes the key.
    public static func decodeRecord(_ bytes: [UInt8]) throws(TokenRegistrationDecodingError) -> TokenFeedRecord {
        let fields = try RecordFields(parse(bytes))
        if try fields.string(.action) == EncryptionKeyRecord.action { return .key(try decodeKey(fields)) }
        return .registration(try decode(fields))
    }

    /// Decodes a record that is already parsed (or built, as `pushline tokens` builds one from its options).
    public static func decode(_ object: JSONObject) throws(TokenRegistrationDecodingError) -> TokenRegistration {
        try decode(RecordFields(object))
    }

    private static func parse(_ bytes: [UInt8]) throws(TokenRegistrationDecodingError) -> JSONObject {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw TokenRegistrationDecodingError(.malformedJSON, at: "$", error.description)
        }
        guard case .object(let object) = document else {
            throw TokenRegistrationDecodingError(.notAnObject, at: "$", "a token registration is a JSON object, got \(document.typeName)")
        }
        return object
    }

    private static func decode(_ fields: RecordFields) throws(TokenRegistrationDecodingError) -> TokenRegistration {
        try checkSchemaVersion(fields)
        let action = try fields.choice(.action, TokenRegistration.Action.self)
        let app = try app(fields)
        let environment = try fields.choice(.environment, Intent.Environment.self)
        let user = try fields.requiredString(.user)
        let token = try token(fields)
        guard let occurredAt = try fields.integer(.occurredAt) else { throw fields.missing(.occurredAt) }
        guard occurredAt >= 0 else { throw fields.invalid(.occurredAt, "must not be negative, got \(occurredAt)") }
        let locale = try fields.string(.locale)
        if let locale, !LanguageTag.isWellFormed(locale) {
            throw fields.invalid(.locale, "\"\(locale)\" is not a BCP 47 language tag")
        }
        let timeZone = try fields.string(.timeZone)
        if let timeZone, !TimeZoneName.isKnown(timeZone) {
            throw fields.invalid(.timeZone, TimeZoneName.unknownReason(timeZone))
        }
        return TokenRegistration(action: action, app: app, environment: environment, user: user, token: token,
                                 occurredAt: occurredAt, locale: locale, timeZone: timeZone)
    }

    /// A key record: `app`, `user` or `token`, `key_id`, `key_version`, and `key` (base64 of 32 bytes).
    private static func decodeKey(_ fields: RecordFields) throws(TokenRegistrationDecodingError) -> EncryptionKeyRecord {
        try checkSchemaVersion(fields)
        let app = try app(fields)
        let subject: EncryptionKeyRegistry.Subject
        switch (fields.has(.user), fields.has(.token)) {
        case (true, false): subject = .user(try fields.requiredString(.user))
        case (false, true): subject = .device(try token(fields))
        case (true, true): throw fields.invalid(.token, "a key belongs to a user or to a device: give \"user\" or \"token\", not both")
        case (false, false): throw fields.missing(.user)
        }
        let id = try fields.requiredString(.keyID)
        guard EncryptionKey.isValidID(id) else {
            throw fields.invalid(.keyID, "must be 1 to \(EncryptionKey.maximumIDLength) letters, digits, '.', '_' or '-'")
        }
        guard let version = try fields.integer(.keyVersion) else { throw fields.missing(.keyVersion) }
        guard version >= 1 else { throw fields.invalid(.keyVersion, "must be at least 1, got \(version)") }
        // The detail reaches the DLQ: it never quotes the key.
        guard let key = Base64.decode(try fields.requiredString(.key)), key.count == AES256GCM.keyByteCount else {
            throw fields.invalid(.key, "must be the standard base64 of \(AES256GCM.keyByteCount) bytes (an AES-256 key)")
        }
        return EncryptionKeyRecord(app: app, subject: subject, id: id, version: version, key: key)
    }

    private static func checkSchemaVersion(_ fields: RecordFields) throws(TokenRegistrationDecodingError) {
        if let version = try fields.integer(.schemaVersion), version != schemaVersion {
            throw fields.invalid(.schemaVersion, "this decoder reads schema \(schemaVersion), got \(version)")
        }
    }

    private static func app(_ fields: RecordFields) throws(TokenRegistrationDecodingError) -> String {
        let app = try fields.requiredString(.app)
        // The registries' keys are `…:<app>:…`: a colon in a bundle id could make two apps share a key.
        guard !app.contains(":") else { throw fields.invalid(.app, "a bundle id has no \":\", got \"\(app)\"") }
        return app
    }

    private static func token(_ fields: RecordFields) throws(TokenRegistrationDecodingError) -> DeviceToken {
        let hex = try fields.requiredString(.token)
        do {
            return try DeviceToken(hex)
        } catch {
            throw fields.invalid(.token, error.detail)
        }
    }
}

/// The fields of schema v1: a token registration's, then a key record's.
private enum RecordField: String, CaseIterable {
    case schemaVersion = "schema_version", action, app, environment, user, token, occurredAt = "occurred_at", locale
    case timeZone = "time_zone"
    case keyID = "key_id", keyVersion = "key_version", key
}

/// The known fields of one record, read with typed accessors whose errors name the field's path.
private struct RecordFields {
    private var values: [RecordField: JSONValue] = [:]

    init(_ object: JSONObject) throws(TokenRegistrationDecodingError) {
        for member in object.members {
            guard let field = RecordField(rawValue: member.key) else { continue }
            guard values[field] == nil else {
                throw TokenRegistrationDecodingError(.duplicateField, at: Self.path(field), "appears more than once")
            }
            values[field] = member.value
        }
    }

    static func path(_ field: RecordField) -> String { "$.\(field.rawValue)" }

    func invalid(_ field: RecordField, _ reason: String) -> TokenRegistrationDecodingError {
        TokenRegistrationDecodingError(.invalidValue, at: Self.path(field), reason)
    }

    func missing(_ field: RecordField) -> TokenRegistrationDecodingError {
        TokenRegistrationDecodingError(.missingField, at: Self.path(field), "required")
    }

    private func wrongType(_ field: RecordField, _ value: JSONValue, expected: String) -> TokenRegistrationDecodingError {
        TokenRegistrationDecodingError(.wrongType, at: Self.path(field), "must be \(expected), got \(value.typeName)")
    }

    func has(_ field: RecordField) -> Bool { values[field] != nil }

    func string(_ field: RecordField) throws(TokenRegistrationDecodingError) -> String? {
        guard let value = values[field] else { return nil }
        guard case .string(let text) = value else { throw wrongType(field, value, expected: "a string") }
        return text
    }

    func requiredString(_ field: RecordField) throws(TokenRegistrationDecodingError) -> String {
        guard let text = try string(field) else { throw missing(field) }
        guard !text.isEmpty else { throw invalid(field, "must not be empty") }
        return text
    }

    func integer(_ field: RecordField) throws(TokenRegistrationDecodingError) -> Int64? {
        guard let value = values[field] else { return nil }
        guard case .integer(let number) = value else { throw wrongType(field, value, expected: "an integer") }
        return number
    }

    /// A required string that must be a raw value of `Choice`.
    func choice<Choice: CaseIterable & RawRepresentable<String>>(_ field: RecordField, _ type: Choice.Type) throws(TokenRegistrationDecodingError) -> Choice {
        let text = try requiredString(field)
        guard let value = Choice(rawValue: text) else {
            throw invalid(field, "must be one of \(Choice.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(text)\"")
        }
        return value
    }
}
