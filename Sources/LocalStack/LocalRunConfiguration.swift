import Foundation
import Runtime

/// `pushline.yaml` and one pipeline (`local`) for `pushline run` against local components — a Kafka
/// cluster (the mock one), a redis-server on 127.0.0.1 and a simulator on localhost with its own
/// certificate — signed with the dev key of `Config/dev/` and serving the example app's templates.
/// Settings left `nil` keep the defaults of docs/configuration.md.
public struct LocalRunConfiguration: Sendable {
    public var bootstrapServers: String
    public var redisPort: Int
    public var simulatorPort: UInt16
    /// The simulator's certificate, trusted as the pool's CA.
    public var caFile: String
    /// `kafka.properties`: librdkafka properties, e.g. `session.timeout.ms`.
    public var kafkaProperties: [String: String] = [:]
    /// The pipeline's `name`: the `pipeline` label of its metrics.
    public var pipelineName = "local"
    public var topic = "pushline.intents"
    public var group = "pushline-local"
    /// `kafka.group_instance_id` (static membership).
    public var groupInstanceID: String?
    /// `kafka.assignor`: `range`, `roundrobin` or `cooperative-sticky`.
    public var assignor: String?
    /// `redis.password_file`.
    public var redisPasswordFile: String?
    /// Lines of the `redis` section (indented two spaces) written instead of `host` and `port`:
    /// `mode: cluster` and its `nodes`, the `sentinel` section, TLS keys.
    public var redisSettings: [String]?
    /// `telemetry.metrics_port`.
    public var metricsPort: Int?
    /// `telemetry.log_level`.
    public var logLevel: String?
    /// `shutdown.deadline`, e.g. `10s`.
    public var shutdownDeadline: String?
    /// The pipeline's `dedupe.pending_ttl`, e.g. `2s`.
    public var pendingTTL: String?
    /// The pipeline's `dedupe.on_uncertain`: `resend` or `skip`.
    public var onUncertain: String?
    /// The pipeline's `batch.size`.
    public var batchSize: Int?
    /// The pipeline's `policies:` section, its lines as they go under the key (indented by the caller):
    /// docs/policies.md.
    public var policies: [String] = []
    /// `encryption.kek_file`: the key-encryption key of the encryption key registry.
    public var keyEncryptionKeyFile: String?
    /// The pipeline's `concurrency`, when set.
    public var concurrency: Int?
    /// `apns.bulk.streams`, when set: bulk's bound while the lanes above send.
    public var bulkStreams: Int?

    public init(bootstrapServers: String, redisPort: Int, simulatorPort: UInt16, caFile: String) {
        self.bootstrapServers = bootstrapServers
        self.redisPort = redisPort
        self.simulatorPort = simulatorPort
        self.caFile = caFile
    }

    /// Writes both files to a fresh temporary folder and returns the path of `pushline.yaml`.
    public func write() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-run-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/pipelines", withIntermediateDirectories: true)
        try settings.write(toFile: directory + "/pushline.yaml", atomically: true, encoding: .utf8)
        try pipeline.write(toFile: directory + "/pipelines/\(pipelineName).yaml", atomically: true, encoding: .utf8)
        return directory + "/pushline.yaml"
    }

    private var settings: String {
        var lines = [
            "kafka:", "  bootstrap_servers: [\(bootstrapServers)]",
        ]
        if let groupInstanceID { lines.append("  group_instance_id: \(groupInstanceID)") }
        if let assignor { lines.append("  assignor: \(assignor)") }
        if !kafkaProperties.isEmpty {
            lines.append("  properties:")
            lines += kafkaProperties.sorted { $0.key < $1.key }.map { "    \($0.key): \"\($0.value)\"" }
        }
        lines += ["redis:"] + (redisSettings ?? ["  host: 127.0.0.1", "  port: \(redisPort)"])
        if let redisPasswordFile { lines.append("  password_file: \(redisPasswordFile)") }
        lines += [
            "apns:", "  credentials:", "    dev:", "      key_file: \(DevCredentials.privateKeyFile)",
            "      key_id: \(DevCredentials.keyID)", "      team_id: \(DevCredentials.teamID)",
            "  pools:", "    - name: simulator", "      credentials: dev", "      environment: localhost:\(simulatorPort)",
            "      ca_file: \(caFile)",
        ]
        if let bulkStreams { lines += ["  bulk:", "    streams: \(bulkStreams)"] }
        if metricsPort != nil || logLevel != nil { lines.append("telemetry:") }
        if let metricsPort { lines.append("  metrics_port: \(metricsPort)") }
        if let logLevel { lines.append("  log_level: \(logLevel)") }
        if let shutdownDeadline { lines += ["shutdown:", "  deadline: \(shutdownDeadline)"] }
        if let keyEncryptionKeyFile { lines += ["encryption:", "  kek_file: \(keyEncryptionKeyFile)"] }
        lines.append("pipelines: pipelines")
        return lines.joined(separator: "\n") + "\n"
    }

    private var pipeline: String {
        var lines = [
            "name: \(pipelineName)", "source:", "  topic: \(topic)", "  group: \(group)",
            "templates: \(SharedFiles.path("Config/templates"))", "locales: \(SharedFiles.path("Config/locales"))",
            "apns_pool: simulator",
        ]
        if pendingTTL != nil || onUncertain != nil { lines.append("dedupe:") }
        if let pendingTTL { lines.append("  pending_ttl: \(pendingTTL)") }
        if let onUncertain { lines.append("  on_uncertain: \(onUncertain)") }
        if let batchSize { lines += ["batch:", "  size: \(batchSize)"] }
        if let concurrency { lines.append("concurrency: \(concurrency)") }
        if !policies.isEmpty { lines += ["policies:"] + policies }
        return lines.joined(separator: "\n") + "\n"
    }
}
