import Redis

/// Everything a worker needs, typed: `Config/pushline.yaml` (Kafka, Redis, APNs, telemetry,
/// dedupe defaults, shutdown, the token feed) and the pipelines of `Pipelines/*.yaml`, with `PUSHLINE_…`
/// environment variables applied over the files. Defaults live in the property declarations of
/// each `…Configuration`; ``load(file:pipelinesDirectory:environment:)`` validates everything
/// once. The format is documented in `docs/configuration.md`.
public struct PushlineConfiguration: Sendable {
    public var kafka = KafkaConfiguration()
    /// The Redis client's own configuration type, its password never printed.
    public var redis = RedisConfiguration.local
    public var apns = APNsConfiguration()
    public var telemetry = TelemetryConfiguration()
    /// The defaults of every pipeline's `dedupe`.
    public var dedupe = DedupeConfiguration()
    public var shutdown = ShutdownConfiguration()
    /// The token feed.
    public var tokens = TokensConfiguration()
    /// The key-encryption key of the encryption key registry.
    public var encryption = EncryptionConfiguration()
    /// The folder the pipelines were read from.
    public var pipelinesDirectory = "Pipelines"
    /// In the order of their file names.
    public var pipelines: [PipelineConfiguration] = []

    public init() {}

    /// Reads and validates the worker settings in `file` and the pipelines in
    /// `pipelinesDirectory` (else the file's `pipelines` setting, else `Pipelines`), with the
    /// `PUSHLINE_…` variables of `environment` applied over them.
    ///
    /// - Throws: ``InvalidConfiguration`` with every problem found, each naming its file, line and key.
    public static func load(file: String, pipelinesDirectory: String? = nil,
                            environment: [String: String]) throws(InvalidConfiguration) -> PushlineConfiguration {
        let diagnostics = ConfigurationDiagnostics(environment: environment)
        let configuration = ConfigurationLoader(diagnostics: diagnostics).load(file: file, pipelinesDirectory: pipelinesDirectory)
        diagnostics.reportUnknownVariables()
        guard diagnostics.errors.isEmpty, let configuration else { throw InvalidConfiguration(errors: diagnostics.errorsInFileOrder) }
        return configuration
    }
}
