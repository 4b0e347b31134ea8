import APNsCore
import TLS

/// Applies a template's ``ServiceExtensionTemplate`` to one intent's payload, before it is
/// shortened and validated: the attachment URL checked and added, the sender of a communication
/// notification added, `mutable-content` set, and the fields to seal taken out (the body replaced
/// by the placeholder) with a stand-in of the sealed box's exact length in their place.
struct ServiceExtensionContent {
    let template: Template
    let app: EnrichmentCatalog.App
    let args: JSONObject
    let locale: LocaleResolution?

    /// What sealing adds besides the box: `,"e2e_kid":"<key id>","e2e_kv":<version>`, with the
    /// longest key id and version the registry accepts.
    static let keyFieldsReserve = 24 + EncryptionKey.maximumIDLength + 10

    /// Changes `payload` and returns the plaintext to seal, if the template encrypts.
    func apply(_ serviceExtension: ServiceExtensionTemplate, to payload: inout APNsPayload) throws(EnrichmentError) -> [UInt8]? {
        payload.mutableContent = true
        if let attachment = serviceExtension.attachment {
            payload.custom.members.append(.init(ServiceExtensionTemplate.PayloadKey.attachmentURL, .string(try attachmentURL(attachment))))
        }
        if let communication = serviceExtension.communication {
            payload.custom.members.append(.init(ServiceExtensionTemplate.PayloadKey.communication, .object(try sender(communication))))
        }
        guard let encryption = serviceExtension.encryption else { return nil }
        var sealed = JSONObject()
        var content: AlertContent?
        if case .content(let alert) = payload.alert { content = alert }
        for field in encryption.fields {
            switch field {
            case "title":
                if let title = content?.title { sealed.members.append(.init(field, .string(title))) }
                content?.title = nil
            case "subtitle":
                if let subtitle = content?.subtitle { sealed.members.append(.init(field, .string(subtitle))) }
                content?.subtitle = nil
            case "body":
                if let body = content?.body { sealed.members.append(.init(field, .string(body))) }
                let placeholder = try AlertTexts(template: template, app: app, args: args, locale: locale)
                    .content(Template.AlertTemplate(body: encryption.placeholder))
                var replaced = content ?? AlertContent()
                (replaced.body, replaced.locKey, replaced.locArgs) = (placeholder.body, placeholder.locKey, placeholder.locArgs)
                content = replaced
            default:
                if let index = payload.custom.members.firstIndex(where: { $0.key == field }) {
                    sealed.members.append(payload.custom.members.remove(at: index))
                }
            }
        }
        payload.alert = content.map(Alert.content)
        var plaintext: [UInt8] = []
        JSONWriter.appendValue(.object(sealed), to: &plaintext)
        // Last, so the written payload ends with it and sealing replaces only the tail.
        // Reserved: sealing writes them (an intent's custom keys of these names would be repeated keys).
        let reserved = [ServiceExtensionTemplate.PayloadKey.sealedBox, ServiceExtensionTemplate.PayloadKey.keyID,
                        ServiceExtensionTemplate.PayloadKey.keyVersion]
        payload.custom.members.removeAll { reserved.contains($0.key) }
        payload.custom.members.append(.init(ServiceExtensionTemplate.PayloadKey.sealedBox, .string(Self.standIn(plaintextCount: plaintext.count))))
        return plaintext
    }

    /// As many `A`s as the base64 of the sealed box of `plaintextCount` bytes has characters
    /// (made from bytes: `String(repeating:count:)` appends one character at a time).
    static func standIn(plaintextCount: Int) -> String {
        String(decoding: [UInt8](repeating: UInt8(ascii: "A"), count: standInCount(plaintextCount: plaintextCount)), as: UTF8.self)
    }

    /// The length of the base64 of the sealed box of `plaintextCount` bytes.
    static func standInCount(plaintextCount: Int) -> Int {
        Base64.encodedCount(plaintextCount + AES256GCM.overhead)
    }

    /// The attachment argument, checked: text, `https`, a host (on the allow-list when there is
    /// one), no spaces or control characters, within the length limit.
    private func attachmentURL(_ attachment: ServiceExtensionTemplate.Attachment) throws(EnrichmentError) -> String {
        guard let value = attachment.argument.value(in: args) else {
            throw EnrichmentError(.badAttachmentURL, "template \(template.name): the attachment argument \(attachment.argument) is missing")
        }
        guard case .string(let url) = value else {
            throw EnrichmentError(.badAttachmentURL, "template \(template.name): the attachment argument \(attachment.argument) is a \(value.typeName), not a URL")
        }
        let bytes = Array(url.utf8)
        guard bytes.count <= attachment.maximumLength else {
            throw EnrichmentError(.badAttachmentURL, "the attachment URL has \(bytes.count) bytes; the limit is \(attachment.maximumLength)")
        }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw EnrichmentError(.badAttachmentURL, "the attachment URL has spaces, control or non-ASCII characters (percent-encode them)")
        }
        // Bytes, not characters: every URL of every delivery of the template comes here.
        let scheme = Array("https://".utf8)
        guard bytes.count > scheme.count, zip(bytes, scheme).allSatisfy({ $0 | 0x20 == $1 }) else {
            throw EnrichmentError(.badAttachmentURL, "the attachment URL is not https: \(url.prefix(16))…")
        }
        let authority = bytes[scheme.count...].prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        guard !authority.contains(UInt8(ascii: "@")) else {
            throw EnrichmentError(.badAttachmentURL, "the attachment URL carries credentials before its host")
        }
        let host = authority.prefix { $0 != UInt8(ascii: ":") }
        guard !host.isEmpty else { throw EnrichmentError(.badAttachmentURL, "the attachment URL has no host") }
        guard attachment.allowedHosts.isEmpty
            || attachment.allowedHosts.contains(where: { $0.utf8.elementsEqual(host.lazy.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }) }) else {
            throw EnrichmentError(.badAttachmentURL,
                                  "the attachment URL's host \(String(decoding: host, as: UTF8.self)) is not among the template's allowed_hosts")
        }
        return url
    }

    /// `{"sender_id", "sender_name", "conversation_id"?, "sender_image_url"?}`: what the extension
    /// needs for an `INPerson` and an `INSendMessageIntent`.
    private func sender(_ communication: ServiceExtensionTemplate.Communication) throws(EnrichmentError) -> JSONObject {
        var sender = JSONObject([.init("sender_id", .string(try communication.senderID.render(args))),
                                 .init("sender_name", .string(try communication.senderName.render(args)))])
        if let conversation = communication.conversationID {
            sender.members.append(.init("conversation_id", .string(try conversation.render(args))))
        }
        if let image = communication.senderImageURL {
            sender.members.append(.init("sender_image_url", .string(try image.render(args))))
        }
        return sender
    }
}
