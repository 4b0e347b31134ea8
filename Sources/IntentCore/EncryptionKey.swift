import TLS

/// A recipient's key for sealing notification fields (AES-256-GCM), with the id and version the
/// payload names so the app's extension opens it with the right one after a rotation. Prints
/// without its bytes.
public struct EncryptionKey: Sendable, CustomStringConvertible {
    /// The longest key id: letters, digits, `.`, `_` and `-`.
    public static let maximumIDLength = 64

    public let id: String
    public let version: Int64
    public let cipher: AES256GCM

    /// A key; `id` must pass ``isValidID(_:)`` and `version` be at least 1.
    public init(id: String, version: Int64, cipher: AES256GCM) {
        self.id = id
        self.version = version
        self.cipher = cipher
    }

    /// Whether `id` can name a key: 1 to 64 letters, digits, `.`, `_` or `-` (it is written into
    /// payloads and Redis values as it is).
    public static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= maximumIDLength && id.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "-")
        }
    }

    public var description: String { "key \(id) v\(version)" }
}
