import IntentCore
import TLS

/// The key that seals the registry's keys at rest (envelope encryption): AES-256-GCM, read from a
/// file (32 raw bytes, or their base64 on one line) or from a variable (base64). Each stored key is
/// sealed with its identity — app, subject, key id, version — as additional data, so a value
/// copied to another subject or version does not open. Prints without its bytes.
public struct KeyEncryptionKey: Sendable, CustomStringConvertible {
    private let cipher: AES256GCM

    /// From a key file's contents; `file` names it in errors.
    public init(fileContents: [UInt8], file: String) throws(KeyRegistryError) {
        if fileContents.count == AES256GCM.keyByteCount {
            self.init(cipher: try Self.cipher(fileContents, source: "the key file \(file)"))
        } else {
            try self.init(base64: String(decoding: fileContents, as: UTF8.self), source: "the key file \(file)")
        }
    }

    /// From base64 text (surrounding white space ignored); `source` names the file or variable in errors.
    public init(base64: String, source: String) throws(KeyRegistryError) {
        guard let bytes = Base64.decode(base64.trimmingWhitespace) else {
            throw KeyRegistryError(.badKeyEncryptionKey, "\(source) holds neither 32 raw bytes nor base64")
        }
        self.init(cipher: try Self.cipher(bytes, source: source))
    }

    private init(cipher: AES256GCM) {
        self.cipher = cipher
    }

    private static func cipher(_ bytes: [UInt8], source: String) throws(KeyRegistryError) -> AES256GCM {
        guard let cipher = try? AES256GCM(key: bytes) else {
            throw KeyRegistryError(.badKeyEncryptionKey, "\(source) holds \(bytes.count) bytes; a key-encryption key has 32")
        }
        return cipher
    }

    public var description: String { "<key-encryption key>" }

    /// `key` sealed for storage under `identity`.
    func wrap(_ key: [UInt8], identity: [UInt8]) throws(KeyRegistryError) -> [UInt8] {
        do {
            return try cipher.seal(key, authenticating: identity)
        } catch {
            throw KeyRegistryError(.badKey, "sealing the key: \(error.reason)")
        }
    }

    /// A stored key opened; `name` says which in the error.
    func unwrap(_ wrapped: [UInt8], identity: [UInt8], name: @autoclosure () -> String) throws(KeyRegistryError) -> AES256GCM {
        guard let bytes = try? cipher.open(wrapped, authenticating: identity), let key = try? AES256GCM(key: bytes) else {
            throw KeyRegistryError(.unreadableKey, "\(name()) does not open with this key-encryption key")
        }
        return key
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
