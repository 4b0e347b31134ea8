import Foundation
import Pipeline
import PushlineConfiguration

extension EncryptionConfiguration {
    /// The key-encryption key from its variable or file, nil when neither is set. The error names
    /// the file or variable, never the bytes.
    func loadKeyEncryptionKey() throws(KeyRegistryError) -> KeyEncryptionKey? {
        if let secret = keyEncryptionKey {
            return try KeyEncryptionKey(base64: secret.value, source: "PUSHLINE_ENCRYPTION_KEK")
        }
        guard let file = keyEncryptionKeyFile else { return nil }
        guard let contents = FileManager.default.contents(atPath: file) else {
            throw KeyRegistryError(.badKeyEncryptionKey, "the key file \(file) cannot be read")
        }
        return try KeyEncryptionKey(fileContents: [UInt8](contents), file: file)
    }
}
