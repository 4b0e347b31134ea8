import Foundation

/// AES-256-GCM by an independent implementation: the `cryptography` Python package's `AESGCM`
/// (Debian `python3-cryptography`, installed by scripts/setup.sh), in a `python3` process. Boxes
/// are CryptoKit's combined layout, 12-byte nonce ‖ ciphertext ‖ 16-byte tag, as base64.
public enum PythonAESGCM {
    private static let script = """
        import base64, sys
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        mode, key, data = sys.argv[1], base64.b64decode(sys.argv[2]), base64.b64decode(sys.argv[3])
        cipher = AESGCM(key)
        if mode == "open":
            sys.stdout.write(base64.b64encode(cipher.decrypt(data[:12], data[12:], None)).decode())
        else:
            import os
            nonce = os.urandom(12)
            sys.stdout.write(base64.b64encode(nonce + cipher.encrypt(nonce, data, None)).decode())
        """

    /// The plaintext of `box` (base64) under `key`; nil when the tag does not verify.
    public static func open(box: String, key: [UInt8]) throws -> [UInt8]? {
        let result = try run("open", key: key, data: box)
        guard result.status == 0 else {
            guard result.standardError.contains("InvalidTag") else { throw TestKitError("python3 AESGCM open failed: \(result.standardError)") }
            return nil
        }
        return Data(base64Encoded: result.standardOutput).map { [UInt8]($0) }
    }

    /// `plaintext` sealed under `key` with a random nonce, as base64 of the combined box.
    public static func seal(_ plaintext: [UInt8], key: [UInt8]) throws -> String {
        let result = try run("seal", key: key, data: Data(plaintext).base64EncodedString())
        guard result.status == 0 else { throw TestKitError("python3 AESGCM seal failed: \(result.standardError)") }
        return result.standardOutput
    }

    private static func run(_ mode: String, key: [UInt8], data: String) throws -> CommandResult {
        let python = try ExternalCommand.locate("python3", package: "python3")
        let check = try ExternalCommand.run(python, ["-c", "import cryptography.hazmat.primitives.ciphers.aead"])
        guard check.status == 0 else {
            throw TestKitError("python3 cannot import cryptography: install python3-cryptography (scripts/setup.sh)")
        }
        return try ExternalCommand.run(python, ["-c", script, mode, Data(key).base64EncodedString(), data])
    }
}
