import APNsCore
import Foundation
import LocalStack
import Pipeline
import Redis
import TLS

/// The keys of `pushline-dev bench e2e`'s `sealed` workload: a random key-encryption key in a temporary file
/// (the worker's `encryption.kek_file`) and one device key, registered for every token the intents
/// address before they are produced, so every delivery is sealed.
final class BenchEncryptionKeys {
    /// The key-encryption key's file, for the worker's configuration.
    let keyEncryptionKeyFile: String
    private let registry: EncryptionKeyRegistry
    private let key: [UInt8]

    init(redisPort: Int) throws {
        let kek = try AES256GCM.randomKey()
        keyEncryptionKeyFile = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-bench-kek-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: keyEncryptionKeyFile, contents: Data(kek), attributes: [.posixPermissions: 0o600]) else {
            throw LocalStackError("cannot write the key-encryption key file \(keyEncryptionKeyFile)")
        }
        registry = EncryptionKeyRegistry(connection: try RedisConnection(configuration: RedisConfiguration(endpoint: .tcp(host: "127.0.0.1", port: redisPort))),
                                         keyEncryptionKey: try KeyEncryptionKey(fileContents: kek, file: keyEncryptionKeyFile))
        key = try AES256GCM.randomKey()
    }

    /// Registers the key for the device tokens numbered `numbers` (``IntentLoad/token(_:)``).
    func register(tokens numbers: Range<Int>, progress: (String) -> Void) throws {
        for chunk in stride(from: numbers.lowerBound, to: numbers.upperBound, by: 10_000) {
            let entries = try (chunk..<min(chunk + 10_000, numbers.upperBound)).map { number in
                EncryptionKeyRegistry.Entry(subject: .device(try DeviceToken(IntentLoad.token(number))), id: "bench", version: 1, key: key)
            }
            _ = try registry.register(app: LocalPipeline.app, entries)
        }
        progress("registered a device key for \(numbers.count) tokens")
    }

    deinit {
        try? FileManager.default.removeItem(atPath: keyEncryptionKeyFile)
    }
}
