import Enrichment
import Foundation
import PushlineTestKit
import Synchronization
import Testing

private let version1 = "templates:\n  hello:\n    alert:\n      body: \"v1 {{name}}\"\n"
private let version2 = "templates:\n  hello:\n    alert:\n      body: \"v2 {{name}}\"\n"

@Suite("Catalog reload", .serialized)
struct CatalogReloadTests {
    private let fixture: CatalogFixture
    private let templateFile: URL

    init() throws {
        fixture = try CatalogFixture(templates: version1)
        templateFile = URL(fileURLWithPath: "\(fixture.templatesDirectory)/\(CatalogFixture.app).yaml")
    }

    private func makeStore() throws -> CatalogStore {
        try CatalogStore(templatesDirectory: fixture.templatesDirectory, localesDirectory: fixture.localesDirectory)
    }

    /// An intent for the fixture's `hello` template.
    private static func intent() throws -> Intent {
        try IntentDecoder.decode(Array(#"{"id":"i","app":"\#(CatalogFixture.app)","tokens":["00"],"template":"hello","args":{"name":"A"}}"#.utf8))
    }

    private func body(_ store: CatalogStore) throws -> String? {
        let payload = try store.enricher.deliveries(for: Self.intent())[0].payload
        return String(decoding: payload, as: UTF8.self).contains("v2") ? "v2" : "v1"
    }

    @Test("a reload swaps the catalog; a snapshot taken before keeps the old one")
    func swap() throws {
        let store = try makeStore()
        let before = store.enricher
        try Data(version2.utf8).write(to: templateFile)
        try store.reload()
        #expect(try body(store) == "v2")
        #expect(String(decoding: try before.deliveries(for: Self.intent())[0].payload, as: UTF8.self).contains("v1 A"))
    }

    @Test("a broken file is rejected and the previous catalog stays in use")
    func brokenReloadKeepsOld() throws {
        let store = try makeStore()
        try Data("templates: [".utf8).write(to: templateFile)
        #expect(throws: CatalogLoadError.self) { try store.reload() }
        #expect(try body(store) == "v1")
    }

    @Test("writing a template file reloads it")
    func fileChange() async throws {
        let store = try makeStore()
        let log = ReloadLog()
        let reloader = try CatalogReloader(store: store, onReload: log.record)
        defer { reloader.cancel() }
        // One event (a rename into the directory): the first reload reads the new file.
        try replaceInOneRename(templateFile, with: version2)
        try await log.waitForFirst()
        #expect(!log.results.isEmpty && log.results.allSatisfy { $0.succeeded && $0.trigger == .fileChange })
        #expect(try body(store) == "v2")
    }

    @Test("an atomic write (a temporary file in the directory, then a rename: several events) ends with the new file loaded, every reload succeeding")
    func atomicWrite() async throws {
        let store = try makeStore()
        let log = ReloadLog()
        let reloader = try CatalogReloader(store: store, onReload: log.record)
        defer { reloader.cancel() }
        try Data(version2.utf8).write(to: templateFile, options: .atomic)
        // A reload started by the first event may still read the old file; one of the later
        // events' reloads reads the new one.
        try Deadline.wait(.seconds(10), every: .milliseconds(20), for: "the new template to be loaded") { try body(store) == "v2" }
        try await log.waitForFirst()
        #expect(!log.results.isEmpty && log.results.allSatisfy { $0.succeeded && $0.trigger == .fileChange }, "\(log.results)")
    }

    @Test("a reload asked for (SIGHUP in pushline run) reads the files even when no change was seen")
    func requested() async throws {
        let store = try makeStore()
        // Change the file before anyone watches it: only the request can make the store see it.
        try Data(version2.utf8).write(to: templateFile)
        let log = ReloadLog()
        let reloader = try CatalogReloader(store: store, onReload: log.record)
        defer { reloader.cancel() }
        reloader.reload()
        try await log.waitForFirst()
        // Quiet for five settle delays: a reload must not start another (it changes no file).
        try await Task.sleep(for: .seconds(1))
        #expect(log.results.count == 1 && log.results.allSatisfy { $0.succeeded && $0.trigger == .signal }, "\(log.results)")
        #expect(try body(store) == "v2")
    }
}

/// What a reloader reported: for each attempt, whether it succeeded and what started it.
private final class ReloadLog: Sendable {
    private let recorded = Mutex<[(succeeded: Bool, trigger: CatalogReloader.Trigger)]>([])

    var results: [(succeeded: Bool, trigger: CatalogReloader.Trigger)] { recorded.withLock { $0 } }

    @Sendable func record(_ attempt: CatalogReloader.Attempt) {
        recorded.withLock { $0.append(((try? attempt.result.get()) != nil, attempt.trigger)) }
    }

    /// Waits up to five seconds for the first report.
    func waitForFirst() async throws {
        for _ in 0..<100 where results.isEmpty {
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
