/// A notification payload: the `aps` dictionary with every key of the APNs specification, plus
/// custom top-level keys, turned into a JSON ``document`` and written into bytes.
///
/// The builder writes what it is given; rules that span keys (a background push with an alert, a
/// relevance score out of range, the size limit) are checked by ``NotificationValidator``, on the
/// bytes that will actually be sent or on the ``document`` they are written from.
public struct APNsPayload: Sendable, Equatable {
    public var alert: Alert?
    /// 0 removes the badge.
    public var badge: Int?
    public var sound: Sound?
    public var threadID: String?
    public var category: String?
    /// Written as `content-available: 1` (a background update).
    public var contentAvailable: Bool
    /// Written as `mutable-content: 1` (run the notification service extension).
    public var mutableContent: Bool
    public var targetContentID: String?
    public var interruptionLevel: InterruptionLevel?
    /// 0…1 for notifications; any value for Live Activities.
    public var relevanceScore: Double?
    public var filterCriteria: String?
    public var liveActivity: LiveActivityContent?
    /// Keys beside `aps`, in order. A key named `aps` is a violation the validator reports.
    public var custom: JSONObject

    public init(alert: Alert? = nil, badge: Int? = nil, sound: Sound? = nil, threadID: String? = nil,
                category: String? = nil, contentAvailable: Bool = false, mutableContent: Bool = false,
                targetContentID: String? = nil, interruptionLevel: InterruptionLevel? = nil,
                relevanceScore: Double? = nil, filterCriteria: String? = nil,
                liveActivity: LiveActivityContent? = nil, custom: JSONObject = JSONObject()) {
        self.alert = alert
        self.badge = badge
        self.sound = sound
        self.threadID = threadID
        self.category = category
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.targetContentID = targetContentID
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.filterCriteria = filterCriteria
        self.liveActivity = liveActivity
        self.custom = custom
    }

    /// The payload's JSON bytes.
    public func encoded() -> [UInt8] {
        WrittenPayload(document).bytes
    }

    /// Appends the payload's JSON to `buffer`, so a caller can reuse one buffer for many payloads.
    public func encode(into buffer: inout [UInt8]) {
        JSONWriter.appendValue(.object(document), to: &buffer)
    }

    /// The payload as a JSON tree, exactly what ``encode(into:)`` writes: `aps` with the keys that
    /// are set, in the specification's order, then the custom keys. A non-finite double, which
    /// JSON cannot express, is `null` here as it is in the bytes.
    public var document: JSONObject {
        var root = JSONObject()
        root.members.reserveCapacity(1 + custom.members.count)
        root.append(PayloadKey.aps, .object(aps))
        root.members.append(contentsOf: custom.members)
        return root
    }

    private var aps: JSONObject {
        var aps = JSONObject()
        aps.members.reserveCapacity(8)
        switch alert {
        case .body(let text)?: aps.append(PayloadKey.alert, .string(text))
        case .content(let content)?: aps.append(PayloadKey.alert, .object(content.document))
        case nil: break
        }
        aps.append(PayloadKey.badge, badge.map { .integer(Int64($0)) })
        switch sound {
        case .named(let name)?:
            aps.append(PayloadKey.sound, .string(name))
        case .critical(let name, let volume)?:
            aps.append(PayloadKey.sound, .object([PayloadKey.critical: 1, PayloadKey.name: .string(name),
                                                   PayloadKey.volume: .writable(volume)]))
        case nil:
            break
        }
        aps.append(PayloadKey.threadID, threadID.map(JSONValue.string))
        aps.append(PayloadKey.category, category.map(JSONValue.string))
        if contentAvailable { aps.append(PayloadKey.contentAvailable, 1) }
        if mutableContent { aps.append(PayloadKey.mutableContent, 1) }
        aps.append(PayloadKey.targetContentID, targetContentID.map(JSONValue.string))
        aps.append(PayloadKey.interruptionLevel, interruptionLevel.map { .string($0.rawValue) })
        aps.append(PayloadKey.relevanceScore, relevanceScore.map(JSONValue.writable))
        aps.append(PayloadKey.filterCriteria, filterCriteria.map(JSONValue.string))
        liveActivity?.appendMembers(to: &aps)
        return aps
    }
}

extension AlertContent {
    var document: JSONObject {
        var alert = JSONObject()
        alert.members.reserveCapacity(4)
        alert.append(PayloadKey.title, title.map(JSONValue.string))
        alert.append(PayloadKey.subtitle, subtitle.map(JSONValue.string))
        alert.append(PayloadKey.body, body.map(JSONValue.string))
        alert.append(PayloadKey.launchImage, launchImage.map(JSONValue.string))
        alert.append(PayloadKey.titleLocKey, titleLocKey.map(JSONValue.string))
        alert.append(PayloadKey.titleLocArgs, titleLocArgs.map(JSONValue.strings))
        alert.append(PayloadKey.subtitleLocKey, subtitleLocKey.map(JSONValue.string))
        alert.append(PayloadKey.subtitleLocArgs, subtitleLocArgs.map(JSONValue.strings))
        alert.append(PayloadKey.locKey, locKey.map(JSONValue.string))
        alert.append(PayloadKey.locArgs, locArgs.map(JSONValue.strings))
        return alert
    }
}

extension LiveActivityContent {
    func appendMembers(to aps: inout JSONObject) {
        aps.append(PayloadKey.timestamp, .integer(timestamp))
        aps.append(PayloadKey.event, .string(event.rawValue))
        aps.append(PayloadKey.contentState, contentState.map(JSONValue.object))
        aps.append(PayloadKey.staleDate, staleDate.map(JSONValue.integer))
        aps.append(PayloadKey.dismissalDate, dismissalDate.map(JSONValue.integer))
        aps.append(PayloadKey.attributesType, attributesType.map(JSONValue.string))
        aps.append(PayloadKey.attributes, attributes.map(JSONValue.object))
        if inputPushToken { aps.append(PayloadKey.inputPushToken, 1) }
        aps.append(PayloadKey.inputPushChannel, inputPushChannel.map(JSONValue.string))
    }
}

private extension JSONObject {
    /// Appends the member unless `value` is nil: optional keys that are not set are left out.
    mutating func append(_ key: String, _ value: JSONValue?) {
        guard let value else { return }
        members.append(Member(key, value))
    }
}

private extension JSONValue {
    /// The number as it will be written: JSON has no NaN or infinity, so those are `null`.
    static func writable(_ number: Double) -> JSONValue {
        number.isFinite ? .double(number) : .null
    }

    static func strings(_ texts: [String]) -> JSONValue {
        .array(texts.map(JSONValue.string))
    }
}
