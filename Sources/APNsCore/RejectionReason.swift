/// What a sender should do about a rejection.
public enum RetryClass: String, Sendable, CaseIterable {
    /// Try again later with back-off: throttling, server errors, shutdown.
    case retryable
    /// Do not send this notification again as it is; something in it must change.
    case permanent
    /// The device token is gone (`410`): stop sending to it.
    case tokenNoLongerValid
    /// The credentials or the connection's binding are at fault: fix or refresh the provider token
    /// or certificate, usually on a new connection.
    case providerAuth
}

/// An APNs rejection `reason`, for device pushes (spec §2.1) and for broadcast and channel
/// management (§2.2), each with the HTTP status APNs sends it with and a ``RetryClass``.
///
/// A reason Apple adds later arrives as ``unknown(_:)``; its retry class then follows the status.
public enum RejectionReason: Hashable, Sendable, CustomStringConvertible {
    // 400
    case badCollapseId, badDeviceToken, badExpirationDate, badMessageId, badPriority, badTopic
    case deviceTokenNotForTopic, duplicateHeaders, idleTimeout, invalidPushType, missingDeviceToken
    case missingTopic, payloadEmpty, topicDisallowed
    // 400, broadcast and channel management
    case featureNotEnabled, missingChannelId, badChannelId, channelNotRegistered, badRequestParams
    case badRequestPayload, missingPushType, cannotCreateChannelConfig
    /// Undocumented; seen only in one third-party client (spec §2.2).
    case missingChannelQueueSize
    // 403
    case badCertificate, badCertificateEnvironment, expiredProviderToken, forbidden
    case invalidProviderToken, missingProviderToken, unrelatedKeyIdInToken
    /// Apple's documented spelling.
    case badEnvironmentKeyIdInToken
    /// The spelling observed from the live service (spec §9.1).
    case badEnvironmentKeyInToken
    /// Broadcast: the token's or certificate's bundle ids do not include the topic in the path.
    case topicMismatch
    // 404, 405
    case badPath, methodNotAllowed
    // 410
    case expiredToken, unregistered
    // 413
    case payloadTooLarge
    // 429
    case tooManyProviderTokenUpdates, tooManyRequests
    // 500, 503
    case internalServerError, serviceUnavailable, shutdown
    /// A reason this build does not know.
    case unknown(String)

    /// Every documented reason (everything but ``unknown(_:)``).
    public static let known: [RejectionReason] = [
        .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
        .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
        .missingTopic, .payloadEmpty, .topicDisallowed,
        .featureNotEnabled, .missingChannelId, .badChannelId, .channelNotRegistered, .badRequestParams,
        .badRequestPayload, .missingPushType, .cannotCreateChannelConfig, .missingChannelQueueSize,
        .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden,
        .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken,
        .badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken, .topicMismatch,
        .badPath, .methodNotAllowed, .expiredToken, .unregistered, .payloadTooLarge,
        .tooManyProviderTokenUpdates, .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown,
    ]

    private static let byRawValue: [String: RejectionReason] = Dictionary(
        uniqueKeysWithValues: known.map { ($0.rawValue, $0) }
    )

    /// Reads the `reason` string of a response body or GOAWAY debug data.
    ///
    /// Apple's broadcast error page spells one reason `Service Unavailable`, with a space; it is
    /// read as ``serviceUnavailable``.
    public init(_ rawValue: String) {
        if rawValue == "Service Unavailable" {
            self = .serviceUnavailable
        } else {
            self = Self.byRawValue[rawValue] ?? .unknown(rawValue)
        }
    }

    /// The string APNs sends.
    public var rawValue: String {
        switch self {
        case .badCollapseId: "BadCollapseId"
        case .badDeviceToken: "BadDeviceToken"
        case .badExpirationDate: "BadExpirationDate"
        case .badMessageId: "BadMessageId"
        case .badPriority: "BadPriority"
        case .badTopic: "BadTopic"
        case .deviceTokenNotForTopic: "DeviceTokenNotForTopic"
        case .duplicateHeaders: "DuplicateHeaders"
        case .idleTimeout: "IdleTimeout"
        case .invalidPushType: "InvalidPushType"
        case .missingDeviceToken: "MissingDeviceToken"
        case .missingTopic: "MissingTopic"
        case .payloadEmpty: "PayloadEmpty"
        case .topicDisallowed: "TopicDisallowed"
        case .featureNotEnabled: "FeatureNotEnabled"
        case .missingChannelId: "MissingChannelId"
        case .badChannelId: "BadChannelId"
        case .channelNotRegistered: "ChannelNotRegistered"
        case .badRequestParams: "BadRequestParams"
        case .badRequestPayload: "BadRequestPayload"
        case .missingPushType: "MissingPushType"
        case .cannotCreateChannelConfig: "CannotCreateChannelConfig"
        case .missingChannelQueueSize: "MissingChannelQueueSize"
        case .badCertificate: "BadCertificate"
        case .badCertificateEnvironment: "BadCertificateEnvironment"
        case .expiredProviderToken: "ExpiredProviderToken"
        case .forbidden: "Forbidden"
        case .invalidProviderToken: "InvalidProviderToken"
        case .missingProviderToken: "MissingProviderToken"
        case .unrelatedKeyIdInToken: "UnrelatedKeyIdInToken"
        case .badEnvironmentKeyIdInToken: "BadEnvironmentKeyIdInToken"
        case .badEnvironmentKeyInToken: "BadEnvironmentKeyInToken"
        case .topicMismatch: "TopicMismatch"
        case .badPath: "BadPath"
        case .methodNotAllowed: "MethodNotAllowed"
        case .expiredToken: "ExpiredToken"
        case .unregistered: "Unregistered"
        case .payloadTooLarge: "PayloadTooLarge"
        case .tooManyProviderTokenUpdates: "TooManyProviderTokenUpdates"
        case .tooManyRequests: "TooManyRequests"
        case .internalServerError: "InternalServerError"
        case .serviceUnavailable: "ServiceUnavailable"
        case .shutdown: "Shutdown"
        case .unknown(let value): value
        }
    }

    public var description: String { rawValue }

    /// The HTTP status APNs sends this reason with; nil for ``unknown(_:)``.
    public var status: Int? {
        switch self {
        case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
             .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
             .missingTopic, .payloadEmpty, .topicDisallowed, .featureNotEnabled, .missingChannelId,
             .badChannelId, .channelNotRegistered, .badRequestParams, .badRequestPayload, .missingPushType,
             .cannotCreateChannelConfig, .missingChannelQueueSize:
            400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden,
             .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken,
             .badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken, .topicMismatch:
            403
        case .badPath: 404
        case .methodNotAllowed: 405
        case .expiredToken, .unregistered: 410
        case .payloadTooLarge: 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: 429
        case .internalServerError: 500
        case .serviceUnavailable, .shutdown: 503
        case .unknown: nil
        }
    }

    /// What to do about this reason when it came with `status`. Known reasons have a fixed class;
    /// an unknown one is classed by its status: 429 and 5xx retryable, 410 token gone, 403
    /// credentials, anything else permanent.
    public func retryClass(status: Int) -> RetryClass {
        switch self {
        case .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown, .idleTimeout:
            .retryable
        case .expiredToken, .unregistered:
            .tokenNoLongerValid
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .invalidProviderToken,
             .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken,
             .badEnvironmentKeyInToken, .tooManyProviderTokenUpdates:
            .providerAuth
        case .unknown:
            switch status {
            case 429, 500...599: .retryable
            case 410: .tokenNoLongerValid
            case 403: .providerAuth
            default: .permanent
            }
        default:
            .permanent
        }
    }

    /// The class with the status APNs documents for this reason.
    public var retryClass: RetryClass { retryClass(status: status ?? 400) }
}
