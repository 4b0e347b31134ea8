import Foundation
import PushlineConfiguration
import PushlineTestKit
import Testing

/// A worker settings file and a pipelines folder in a fresh temporary folder, loaded with a given
/// environment. The defaults are a small valid setup on the dev key and the example templates.
struct ConfigurationFixture {
    static let validWorker = """
        apns:
          credentials:
            dev:
              key_file: \(DevCredentials.privateKeyFile)
              key_id: \(DevCredentials.keyID)
              team_id: \(DevCredentials.teamID)
          pools:
            - name: default
              credentials: dev
              environment: sandbox
        """
    static let validPipeline = """
        templates: \(RepositoryPaths.file("Config/templates"))
        locales: \(RepositoryPaths.file("Config/locales"))
        apns_pool: default
        """

    let directory: String
    var file: String { "\(directory)/pushline.yaml" }
    var pipelines: String { "\(directory)/pipelines" }

    /// Writes `worker` as `pushline.yaml` and each pipeline as `pipelines/<name>`.
    init(worker: String = validWorker, pipelines: [String: String] = ["main.yaml": validPipeline]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-configuration-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: "\(directory)/pipelines", withIntermediateDirectories: true)
        try write(worker, to: "pushline.yaml")
        for (name, text) in pipelines { try write(text, to: "pipelines/\(name)") }
    }

    /// Writes `text` to `name` inside the fixture's folder and returns the path.
    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        let path = "\(directory)/\(name)"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func load(environment: [String: String] = [:]) throws(InvalidConfiguration) -> PushlineConfiguration {
        try PushlineConfiguration.load(file: file, pipelinesDirectory: pipelines, environment: environment)
    }

    /// The errors of a load that is expected to fail; empty when it succeeds.
    func errors(environment: [String: String] = [:]) -> [ConfigurationError] {
        do {
            _ = try load(environment: environment)
            return []
        } catch {
            return error.errors
        }
    }

    /// Expects that loading the pipeline `main.yaml` with `policies` after the valid pipeline fails
    /// with an error of `code` at `line` naming `key` in that file.
    static func expectPipelineError(_ policies: String, line: Int, key: String, code: ConfigurationError.Code,
                                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        let errors = try ConfigurationFixture(pipelines: ["main.yaml": validPipeline + "\n" + policies]).errors()
        let error = try #require(errors.first { $0.key == key }, "\(errors)", sourceLocation: sourceLocation)
        #expect(error.code == code, sourceLocation: sourceLocation)
        #expect(error.line == line, sourceLocation: sourceLocation)
        #expect(error.file.hasSuffix("main.yaml"), sourceLocation: sourceLocation)
    }
}
