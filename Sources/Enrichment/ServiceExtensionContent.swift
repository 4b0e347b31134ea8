import APNsCore
import TLS

/// Applies a template's ``ServiceExtensionTemplate`` to one intent's payload, before it is
/// shortened and validated: the attachment URL checked and added, the sender of a communication
/// notification added, `mutable-content` set, and the fields to seal taken out (the body replaced
/// by the placeholder) with a stand-in of the sealed box's exact length in their place — on the
/// payload tree (the general path), or as values for the template's ``PayloadSkeleton``.
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
        let values = try hostValues(serviceExtension)
        guard let plaintext = Self.restructure(&payload, serviceExtension, values) else { return nil }
        payload.custom.members.append(.init(ServiceExtensionTemplate.PayloadKey.sealedBox, .string(Self.standIn(plaintextCount: plaintext.count))))
        return plaintext
    }

    /// What one intent puts into a template's ``PayloadSkeleton`` for the extension — the checked
    /// attachment URL, the sender, the placeholder body, the stand-in's length — and the plaintext
    /// to seal (nil when the template does not encrypt): the same as ``apply(_:to:)`` without a
    /// payload tree. `alert` and `customValues` are the intent's draft's.
    func skeletonValues(_ serviceExtension: ServiceExtensionTemplate, alert: AlertContent?,
                        customValues: [JSONValue]) throws(EnrichmentError) -> (values: PayloadSkeleton.ExtensionValues, plaintext: [UInt8]?) {
        // A sealed sender goes only into the plaintext (the skeleton has no hole for it): its texts
        // are written there straight, without a `JSONObject` made and walked per delivery.
        var sealedSender: Sender?
        if serviceExtension.encryption?.sealsCommunication == true, let communication = serviceExtension.communication {
            sealedSender = try sender(communication)
        }
        let host = try hostValues(serviceExtension, includingSender: sealedSender == nil)
        var values = PayloadSkeleton.ExtensionValues(attachmentURL: host.attachmentURL, sender: host.sender, placeholder: host.placeholder?.body)
        guard let encryption = serviceExtension.encryption else { return (values, nil) }
        let plaintext = Self.plaintext(encryption, alert: alert, sender: sealedSender) { key in
            if let index = template.custom.firstIndex(where: { $0.name == key }) { return customValues[index] }
            return key == ServiceExtensionTemplate.PayloadKey.attachmentURL ? host.attachmentURL : nil
        }
        values.sealedBoxCount = Self.standInCount(plaintextCount: plaintext.count)
        return (values, plaintext)
    }

    /// What the extension's keys hold for this intent, before they go into a payload.
    struct HostValues {
        var attachmentURL: JSONValue?
        var sender: JSONValue?
        /// The body that replaces a sealed one.
        var placeholder: AlertContent?
    }

    /// - Parameter includingSender: whether to render the sender as a JSON value (not when the
    ///   caller writes a sealed one into the plaintext itself).
    private func hostValues(_ serviceExtension: ServiceExtensionTemplate, includingSender: Bool = true) throws(EnrichmentError) -> HostValues {
        var values = HostValues()
        if let attachment = serviceExtension.attachment { values.attachmentURL = .string(try attachmentURL(attachment)) }
        if includingSender, let communication = serviceExtension.communication { values.sender = .object(try sender(communication).object) }
        if let encryption = serviceExtension.encryption, encryption.sealsBody {
            if let literal = encryption.literalPlaceholder {
                values.placeholder = AlertContent(body: literal)
            } else {
                values.placeholder = try AlertTexts(template: template, app: app, args: args, locale: locale)
                    .content(Template.AlertTemplate(body: encryption.placeholder))
            }
        }
        return values
    }

    /// `payload` changed for the extension: `mutable-content`, the attachment URL and the sender
    /// added, the sealed fields taken out (a sealed body replaced by the placeholder), the reserved
    /// keys dropped; returns the plaintext to seal, nil when the template does not encrypt. The
    /// general path calls it with the intent's values, ``PayloadSkeleton`` with markers.
    static func restructure(_ payload: inout APNsPayload, _ serviceExtension: ServiceExtensionTemplate,
                            _ values: HostValues) -> [UInt8]? {
        payload.mutableContent = true
        if let url = values.attachmentURL {
            payload.custom.members.append(.init(ServiceExtensionTemplate.PayloadKey.attachmentURL, url))
        }
        if let sender = values.sender {
            payload.custom.members.append(.init(ServiceExtensionTemplate.PayloadKey.communication, sender))
        }
        guard let encryption = serviceExtension.encryption else { return nil }
        var content: AlertContent?
        if case .content(let alert) = payload.alert { content = alert }
        let custom = payload.custom
        let sealed = plaintext(encryption, alert: content) { key in custom.members.first { $0.key == key }?.value }
        for field in encryption.fields {
            switch field {
            case "title":
                content?.title = nil
            case "subtitle":
                content?.subtitle = nil
            case "body":
                var replaced = content ?? AlertContent()
                (replaced.body, replaced.locKey, replaced.locArgs) = (values.placeholder?.body, values.placeholder?.locKey, values.placeholder?.locArgs)
                content = replaced
            default:
                if let index = payload.custom.members.firstIndex(where: { $0.key == field }) { payload.custom.members.remove(at: index) }
            }
        }
        payload.alert = content.map(Alert.content)
        // Reserved: sealing writes them (an intent's custom keys of these names would be repeated keys).
        let reserved = [ServiceExtensionTemplate.PayloadKey.sealedBox, ServiceExtensionTemplate.PayloadKey.keyID,
                        ServiceExtensionTemplate.PayloadKey.keyVersion]
        payload.custom.members.removeAll { reserved.contains($0.key) }
        return sealed
    }

    /// The plaintext to seal: a JSON object of the fields `encryption` seals, in its order, alert
    /// fields from `alert`, the rest from `custom` (the payload's first custom key of the name),
    /// else `communication` from `sender`; absent ones are left out. Written straight into bytes:
    /// every sealed delivery has one.
    private static func plaintext(_ encryption: ServiceExtensionTemplate.Encryption, alert: AlertContent?, sender: Sender? = nil,
                                  custom: (String) -> JSONValue?) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        bytes.append(UInt8(ascii: "{"))
        for (field, key) in zip(encryption.fields, encryption.memberKeys) {
            switch field {
            case "title", "subtitle", "body":
                let text = field == "title" ? alert?.title : field == "subtitle" ? alert?.subtitle : alert?.body
                guard let text else { continue }
                appendKey(key, to: &bytes)
                JSONWriter.appendString(text, to: &bytes)
            default:
                if let value = custom(field) {
                    appendKey(key, to: &bytes)
                    JSONWriter.appendValue(value, to: &bytes)
                } else if field == ServiceExtensionTemplate.PayloadKey.communication, let sender {
                    appendKey(key, to: &bytes)
                    sender.append(to: &bytes)
                }
            }
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// A member key (``memberKey(_:)``) after the object's `{` or its last member.
    fileprivate static func appendKey(_ key: [UInt8], to bytes: inout [UInt8]) {
        if bytes.last != UInt8(ascii: "{") { bytes.append(UInt8(ascii: ",")) }
        bytes += key
    }

    /// `"<name>":` as JSON, made once per template or sender key: escaping the same few names for
    /// every sealed delivery showed in profiles.
    static func memberKey(_ name: String) -> [UInt8] {
        var key: [UInt8] = []
        JSONWriter.appendString(name, to: &key)
        key.append(UInt8(ascii: ":"))
        return key
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
        guard case .string(var url) = value else {
            throw EnrichmentError(.badAttachmentURL, "template \(template.name): the attachment argument \(attachment.argument) is a \(value.typeName), not a URL")
        }
        // One pass over the string's own bytes (made contiguous at most once): every URL of every
        // delivery of the template comes here, and `String.UTF8View`'s iterators cost more than the check.
        try url.withUTF8 { bytes in Result { () throws(EnrichmentError) in try Self.checkAttachmentURL(bytes, attachment) } }.get()
        return url
    }

    /// The checks of ``attachmentURL(_:)`` on the URL's UTF-8 bytes.
    private static func checkAttachmentURL(_ bytes: UnsafeBufferPointer<UInt8>,
                                           _ attachment: ServiceExtensionTemplate.Attachment) throws(EnrichmentError) {
        guard bytes.count <= attachment.maximumLength else {
            throw EnrichmentError(.badAttachmentURL, "the attachment URL has \(bytes.count) bytes; the limit is \(attachment.maximumLength)")
        }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw EnrichmentError(.badAttachmentURL, "the attachment URL has spaces, control or non-ASCII characters (percent-encode them)")
        }
        guard bytes.count > httpsScheme.count, zip(bytes, httpsScheme).allSatisfy({ $0 | 0x20 == $1 }) else {
            throw EnrichmentError(.badAttachmentURL, "the attachment URL is not https: \(String(decoding: bytes.prefix(16), as: UTF8.self))…")
        }
        let authority = bytes[httpsScheme.count...].prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
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
    }

    /// The scheme an attachment URL must have, in lower case (compared ignoring case).
    private static let httpsScheme = Array("https://".utf8)

    /// The sender of a communication notification, its texts rendered for one intent.
    private func sender(_ communication: ServiceExtensionTemplate.Communication) throws(EnrichmentError) -> Sender {
        Sender(id: try communication.senderID.render(args), name: try communication.senderName.render(args),
               conversationID: try communication.conversationID?.render(args), imageURL: try communication.senderImageURL?.render(args))
    }

    /// The sender of a communication notification, as the extension reads it:
    /// `{"sender_id", "sender_name", "conversation_id"?, "sender_image_url"?}`, for an `INPerson`
    /// and an `INSendMessageIntent`.
    struct Sender {
        let id: String
        let name: String
        let conversationID: String?
        let imageURL: String?

        /// The members' names, each with its ``ServiceExtensionContent/memberKey(_:)``.
        private static let keys = ["sender_id", "sender_name", "conversation_id", "sender_image_url"]
            .map { (name: $0, json: ServiceExtensionContent.memberKey($0)) }

        /// As a JSON object, for the payload.
        var object: JSONObject {
            var object = JSONObject()
            forEachMember { object.members.append(.init($0.name, .string($1))) }
            return object
        }

        /// ``object``'s bytes as `JSONWriter` writes them, appended to `bytes` without making it.
        func append(to bytes: inout [UInt8]) {
            bytes.append(UInt8(ascii: "{"))
            forEachMember { key, text in
                ServiceExtensionContent.appendKey(key.json, to: &bytes)
                JSONWriter.appendString(text, to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }

        /// The members, in their order; the optional ones only when set.
        private func forEachMember(_ body: ((name: String, json: [UInt8]), String) -> Void) {
            body(Self.keys[0], id)
            body(Self.keys[1], name)
            if let conversationID { body(Self.keys[2], conversationID) }
            if let imageURL { body(Self.keys[3], imageURL) }
        }
    }
}
