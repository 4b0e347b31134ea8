import APNsCore
import CLI
import Enrichment
import Foundation
import Pipeline
import Redis
import TLS

/// `pushline keys register`: one user's or device's key for encrypted notification fields into the
/// encryption key registry, sealed under the configuration's key-encryption key.
enum KeysRegisterCommand: Command {
    static let name = "keys register"
    static let summary = "register a user's or device's AES-256 key for encrypted notifications (Redis)"
    static let help = """
        Usage: pushline keys register --config FILE --app APP (--user USER | --token HEX)
                                      --key-file KEYFILE --key-id ID --version N

        Seals the key in KEYFILE (32 raw bytes, or their base64 on one line) under the key-encryption
        key of FILE's `encryption` section (kek_file, or PUSHLINE_ENCRYPTION_KEK) and stores it in the
        Redis of FILE as the key of the user or device (docs/service-extension.md). Keys only move
        forward: a stored version equal to or later than N stands. The key is never printed.

        Exit status: 0 when the key is registered, 1 when a later version stands, FILE is invalid,
        the key-encryption key is missing or unusable, or Redis cannot be reached; 2 on usage errors.

        Options:
          --config FILE     the worker settings (Redis, encryption), e.g. Config/pushline.yaml; PUSHLINE_… variables apply
          --app APP         the app's bundle id
          --user USER       the key of this user (for all the user's devices without a key of their own)
          --token HEX       the key of this device (wins over its user's)
          --key-file FILE   the 32-byte AES-256 key, raw or base64
          --key-id ID       the key's id, written into each payload it seals (1–64 of A–Z a–z 0–9 . _ -)
          --version N       the key's version (≥ 1); rotate by registering a higher one
          -h, --help        show this help
        """
    static let arguments = ArgumentSpec(valueOptions: ["--config", "--app", "--user", "--token", "--key-file", "--key-id", "--version"])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let app = try arguments.required("--app")
        let subject = try subject(arguments)
        let keyFile = try arguments.required("--key-file")
        let key = try keyBytes(readFile(keyFile, purpose: "--key-file"), file: keyFile)
        let id = try arguments.required("--key-id")
        guard EncryptionKey.isValidID(id) else { throw UsageError(message: "--key-id: must be 1 to 64 letters, digits, '.', '_' or '-'") }
        guard let version = try arguments.optionalInteger("--version"), version >= 1 else {
            throw UsageError(message: "--version: a whole number of at least 1 is required")
        }
        guard let configuration = try TokensCommandArguments.configuration(arguments, command: name) else { return 1 }
        let keyEncryptionKey: KeyEncryptionKey
        do {
            guard let loaded = try configuration.encryption.loadKeyEncryptionKey() else {
                printError("pushline \(name): \(arguments.optional("--config") ?? "") has no key-encryption key: set encryption.kek_file or PUSHLINE_ENCRYPTION_KEK")
                return 1
            }
            keyEncryptionKey = loaded
        } catch {
            printError("pushline \(name): \(error)")
            return 1
        }
        let registry = EncryptionKeyRegistry(connection: try RedisConnection(configuration: configuration.redis), keyEncryptionKey: keyEncryptionKey)
        do {
            switch try registry.register(app: app, subject: subject, id: id, version: version, key: key) {
            case .registered:
                print("registered key \(id) v\(version) for \(subject) (\(app))")
                return 0
            case .laterVersionStands(let stored):
                print("not registered: \(subject) (\(app)) has key version \(stored), which stands (versions only move forward)")
                return 1
            }
        } catch {
            printError("pushline \(name): \(error)")
            return 1
        }
    }

    private static func subject(_ arguments: ParsedArguments) throws(UsageError) -> EncryptionKeyRegistry.Subject {
        switch (arguments.optional("--user"), arguments.optional("--token")) {
        case (let user?, nil):
            guard !user.isEmpty else { throw UsageError(message: "--user: must not be empty") }
            return .user(user)
        case (nil, let hex?):
            do {
                return .device(try DeviceToken(hex))
            } catch {
                throw UsageError(message: "--token: \(error)")
            }
        default:
            throw UsageError(message: "give --user or --token: a key belongs to one user or one device")
        }
    }

    /// 32 raw bytes, or their base64 on one line.
    private static func keyBytes(_ contents: [UInt8], file: String) throws(UsageError) -> [UInt8] {
        if contents.count == AES256GCM.keyByteCount { return contents }
        let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = Base64.decode(text), bytes.count == AES256GCM.keyByteCount else {
            throw UsageError(message: "--key-file: \(file) holds neither 32 raw bytes nor the base64 of 32 bytes")
        }
        return bytes
    }
}
