import APNsCore

/// A template's payload written once, when the catalog loads, with a marker in place of every
/// text an intent fills in (alert texts and localization arguments, `thread-id`, custom values),
/// then cut at the markers: literal bytes and holes, in the order the payload writer put them.
///
/// An intent that changes nothing but those texts (no override of an `aps` key, no custom keys,
/// no Live Activity) gets its payload by filling the holes: no JSON tree, no second writing pass,
/// and no body validation, which the skeleton passed once for every such payload — the texts only
/// fill string values, and no APNs rule looks inside those. The topic, fixed by the app and the
/// template's push type, is checked with the body; the size and the other headers (collapse id,
/// priority) are still checked per intent. Anything else takes the composer's general path.
///
/// A template for a Notification Service Extension has one too, written through the same
/// ``ServiceExtensionContent/restructure(_:_:_:)`` as the general path with markers for the
/// attachment URL, the sender, the placeholder body and the sealed box's stand-in: its sealed
/// fields leave no hole, and the stand-in comes last, where ``PayloadSealer`` puts the box.
///
/// A class: it is found with its template for every intent, and a copy of its fields retained each.
final class PayloadSkeleton: Sendable {
    /// What one intent puts into a service-extension template's holes
    /// (``ServiceExtensionContent/skeletonValues(_:alert:customValues:)``).
    struct ExtensionValues {
        var attachmentURL: JSONValue?
        var sender: JSONValue?
        var placeholder: String?
        /// The length of the sealed box's base64: the stand-in is as many `A`s.
        var sealedBoxCount = 0
    }

    /// What fills one hole.
    private enum Hole: Sendable, Equatable {
        case title, subtitle, body, titleLocKey, subtitleLocKey, locKey
        case titleLocArg(Int), subtitleLocArg(Int), locArg(Int)
        case threadID
        /// The template's custom key at this index: any JSON value.
        case custom(Int)
        /// A service extension's: the attachment URL and the sender (any JSON value), the
        /// placeholder body, the sealed box's stand-in.
        case attachmentURL, sender, placeholder, sealedBox
    }

    /// How a hole is filled straight from an intent's arguments (``payload(filling:)``).
    private enum DirectFill: Sendable {
        /// A text rendered from the arguments.
        case text(TemplateText)
        /// A server-rendered alert text: the catalog's string in the intent's locale, its
        /// arguments rendered.
        case localized(key: String, args: [TemplateText])
        /// A client-localized alert's key: the same for every intent, and in the app's catalog.
        case constant(String)
        /// A custom key's value: a single placeholder keeps its argument's JSON type.
        case value(TemplateText)
    }

    /// The literal bytes between the holes, one after the other: before each hole, then after the last.
    private let literals: [UInt8]
    /// Where each hole goes in `literals`: the end of the literal before it.
    private let holeOffsets: [Int]
    private let holes: [Hole]
    /// Per hole, how it is filled straight from the arguments; nil for a service extension's
    /// template, whose values come from ``ServiceExtensionContent`` (``payload(alert:threadID:customValues:extension:)``),
    /// and for a template with a client-localized key its app's catalog lacks (the general path
    /// refuses its intents).
    private let directFills: [DirectFill]?
    /// `apns-topic`: the app's bundle id and the template's push type suffix.
    let topic: String
    /// Which alert fields the template's payloads carry.
    private let alertShape: AlertShape
    private let hasThreadID: Bool
    private let customCount: Int

    /// The skeleton of `template`'s payloads for `app` (its bundle id, its catalog `strings`), or
    /// nil when the template cannot have one: its payload or topic breaks an APNs rule (the general
    /// path reports it), or a marker could not be told apart from the template's own text.
    init?(template: Template, app: String, strings: StringCatalog) {
        var holes: [Hole] = []
        func marker(_ hole: Hole) -> String {
            holes.append(hole)
            return Self.marker(holes.count - 1)
        }
        let alert = template.alert.map { Self.markedAlert($0, localization: template.localization, marker: marker) }
        let threadID = template.threadID.map { _ in marker(.threadID) }
        let custom = template.custom.indices.map { JSONValue.string(marker(.custom($0))) }
        let draft = NotificationComposer.Draft(template: template, pushType: template.pushType, alert: alert, threadID: threadID,
                                               customValues: custom, collapseID: nil, locale: nil, liveActivity: nil)
        var payload = NotificationComposer.payload(draft, overrides: Intent.Overrides(), intentCustom: JSONObject())
        if let serviceExtension = template.serviceExtension {
            var values = ServiceExtensionContent.HostValues()
            values.attachmentURL = serviceExtension.attachment.map { _ in .string(marker(.attachmentURL)) }
            values.sender = serviceExtension.communication.map { _ in .string(marker(.sender)) }
            if serviceExtension.encryption?.fields.contains("body") == true { values.placeholder = AlertContent(body: marker(.placeholder)) }
            if ServiceExtensionContent.restructure(&payload, serviceExtension, values) != nil {
                payload.custom.members.append(.init(ServiceExtensionTemplate.PayloadKey.sealedBox, .string(marker(.sealedBox))))
            }
        }
        let written = WrittenPayload(payload.document)
        let topic = NotificationComposer.topic(app: app, pushType: template.pushType)
        let request = NotificationRequest(pushType: template.pushType, topic: topic, payload: written.bytes)
        guard NotificationValidator.violations(in: request, payload: written).isEmpty else { return nil }

        // Cut the bytes at each marker, as written; every marker must appear exactly once, but
        // for the texts of fields a service extension's template seals (they leave the payload).
        var cuts: [(range: Range<Int>, hole: Hole)] = []
        for (index, hole) in holes.enumerated() {
            var markerBytes: [UInt8] = []
            JSONWriter.appendString(Self.marker(index), to: &markerBytes)
            let found = Self.ranges(of: markerBytes, in: written.bytes)
            if found.isEmpty, template.serviceExtension?.encryption != nil { continue }
            guard found.count == 1 else { return nil }
            cuts.append((found[0], hole))
        }
        cuts.sort { $0.range.lowerBound < $1.range.lowerBound }
        var literals: [UInt8] = []
        var holeOffsets: [Int] = []
        var position = 0
        for cut in cuts {
            guard cut.range.lowerBound >= position else { return nil }
            literals.append(contentsOf: written.bytes[position..<cut.range.lowerBound])
            holeOffsets.append(literals.count)
            position = cut.range.upperBound
        }
        literals.append(contentsOf: written.bytes[position...])
        self.literals = literals
        self.holeOffsets = holeOffsets
        self.holes = cuts.map(\.hole)
        directFills = template.serviceExtension == nil ? Self.directFills(holes: self.holes, template: template, strings: strings) : nil
        self.topic = topic
        alertShape = AlertShape(alert)
        hasThreadID = threadID != nil
        customCount = custom.count
    }

    /// The payload with these texts (and a service extension's values), exactly the bytes the
    /// general path writes for them; nil when they do not have the template's shape. For a service
    /// extension's template: the others are filled straight from the arguments (``payload(filling:)``).
    func payload(alert: AlertContent?, threadID: String?, customValues: [JSONValue],
                 extension values: ExtensionValues = ExtensionValues()) -> [UInt8]? {
        guard AlertShape(alert) == alertShape, (threadID != nil) == hasThreadID, customValues.count == customCount else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(literals.count + 48 * holes.count)
        return literals.withUnsafeBufferPointer { literals -> [UInt8]? in
            var start = 0
            for (hole, offset) in zip(holes, holeOffsets) {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: literals[start..<offset]))
                start = offset
                switch hole {
                case .custom(let custom):
                    JSONWriter.appendValue(customValues[custom], to: &bytes)
                case .attachmentURL, .sender:
                    guard let value = hole == .sender ? values.sender : values.attachmentURL else { return nil }
                    JSONWriter.appendValue(value, to: &bytes)
                case .sealedBox:
                    bytes.append(UInt8(ascii: "\""))
                    bytes.append(contentsOf: repeatElement(UInt8(ascii: "A"), count: values.sealedBoxCount))
                    bytes.append(UInt8(ascii: "\""))
                default:
                    guard let text = Self.text(hole, alert: alert, threadID: threadID, placeholder: values.placeholder) else { return nil }
                    JSONWriter.appendString(text, to: &bytes)
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: literals[start...]))
            return bytes
        }
    }

    /// Whether ``payload(filling:)`` fills this skeleton (see ``directFills``).
    var fillsDirectly: Bool { directFills != nil }

    /// The payload of an intent that changes nothing but the texts (as ``payload(alert:threadID:customValues:extension:)``
    /// asks), its holes filled straight from the arguments of `texts`: the bytes the general path
    /// writes, with no draft, alert or list of values made first. Nil when the skeleton is not
    /// filled so (``fillsDirectly``) and for a payload over the push type's limit; throws what
    /// rendering a text throws (the general path reports the first in its own order).
    func payload(filling texts: AlertTexts) throws(EnrichmentError) -> [UInt8]? {
        guard let directFills else { return nil }
        // Most payloads fit in room on the stack (on Linux the standard library allocates up to
        // 1 KiB there, more on the heap); a larger one is written again in room of the push type's
        // limit.
        let limit = texts.template.pushType.payloadLimit
        if let bytes = try payload(directFills, texts, room: min(limit, Self.stackRoom)) { return bytes }
        guard limit > Self.stackRoom else { return nil }
        return try payload(directFills, texts, room: limit)
    }

    /// The most room ``payload(filling:)`` takes on the stack.
    private static var stackRoom: Int { 1024 }

    /// The payload filled from `fills` in room of `capacity` bytes, copied out into an array of its
    /// size; nil when it does not fit.
    private func payload(_ fills: [DirectFill], _ texts: AlertTexts, room capacity: Int) throws(EnrichmentError) -> [UInt8]? {
        let args = texts.args
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { (room) throws(EnrichmentError) -> [UInt8]? in
            var payload = BoundedPayloadWriter(room: room)
            try literals.withUnsafeBufferPointer { (literals) throws(EnrichmentError) in
                var start = 0
                for index in fills.indices where !payload.isFull {
                    let offset = holeOffsets[index]
                    payload.write(UnsafeBufferPointer(rebasing: literals[start..<offset]))
                    start = offset
                    switch fills[index] {
                    case .text(let text):
                        try payload.quoted { (payload) throws(EnrichmentError) in try text.render(args, into: &payload) }
                    case .localized(let key, let argTemplates):
                        // A `.localized` fill is made for server localization only, which always
                        // has a locale; without one, the general path.
                        guard let locale = texts.locale else { return payload.giveUp() }
                        let text = try texts.localizedText(key, argTemplates, locale: locale)
                        payload.quoted { $0.append(text) }
                    case .constant(let key):
                        payload.quoted { $0.append(key) }
                    case .value(let text):
                        if let argument = text.singleArgument(in: args) {
                            JSONWriter.write(argument, to: &payload)
                        } else {
                            try payload.quoted { (payload) throws(EnrichmentError) in try text.render(args, into: &payload) }
                        }
                    }
                }
                payload.write(UnsafeBufferPointer(rebasing: literals[start...]))
            }
            return payload.written.map(Array.init)
        }
    }

    /// How each of `holes` is filled straight from the arguments, or nil when one cannot be (a
    /// client-localized key the app's catalog lacks: the general path reports it).
    private static func directFills(holes: [Hole], template: Template, strings: StringCatalog) -> [DirectFill]? {
        func field(_ hole: Hole) -> Template.AlertText? {
            switch hole {
            case .title, .titleLocKey, .titleLocArg: template.alert?.title
            case .subtitle, .subtitleLocKey, .subtitleLocArg: template.alert?.subtitle
            case .body, .locKey, .locArg: template.alert?.body
            default: nil
            }
        }
        var fills: [DirectFill] = []
        for hole in holes {
            let fill: DirectFill? = switch (hole, field(hole)) {
            case (.title, .text(let text)?), (.subtitle, .text(let text)?), (.body, .text(let text)?): .text(text)
            // A text hole for a localized field: the template is rendered on the server.
            case (.title, .localized(let key, let args)?), (.subtitle, .localized(let key, let args)?),
                 (.body, .localized(let key, let args)?):
                .localized(key: key, args: args)
            case (.titleLocKey, .localized(let key, _)?), (.subtitleLocKey, .localized(let key, _)?), (.locKey, .localized(let key, _)?):
                strings.contains(key) ? .constant(key) : nil
            case (.titleLocArg(let index), .localized(_, let args)?), (.subtitleLocArg(let index), .localized(_, let args)?),
                 (.locArg(let index), .localized(_, let args)?):
                .text(args[index])
            case (.threadID, _): template.threadID.map(DirectFill.text)
            case (.custom(let index), _): .value(template.custom[index].value)
            default: nil
            }
            guard let fill else { return nil }
            fills.append(fill)
        }
        return fills
    }

    /// The text that stands for hole `index` while the skeleton is written: control characters,
    /// which the writer escapes, around a name no template text is likely to hold.
    private static func marker(_ index: Int) -> String {
        "\u{1}pushline-hole-\(index)\u{1}"
    }

    private static func text(_ hole: Hole, alert: AlertContent?, threadID: String?, placeholder: String?) -> String? {
        switch hole {
        case .title: alert?.title
        case .subtitle: alert?.subtitle
        case .body: alert?.body
        case .titleLocKey: alert?.titleLocKey
        case .subtitleLocKey: alert?.subtitleLocKey
        case .locKey: alert?.locKey
        case .titleLocArg(let index): alert?.titleLocArgs?[index]
        case .subtitleLocArg(let index): alert?.subtitleLocArgs?[index]
        case .locArg(let index): alert?.locArgs?[index]
        case .threadID: threadID
        case .placeholder: placeholder
        case .custom, .attachmentURL, .sender, .sealedBox: nil
        }
    }

    /// The alert ``AlertTexts`` fills for this template, with a marker for every text: literal and
    /// server-rendered fields carry text; client-localized ones a key and, if any, arguments.
    private static func markedAlert(_ alert: Template.AlertTemplate, localization: Template.Localization,
                                    marker: (Hole) -> String) -> AlertContent {
        var content = AlertContent()
        func mark(_ field: Template.AlertText?, text: Hole, key: Hole, argument: (Int) -> Hole) -> (String?, String?, [String]?) {
            switch field {
            case nil: return (nil, nil, nil)
            case .text?: return (marker(text), nil, nil)
            case .localized(_, let args)?:
                if localization == .server { return (marker(text), nil, nil) }
                let key = marker(key)
                return (nil, key, args.isEmpty ? nil : args.indices.map { marker(argument($0)) })
            }
        }
        (content.title, content.titleLocKey, content.titleLocArgs) = mark(alert.title, text: .title, key: .titleLocKey,
                                                                            argument: Hole.titleLocArg)
        (content.subtitle, content.subtitleLocKey, content.subtitleLocArgs) = mark(alert.subtitle, text: .subtitle,
                                                                                   key: .subtitleLocKey, argument: Hole.subtitleLocArg)
        (content.body, content.locKey, content.locArgs) = mark(alert.body, text: .body, key: .locKey, argument: Hole.locArg)
        return content
    }

    /// Where `needle` occurs in `haystack`, without overlaps.
    private static func ranges(of needle: [UInt8], in haystack: [UInt8]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var start = 0
        while start + needle.count <= haystack.count {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) {
                found.append(start..<(start + needle.count))
                start += needle.count
            } else {
                start += 1
            }
        }
        return found
    }
}

/// Which fields of an `aps.alert` dictionary are set, and how many arguments each `*-loc-args` has
/// (-1 when it is not set): compared for every intent, so it allocates nothing.
private struct AlertShape: Equatable {
    private var fields: UInt8 = 0
    private var titleArgumentCount = -1
    private var subtitleArgumentCount = -1
    private var argumentCount = -1

    init(_ alert: AlertContent?) {
        guard let alert else { return }
        func bit(_ field: String?, _ position: UInt8) -> UInt8 { field == nil ? 0 : 1 << position }
        fields = 0x80 | bit(alert.title, 0) | bit(alert.subtitle, 1) | bit(alert.body, 2) | bit(alert.launchImage, 3)
            | bit(alert.titleLocKey, 4) | bit(alert.subtitleLocKey, 5) | bit(alert.locKey, 6)
        titleArgumentCount = alert.titleLocArgs?.count ?? -1
        subtitleArgumentCount = alert.subtitleLocArgs?.count ?? -1
        argumentCount = alert.locArgs?.count ?? -1
    }
}

/// A payload written from its skeleton into room of a fixed size: literal bytes and JSON values
/// (``JSONSink``) as they are, rendered texts (``RenderedTextSink``) escaped for JSON strings.
/// Once something does not fit, nothing more is written and the payload is none (``written``).
private struct BoundedPayloadWriter: JSONSink, RenderedTextSink {
    private let room: UnsafeMutableBufferPointer<UInt8>
    private var count = 0
    /// Something did not fit, or the payload was given up (``giveUp()``).
    private(set) var isFull = false

    init(room: UnsafeMutableBufferPointer<UInt8>) {
        self.room = room
    }

    /// The bytes written, or nil when they did not fit or were given up.
    var written: UnsafeBufferPointer<UInt8>? {
        isFull ? nil : UnsafeBufferPointer(rebasing: room[..<count])
    }

    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !isFull, let source = bytes.baseAddress else { return }
        guard bytes.count <= room.count - count, let base = room.baseAddress else { return giveUp() }
        (base + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func write(byte: UInt8) {
        guard !isFull else { return }
        guard count < room.count else { return giveUp() }
        room[count] = byte
        count += 1
    }

    /// Rendered text, escaped for the JSON string it is written into.
    mutating func append(_ text: String) {
        text.withJSONStringUTF8 { utf8 in JSONWriter.forEachEscapedPiece(of: utf8) { write($0) } }
    }

    /// A JSON string: its quotes around what `write` appends.
    mutating func quoted<Failure>(_ write: (inout BoundedPayloadWriter) throws(Failure) -> Void) throws(Failure) {
        self.write(byte: UInt8(ascii: "\""))
        try write(&self)
        self.write(byte: UInt8(ascii: "\""))
    }

    /// Gives the payload up, as when it does not fit: nothing more is written, and it is none.
    mutating func giveUp() {
        isFull = true
    }
}
