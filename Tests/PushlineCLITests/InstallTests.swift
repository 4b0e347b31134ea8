import Foundation
import PushlineTestKit
import Testing

/// `make install` (issue 18 item 8): its script, run on the built executables, into a temporary
/// prefix; then the installed executables, from a directory that is neither the prefix nor the
/// checkout, find their shared files beside themselves. And the production binary links no
/// simulator, local stack or benchmark.
@Suite("make install: an installable product", .serialized, .timeLimit(.minutes(3)))
struct InstallTests {
    private static func temporaryDirectory(_ name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs scripts/install.sh (what `make install` runs after its release build) on the executables
    /// built beside the tests, into a fresh prefix; returns the prefix.
    private static func install() throws -> String {
        let prefix = try temporaryDirectory("prefix")
        let built = URL(fileURLWithPath: try RepositoryPaths.builtExecutable("pushline")).deletingLastPathComponent().path
        let result = try ExternalCommand.run("/bin/bash", [RepositoryPaths.file("scripts/install.sh"), built, prefix])
        #expect(result.status == 0, "\(result.standardError)")
        return prefix
    }

    @Test("the executables and the shared files land under PREFIX; run from elsewhere, they read PREFIX/share/pushline")
    func installedRunsAnywhere() throws {
        let prefix = try Self.install()
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let share = "\(prefix)/share/pushline"
        for file in ["bin/pushline", "bin/pushline-dev", "bin/apns-sim"] {
            #expect(FileManager.default.isExecutableFile(atPath: "\(prefix)/\(file)"), "\(file)")
        }
        for file in ["Config/pushline.yaml", "Config/schemas/intent-v1.schema.json", "Config/schemas/outcome-v1.schema.json",
                     "Config/templates/com.example.pushline.yaml", "Config/locales/com.example.pushline/de.json",
                     "Config/dev/dev-provider-key.p8", "Config/examples/alert/new-message.json", "Pipelines/notifications.yaml",
                     "Pipelines/examples/01-chat-message-en.json"] {
            #expect(FileManager.default.fileExists(atPath: "\(share)/\(file)"), "\(file)")
        }
        let elsewhere = try Self.temporaryDirectory("elsewhere")
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
            try ExternalCommand.run("\(prefix)/bin/\(executable)", arguments, environment: environment, currentDirectory: elsewhere)
        }
        for executable in ["pushline", "pushline-dev", "apns-sim"] {
            let help = try run(executable, ["--help"])
            #expect(help.status == 0, "\(executable) --help: \(help.standardError)")
            #expect(help.standardOutput.contains("Usage: \(executable)"))
        }

        // The installed example configuration: its pipelines, templates and dev key are found relative to it.
        let validated = try run("pushline", ["validate", "config", "\(share)/Config/pushline.yaml"])
        #expect(validated.status == 0, "\(validated.standardOutput) \(validated.standardError)")

        // `render` without --templates reads the installed templates: a template only the installed copy has.
        let templates = "\(share)/Config/templates/com.example.pushline.yaml"
        let probe = try String(contentsOfFile: templates, encoding: .utf8) + "\n  install_probe:\n    alert:\n      body: \"installed {{name}}\"\n"
        try probe.write(toFile: templates, atomically: true, encoding: .utf8)
        let intent = "\(elsewhere)/intent.json"
        try Data(#"{"id":"i-1","app":"com.example.pushline","tokens":["\#(String(repeating: "ab", count: 32))"],"template":"install_probe","args":{"name":"Ada"}}"#.utf8)
            .write(to: URL(fileURLWithPath: intent))
        let rendered = try run("pushline", ["render", intent])
        #expect(rendered.status == 0, "\(rendered.standardOutput) \(rendered.standardError)")
        #expect(rendered.standardOutput.contains("installed Ada"))

        // The demo end to end from the installed files: the example pipelines' intents, templates and strings, the dev key.
        let demo = try run("pushline-dev", ["demo"])
        #expect(demo.status == 0, "\(demo.standardError)")
        let rows = demo.standardOutput.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(rows.contains(["accepted", "-", "200", "7"]), "\(demo.standardOutput)")
        #expect(rows.contains(["suppressed", "FrequencyCapped", "-", "1"]), "\(demo.standardOutput)")
        #expect(rows.contains(["deferred", "QuietHours", "-", "1"]), "\(demo.standardOutput)")
    }

    @Test("the production pushline links no simulator, local stack or benchmark; pushline-dev does")
    func productionLinksNoDevelopmentCode() throws {
        let nm = try ExternalCommand.locate("nm", package: "binutils")
        func modules(of executable: String) throws -> [String: Int] {
            let result = try ExternalCommand.run(nm, [try RepositoryPaths.builtExecutable(executable)])
            #expect(result.status == 0, "nm \(executable): \(result.standardError)")
            // Swift symbols name their module with its length in front: `10LocalStack`, `13APNsSimulator`.
            var counts: [String: Int] = [:]
            for module in ["LocalStack", "APNsSimulator", "KafkaBenchmark"] {
                counts[module] = result.standardOutput.split(separator: "\n").count { $0.contains("\(module.count)\(module)") }
            }
            return counts
        }
        let production = try modules(of: "pushline")
        let development = try modules(of: "pushline-dev")
        #expect(production == ["LocalStack": 0, "APNsSimulator": 0, "KafkaBenchmark": 0], "\(production)")
        #expect(development.values.allSatisfy { $0 > 0 }, "\(development)")
    }
}
