import APNsCore
import Enrichment
import Testing

/// A server-mode template whose title and body come from the catalog.
private let serverTemplates = """
    default_locale: en
    templates:
      greeting:
        localization: server
        alert:
          title: { key: greeting.title }
          body: { key: greeting.body, args: ["{{name}}"] }
      files:
        alert:
          body: { key: files.count, args: ["{{count}}"] }
      items:
        alert:
          body: { key: items.count, args: ["{{count}}", "{{name}}"] }
    """

private let fallbackLocales = [
    "en.json": #"{"greeting.title": "Hello", "greeting.body": "Hi %@"}"#,
    "zh.json": #"{"greeting.title": "你好 zh", "greeting.body": "%@ zh"}"#,
    "zh-Hant.json": #"{"greeting.title": "你好 zh-Hant", "greeting.body": "%@ zh-Hant"}"#,
]

@Suite("Localization")
struct LocalizationTests {
    private func greeting(_ extra: String = "", devices: [RecipientDevice]? = nil) throws -> [Delivery] {
        let fixture = try CatalogFixture(templates: serverTemplates, locales: fallbackLocales)
        return try fixture.deliveries(#""template":"greeting","args":{"name":"Anna"}\#(extra)"#, devices: devices)
    }

    private func body(_ delivery: Delivery) throws -> String? {
        guard case .object(let payload) = try JSONParser.parse(delivery.payload) else { return nil }
        return payload.at("aps.alert.body")?.stringValue
    }

    @Test("an exact locale match is no fallback")
    func exactMatch() throws {
        let delivery = try #require(try greeting(#","locale":"zh-Hant""#).first)
        #expect(try body(delivery) == "Anna zh-Hant")
        #expect(delivery.locale?.resolved == "zh-hant")
        #expect(delivery.locale?.isFallback == false)
    }

    @Test("zh-Hant-TW falls back to zh-Hant, and says so")
    func regionFallsBackToScript() throws {
        let delivery = try #require(try greeting(#","locale":"zh-Hant-TW""#).first)
        #expect(try body(delivery) == "Anna zh-Hant")
        #expect(delivery.locale?.isFallback == true)
        #expect(delivery.locale?.description == "zh-Hant-TW (intent) → zh-hant")
    }

    @Test("zh-Hans-CN falls back to zh")
    func scriptFallsBackToLanguage() throws {
        let delivery = try #require(try greeting(#","locale":"zh-Hans-CN""#).first)
        #expect(try body(delivery) == "Anna zh")
        #expect(delivery.locale?.resolved == "zh")
    }

    @Test("a language the catalog lacks falls back to the app's default")
    func languageFallsBackToDefault() throws {
        let delivery = try #require(try greeting(#","locale":"fr-FR""#).first)
        #expect(try body(delivery) == "Hi Anna")
        #expect(delivery.locale?.resolved == "en")
        #expect(delivery.locale?.isFallback == true)
    }

    @Test("without an intent locale the user's profile decides; each profile gets its own text")
    func profileLocale() throws {
        let token = try DeviceToken(CatalogFixture.token)
        let deliveries = try greeting(devices: [
            RecipientDevice(token: token, environment: .production, profileLocale: "zh"),
            RecipientDevice(token: token, environment: .sandbox, profileLocale: nil),
        ])
        #expect(try body(deliveries[0]) == "Anna zh")
        #expect(deliveries[0].locale?.source == .profile)
        #expect(try body(deliveries[1]) == "Hi Anna")
        #expect(deliveries[1].locale?.source == .appDefault)
        #expect(deliveries[1].environment == .sandbox)
    }

    @Test("the intent's locale wins over the profile's")
    func intentBeatsProfile() throws {
        let token = try DeviceToken(CatalogFixture.token)
        let delivery = try #require(try greeting(#","locale":"zh""#,
                                                 devices: [RecipientDevice(token: token, environment: .production, profileLocale: "en")]).first)
        #expect(try body(delivery) == "Anna zh")
        #expect(delivery.locale?.source == .intent)
    }

    @Test("a key missing in the resolved locale comes from the default locale")
    func keyFallsBackToDefault() throws {
        let fixture = try CatalogFixture(templates: serverTemplates, locales: [
            "en.json": #"{"greeting.title": "Hello", "greeting.body": "Hi %@"}"#,
            "de.json": #"{"greeting.title": "Hallo"}"#,
        ])
        let payload = try fixture.payload(#""template":"greeting","locale":"de","args":{"name":"Anna"}"#)
        #expect(payload.at("aps.alert.title") == "Hallo")
        #expect(payload.at("aps.alert.body") == "Hi Anna")
    }

    @Test("plural variations from a String Catalog and from plain JSON", arguments: [
        ("ru", 1, "1 файл"), ("ru", 3, "3 файла"), ("ru", 5, "5 файлов"), ("ru", 21, "21 файл"),
        ("en", 1, "1 file"), ("en", 2, "2 files"), ("ja", 1, "1 ファイル"),
        ("ar", 0, "لا ملفات"), ("ar", 2, "ملفان"), ("ar", 4, "4 ملفات"), ("ar", 11, "11 ملفًا"), ("ar", 100, "100 ملف"),
    ] as [(String, Int, String)])
    func plurals(locale: String, count: Int, expected: String) throws {
        let fixture = try CatalogFixture(templates: serverTemplates, locales: [
            "Localizable.xcstrings": """
                {"sourceLanguage":"en","version":"1.0","strings":{"files.count":{"localizations":{
                  "en":{"variations":{"plural":{"one":{"stringUnit":{"state":"translated","value":"%lld file"}},
                                                "other":{"stringUnit":{"state":"translated","value":"%lld files"}}}}},
                  "ru":{"variations":{"plural":{"one":{"stringUnit":{"state":"translated","value":"%lld файл"}},
                                                "few":{"stringUnit":{"state":"translated","value":"%lld файла"}},
                                                "many":{"stringUnit":{"state":"translated","value":"%lld файлов"}},
                                                "other":{"stringUnit":{"state":"translated","value":"%lld файла"}}}}}
                }}}}
                """,
            "ja.json": #"{"files.count": {"other": "%lld ファイル"}}"#,
            "ar.json": #"{"files.count": {"zero": "لا ملفات", "one": "ملف واحد", "two": "ملفان", "few": "%lld ملفات", "many": "%lld ملفًا", "other": "%lld ملف"}}"#,
        ])
        let payload = try fixture.payload(#""template":"files","locale":"\#(locale)","args":{"count":\#(count)}"#)
        #expect(payload.at("aps.alert.body")?.stringValue == expected)
    }

    @Test("String Catalog substitutions pick their own plural variant", arguments: [
        (1, "Anna added 1 item"), (4, "Anna added 4 items"),
    ])
    func substitutions(count: Int, expected: String) throws {
        let fixture = try CatalogFixture(templates: serverTemplates, locales: [
            "Localizable.xcstrings": """
                {"sourceLanguage":"en","strings":{"items.count":{"localizations":{"en":{
                  "stringUnit":{"state":"translated","value":"%2$@ added %#@items@"},
                  "substitutions":{"items":{"argNum":1,"formatSpecifier":"lld","variations":{"plural":{
                    "one":{"stringUnit":{"state":"translated","value":"%arg item"}},
                    "other":{"stringUnit":{"state":"translated","value":"%arg items"}}}}}}}}}}}
                """,
        ])
        let payload = try fixture.payload(#""template":"items","args":{"count":\#(count),"name":"Anna"}"#)
        #expect(payload.at("aps.alert.body")?.stringValue == expected)
    }

    @Test("a plural count that is not a number is BadFormatArgument")
    func pluralCountNotANumber() throws {
        let fixture = try CatalogFixture(templates: serverTemplates, locales: [
            "en.json": #"{"files.count": {"one": "%lld file", "other": "%lld files"}}"#,
        ])
        #expect { try fixture.payload(#""template":"files","args":{"count":"many"}"#) } throws: {
            ($0 as? EnrichmentError)?.code == .badFormatArgument
        }
    }

    @Test("a key in no locale is MissingLocalization in server mode")
    func serverMissingKey() throws {
        let fixture = try CatalogFixture(templates: serverTemplates, locales: ["en.json": #"{"greeting.title": "Hello"}"#])
        #expect { try fixture.payload(#""template":"greeting","args":{"name":"A"}"#) } throws: {
            ($0 as? EnrichmentError)?.code == .missingLocalization && "\($0)".contains("greeting.body")
        }
    }
}

@Suite("Client localization")
struct ClientLocalizationTests {
    private let templates = """
        templates:
          message:
            localization: client
            alert:
              title: { key: msg.title, args: ["{{sender}}"] }
              subtitle: { key: msg.subtitle }
              body: { key: msg.body, args: ["{{sender}}", "{{count}}"] }
        """

    @Test("keys and arguments go to the device as loc-key and loc-args")
    func locKeys() throws {
        let fixture = try CatalogFixture(templates: templates, locales: [
            "en.json": #"{"msg.title": "From %@", "msg.subtitle": "Chat", "msg.body": "%@ sent %d photos"}"#,
        ])
        let payload = try fixture.payload(#""template":"message","locale":"ja","args":{"sender":"Anna","count":3}"#)
        #expect(payload.at("aps.alert") == .object([
            "title-loc-key": "msg.title", "title-loc-args": ["Anna"],
            "subtitle-loc-key": "msg.subtitle",
            "loc-key": "msg.body", "loc-args": ["Anna", "3"],
        ]))
        #expect(try fixture.deliveries(#""template":"message","args":{"sender":"A","count":1}"#)[0].locale == nil)
    }

    @Test("a key missing from the catalog is refused, so no user sees a raw key")
    func missingKey() throws {
        let fixture = try CatalogFixture(templates: templates, locales: [
            "en.json": #"{"msg.title": "From %@", "msg.subtitle": "Chat"}"#,
        ])
        #expect { try fixture.payload(#""template":"message","args":{"sender":"Anna","count":3}"#) } throws: { error in
            guard let error = error as? EnrichmentError else { return false }
            return error.code == .missingLocalization && error.detail.contains("msg.body")
        }
    }
}
