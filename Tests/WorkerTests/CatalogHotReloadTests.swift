import APNsCore
import Enrichment
import Foundation
import PushlineTestKit
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

        let store = try CatalogStore(templatesDirectory: templatesDirectory, localesDirectory: localesDirectory)
        let fixture = try await WorkerFixture(catalog: store)
        let reloader = try CatalogReloading.start(store: store, pipeline: "default", telemetry: fixture.telemetry)
        defer { reloader.cancel() }
        @Sendable func reloads(_ result: String) throws -> Int64 {
            try fixture.counter("pushline_catalog_reloads_total", [("result", result)])
        }
        func deliver(_ index: Int) async throws -> [String] {
            let (bytes, token) = try Self.intent(index)
            try await fixture.publish([bytes])
            _ = try await fixture.records(on: "pushline.outcomes", count: index + 1)
            return fixture.harness.simulator.inbox(token: token).map { String(decoding: $0.body, as: UTF8.self) }
        }
        let loadedAtStart = try fixture.gauge("pushline_catalog_loaded_timestamp_seconds")
        #expect(loadedAtStart > 1_700_000_000)

        let first = try await deliver(0)
        #expect(first.count == 1 && first[0].contains("First Ada"), "\(first)")

        try replaceInOneRename(templateFile, with: Self.templates("Second"))
        try await fixture.wait(for: "the changed template applied") { try reloads("applied") >= 1 }
        let second = try await deliver(1)
        #expect(second.count == 1 && second[0].contains("Second Ada"), "\(second)")
        #expect(try reloads("rejected") == 0)
        #expect(fixture.logLines.lines("catalog reloaded").allSatisfy { $0["trigger"] as? String == "file_change" && $0["pipeline"] as? String == "default" })

        // A template that fails validation (an unknown key), in a file that parses as YAML.
        try replaceInOneRename(templateFile, with: "templates:\n  greeting:\n    alert:\n      body: \"Third {{name}}\"\n    colour: red\n")
        try await fixture.wait(for: "the broken template rejected") { try reloads("rejected") >= 1 }
        let third = try await deliver(2)
        #expect(third.count == 1 && third[0].contains("Second Ada"), "\(third)")
        let rejected = fixture.logLines.lines("catalog reload rejected")
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
        try replaceInOneRename(templateFile, with: "templates: [\n")
        try await fixture.wait(for: "the broken YAML rejected") { try reloads("rejected") > rejectedBefore }
        let fourth = try await deliver(3)
        #expect(fourth.count == 1 && fourth[0].contains("Second Ada"), "\(fourth)")
        try await fixture.stop()
    }
}
