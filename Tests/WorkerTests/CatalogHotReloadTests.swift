import APNsCore
import Enrichment
import Foundation
import PushlineTestKit
import Telemetry
import Testing
import Worker

/// Hot reload on a running worker (issue 18 item 6): the templates on disk change under a worker
/// that is delivering, and the next intents use them; a broken file is rejected, and the catalog in
/// force keeps serving. SIGHUP, which reaches the reloader through `pushline run`'s signal watcher,
/// is tested on a `pushline run` process (EndToEndTests, `CatalogReloadSignalTests`).
@Suite("Hot reload of templates on a running worker", .serialized, .timeLimit(.minutes(3)))
struct CatalogHotReloadTests {
    private static func templates(_ body: String) -> String {
        "templates:\n  greeting:\n    alert:\n      body: \"\(body) {{name}}\"\n"
    }

    private static func intent(_ index: Int) throws -> (bytes: [UInt8], token: DeviceToken) {
        let token = try WorkerFixture.token(index)
        let json = #"{"schema_version":1,"id":"reload-\#(index)","app":"\#(LocalPipeline.app)","environment":"sandbox","#
            + #""tokens":["\#(token.hex)"],"template":"greeting","args":{"name":"Ada"}}"#
        return (Array(json.utf8), token)
    }

    @Test("a template changed on disk is used by the next deliveries; a broken one is rejected, logged and counted, and the old catalog keeps working")
    func fileChange() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-reload-\(UUID().uuidString)")
        let templatesDirectory = root.appendingPathComponent("templates").path
        let localesDirectory = root.appendingPathComponent("locales").path
        try FileManager.default.createDirectory(atPath: templatesDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(localesDirectory)/\(LocalPipeline.app)", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let templateFile = URL(fileURLWithPath: "\(templatesDirectory)/\(LocalPipeline.app).yaml")
        try Data(Self.templates("First").utf8).write(to: templateFile)

        let registry = MetricsRegistry()
        let logLines = LogLines()
        let telemetry = WorkerTelemetry(registry: registry, logger: Logger(label: "pushline.worker") {
            JSONLogHandler(label: $0, logLevel: .info, writer: logLines)
        })
        let store = try CatalogStore(templatesDirectory: templatesDirectory, localesDirectory: localesDirectory)
        let pipeline = try await DedicatedThread.run { try LocalPipeline(catalog: store, telemetry: telemetry) }
        let reloader = try CatalogReloading.start(store: store, pipeline: "default", telemetry: telemetry)
        defer { reloader.cancel() }
        @Sendable func reloads(_ result: String) throws -> Int64 {
            try registry.makeCounter(label: "pushline_catalog_reloads_total", dimensions: [("pipeline", "default"), ("result", result)]).value
        }
        func bodies(_ token: DeviceToken) -> [String] {
            pipeline.harness.simulator.inbox(token: token).map { String(decoding: $0.body, as: UTF8.self) }
        }
        func deliver(_ index: Int) async throws -> [String] {
            let (bytes, token) = try Self.intent(index)
            try await DedicatedThread.run {
                try pipeline.publish([bytes])
                _ = try pipeline.outputs(waitingFor: "outcome \(index + 1)") { received in
                    received.count { $0.topic == "pushline.outcomes" } >= index + 1
                }
            }
            return bodies(token)
        }
        func waitFor(_ what: String, _ condition: @escaping @Sendable () throws -> Bool) async throws {
            try await DedicatedThread.run {
                try Deadline.wait(.seconds(20), for: what) {
                    if try condition() { return true }
                    Thread.sleep(forTimeInterval: 0.05)
                    return false
                }
            }
        }
        let loadedAtStart = try registry.makeGauge(label: "pushline_catalog_loaded_timestamp_seconds", dimensions: [("pipeline", "default")]).value
        #expect(loadedAtStart > 1_700_000_000)

        let first = try await deliver(0)
        #expect(first.count == 1 && first[0].contains("First Ada"), "\(first)")

        try Data(Self.templates("Second").utf8).write(to: templateFile, options: .atomic)
        try await waitFor("the changed template applied") { try reloads("applied") >= 1 }
        let second = try await deliver(1)
        #expect(second.count == 1 && second[0].contains("Second Ada"), "\(second)")
        #expect(try reloads("rejected") == 0)
        #expect(logLines.lines("catalog reloaded").allSatisfy { $0["trigger"] as? String == "file_change" && $0["pipeline"] as? String == "default" })

        // A template that fails validation (an unknown key), in a file that parses as YAML.
        try Data("templates:\n  greeting:\n    alert:\n      body: \"Third {{name}}\"\n    colour: red\n".utf8).write(to: templateFile, options: .atomic)
        try await waitFor("the broken template rejected") { try reloads("rejected") >= 1 }
        let third = try await deliver(2)
        #expect(third.count == 1 && third[0].contains("Second Ada"), "\(third)")
        let rejected = logLines.lines("catalog reload rejected")
        let rejectedCount = try reloads("rejected")
        #expect(rejected.count == rejectedCount)
        let line = try #require(rejected.first)
        #expect(line["level"] as? String == "warning")
        #expect(line["file"] as? String == templateFile.path)
        #expect(line["line"] as? String == "5")
        #expect((line["setting"] as? String)?.contains("colour") == true, "\(line)")
        #expect(line["code"] as? String != nil)

        // Broken YAML: rejected too; the catalog in force still serves.
        let rejectedBefore = try reloads("rejected")
        try Data("templates: [\n".utf8).write(to: templateFile, options: .atomic)
        try await waitFor("the broken YAML rejected") { try reloads("rejected") > rejectedBefore }
        let fourth = try await deliver(3)
        #expect(fourth.count == 1 && fourth[0].contains("Second Ada"), "\(fourth)")
        try await DedicatedThread.run { try pipeline.stop() }
    }
}
