/// One broken APNs rule: a typed reason and a detail saying what exactly was wrong.
public struct Violation: Error, Hashable, Sendable, CustomStringConvertible {
    public let reason: Reason
    public let detail: String

    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    /// `<Reason>: <detail>`, the form `pushline validate` prints.
    public var description: String { "\(reason.rawValue): \(detail)" }

    /// The rules Pushline checks before anything is sent. Where APNs has a rejection reason for the
    /// same mistake the raw value is APNs' spelling, so outcome events and metrics use one word.
    public enum Reason: String, Sendable, CaseIterable {
        // Body.
        case payloadEmpty = "PayloadEmpty"
        case payloadTooLarge = "PayloadTooLarge"
        case malformedJSON = "MalformedJSON"
        case payloadNotObject = "PayloadNotObject"
        case missingAps = "MissingAps"
        case apsNotObject = "ApsNotObject"
        case duplicateKey = "DuplicateKey"
        case customKeyNamedAps = "CustomKeyNamedAps"
        case wrongValueType = "WrongValueType"
        // `aps` rules.
        case backgroundWithAlertSoundOrBadge = "BackgroundWithAlertSoundOrBadge"
        case backgroundWithoutContentAvailable = "BackgroundWithoutContentAvailable"
        case mutableContentWithoutAlert = "MutableContentWithoutAlert"
        case unknownInterruptionLevel = "UnknownInterruptionLevel"
        case relevanceScoreOutOfRange = "RelevanceScoreOutOfRange"
        case criticalSoundVolumeOutOfRange = "CriticalSoundVolumeOutOfRange"
        case liveActivityMissingTimestamp = "LiveActivityMissingTimestamp"
        case liveActivityMissingEvent = "LiveActivityMissingEvent"
        case liveActivityUnknownEvent = "LiveActivityUnknownEvent"
        case liveActivityIncompleteStart = "LiveActivityIncompleteStart"
        case liveActivityMissingContentState = "LiveActivityMissingContentState"
        // Headers and path.
        case backgroundPriority = "BackgroundPriority"
        case badPriority = "BadPriority"
        case badCollapseID = "BadCollapseId"
        case missingDeviceToken = "MissingDeviceToken"
        case badDeviceToken = "BadDeviceToken"
        case missingTopic = "MissingTopic"
        case topicSuffixMismatch = "TopicSuffixMismatch"

        /// The reason APNs itself would answer with, when it has one for this mistake.
        public var rejectionReason: RejectionReason? {
            switch self {
            case .payloadEmpty: .payloadEmpty
            case .payloadTooLarge: .payloadTooLarge
            case .badPriority: .badPriority
            case .badCollapseID: .badCollapseId
            case .missingDeviceToken: .missingDeviceToken
            case .badDeviceToken: .badDeviceToken
            case .missingTopic: .missingTopic
            default: nil
            }
        }
    }
}
