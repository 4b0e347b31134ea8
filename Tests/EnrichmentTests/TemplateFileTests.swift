import Enrichment
import PushlineTestKit
import Testing

@Suite("Template files")
struct TemplateFileTests {
    private func loadError(_ yaml: String, locales: [String: String] = [:]) throws -> CatalogLoadError? {
        do {
            _ = try CatalogFixture(templates: yaml, locales: locales).catalog()
            return nil
        } catch let error as CatalogLoadError {
            return error
        }
    }

    @Test("errors name the file, the line and the key", arguments: [
        ("templates:\n  a:\n    priority: 7\n", 3, "templates.a.priority"),
        ("templates:\n  a:\n    push_type: email\n", 3, "templates.a.push_type"),
        ("templates:\n  a:\n    pririty: 5\n", 3, "templates.a.pririty"),
        ("templates:\n  a:\n    alert:\n      body: \"{{name\"\n", 4, "templates.a.alert.body"),
        ("templates:\n  a:\n    alert:\n      body: { args: [x] }\n", 4, "templates.a.alert.body.key"),
        ("templates:\n  a:\n    custom:\n      aps: x\n", 4, "templates.a.custom.aps"),
        ("templates:\n  a:\n    mutable_content: maybe\n", 3, "templates.a.mutable_content"),
        ("templates:\n  a:\n    sound: { name: s.caf, volume: 0.5 }\n", 3, "templates.a.sound.volume"),
        ("templates:\n  a: just text\n", 2, "templates.a"),
        ("default_locale: not a tag\n", 1, "default_locale"),
    ] as [(String, Int, String)])
    func invalidTemplate(yaml: String, line: Int, key: String) throws {
        let error = try #require(try loadError(yaml))
        #expect(error.code == .invalidTemplate)
        #expect(error.line == line)
        #expect(error.key == key)
        #expect(error.file.hasSuffix("\(CatalogFixture.app).yaml"))
    }

    @Test("YAML syntax errors, aliases and repeated keys are refused with their line", arguments: [
        ("templates:\n  a: [\n", 3),
        ("base: &b {priority: 5}\ntemplates:\n  a: *b\n", 1),
        ("templates:\n  a:\n    priority: 5\n    priority: 10\n", 4),
    ])
    func syntax(yaml: String, line: Int) throws {
        let error = try #require(try loadError(yaml))
        #expect(error.code == .syntax)
        #expect(error.line == line)
    }

    @Test("bad catalogs name the key", arguments: [
        ("en.json", #"{"k": 5}"#, "k"),
        ("en.json", #"{"k": {"one": "x"}}"#, "k"),
        ("en.json", #"{"k": "50%"}"#, "k"),
        ("Localizable.xcstrings", #"{"strings": {}}"#, "sourceLanguage"),
        ("Localizable.xcstrings", #"{"sourceLanguage":"en","strings":{"k":{"localizations":{"de":{}}}}}"#, "strings.k.localizations.de"),
    ])
    func invalidStrings(file: String, contents: String, key: String) throws {
        let error = try #require(try loadError("templates: {}\n", locales: [file: contents]))
        #expect(error.code == .invalidStrings)
        #expect(error.key == key)
    }

    @Test("a String Catalog key with no source-language entry is its own text, as in Xcode")
    func keyIsSourceText() throws {
        let fixture = try CatalogFixture(templates: """
            templates:
              hello:
                alert:
                  body: { key: "Hello %@", args: ["{{name}}"] }
            """, locales: ["Localizable.xcstrings": #"{"sourceLanguage":"en","strings":{"Hello %@":{}}}"#])
        #expect(try fixture.payload(#""template":"hello","args":{"name":"Anna"}"#).at("aps.alert.body") == "Hello Anna")
    }

    @Test("the example app's templates and strings load")
    func exampleApp() throws {
        let catalog = try EnrichmentCatalog.load(templatesDirectory: RepositoryPaths.file("Config/templates"),
                                                 localesDirectory: RepositoryPaths.file("Config/locales"))
        #expect(catalog.templateNames(of: "com.example.pushline") ==
                    ["background_sync", "cart_reminder", "chat_message", "chat_message_sealed", "chat_message_sealed_or_placeholder",
                     "chat_message_unsealed", "delivery_activity",
                     "order_update", "smoke_alarm"])
    }
}
