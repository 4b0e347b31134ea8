import APNsCore
import Foundation
import PushlineTestKit
import Testing

/// Runs `pushline render` against the repository's example templates and strings.
private func render(_ intentFile: String, _ extra: String...) throws -> CommandResult {
    try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline"), [
        "render", intentFile, "--templates", RepositoryPaths.file("Config/templates"),
        "--locales", RepositoryPaths.file("Config/locales"),
    ] + extra)
}

private func example(_ name: String) -> String {
    RepositoryPaths.file("docs/examples/intents/\(name).json")
}

private func objects(_ output: String) throws -> [JSONObject] {
    try output.split(separator: "\n").map { line in
        guard case .object(let object) = try JSONParser.parse(Array(line.utf8)) else { throw TestKitError("not an object: \(line)") }
        return object
    }
}

@Suite("pushline render")
struct RenderCommandTests {
    @Test("every example intent renders to valid deliveries", arguments: [
        "chat-message", "order-update-ja", "order-update-ar", "background-sync", "delivery-activity-start",
        "delivery-activity-end", "smoke-alarm",
    ])
    func examples(name: String) throws {
        let result = try render(example(name))
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        for delivery in try objects(result.standardOutput) {
            #expect(delivery.members.map(\.key) == ["token", "environment", "headers", "payload"])
            let headers = try #require(delivery["headers"]?.objectValue)
            #expect(headers.members.allSatisfy { $0.value.stringValue != nil })
            #expect(NotificationID(try #require(headers["apns-id"]?.stringValue)) != nil)
        }
    }

    @Test("one line per token, with the derived apns-id; absent optional headers are left out")
    func headers() throws {
        let result = try render(example("smoke-alarm"))
        let deliveries = try objects(result.standardOutput)
        #expect(deliveries.count == 2)
        let first = try #require(deliveries.first)
        let token = try DeviceToken(try #require(first["token"]?.stringValue))
        #expect(first["headers"] == .object([
            "apns-topic": "com.example.pushline", "apns-push-type": "alert", "apns-priority": "10",
            "apns-collapse-id": "smoke-kitchen",
            "apns-id": .string(NotificationID.derived(intentID: "smoke-kitchen-1", deviceToken: token).description),
        ]))
        let background = try #require(try objects(try render(example("background-sync")).standardOutput).first)
        #expect(background["headers"]?.objectValue?.members.map(\.key) == ["apns-topic", "apns-push-type", "apns-priority", "apns-id"])
        let ordered = try #require(try objects(try render(example("order-update-ja")).standardOutput).first)
        #expect(ordered["headers"]?.objectValue?["apns-expiration"] == "1764576000")
    }

    @Test("server-rendered text is in the intent's language; the fallback is noted on standard error")
    func serverLocalized() throws {
        let result = try render(example("order-update-ja"))
        let payload = try #require(try objects(result.standardOutput).first?["payload"]?.objectValue)
        #expect(payload["aps"]?.objectValue?["alert"] == .object(["title": "ご注文 1042", "body": "3点の商品がヤマト運輸で発送されました"]))
        #expect(result.standardError.contains("locale ja-JP (intent) → ja"))
    }

    @Test("--locale renders another language")
    func localeOption() throws {
        let result = try render(example("order-update-ja"), "--locale", "de")
        let payload = try #require(try objects(result.standardOutput).first?["payload"]?.objectValue)
        #expect(payload["aps"]?.objectValue?["alert"]?.objectValue?["body"] == "3 Artikel wurden mit ヤマト運輸 versandt")
        #expect(result.standardError.isEmpty)
    }

    @Test("an invalid intent prints invalid: <Reason>: <detail> and exits 1")
    func invalidIntent() throws {
        let file = try temporaryFile(#"{"app":"com.example.pushline","tokens":["00"],"template":"chat_message"}"#, name: "intent.json")
        let result = try render(file)
        #expect(result.status == 1)
        #expect(result.standardOutput == "invalid: MissingField: $.id: required\n")
    }

    @Test("a template that cannot be filled prints its reason")
    func missingArgument() throws {
        let file = try temporaryFile(#"{"id":"i","app":"com.example.pushline","tokens":["00"],"template":"background_sync"}"#, name: "intent.json")
        let result = try render(file)
        #expect(result.status == 1)
        #expect(result.standardOutput.hasPrefix("invalid: MissingArgument: args.scope is missing"))
    }

    @Test("APNs rule violations print one line each")
    func violations() throws {
        let file = try temporaryFile(#"{"id":"i","app":"com.example.pushline","tokens":["00"],"template":"background_sync","args":{"scope":"s"},"priority":10,"badge":2}"#,
                                     name: "intent.json")
        let result = try render(file)
        #expect(result.status == 1)
        #expect(result.standardOutput.split(separator: "\n").sorted() == [
            "invalid: BackgroundPriority: background pushes must use priority 5, got 10",
            "invalid: BackgroundWithAlertSoundOrBadge: background pushes carry no alert, sound or badge; found aps.badge",
        ])
    }

    @Test("user recipients are reported as needing the token registry")
    func userRecipients() throws {
        let file = try temporaryFile(#"{"id":"i","app":"com.example.pushline","user":"u-1","template":"background_sync","args":{"scope":"s"}}"#,
                                     name: "intent.json")
        let result = try render(file)
        #expect(result.status == 1)
        #expect(result.standardOutput.hasPrefix("invalid: RecipientsNeedRegistry: "))
    }

    @Test("--simulator-dir writes one .apns file per delivery with Simulator Target Bundle")
    func simulatorFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-sim-\(UUID().uuidString)").path
        let result = try render(example("smoke-alarm"), "--simulator-dir", directory)
        #expect(result.status == 0)
        let deliveries = try objects(result.standardOutput)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        let ids = try deliveries.map { try #require($0["headers"]?.objectValue?["apns-id"]?.stringValue) + ".apns" }.sorted()
        #expect(files == ids)
        let contents = try #require(FileManager.default.contents(atPath: "\(directory)/\(files[0])"))
        guard case .object(let file) = try JSONParser.parse(Array(contents)) else { Issue.record("not an object"); return }
        #expect(file["Simulator Target Bundle"] == "com.example.pushline")
        #expect(file["aps"]?.objectValue?["interruption-level"] == "critical")
    }

    @Test("a broken template file is reported with its file and line, exit 1")
    func brokenTemplates() throws {
        let templates = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-tpl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        try Data("templates:\n  a:\n    priority: 7\n".utf8).write(to: templates.appendingPathComponent("com.example.pushline.yaml"))
        let result = try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline"), [
            "render", example("background-sync"), "--templates", templates.path, "--locales", RepositoryPaths.file("Config/locales"),
        ])
        #expect(result.status == 1)
        #expect(result.standardError.contains("com.example.pushline.yaml:3: templates.a.priority: \"7\" is not one of 10, 5, 1"))
    }
}

@Suite("pushline-dev bench enrichment")
struct BenchEnrichmentCommandTests {
    @Test("both paths agree on every payload, and both rates and the ratio are printed")
    func printsRatesAndRatio() throws {
        let result = try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline-dev"), [
            "bench", "enrichment", "--seconds", "1", "--templates", RepositoryPaths.file("Config/templates"),
            "--locales", RepositoryPaths.file("Config/locales"),
        ])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains("pushline   (IntentDecoder + Enricher + APNsCore writer): "))
        #expect(result.standardOutput.contains("foundation (JSONDecoder + JSONEncoder): "))
        #expect(result.standardOutput.contains("ratio: "))
    }
}
