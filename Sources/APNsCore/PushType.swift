/// The `apns-push-type` header: what a notification is, which `apns-topic` suffix it needs, its
/// default priority and its payload size limit.
///
/// A struct with static members rather than an enum, so that a push type Apple adds later can be
/// carried without breaking callers.
public struct PushType: APNsVocabulary {
    /// The header value, for example `"liveactivity"`.
    public let rawValue: String
    /// What `apns-topic` must end with, after the bundle id (`".voip"`); empty when the topic is the
    /// bundle id itself, or (for `mdm`) whatever the MDM certificate names.
    public let topicSuffix: String
    /// The priority used when a notification does not choose one.
    public let defaultPriority: APNsPriority
    /// Largest payload APNs accepts for this type, in bytes (spec §4.1).
    public let payloadLimit: Int

    private init(_ rawValue: String, topicSuffix: String = "", defaultPriority: APNsPriority = .immediate,
                 payloadLimit: Int = PushType.standardPayloadLimit) {
        self.rawValue = rawValue
        self.topicSuffix = topicSuffix
        self.defaultPriority = defaultPriority
        self.payloadLimit = payloadLimit
    }

    /// The payload limit of every device push except VoIP.
    public static let standardPayloadLimit = 4096
    /// The payload limit of VoIP pushes and of broadcast pushes.
    public static let largePayloadLimit = 5120

    public static let alert = PushType("alert")
    /// Background updates must be sent with priority 5; Apple calls 10 an error.
    public static let background = PushType("background", defaultPriority: .powerConsiderate)
    public static let voip = PushType("voip", topicSuffix: ".voip", payloadLimit: largePayloadLimit)
    public static let complication = PushType("complication", topicSuffix: ".complication")
    public static let fileProvider = PushType("fileprovider", topicSuffix: ".pushkit.fileprovider")
    /// The topic comes from the UID in the MDM certificate's subject, so no suffix is checked.
    public static let mdm = PushType("mdm")
    public static let location = PushType("location", topicSuffix: ".location-query")
    public static let liveActivity = PushType("liveactivity", topicSuffix: ".push-type.liveactivity")
    public static let pushToTalk = PushType("pushtotalk", topicSuffix: ".voip-ptt")
    public static let widgets = PushType("widgets", topicSuffix: ".push-type.widgets")
    public static let controls = PushType("controls", topicSuffix: ".push-type.controls")

    /// Every push type in the APNs specification.
    public static let all: [PushType] = [
        .alert, .background, .voip, .complication, .fileProvider, .mdm, .location, .liveActivity,
        .pushToTalk, .widgets, .controls,
    ]

    /// Why `topic` cannot carry this push type, or nil when it can.
    ///
    /// Types with a suffix need `<bundle id><suffix>`. `alert` and `background` go to the bare bundle
    /// id, so a topic ending in another type's suffix (`com.example.app.voip`) is the classic mistake
    /// of sending to the wrong topic. `mdm` topics are not checked.
    public func topicMismatch(_ topic: String) -> String? {
        if self == .mdm { return nil }
        if !topicSuffix.isEmpty {
            guard isSuffix(of: topic, topicIsASCII: Self.isASCII(topic)), topic.utf8.count > topicSuffix.utf8.count else {
                return "push type \(rawValue) needs topic <bundle id>\(topicSuffix), got \"\(topic)\""
            }
            return nil
        }
        if let suffixed = Self.owningSuffix(of: topic) {
            return "push type \(rawValue) needs the bare bundle id, but \"\(topic)\" is a \(suffixed.rawValue) topic"
        }
        return nil
    }

    /// The push type whose topic suffix `topic` ends with, if any.
    public static func owningSuffix(of topic: String) -> PushType? {
        let topicIsASCII = isASCII(topic)
        return all.first { !$0.topicSuffix.isEmpty && $0.isSuffix(of: topic, topicIsASCII: topicIsASCII) }
    }

    /// `topic.hasSuffix(topicSuffix)`. Suffixes are ASCII, so for an ASCII topic (every valid one)
    /// the bytes give the same answer, compared in place at the end, without the Unicode
    /// segmentation `hasSuffix` pays on every push.
    private func isSuffix(of topic: String, topicIsASCII: Bool) -> Bool {
        guard topicIsASCII else { return topic.hasSuffix(topicSuffix) }
        let suffix = topicSuffix.utf8
        guard topic.utf8.count >= suffix.count else { return false }
        // Both sides' bytes in place, compared from the end: the first byte that differs (nearly
        // always the last) ends it.
        let matched = topic.utf8.withContiguousStorageIfAvailable { bytes in
            suffix.withContiguousStorageIfAvailable { suffix in
                let offset = bytes.count - suffix.count
                var index = suffix.count
                while index > 0 {
                    index -= 1
                    if bytes[offset + index] != suffix[index] { return false }
                }
                return true
            }
        }
        return (matched ?? nil) ?? topic.utf8.reversed().starts(with: suffix.reversed())
    }

    private static func isASCII(_ text: String) -> Bool {
        text.allUTF8Bytes { $0 < 0x80 }
    }
}
