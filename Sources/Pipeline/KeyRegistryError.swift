/// Why a key or the key-encryption key cannot be used: a machine-readable code and a detail naming
/// the key, file or variable — never the key's bytes.
public struct KeyRegistryError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The key-encryption key is not 32 bytes (raw, or base64 text).
        case badKeyEncryptionKey = "BadKeyEncryptionKey"
        /// A key to register is not 32 bytes, or its id or version is not acceptable.
        case badKey = "BadKey"
        /// A stored key cannot be opened: another key-encryption key sealed it, or the value was altered.
        case unreadableKey = "UnreadableKey"
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}
