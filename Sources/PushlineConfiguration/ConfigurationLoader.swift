import Foundation
import Redis
import YAML

/// Reads the files of one load into a ``PushlineConfiguration``, reporting every problem to the
/// diagnostics and reading on past it.
struct ConfigurationLoader {
    let diagnostics: ConfigurationDiagnostics

    /// Nil when a file cannot be read or parsed at all (which is reported).
    func load(file: String, pipelinesDirectory: String?) -> PushlineConfiguration? {
        guard let root = document(file) else { return nil }
        var top = ConfigurationSection(root: root, file: file, diagnostics: diagnostics)
        var configuration = PushlineConfiguration()
        var section = top.section("kafka")
        configuration.kafka = KafkaConfiguration(reading: &section)
        section = top.section("redis")
        configuration.redis = RedisConfiguration(reading: &section)
        section = top.section("apns")
        configuration.apns = APNsConfiguration(reading: &section)
        section = top.section("telemetry")
        configuration.telemetry = TelemetryConfiguration(reading: &section)
        section = top.section("dedupe")
        configuration.dedupe.read(&section)
        section = top.section("shutdown")
        configuration.shutdown = ShutdownConfiguration(reading: &section)
        section = top.section("tokens")
        configuration.tokens = TokensConfiguration(reading: &section)
        section = top.section("encryption")
        configuration.encryption = EncryptionConfiguration(reading: &section)
        let directory = top.existingDirectory("pipelines")
        top.finish()
        if let pipelinesDirectory {
            configuration.pipelinesDirectory = pipelinesDirectory
        } else if let directory {
            configuration.pipelinesDirectory = directory
        } else if top.isSet("pipelines") {
            return configuration
        }
        configuration.pipelines = pipelines(in: configuration.pipelinesDirectory, worker: configuration)
        return configuration
    }

    /// The pipelines of every `*.yaml` file in `directory`, in file-name order.
    private func pipelines(in directory: String, worker: PushlineConfiguration) -> [PipelineConfiguration] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".yaml") }.sorted()
        } catch {
            diagnostics.report(ConfigurationError(.missingFile, file: directory, line: nil, key: "pipelines", "no such folder"))
            return []
        }
        guard !names.isEmpty else {
            diagnostics.report(ConfigurationError(.missingFile, file: directory, line: nil, key: "pipelines", "holds no pipeline (*.yaml)"))
            return []
        }
        var pipelines: [PipelineConfiguration] = []
        for name in names {
            let file = directory.hasSuffix("/") ? directory + name : "\(directory)/\(name)"
            guard let root = document(file) else { continue }
            var section = ConfigurationSection(root: root, file: file, diagnostics: diagnostics)
            let pipelineName = section.fileOnlyValue("name", .name) ?? String(name.dropLast(".yaml".count))
            section.variablePrefix = "PUSHLINE_PIPELINES_\(ConfigurationSection.variableWord(pipelineName))"
            guard let pipeline = PipelineConfiguration.read(&section, name: pipelineName, worker: worker) else { continue }
            if let other = pipelines.first(where: { $0.name == pipeline.name }) {
                section.report(.duplicate, "name", at: .init(line: section.line, variable: nil),
                               "the pipeline of \(other.file) is also named \"\(pipeline.name)\"")
            }
            pipelines.append(pipeline)
        }
        return pipelines
    }

    /// The YAML tree of `file`; nil when it cannot be read or parsed (which is reported).
    private func document(_ file: String) -> YAMLNode? {
        guard let data = FileManager.default.contents(atPath: file) else {
            let reason = FileManager.default.fileExists(atPath: file) ? "cannot be read" : "no such file"
            diagnostics.report(ConfigurationError(.unreadableFile, file: file, line: nil, key: "(file)", reason))
            return nil
        }
        do {
            return try YAMLReader.read([UInt8](data))
        } catch {
            diagnostics.report(ConfigurationError(.syntax, file: file, line: error.line, key: "(syntax)", error.message))
            return nil
        }
    }
}
