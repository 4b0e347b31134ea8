/// Where the key-encryption key of the encryption key registry comes from (`encryption` in
/// `Config/pushline.yaml`; docs/service-extension.md): a file (`kek_file`, 32 raw bytes or their
/// base64), or the variable `PUSHLINE_ENCRYPTION_KEK` (base64), never the file itself. Without
/// either, templates that encrypt follow their `without_key` rule for every delivery.
public struct EncryptionConfiguration: Sendable, CustomStringConvertible {
    /// The key-encryption key's file, resolved against the configuration file's folder.
    public var keyEncryptionKeyFile: String?
    /// The key-encryption key from `PUSHLINE_ENCRYPTION_KEK` (base64); printed as `<redacted>`.
    public var keyEncryptionKey: Secret?

    public init() {}

    public var description: String {
        if keyEncryptionKey != nil { return "key-encryption key from PUSHLINE_ENCRYPTION_KEK" }
        return keyEncryptionKeyFile.map { "key-encryption key from \($0)" } ?? "no key-encryption key"
    }

    /// Reads the `encryption` section over the defaults.
    init(reading section: inout ConfigurationSection) {
        keyEncryptionKey = section.secretFromEnvironment("kek", instead: "kek_file")
        keyEncryptionKeyFile = section.existingFile("kek_file")
        if keyEncryptionKey != nil && keyEncryptionKeyFile != nil {
            section.report(.invalidValue, "kek_file", at: section.origin("kek_file"),
                           "give the key-encryption key once: kek_file or PUSHLINE_ENCRYPTION_KEK, not both")
        }
        section.finish()
    }
}
