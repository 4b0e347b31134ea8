import Foundation
import PushlineTestKit
import Testing

/// Runs the built `pushline` with `arguments` and `environment` on a thread of its own.
private func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> CommandResult {
    try await DedicatedThread.run {
        try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline"), arguments, environment: environment)
    }
}

@Suite("pushline keys", .timeLimit(.minutes(2)))
struct KeysCommandTests {
    @Test("keys register stores a sealed key, refuses an equal or older version, and never prints the key")
    func registerAndRotate() async throws {
        let redis = try await RedisServer.start()
        defer { redis.stop() }
        var local = LocalRunConfiguration(bootstrapServers: "localhost:9092", redisPort: redis.port, simulatorPort: 2197,
                                          caFile: DevCredentials.publicKeyFile)
        local.metricsPort = try FreePort.next()
        let config = try local.write()
        let directory = URL(fileURLWithPath: config).deletingLastPathComponent().path
        let key = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        try Data(key.utf8).write(to: URL(fileURLWithPath: "\(directory)/anna.key"))
        let kek = ["PUSHLINE_ENCRYPTION_KEK": Data(repeating: 7, count: 32).base64EncodedString()]
        func register(_ version: String, keyFile: String = "\(directory)/anna.key", environment: [String: String] = kek) async throws -> CommandResult {
            try await run(["keys", "register", "--config", config, "--app", LocalPipeline.app, "--user", "anna", "--key-file", keyFile,
                           "--key-id", "chat", "--version", version], environment: environment)
        }

        let first = try await register("2")
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains("registered key chat v2 for user:anna (com.example.pushline)"))
        let stored = try await DedicatedThread.run {
            try ExternalCommand.run(try ExternalCommand.locate("redis-cli", package: "redis-tools"),
                                    ["-p", String(redis.port), "GET", "pushline:e2e-key:com.example.pushline:user:anna"])
        }
        #expect(stored.standardOutput.hasPrefix("v1 chat 2 "))
        #expect(!stored.standardOutput.contains(key), "stored sealed under the key-encryption key")
        let older = try await register("1")
        #expect(older.status == 1 && older.standardOutput.contains("has key version 2, which stands"))
        for result in [first, older] { #expect(!(result.standardOutput + result.standardError).contains(key)) }

        try Data("short".utf8).write(to: URL(fileURLWithPath: "\(directory)/bad.key"))
        let badKey = try await register("3", keyFile: "\(directory)/bad.key")
        #expect(badKey.status == 2 && badKey.standardError.contains("--key-file"))
        let noKEK = try await register("3", environment: [:])
        #expect(noKEK.status == 1 && noKEK.standardError.contains("no key-encryption key"))
        let help = try await run(["keys", "register", "--help"])
        #expect(help.status == 0 && help.standardOutput.contains("--key-id"))
    }
}
