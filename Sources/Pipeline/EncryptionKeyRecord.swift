import APNsCore
import IntentCore
import TLS

/// A key record on `pushline.tokens` (`"action":"key"`): a user's or a device's AES-256 key for
/// encrypted notification fields, with its id and version, for the ``EncryptionKeyRegistry``. The
/// token feed registers it, sealed under the key-encryption key, as `pushline keys register`
/// does. Schema: `Config/schemas/token-key-v1.schema.json`; docs/tokens.md.
///
/// The key never prints (descriptions and mirrors leave it out), and a record that cannot be
/// decoded reaches the DLQ only through ``redacted(_:)``.
public struct EncryptionKeyRecord: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// The `action` of a key record.
    public static let action = "key"
    /// What stands in a dead letter where a record's `key` was.
    public static let redactionMarker = "<redacted>"

    /// The app's bundle id.
    public var app: String
    public var subject: EncryptionKeyRegistry.Subject
    /// The key's id (``EncryptionKey/isValidID(_:)``).
    public var id: String
    /// At least 1; a later version replaces an earlier one, never the reverse.
    public var version: Int64
    /// The 32 bytes of the key.
    public var key: [UInt8]

    public init(app: String, subject: EncryptionKeyRegistry.Subject, id: String, version: Int64, key: [UInt8]) {
        self.app = app
        self.subject = subject
        self.id = id
        self.version = version
        self.key = key
    }

    public var description: String { "key \(id) v\(version) of \(subject) (\(app))" }
    public var customMirror: Mirror {
        Mirror(self, children: ["app": app, "subject": subject, "id": id, "version": version], displayStyle: .struct)
    }

    /// The registry's entry for it.
    public var entry: EncryptionKeyRegistry.Entry {
        EncryptionKeyRegistry.Entry(subject: subject, id: id, version: version, key: key)
    }

    /// The Kafka key: the user or the token, so one subject's keys stay in order on one partition.
    public var kafkaKey: [UInt8] {
        switch subject {
        case .user(let user): Array(user.utf8)
        case .device(let token): Array(token.hex.utf8)
        }
    }

    /// The record as JSON, the key in standard base64.
    public var encoded: [UInt8] {
        var object: JSONObject = ["schema_version": .integer(TokenRegistration.schemaVersion), "action": .string(Self.action),
                                  "app": .string(app)]
        switch subject {
        case .user(let user): object.append("user", .string(user))
        case .device(let token): object.append("token", .string(token.hex))
        }
        object.append("key_id", .string(id))
        object.append("key_version", .integer(version))
        object.append("key", .string(Base64.encode(key)))
        return object.encoded
    }

    /// What a dead letter may show of a `pushline.tokens` record that could not be decoded: a JSON
    /// object with every top-level `key` member's value replaced by ``redactionMarker``; bytes that
    /// are not a JSON object cut before the first `key` or backslash (an escape could spell `key`);
    /// anything else as it is. Never the same length as a record it changed, so a dead letter
    /// carrying it never counts as carrying the whole original (`pushline dlq replay` then reads the
    /// original from its source topic).
    public static func redacted(_ bytes: [UInt8]) -> [UInt8] {
        if case .object(var object)? = try? JSONParser.parse(bytes) {
            var changed = false
            for index in object.members.indices where object.members[index].key == "key" {
                object.members[index].value = .string(redactionMarker)
                changed = true
            }
            guard changed else { return bytes }
            var shown = object.encoded
            if shown.count == bytes.count { shown.append(UInt8(ascii: " ")) }
            return shown
        }
        let cut = bytes.indices.first { index in
            bytes[index] == UInt8(ascii: "\\") || bytes[index...].starts(with: "key".utf8)
        }
        guard let cut else { return bytes }
        return Array(bytes[..<cut])
    }
}
