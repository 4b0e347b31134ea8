import APNsCore
import YAML

/// What a template does for an app's Notification Service Extension (docs/service-extension.md):
/// fields sealed with the recipient's key (`encrypt`), a media attachment URL (`attachment`), and
/// the sender of a communication notification (`communication`). Each sets `mutable-content`,
/// without which the extension never runs.
///
/// A class, so that reading it from its ``Template`` for every delivery retains one reference: as
/// a struct its fields were copied out and released per delivery (about 0.3 µs per sealed
/// delivery, docs/BENCHMARKS.md's tenth round).
final class ServiceExtensionTemplate: Sendable {
    /// `encrypt: [title, body, <custom key>…]` with its `placeholder` and `without_key` rule.
    struct Encryption: Sendable {
        /// Alert fields (`title`, `subtitle`, `body`) and custom keys, in the order they are sealed.
        let fields: [String]
        /// The body APNs and a device without the extension see.
        let placeholder: Template.AlertText
        let withoutKey: MissingKeyRule
        /// Whether `fields` names the body, which the placeholder replaces.
        let sealsBody: Bool
        /// Whether `fields` names `communication`: the sender goes only into the plaintext.
        let sealsCommunication: Bool
        /// The placeholder when it is a literal text ("New message"): used as it is, without
        /// filling a template's alert for every delivery.
        let literalPlaceholder: String?
        /// Each of `fields` as the plaintext's member key, `"<field>":`, written once.
        let memberKeys: [[UInt8]]

        init(fields: [String], placeholder: Template.AlertText, withoutKey: MissingKeyRule) {
            self.fields = fields
            self.placeholder = placeholder
            self.withoutKey = withoutKey
            sealsBody = fields.contains("body")
            sealsCommunication = fields.contains(PayloadKey.communication)
            if case .text(let text) = placeholder { literalPlaceholder = text.literal } else { literalPlaceholder = nil }
            memberKeys = fields.map(ServiceExtensionContent.memberKey)
        }
    }

    /// `attachment: {argument, allowed_hosts, max_length}`.
    struct Attachment: Sendable {
        let argument: ArgumentPath
        /// Lower case; empty: any host.
        let allowedHosts: [String]
        let maximumLength: Int
    }

    /// `communication: {sender_id, sender_name, conversation_id, sender_image_url}`.
    struct Communication: Sendable {
        let senderID: TemplateText
        let senderName: TemplateText
        let conversationID: TemplateText?
        let senderImageURL: TemplateText?
    }

    /// The payload keys the extension reads.
    enum PayloadKey {
        static let sealedBox = "e2e"
        static let keyID = "e2e_kid"
        static let keyVersion = "e2e_kv"
        static let attachmentURL = "attachment_url"
        static let communication = "communication"
    }

    /// An attachment URL longer than this is refused unless the template sets `max_length`.
    static let defaultMaximumURLLength = 2_048
    static let alertFields = ["title", "subtitle", "body"]

    let encryption: Encryption?
    let attachment: Attachment?
    let communication: Communication?

    private init(encryption: Encryption?, attachment: Attachment?, communication: Communication?) {
        self.encryption = encryption
        self.attachment = attachment
        self.communication = communication
    }

    /// Reads the template's `encrypt`, `placeholder`, `without_key`, `attachment` and
    /// `communication` keys; nil when it has none of them.
    static func read(_ fields: inout YAMLMapping, localization: Template.Localization, customKeys: [String],
                     alertText: (String, inout YAMLMapping) throws(CatalogLoadError) -> Template.AlertText?)
        throws(CatalogLoadError) -> ServiceExtensionTemplate? {
        var attachment: Attachment?
        var communication: Communication?
        var encryption: Encryption?
        if var attachmentFields = try fields.mapping("attachment") {
            attachment = try readAttachment(&attachmentFields)
        }
        if var communicationFields = try fields.mapping("communication") {
            guard let senderID = try communicationFields.text("sender_id"),
                  let senderName = try communicationFields.text("sender_name") else {
                throw communicationFields.error("sender_id", nil, "a communication notification needs sender_id and sender_name")
            }
            communication = Communication(senderID: senderID, senderName: senderName,
                                          conversationID: try communicationFields.text("conversation_id"),
                                          senderImageURL: try communicationFields.text("sender_image_url"))
            try communicationFields.rejectUnknownKeys()
        }
        let placeholder = try alertText("placeholder", &fields)
        let withoutKey = try fields.choice("without_key", known: MissingKeyRule.allCases.map(\.rawValue), MissingKeyRule.init(rawValue:))
        if let node = fields.node("encrypt") {
            var known = alertFields + customKeys
            if attachment != nil { known.append(PayloadKey.attachmentURL) }
            if communication != nil { known.append(PayloadKey.communication) }
            let names = try sealedFields(node, fields: fields, known: known, localization: localization)
            guard let placeholder else {
                throw fields.error("placeholder", nil, "an encrypting template needs the placeholder body APNs sees, such as \"New message\"")
            }
            encryption = Encryption(fields: names, placeholder: placeholder, withoutKey: withoutKey ?? .invalid)
        } else if placeholder != nil || withoutKey != nil {
            throw fields.error(placeholder != nil ? "placeholder" : "without_key", nil, "only a template that has encrypt uses it")
        }
        guard encryption != nil || attachment != nil || communication != nil else { return nil }
        return ServiceExtensionTemplate(encryption: encryption, attachment: attachment, communication: communication)
    }

    private static func readAttachment(_ attachment: inout YAMLMapping) throws(CatalogLoadError) -> Attachment {
        guard let name = try attachment.string("argument") else {
            throw attachment.error("argument", nil, "names the argument that holds the attachment's URL")
        }
        guard let argument = ArgumentPath(name) else {
            throw attachment.error("argument", attachment.node("argument"), "\"\(name)\" is not an argument name")
        }
        var hosts: [String] = []
        if let node = attachment.node("allowed_hosts") {
            guard case .sequence(let elements, _) = node else {
                throw attachment.error("allowed_hosts", node, "must be a sequence of host names, got \(node.kindName)")
            }
            for (index, element) in elements.enumerated() {
                guard case .scalar(let host, _) = element, !host.isEmpty else {
                    throw attachment.error("allowed_hosts[\(index)]", element, "must be a host name")
                }
                hosts.append(host.lowercased())
            }
        }
        var maximumLength = defaultMaximumURLLength
        if let length = try attachment.number("max_length") {
            guard length >= 16, length <= 8_192, length == length.rounded() else {
                throw attachment.error("max_length", attachment.node("max_length"), "must be a whole number from 16 to 8192")
            }
            maximumLength = Int(length)
        }
        try attachment.rejectUnknownKeys()
        return Attachment(argument: argument, allowedHosts: hosts, maximumLength: maximumLength)
    }

    private static func sealedFields(_ node: YAMLNode, fields: YAMLMapping, known: [String],
                                     localization: Template.Localization) throws(CatalogLoadError) -> [String] {
        guard case .sequence(let elements, _) = node, !elements.isEmpty else {
            throw fields.error("encrypt", node, "must be a non-empty sequence of alert fields and custom keys")
        }
        var names: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .scalar(let name, _) = element, known.contains(name) else {
                throw fields.error("encrypt[\(index)]", element, "must be one of \(known.joined(separator: ", "))")
            }
            guard !names.contains(name) else { throw fields.error("encrypt[\(index)]", element, "\"\(name)\" is named twice") }
            if alertFields.contains(name) && localization == .client {
                throw fields.error("encrypt[\(index)]", element, "a client-localized alert has no text to seal; use localization: server")
            }
            names.append(name)
        }
        return names
    }
}

/// What a delivery whose template encrypts gets when its recipient has no key registered.
public enum MissingKeyRule: String, Sendable, CaseIterable {
    /// Sent without the sealed fields: the placeholder body only.
    case placeholder
    /// Not sent: outcome `invalid`/`MissingEncryptionKey`.
    case invalid
}
