import Foundation
import Kafka
import PushlineTestKit
import Runtime
import Testing

private let app = LocalPipeline.app
private let first = String(repeating: "1a", count: 32)
private let second = String(repeating: "2b", count: 32)

/// A worker settings file for the `pushline tokens` commands (and `pushline run`): LocalStack's, with
/// `tokens` appended, its metrics on a free port; returns its path. `simulator` is the APNs pool's
/// port and CA; without one, the pool is never dialled (only `pushline run` dials it).
private func configurationFile(redisPort: Int, kafka: String = "localhost:9092", simulator: (port: UInt16, caFile: String)? = nil,
                               tokens: String = "") throws -> String {
    var local = LocalRunConfiguration(bootstrapServers: kafka, redisPort: redisPort, simulatorPort: simulator?.port ?? 2197,
                                      caFile: simulator?.caFile ?? DevCredentials.publicKeyFile)
    local.metricsPort = try FreePort.next()
    let file = try local.write()
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
    defer { try? handle.close() }
    try handle.seekToEnd()
    try handle.write(contentsOf: Data((tokens + "\n").utf8))
    return file
}

/// What `pushline run` with the token feed needs: a mock Kafka cluster with the pipeline's topics
/// and `pushline.tokens`, a redis-server, the simulator, and a configuration for them with
/// `tokens.enabled`. Stop the harness when done.
private struct RunStack {
    let cluster: KafkaMockCluster
    let redis: RedisServer
    let harness: SimulatorHarness
    let config: String

    init() async throws {
        cluster = try KafkaMockCluster(brokers: 1)
        for topic in ["pushline.intents", "pushline.outcomes", "pushline.token-events", "pushline.dlq", "pushline.tokens"] {
            try cluster.createTopic(topic, partitions: 1)
        }
        redis = try await RedisServer.start()
        harness = try SimulatorHarness()
        config = try configurationFile(redisPort: redis.port, kafka: cluster.bootstrapServers,
                                       simulator: (harness.devicePort, harness.certificateFile), tokens: "tokens:\n  enabled: true")
    }
}

/// Runs the built `pushline` with `arguments` on a thread of its own.
private func run(_ arguments: [String]) async throws -> CommandResult {
    try await DedicatedThread.run { try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline"), arguments) }
}

/// `pushline tokens …` for `user` of the example app in the sandbox, with `extra` options.
private func tokens(_ command: String, _ config: String, user: String = "anna", _ extra: [String] = []) async throws -> CommandResult {
    try await run(["tokens", command, "--config", config, "--app", app, "--sandbox", "--user", user] + extra)
}

@Suite("pushline tokens", .timeLimit(.minutes(2)))
struct TokensCommandTests {
    @Test("every tokens command has --help", arguments: ["register", "unregister", "list", "publish"])
    func help(command: String) async throws {
        let result = try await run(["tokens", command, "--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("Usage: pushline tokens \(command) --config FILE"))
    }

    @Test("register writes the registry; list prints token, environment and time, oldest first, and the profile locale")
    func registerAndList() async throws {
        let redis = try await RedisServer.start()
        let config = try configurationFile(redisPort: redis.port)
        let registered = try await tokens("register", config, ["--token", second, "--at", "1764489600000", "--locale", "ja"])
        #expect(registered.status == 0, "\(registered.standardError)")
        #expect(registered.standardOutput == """
            registered \(second) for anna (\(app), sandbox) at 2025-11-30T08:00:00.000Z
            profile locale of anna: ja

            """)
        #expect(try await tokens("register", config, ["--token", first.uppercased(), "--at", "1764489500000"]).status == 0)
        let listed = try await tokens("list", config)
        #expect(listed.status == 0)
        #expect(listed.standardOutput == """
            \(first) sandbox 2025-11-30T07:58:20.000Z
            \(second) sandbox 2025-11-30T08:00:00.000Z

            """)
        #expect(listed.standardError.contains("2 device(s) of anna (\(app), sandbox); profile locale: ja; time zone: none"))
        #expect(try await redis.cli("HGET", "pushline:tokens:{\(app):sandbox}:anna", first) == "1764489500000\n",
                "redis-cli sees the registration where the worker reads it")
        let production = try await run(["tokens", "list", "--config", config, "--app", app, "--production", "--user", "anna"])
        #expect(production.standardOutput.isEmpty, "the sandbox tokens are not production's")
    }

    @Test("register --time-zone sets the profile's time zone beside its locale; list shows both")
    func registerTimeZone() async throws {
        let redis = try await RedisServer.start()
        let config = try configurationFile(redisPort: redis.port)
        let registered = try await tokens("register", config, ["--token", first, "--locale", "de", "--time-zone", "Europe/Berlin"])
        #expect(registered.status == 0, "\(registered.standardError)")
        #expect(registered.standardOutput.hasSuffix("profile locale of anna: de\nprofile time zone of anna: Europe/Berlin\n"))
        #expect(try await tokens("list", config).standardError.contains("profile locale: de; time zone: Europe/Berlin"))
        #expect(try await redis.cli("HGET", "pushline:profile:anna", "time_zone") == "Europe/Berlin\n")
    }

    @Test("register and unregister keep a later registration and say so with exit 1")
    func laterRegistrationStands() async throws {
        let redis = try await RedisServer.start()
        let config = try configurationFile(redisPort: redis.port)
        #expect(try await tokens("register", config, ["--token", first, "--at", "300"]).status == 0)
        let olderRegistration = try await tokens("register", config, ["--token", first, "--at", "100"])
        #expect(olderRegistration.status == 1)
        #expect(olderRegistration.standardOutput.hasPrefix("not registered: \(first) for anna"))
        let olderLogout = try await tokens("unregister", config, ["--token", first, "--at", "200"])
        #expect(olderLogout.status == 1)
        #expect(olderLogout.standardOutput.contains("which stands"))
        let logout = try await tokens("unregister", config, ["--token", first, "--at", "400"])
        #expect(logout.status == 0)
        #expect(logout.standardOutput == "unregistered \(first) for anna (\(app), sandbox)\n")
        #expect(try await tokens("list", config).standardOutput.isEmpty)
        let again = try await tokens("unregister", config, ["--token", first])
        #expect(again.status == 0)
        #expect(again.standardOutput.hasPrefix("not registered: \(first)"))
    }

    @Test("bad options name the option and exit 2; an invalid configuration is reported with file, line and key and exits 1")
    func mistakes() async throws {
        let redis = try await RedisServer.start()
        let config = try configurationFile(redisPort: redis.port)
        let cases: [([String], String)] = [
            (["--token", "abc"], "--token: device token has an odd number of hex digits"),
            (["--token", first, "--locale", "not a tag"], "--locale: \"not a tag\" is not a BCP 47 language tag"),
            (["--token", first, "--at", "soon"], "--at must be a whole number"),
            (["--token", first, "--at", "-5"], "--at: must not be negative"),
            (["--token", first, "--time-zone", "Mars/Olympus"], "--time-zone: \"Mars/Olympus\" is not an IANA time zone known here"),
            (["--locale", "de"], "--token is required"),
        ]
        for (extra, message) in cases {
            let result = try await tokens("register", config, extra)
            #expect(result.status == 2, "\(extra)")
            #expect(result.standardError.contains(message), "\(result.standardError)")
        }
        let noEnvironment = try await run(["tokens", "list", "--config", config, "--app", app, "--user", "anna"])
        #expect(noEnvironment.status == 2)
        #expect(noEnvironment.standardError.contains("give --sandbox or --production"))
        let badApp = try await run(["tokens", "register", "--config", config, "--app", "a:b", "--sandbox", "--user", "u", "--token", first])
        #expect(badApp.standardError.contains("--app: a bundle id has no \":\""))
        let broken = try configurationFile(redisPort: redis.port, tokens: "tokens:\n  enabled: maybe")
        let line = try #require(try String(contentsOfFile: broken, encoding: .utf8).split(separator: "\n").firstIndex(of: "  enabled: maybe")) + 1
        let invalid = try await tokens("list", broken)
        #expect(invalid.status == 1)
        #expect(invalid.standardError.contains("\(broken):\(line): tokens.enabled: must be true or false, got \"maybe\""), "\(invalid.standardError)")
    }

    @Test("publish puts a record on pushline.tokens, and pushline run's token feed applies it to the registry")
    func publishThroughRunningFeed() async throws {
        let stack = try await RunStack()
        defer { stack.harness.stop() }
        let (redis, config) = (stack.redis, stack.config)
        let published = try await tokens("publish", config, ["--token", first, "--at", "1000", "--locale", "de"])
        #expect(published.status == 0, "\(published.standardError)")
        #expect(published.standardOutput.hasSuffix("published to pushline.tokens at offset 0\n"))
        let record = try #require(published.standardOutput.split(separator: "\n").first)
        #expect(try JSONSchemaValidator.problems(of: [Array(record.utf8)],
                                                 schemaFile: RepositoryPaths.file("Config/schemas/token-registration-v1.schema.json")) == [[]])
        let logout = try await tokens("publish", config, ["--action", "unregister", "--token", second, "--at", "2000"])
        #expect(logout.standardOutput.hasSuffix("at offset 1\n"))

        let (listed, status, log) = try await DedicatedThread.run {
            let server = try ServerProcess(RepositoryPaths.builtExecutable("pushline"), ["run", "--config", config])
            var listed = ""
            do {
                try Deadline.wait(.seconds(60), for: "the token feed to apply the published record") {
                    listed = try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline"),
                                                     ["tokens", "list", "--config", config, "--app", app, "--sandbox", "--user", "anna"]).standardOutput
                    return !listed.isEmpty
                }
            } catch {
                throw TestKitError("\(error); pushline run said: \(server.log)")
            }
            let status = server.stop()  // SIGTERM
            return (listed, status, server.log)
        }
        #expect(listed == "\(first) sandbox 1970-01-01T00:00:01.000Z\n")
        #expect(status == 0, "\(log)")
        #expect(log.contains("token feed started"), "\(log)")
        #expect(try await redis.cli("HGET", "pushline:profile:anna", "locale") == "de\n")
    }

    @Test("pushline run stops at once with exit 1 when its token feed fails on an error that waiting cannot fix")
    func runStopsWhenFeedFails() async throws {
        let stack = try await RunStack()
        defer { stack.harness.stop() }
        let (redis, config) = (stack.redis, stack.config)
        // A string where the registry keeps anna's hash: Redis refuses the write with WRONGTYPE.
        _ = try await redis.cli("SET", "pushline:tokens:{\(app):sandbox}:anna", "not a hash")
        #expect(try await tokens("publish", config, ["--token", first]).status == 0)
        let (status, log) = try await DedicatedThread.run {
            let server = try ServerProcess(RepositoryPaths.builtExecutable("pushline"), ["run", "--config", config])
            // No signal is sent: it must end by itself (killed after 60 s otherwise, which fails below).
            let status = server.waitForExit(graceMilliseconds: 60_000)
            return (status, server.log)
        }
        #expect(status == 1, "\(log)")
        #expect(log.contains("token feed failed"), "\(log)")
        #expect(log.contains("WRONGTYPE"), "\(log)")
    }
}
