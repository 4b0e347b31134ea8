import APNsCore
@testable import Enrichment
import Foundation
import PushlineTestKit
import Testing

@Suite("Payload skeletons")
struct PayloadSkeletonTests {
    private static let exampleApp = "com.example.pushline"

    private let catalog: EnrichmentCatalog

    init() throws {
        catalog = try EnrichmentCatalog.load(templatesDirectory: RepositoryPaths.file("Config/templates"),
                                             localesDirectory: RepositoryPaths.file("Config/locales"))
    }

    /// The names of `app`'s templates that have a skeleton.
    private static func skeletonNames(_ app: EnrichmentCatalog.App) -> [String] {
        app.templates.filter { $0.value.skeleton != nil }.keys.sorted()
    }

    /// The draft of a template intent and its template's skeleton, looked up as the enricher does.
    private func composerDraft(_ intent: Intent, profileLocale: String? = nil) throws -> (draft: NotificationComposer.Draft, named: NamedTemplate) {
        guard case .template(let name) = intent.content else { throw CatalogFixture.FixtureError.unexpectedShape }
        let named = try catalog.template(name, of: intent.app)
        return (try NotificationComposer().draft(intent, named, profileLocale: profileLocale), named)
    }

    private func intent(_ members: String) throws -> Intent {
        try IntentDecoder.decode(Array(#"{"id":"i-1","app":"\#(Self.exampleApp)","tokens":["0a1b"],\#(members)}"#.utf8))
    }

    /// The payload filled into the template's skeleton from the draft and straight from the
    /// arguments, and the bytes the general path writes for the same draft (tree, writer).
    private func threePaths(_ members: String) throws -> (filled: [UInt8]?, filledDirectly: [UInt8]?, general: [UInt8]) {
        let intent = try intent(members)
        let (draft, named) = try composerDraft(intent)
        let skeleton = try #require(named.skeleton)
        let general = WrittenPayload(NotificationComposer.payload(draft, overrides: intent.overrides, intentCustom: intent.custom).document)
        let filled = skeleton.payload(alert: draft.alert, threadID: draft.threadID, customValues: draft.customValues)
        let texts = AlertTexts(template: named.template, app: named.app, args: intent.args, locale: draft.locale)
        return (filled, try skeleton.payload(filling: texts), general.bytes)
    }

    @Test("every example template but the Live Activity one has a skeleton, those for a service extension too")
    func exampleSkeletons() throws {
        let app = try #require(catalog.app(Self.exampleApp))
        #expect(Self.skeletonNames(app) == ["background_sync", "cart_reminder", "chat_message", "chat_message_sealed",
                                                       "chat_message_sealed_or_placeholder", "chat_message_unsealed", "order_update", "smoke_alarm"])
    }

    @Test("a service extension's payload filled into its skeleton is byte for byte what the general path writes, with the same plaintext and placeholder payload", arguments: [
        #""template":"chat_message_sealed","locale":"en","args":{"sender":"Anna","sender_id":"u-anna","chat":{"id":"4521"},"message_id":"m-1","text":"Rope is in the car","photo":"https://media.example.com/p/1.jpg"}"#,
        #""template":"chat_message_sealed","args":{"sender":"Q \"x\" \\ y","sender_id":7,"chat":{"id":7},"message_id":{"n":[1,2.5,true]},"text":"line\nnext 🎉","photo":"https://MEDIA.example.com:8443/p?q=1#f"}"#,
        #""template":"chat_message_sealed_or_placeholder","args":{"sender":"Bo","text":"t"}"#,
        #""template":"chat_message_unsealed","locale":"en","args":{"sender":"Anna","sender_id":"u-anna","chat":{"id":"4521"},"message_id":"m-1","text":"Rope is in the car","photo":"https://media.example.com/p/1.jpg"}"#,
    ])
    func sameBytesForAServiceExtension(_ members: String) throws {
        let intent = try intent(members)
        let (draft, named) = try composerDraft(intent)
        let skeleton = named.skeleton
        let serviceExtension = try #require(draft.template.serviceExtension)
        let content = ServiceExtensionContent(template: draft.template, app: try #require(catalog.app(Self.exampleApp)), args: intent.args,
                                              locale: draft.locale)
        var payload = NotificationComposer.payload(draft, overrides: intent.overrides, intentCustom: intent.custom)
        let plaintext = try content.apply(serviceExtension, to: &payload)
        let general = WrittenPayload(payload.document).bytes
        let prepared = try content.skeletonValues(serviceExtension, alert: draft.alert, customValues: draft.customValues)
        let filled = try #require(skeleton).payload(alert: draft.alert, threadID: draft.threadID, customValues: draft.customValues,
                                                    extension: prepared.values)
        #expect(filled.map { String(decoding: $0, as: UTF8.self) } == String(decoding: general, as: UTF8.self))
        #expect(prepared.plaintext == plaintext)
        let composed = try NotificationComposer().compose(intent, .template(named), profileLocale: nil)
        #expect(composed.payload == general, "compose writes the same bytes")
        payload.custom.members.removeAll { $0.key == "e2e" }
        let placeholder = serviceExtension.encryption?.withoutKey == .placeholder ? WrittenPayload(payload.document).bytes : nil
        #expect(composed.sealing?.placeholderPayload.map { String(decoding: $0, as: UTF8.self) } == placeholder.map { String(decoding: $0, as: UTF8.self) })
    }

    @Test("a payload filled into its skeleton, from the draft or straight from the arguments, is byte for byte what the general path writes, and what compose gives", arguments: [
        #""template":"chat_message","locale":"en","args":{"sender":"Anna","chat":{"id":"4521","name":"Climbing crew"},"message_id":"m-1","text":"Rope is in the car"}"#,
        #""template":"chat_message","args":{"sender":"Q \"x\" \\ y","chat":{"id":7,"name":"Tab\there 🎉"},"message_id":{"n":[1,2.5,null,true]},"text":"line\nnext","attachment":"a.png"}"#,
        #""template":"order_update","locale":"ja-JP","args":{"order":{"id":"77","items":3},"carrier":"ヤマト運輸"}"#,
        #""template":"order_update","locale":"ar","args":{"order":{"id":"78","items":11},"carrier":"أرامكس"}"#,
        #""template":"order_update","locale":"zz","args":{"order":{"id":"79","items":1},"carrier":"UPS"}"#,
        #""template":"smoke_alarm","locale":"de","args":{"device":"Melder 3","room":"Küche"}"#,
        #""template":"background_sync","args":{"scope":{"inbox":true}}"#,
    ])
    func sameBytes(_ members: String) throws {
        let (filled, filledDirectly, general) = try threePaths(members)
        #expect(filled.map { String(decoding: $0, as: UTF8.self) } == String(decoding: general, as: UTF8.self))
        #expect(filledDirectly.map { String(decoding: $0, as: UTF8.self) } == String(decoding: general, as: UTF8.self))
        try expectComposedDirectly(try intent(members), profileLocale: nil, payload: general)
    }

    /// That the direct fill gives `intent` a notification, and compose the same one: `payload`, and
    /// the headers and locale the draft has. (That compose tries the direct fill first is the code's:
    /// the general path writes the same bytes.)
    private func expectComposedDirectly(_ intent: Intent, profileLocale: String?, payload: [UInt8],
                                        sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (draft, named) = try composerDraft(intent, profileLocale: profileLocale)
        let skeleton = try #require(named.skeleton, sourceLocation: sourceLocation)
        let composer = NotificationComposer()
        let direct = try #require(composer.filledDirectly(skeleton, intent, named, profileLocale: profileLocale),
                                  "the direct fill", sourceLocation: sourceLocation)
        let composed = try composer.compose(intent, .template(named), profileLocale: profileLocale)
        for notification in [direct, composed] {
            #expect(notification.payload == payload, sourceLocation: sourceLocation)
            #expect(notification.topic == NotificationComposer.topic(app: intent.app, pushType: draft.pushType), sourceLocation: sourceLocation)
            #expect(notification.pushType == draft.pushType, sourceLocation: sourceLocation)
            #expect(notification.priority == intent.overrides.priority ?? draft.template.priority ?? draft.pushType.defaultPriority,
                    sourceLocation: sourceLocation)
            #expect(notification.collapseID == draft.collapseID, sourceLocation: sourceLocation)
            #expect(notification.locale == draft.locale, sourceLocation: sourceLocation)
            #expect(!notification.wasShortened, sourceLocation: sourceLocation)
            #expect(notification.sealing == nil, sourceLocation: sourceLocation)
        }
    }

    @Test("the direct fill takes the recipient's profile locale and the intent's priority, collapse id and expiration, as the draft does")
    func filledDirectlyWithProfileLocaleAndOverrides() throws {
        let serverRendered = try intent(#""template":"order_update","args":{"order":{"id":"5","items":2},"carrier":"DHL"}"#)
        for profileLocale in ["ja-JP", "de", nil] {
            let (draft, _) = try composerDraft(serverRendered, profileLocale: profileLocale)
            let general = WrittenPayload(NotificationComposer.payload(draft, overrides: serverRendered.overrides, intentCustom: serverRendered.custom).document)
            try expectComposedDirectly(serverRendered, profileLocale: profileLocale, payload: general.bytes)
        }
        let overridden = try intent(#""template":"chat_message","priority":5,"collapse_id":"c-1","expiration":1700000000,"args":{"sender":"A","chat":{"id":"1","name":"C"},"message_id":"m","text":"t"}"#)
        let (draft, _) = try composerDraft(overridden)
        #expect(draft.collapseID == "c-1")
        let general = WrittenPayload(NotificationComposer.payload(draft, overrides: overridden.overrides, intentCustom: overridden.custom).document)
        try expectComposedDirectly(overridden, profileLocale: nil, payload: general.bytes)
    }

    @Test("a VoIP payload past the standard limit is filled straight within VoIP's, past the room on the stack")
    func filledDirectlyUpToVoIPsLimit() throws {
        let fixture = try CatalogFixture(templates: """
            templates:
              call:
                push_type: voip
                custom:
                  caller: "{{caller}}"
            """)
        let catalog = try fixture.catalog()
        let named = try catalog.template("call", of: CatalogFixture.app)
        let caller = String(repeating: "c", count: 4_500)
        let intent = try IntentDecoder.decode(Array(#"{"id":"i","app":"\#(CatalogFixture.app)","tokens":["0a1b"],"template":"call","args":{"caller":"\#(caller)"}}"#.utf8))
        let skeleton = try #require(named.skeleton)
        let direct = try #require(NotificationComposer().filledDirectly(skeleton, intent, named, profileLocale: nil))
        let draft = try NotificationComposer().draft(intent, named, profileLocale: nil)
        let general = WrittenPayload(NotificationComposer.payload(draft, overrides: intent.overrides, intentCustom: intent.custom).document)
        #expect(direct.payload == general.bytes)
        #expect(direct.payload.count > PushType.standardPayloadLimit && direct.payload.count <= PushType.voip.payloadLimit)
    }

    @Test("an intent whose texts do not render reports the draft's first error, not the first hole's of the skeleton")
    func renderErrorInTheDraftsOrder() throws {
        // chat_message's payload has the body ({{text}}) before the title's loc-args ({{sender}}, …);
        // the draft renders the title first.
        let intent = try intent(#""template":"chat_message","args":{"chat":{"id":"1","name":"C"},"message_id":"m"}"#)
        let named = try catalog.template("chat_message", of: Self.exampleApp)
        let texts = AlertTexts(template: named.template, app: named.app, args: intent.args, locale: nil)
        #expect { try #require(named.skeleton).payload(filling: texts) } throws: { error in
            (error as? EnrichmentError)?.code == .missingArgument && "\(error)".contains("args.text")
        }
        #expect { try NotificationComposer().compose(intent, .template(named), profileLocale: nil) } throws: { error in
            (error as? EnrichmentError)?.code == .missingArgument && "\(error)".contains("args.sender")
        }
    }

    @Test("a payload of exactly the push type's limit is filled straight from the arguments; one byte more is left to the general path, which shortens it")
    func filledDirectlyUpToTheLimit() throws {
        func members(text: String) -> String {
            #""template":"chat_message","args":{"sender":"A","chat":{"id":"1","name":"C"},"message_id":"m","text":"\#(text)"}"#
        }
        let emptyText = try threePaths(members(text: "")).general.count
        let fitting = String(repeating: "a", count: PushType.standardPayloadLimit - emptyText)
        let exactly = try threePaths(members(text: fitting))
        #expect(exactly.filledDirectly?.count == PushType.standardPayloadLimit)
        #expect(exactly.filledDirectly == exactly.general)
        let over = try threePaths(members(text: fitting + "a"))
        #expect(over.filledDirectly == nil)
        let intent = try intent(members(text: fitting + "a"))
        let composed = try NotificationComposer().compose(intent, .template(try catalog.template("chat_message", of: Self.exampleApp)),
                                                          profileLocale: nil)
        #expect(composed.wasShortened)
        #expect(composed.payload.count <= PushType.standardPayloadLimit)
    }

    @Test("a service extension's skeleton is not filled straight from the arguments: its values need the draft")
    func serviceExtensionNeedsTheDraft() throws {
        let app = try #require(catalog.app(Self.exampleApp))
        let sealed = try #require(app.templates["chat_message_sealed"]?.skeleton)
        #expect(!sealed.fillsDirectly)
        #expect(try #require(app.templates["chat_message"]?.skeleton).fillsDirectly)
    }

    @Test("texts of another shape than the template's do not fill its skeleton")
    func otherShape() throws {
        let intent = try intent(#""template":"chat_message","args":{"sender":"A","chat":{"id":"1","name":"C"},"message_id":"m","text":"t"}"#)
        let (draft, named) = try composerDraft(intent)
        let chat = try #require(named.skeleton)
        #expect(chat.payload(alert: nil, threadID: draft.threadID, customValues: draft.customValues) == nil)
        #expect(chat.payload(alert: draft.alert, threadID: nil, customValues: draft.customValues) == nil)
        #expect(chat.payload(alert: draft.alert, threadID: draft.threadID, customValues: []) == nil)
        var moreArguments = try #require(draft.alert)
        moreArguments.titleLocArgs?.append("extra")
        #expect(chat.payload(alert: moreArguments, threadID: draft.threadID, customValues: draft.customValues) == nil)
        var withSubtitle = try #require(draft.alert)
        withSubtitle.subtitle = "sub"
        #expect(chat.payload(alert: withSubtitle, threadID: draft.threadID, customValues: draft.customValues) == nil)
    }

    @Test("a template whose payload breaks an APNs rule has no skeleton, and its intents report the violation")
    func brokenTemplate() throws {
        let fixture = try CatalogFixture(templates: """
            templates:
              silent:
                push_type: background
                mutable_content: true
                custom:
                  scope: "{{scope}}"
            """)
        #expect(Self.skeletonNames(try #require(try fixture.catalog().app(CatalogFixture.app))).isEmpty)
        #expect { try fixture.deliveries(#""template":"silent","args":{"scope":"s"}"#) } throws: { error in
            (error as? EnrichmentError)?.violations.map(\.reason) == [.mutableContentWithoutAlert]
        }
    }

    @Test("a header that breaks a rule with a skeleton's payload is reported as on the general path")
    func headerViolation() throws {
        let fixture = try CatalogFixture(templates: """
            templates:
              sync:
                push_type: background
                collapse_id: "{{id}}"
                custom:
                  scope: "{{scope}}"
            """)
        #expect(Self.skeletonNames(try #require(try fixture.catalog().app(CatalogFixture.app))) == ["sync"])
        #expect { try fixture.deliveries(#""template":"sync","args":{"scope":"s","id":"\#(String(repeating: "c", count: 65))"},"priority":10"#) } throws: { error in
            (error as? EnrichmentError)?.violations.map(\.reason) == [.badCollapseID, .backgroundPriority]
        }
    }

    @Test("an app whose bundle id ends in another push type's suffix has no skeleton, and its intents report the topic")
    func topicViolation() throws {
        let app = "com.example.app.voip"
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-skeleton-\(UUID().uuidString)")
        let templates = root.appendingPathComponent("templates").path
        try FileManager.default.createDirectory(atPath: templates, withIntermediateDirectories: true)
        try Data("templates:\n  note:\n    alert:\n      body: \"{{text}}\"\n".utf8).write(to: URL(fileURLWithPath: "\(templates)/\(app).yaml"))
        let catalog = try EnrichmentCatalog.load(templatesDirectory: templates, localesDirectory: root.appendingPathComponent("locales").path)
        #expect(Self.skeletonNames(try #require(catalog.app(app))).isEmpty)
        let intent = try IntentDecoder.decode(Array(#"{"id":"i","app":"\#(app)","tokens":["0a1b"],"template":"note","args":{"text":"t"}}"#.utf8))
        #expect { try Enricher(catalog: catalog).deliveries(for: intent) } throws: { error in
            (error as? EnrichmentError)?.violations.map(\.reason) == [.topicSuffixMismatch]
        }
    }
}
