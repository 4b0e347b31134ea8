import Foundation
import PushlineTestKit
import Testing

@Suite("pushline validate config")
struct ValidateConfigCommandTests {
    static let example = RepositoryPaths.file("Config/pushline.yaml")

    @Test("the example configuration is valid, with a summary")
    func exampleIsValid() throws {
        let result = try pushline("validate", "config", Self.example)
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "valid")
        #expect(lines.contains("apns credentials dev: token (key DEVKEY0001, team DEVTEAM001)"))
        #expect(lines.contains { $0.hasPrefix("pipeline notifications: pushline.intents") })
    }

    @Test("each problem is one line, FILE:LINE: KEY: message, and the exit status is 1")
    func problems() throws {
        let file = try temporaryFile("redis:\n  port: 0\n  colour: blue\nshutdown:\n  deadline: soon\n", name: "pushline.yaml")
        let result = try pushline("validate", "config", file, "--pipelines", RepositoryPaths.file("Pipelines"))
        #expect(result.status == 1)
        #expect(result.standardOutput.split(separator: "\n").map(String.init) == [
            "\(file):2: redis.port: 0 is out of range: must be an integer from 1 to 65535",
            "\(file):3: redis.colour: unknown key (known keys: command_timeout, connect_timeout, database, host, mode, nodes, password, password_file, "
                + "port, sentinel, tls, tls_ca_file, tls_cert_file, tls_insecure_skip_verify, tls_key_file, unix_socket, username)",
            "\(file):5: shutdown.deadline: must be a duration such as 250ms, 30s, 5m, 24h or 7d, from 1s to 10m, got \"soon\"",
            "\(RepositoryPaths.file("Pipelines/notifications.yaml")):16: apns_pool: \"default\" is not a pool of apns.pools (none are defined)",
        ])
    }

    @Test("environment overrides are applied and checked, naming the variable")
    func environmentOverride() throws {
        let result = try pushline(environment: ["PUSHLINE_APNS_POOLS_0_MAX_CONNECTIONS": "lots"], "validate", "config", Self.example)
        #expect(result.status == 1)
        #expect(result.standardOutput.contains(
            #"apns.pools[0].max_connections: must be an integer from 1 to 64, got "lots" (from PUSHLINE_APNS_POOLS_0_MAX_CONNECTIONS)"#))
    }

    @Test("a secret from the environment is used but never printed")
    func secretNotPrinted() throws {
        let result = try pushline(environment: ["PUSHLINE_REDIS_PASSWORD": "hunter2-c2VjcmV0"], "validate", "config", Self.example)
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("redis 127.0.0.1:6379 db 0, user default with password <redacted>"))
        #expect(!result.standardOutput.contains("c2VjcmV0"))
    }

    @Test("--help explains the command")
    func help() throws {
        let result = try pushline("validate", "config", "--help")
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("Usage: pushline validate config FILE [--pipelines DIR]"))
    }

    @Test("without FILE it is a usage error")
    func missingFile() throws {
        let result = try pushline("validate", "config")
        #expect(result.status == 2)
        #expect(result.standardError.contains("missing FILE"))
    }
}

/// Runs the built `pushline` executable with variables added to the environment.
func pushline(environment: [String: String], _ arguments: String...) throws -> CommandResult {
    try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline"), arguments, environment: environment)
}

/// Runs the built `pushline-dev` executable with variables added to the environment.
func pushlineDev(environment: [String: String], _ arguments: String...) throws -> CommandResult {
    try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline-dev"), arguments, environment: environment)
}
