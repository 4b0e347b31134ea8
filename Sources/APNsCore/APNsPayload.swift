/// A notification payload: the `aps` dictionary with every key of the APNs specification, plus
/// custom top-level keys, written straight into bytes.
///
/// The builder writes what it is given; rules that span keys (a background push with an alert, a
/// relevance score out of range, the size limit) are checked by ``NotificationValidator`` on the
/// bytes that will actually be sent.
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
        var buffer: [UInt8] = []
        buffer.reserveCapacity(512)
        encode(into: &buffer)
        return buffer
    }

    /// Appends the payload's JSON to `buffer`, so a caller can reuse one buffer for many payloads.
    public func encode(into buffer: inout [UInt8]) {
        var root = ObjectWriter(&buffer)
        root.key(PayloadKey.aps, &buffer)
        encodeAps(into: &buffer)
        for member in custom.members {
            root.key(member.key, &buffer)
            JSONWriter.appendValue(member.value, to: &buffer)
        }
        root.close(&buffer)
    }

    private func encodeAps(into buffer: inout [UInt8]) {
        var aps = ObjectWriter(&buffer)
        switch alert {
        case .body(let text)?:
            aps.string(PayloadKey.alert, text, &buffer)
        case .content(let content)?:
            aps.key(PayloadKey.alert, &buffer)
            content.encode(into: &buffer)
        case nil:
            break
        }
        if let badge { aps.integer(PayloadKey.badge, Int64(badge), &buffer) }
        switch sound {
        case .named(let name)?:
            aps.string(PayloadKey.sound, name, &buffer)
        case .critical(let name, let volume)?:
            aps.key(PayloadKey.sound, &buffer)
            var critical = ObjectWriter(&buffer)
            critical.integer(PayloadKey.critical, 1, &buffer)
            critical.string(PayloadKey.name, name, &buffer)
            critical.double(PayloadKey.volume, volume, &buffer)
            critical.close(&buffer)
        case nil:
            break
        }
        aps.string(PayloadKey.threadID, threadID, &buffer)
        aps.string(PayloadKey.category, category, &buffer)
        if contentAvailable { aps.integer(PayloadKey.contentAvailable, 1, &buffer) }
        if mutableContent { aps.integer(PayloadKey.mutableContent, 1, &buffer) }
        aps.string(PayloadKey.targetContentID, targetContentID, &buffer)
        aps.string(PayloadKey.interruptionLevel, interruptionLevel?.rawValue, &buffer)
        if let relevanceScore { aps.double(PayloadKey.relevanceScore, relevanceScore, &buffer) }
        aps.string(PayloadKey.filterCriteria, filterCriteria, &buffer)
        liveActivity?.encode(into: &aps, &buffer)
        aps.close(&buffer)
    }
}

extension AlertContent {
    func encode(into buffer: inout [UInt8]) {
        var alert = ObjectWriter(&buffer)
        alert.string(PayloadKey.title, title, &buffer)
        alert.string(PayloadKey.subtitle, subtitle, &buffer)
        alert.string(PayloadKey.body, body, &buffer)
        alert.string(PayloadKey.launchImage, launchImage, &buffer)
        alert.string(PayloadKey.titleLocKey, titleLocKey, &buffer)
        alert.strings(PayloadKey.titleLocArgs, titleLocArgs, &buffer)
        alert.string(PayloadKey.subtitleLocKey, subtitleLocKey, &buffer)
        alert.strings(PayloadKey.subtitleLocArgs, subtitleLocArgs, &buffer)
        alert.string(PayloadKey.locKey, locKey, &buffer)
        alert.strings(PayloadKey.locArgs, locArgs, &buffer)
        alert.close(&buffer)
    }
}

extension LiveActivityContent {
    func encode(into aps: inout ObjectWriter, _ buffer: inout [UInt8]) {
        aps.integer(PayloadKey.timestamp, timestamp, &buffer)
        aps.string(PayloadKey.event, event.rawValue, &buffer)
        aps.object(PayloadKey.contentState, contentState, &buffer)
        if let staleDate { aps.integer(PayloadKey.staleDate, staleDate, &buffer) }
        if let dismissalDate { aps.integer(PayloadKey.dismissalDate, dismissalDate, &buffer) }
        aps.string(PayloadKey.attributesType, attributesType, &buffer)
        aps.object(PayloadKey.attributes, attributes, &buffer)
        if inputPushToken { aps.integer(PayloadKey.inputPushToken, 1, &buffer) }
        aps.string(PayloadKey.inputPushChannel, inputPushChannel, &buffer)
    }
}

/// Writes one JSON object's members with the commas between them; optional values that are nil
/// are left out.
struct ObjectWriter {
    private var isEmpty = true

    init(_ buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "{"))
    }

    mutating func key(_ key: String, _ buffer: inout [UInt8]) {
        if !isEmpty { buffer.append(UInt8(ascii: ",")) }
        isEmpty = false
        JSONWriter.appendString(key, to: &buffer)
        buffer.append(UInt8(ascii: ":"))
    }

    mutating func string(_ key: String, _ value: String?, _ buffer: inout [UInt8]) {
        guard let value else { return }
        self.key(key, &buffer)
        JSONWriter.appendString(value, to: &buffer)
    }

    mutating func strings(_ key: String, _ values: [String]?, _ buffer: inout [UInt8]) {
        guard let values else { return }
        self.key(key, &buffer)
        buffer.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(value, to: &buffer)
        }
        buffer.append(UInt8(ascii: "]"))
    }

    mutating func integer(_ key: String, _ value: Int64, _ buffer: inout [UInt8]) {
        self.key(key, &buffer)
        JSONWriter.appendInteger(value, to: &buffer)
    }

    mutating func double(_ key: String, _ value: Double, _ buffer: inout [UInt8]) {
        self.key(key, &buffer)
        JSONWriter.appendDouble(value, to: &buffer)
    }

    mutating func object(_ key: String, _ value: JSONObject?, _ buffer: inout [UInt8]) {
        guard let value else { return }
        self.key(key, &buffer)
        JSONWriter.appendValue(.object(value), to: &buffer)
    }

    func close(_ buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "}"))
    }
}
