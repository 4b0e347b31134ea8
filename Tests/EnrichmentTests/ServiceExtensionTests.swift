import APNsCore
@testable import Enrichment
import Foundation
import PushlineTestKit
import TLS
import Testing

/// Templates for apps with a Notification Service Extension: sealed fields, attachments,
/// communication notifications (docs/service-extension.md).
@Suite("Service extension templates")
struct ServiceExtensionTests {
    private let fixture: CatalogFixture

    init() throws {
        fixture = try CatalogFixture(templates: """
            templates:
              sealed:
                alert:
                  title: "{{sender}}"
                  body: "{{text}}"
                custom:
                  chat_id: "{{chat}}"
                encrypt: [title, body, chat_id, communication]
                placeholder: "New message"
                attachment:
                  argument: photo
                  allowed_hosts: [media.example.com]
                communication:
                  sender_id: "{{sender_id}}"
                  sender_name: "{{sender}}"
                  conversation_id: "{{chat}}"
              sealed_or_placeholder:
                alert:
                  body: "{{text}}"
                encrypt: [body]
                placeholder: "New message"
                without_key: placeholder
            """)
    }

    private func delivery(_ template: String = "sealed", photo: String = "https://media.example.com/p/1.jpg") throws -> Delivery {
        try #require(try fixture.deliveries("""
            "template":"\(template)","args":{"sender":"Anna","sender_id":"u-anna","text":"meet at 6 🙂","chat":"c-9","photo":"\(photo)"}
            """).first)
    }

    private func parsed(_ bytes: [UInt8]) throws -> JSONObject {
        guard case .object(let object) = try JSONParser.parse(bytes) else { throw CatalogFixture.FixtureError.unexpectedShape }
        return object
    }

    @Test("a batch's nonces: each delivery sealed under its own 12 bytes of one draw, which python's AESGCM opens")
    func batchNonces() throws {
        let key = try AES256GCM.randomKey()
        let nonces = try #require(PayloadSealer.randomNonces(3))
        #expect(nonces.count == 36)
        var boxes: [[UInt8]] = []
        for index in 0..<3 {
            let sealed = try PayloadSealer.seal(try delivery(), with: EncryptionKey(id: "k", version: 1, cipher: AES256GCM(key: key)),
                                                nonce: PayloadSealer.nonce(index, of: nonces))
            let box = try #require(try parsed(sealed.payload).at("e2e")?.stringValue)
            #expect(try parsed(try #require(try PythonAESGCM.open(box: box, key: key))).at("body") == "meet at 6 🙂")
            boxes.append(try #require(Base64.decode(box)))
        }
        #expect(boxes.map { Array($0.prefix(12)) } == (0..<3).map { Array(PayloadSealer.nonce($0, of: nonces)) })
        #expect(Set(boxes.map { Array($0.prefix(12)) }).count == 3)
    }

    @Test("sealed fields leave the payload; the placeholder body, mutable-content and the attachment stay visible")
    func sealedPayload() throws {
        let key = try AES256GCM.randomKey()
        let sealed = try PayloadSealer.seal(try delivery(), with: EncryptionKey(id: "chat-key", version: 3, cipher: AES256GCM(key: key)))
        #expect(sealed.sealing == nil)
        let payload = try parsed(sealed.payload)
        #expect(payload.at("aps.alert.body") == "New message")
        #expect(payload.at("aps.alert.title") == nil)
        #expect(payload.at("aps.mutable-content") == .integer(1))
        #expect(payload.at("chat_id") == nil && payload.at("communication") == nil)
        #expect(payload.at("attachment_url") == "https://media.example.com/p/1.jpg")
        #expect(payload.at("e2e_kid") == "chat-key")
        #expect(payload.at("e2e_kv") == .integer(3))
        let box = try #require(payload.at("e2e")?.stringValue)
        let opened = try #require(try PythonAESGCM.open(box: box, key: key))
        let fields = try parsed(opened)
        #expect(fields.at("title") == "Anna")
        #expect(fields.at("body") == "meet at 6 🙂")
        #expect(fields.at("chat_id") == "c-9")
        #expect(fields.at("communication.sender_id") == "u-anna")
        #expect(fields.at("communication.sender_name") == "Anna")
        #expect(fields.at("communication.conversation_id") == "c-9")
    }

    @Test("an intent's custom e2e keys cannot repeat the keys sealing writes")
    func reservedKeys() throws {
        let delivery = try #require(try fixture.deliveries("""
            "template":"sealed","custom":{"e2e":"x","e2e_kid":"forged","e2e_kv":9},\
            "args":{"sender":"Anna","sender_id":"u","text":"t","chat":"c","photo":"https://media.example.com/a.jpg"}
            """).first)
        let sealed = try PayloadSealer.seal(delivery, with: EncryptionKey(id: "k", version: 1, cipher: AES256GCM(key: AES256GCM.randomKey())))
        let text = String(decoding: sealed.payload, as: UTF8.self)
        #expect(text.components(separatedBy: "\"e2e_kid\"").count == 2 && !text.contains("forged"))
        #expect(try parsed(sealed.payload).at("e2e_kv") == .integer(1))
    }

    @Test("without a key: MissingEncryptionKey, or the placeholder payload when the template says so")
    func missingKey() throws {
        #expect(throws: EnrichmentError(.missingEncryptionKey, "the template encrypts and no key is registered for the device or its user")) {
            try PayloadSealer.seal(try delivery(), with: nil)
        }
        let payload = try parsed(try PayloadSealer.seal(try delivery("sealed_or_placeholder"), with: nil).payload)
        #expect(payload.at("aps.alert.body") == "New message")
        #expect(payload.at("e2e") == nil)
        #expect(payload.at("aps.mutable-content") == .integer(1))
    }

    @Test("a placeholder from the catalog is in the intent's language and one with an argument is filled in; a literal one is sent as it is")
    func placeholderTexts() throws {
        let fixture = try CatalogFixture(templates: """
            templates:
              from_catalog:
                alert:
                  body: "{{text}}"
                encrypt: [body]
                placeholder: { key: sealed.placeholder }
              with_argument:
                alert:
                  body: "{{text}}"
                encrypt: [body]
                placeholder: "{{sender}} wrote"
            """, locales: [
                "en.json": #"{"sealed.placeholder": "New message"}"#,
                "de.json": #"{"sealed.placeholder": "Neue Nachricht"}"#,
            ])
        let key = EncryptionKey(id: "k", version: 1, cipher: try AES256GCM(key: AES256GCM.randomKey()))
        func body(_ members: String) throws -> JSONValue? {
            let delivery = try #require(try fixture.deliveries(members).first)
            return try parsed(PayloadSealer.seal(delivery, with: key).payload).at("aps.alert.body")
        }
        #expect(try body(#""template":"from_catalog","locale":"de","args":{"text":"geheim"}"#) == "Neue Nachricht")
        #expect(try body(#""template":"from_catalog","locale":"en","args":{"text":"secret"}"#) == "New message")
        #expect(try body(#""template":"with_argument","args":{"sender":"Anna","text":"secret"}"#) == "Anna wrote")
        #expect(try parsed(PayloadSealer.seal(try delivery(), with: key).payload).at("aps.alert.body") == "New message")
    }

    @Test("attachment URLs that are not https, too long, on another host or with credentials are BadAttachmentURL",
          arguments: ["http://media.example.com/p.jpg", "https://evil.example.net/p.jpg", "https://user@media.example.com/p.jpg",
                      "https://media.example.com/" + String(repeating: "a", count: 2_100), "https://media.example.com/a b.jpg", "ftp://x"])
    func badAttachmentURL(url: String) throws {
        do {
            _ = try delivery(photo: url)
            Issue.record("\(url) was accepted")
        } catch let error as EnrichmentError {
            #expect(error.code == .badAttachmentURL)
        }
    }

    @Test("template errors name the file, line and key")
    func templateErrors() throws {
        let cases = [
            ("encrypt: [title]\n    alert: { title: x }", "placeholder"),
            ("alert: { title: x }\n    encrypt: [nope]\n    placeholder: p", "encrypt[0]"),
            ("placeholder: p", "placeholder"),
            ("attachment: { allowed_hosts: [a] }", "attachment.argument"),
            ("communication: { sender_id: x }", "communication.sender_id"),
        ]
        for (body, key) in cases {
            let fixture = try CatalogFixture(templates: "templates:\n  t:\n    \(body)\n")
            do {
                _ = try fixture.catalog()
                Issue.record("accepted: \(body)")
            } catch {
                #expect("\(error)".contains(key), "\(error)")
            }
        }
    }
}
