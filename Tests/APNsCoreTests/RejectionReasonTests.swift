import APNsCore
import Testing

/// Spec §2: every APNs rejection reason, the status it comes with, and what a sender does about it.
@Suite("RejectionReason")
struct RejectionReasonTests {
    /// Spec §2.1 and §2.2: reason, wire string, HTTP status, retry class.
    static let specTable: [(RejectionReason, String, Int, RetryClass)] = [
        // 400, device push: the request must change.
        (.badCollapseId, "BadCollapseId", 400, .permanent),
        (.badDeviceToken, "BadDeviceToken", 400, .permanent),
        (.badExpirationDate, "BadExpirationDate", 400, .permanent),
        (.badMessageId, "BadMessageId", 400, .permanent),
        (.badPriority, "BadPriority", 400, .permanent),
        (.badTopic, "BadTopic", 400, .permanent),
        (.deviceTokenNotForTopic, "DeviceTokenNotForTopic", 400, .permanent),
        (.duplicateHeaders, "DuplicateHeaders", 400, .permanent),
        // The connection idled out; the request itself was fine.
        (.idleTimeout, "IdleTimeout", 400, .retryable),
        (.invalidPushType, "InvalidPushType", 400, .permanent),
        (.missingDeviceToken, "MissingDeviceToken", 400, .permanent),
        (.missingTopic, "MissingTopic", 400, .permanent),
        (.payloadEmpty, "PayloadEmpty", 400, .permanent),
        (.topicDisallowed, "TopicDisallowed", 400, .permanent),
        // 400, broadcast and channel management.
        (.featureNotEnabled, "FeatureNotEnabled", 400, .permanent),
        (.missingChannelId, "MissingChannelId", 400, .permanent),
        (.badChannelId, "BadChannelId", 400, .permanent),
        (.channelNotRegistered, "ChannelNotRegistered", 400, .permanent),
        (.badRequestParams, "BadRequestParams", 400, .permanent),
        (.badRequestPayload, "BadRequestPayload", 400, .permanent),
        (.missingPushType, "MissingPushType", 400, .permanent),
        (.cannotCreateChannelConfig, "CannotCreateChannelConfig", 400, .permanent),
        (.missingChannelQueueSize, "MissingChannelQueueSize", 400, .permanent),
        // 403: certificates and provider tokens.
        (.badCertificate, "BadCertificate", 403, .providerAuth),
        (.badCertificateEnvironment, "BadCertificateEnvironment", 403, .providerAuth),
        (.expiredProviderToken, "ExpiredProviderToken", 403, .providerAuth),
        (.forbidden, "Forbidden", 403, .permanent),
        (.invalidProviderToken, "InvalidProviderToken", 403, .providerAuth),
        (.missingProviderToken, "MissingProviderToken", 403, .providerAuth),
        (.unrelatedKeyIdInToken, "UnrelatedKeyIdInToken", 403, .providerAuth),
        (.badEnvironmentKeyIdInToken, "BadEnvironmentKeyIdInToken", 403, .providerAuth),
        (.badEnvironmentKeyInToken, "BadEnvironmentKeyInToken", 403, .providerAuth),
        // Broadcast: the topic in the path is not the credentials' — the topic must change.
        (.topicMismatch, "TopicMismatch", 403, .permanent),
        (.badPath, "BadPath", 404, .permanent),
        (.methodNotAllowed, "MethodNotAllowed", 405, .permanent),
        // 410: the token is gone.
        (.expiredToken, "ExpiredToken", 410, .tokenNoLongerValid),
        (.unregistered, "Unregistered", 410, .tokenNoLongerValid),
        (.payloadTooLarge, "PayloadTooLarge", 413, .permanent),
        (.tooManyProviderTokenUpdates, "TooManyProviderTokenUpdates", 429, .providerAuth),
        (.tooManyRequests, "TooManyRequests", 429, .retryable),
        (.internalServerError, "InternalServerError", 500, .retryable),
        (.serviceUnavailable, "ServiceUnavailable", 503, .retryable),
        (.shutdown, "Shutdown", 503, .retryable),
    ]

    @Test("known lists exactly the reasons of the specification")
    func knownMatchesSpec() {
        #expect(RejectionReason.known.count == Self.specTable.count)
        #expect(Set(RejectionReason.known) == Set(Self.specTable.map(\.0)))
    }

    @Test("the wire string reads back as the reason and is written unchanged", arguments: specTable)
    func rawValueRoundTrips(reason: RejectionReason, rawValue: String, status: Int, retryClass: RetryClass) {
        #expect(RejectionReason(rawValue) == reason)
        #expect(reason.rawValue == rawValue)
        #expect(reason.description == rawValue)
    }

    @Test("each reason carries the status of the spec table", arguments: specTable)
    func statusMatchesSpec(reason: RejectionReason, rawValue: String, status: Int, retryClass: RetryClass) {
        #expect(reason.status == status)
    }

    @Test("each reason has its retry class", arguments: specTable)
    func retryClassMatchesSpec(reason: RejectionReason, rawValue: String, status: Int, retryClass: RetryClass) {
        #expect(reason.retryClass == retryClass)
    }

    @Test("a known reason keeps its class whatever status it arrives with", arguments: specTable)
    func knownReasonIgnoresStatus(reason: RejectionReason, rawValue: String, status: Int, retryClass: RetryClass) {
        for other in [400, 403, 410, 429, 500, 503] {
            #expect(reason.retryClass(status: other) == retryClass, "with status \(other)")
        }
    }

    @Test("Unregistered and ExpiredToken mean the token is no longer valid")
    func goneTokens() {
        #expect(RejectionReason.unregistered.retryClass == .tokenNoLongerValid)
        #expect(RejectionReason.expiredToken.retryClass == .tokenNoLongerValid)
    }

    @Test("BadDeviceToken and DeviceTokenNotForTopic are permanent, not token removal")
    func wrongTokenIsNotGoneToken() {
        #expect(RejectionReason.badDeviceToken.retryClass == .permanent)
        #expect(RejectionReason.deviceTokenNotForTopic.retryClass == .permanent)
    }

    @Test("\"Service Unavailable\" with a space reads as ServiceUnavailable")
    func serviceUnavailableWithSpace() {
        let reason = RejectionReason("Service Unavailable")
        #expect(reason == .serviceUnavailable)
        #expect(reason.status == 503)
        #expect(reason.retryClass == .retryable)
    }

    // MARK: Unknown reasons

    @Test("an undocumented reason is kept as unknown with its text")
    func undocumentedIsUnknown() {
        let reason = RejectionReason("BrandNewReason")
        #expect(reason == .unknown("BrandNewReason"))
        #expect(reason.rawValue == "BrandNewReason")
        #expect(reason.status == nil)
    }

    @Test("reason strings are matched exactly, so a different case is unknown")
    func caseDiffersIsUnknown() {
        #expect(RejectionReason("unregistered") == .unknown("unregistered"))
    }

    @Test("an unknown reason is classed by its status", arguments: [
        (429, .retryable),
        (500, .retryable),
        (502, .retryable),
        (503, .retryable),
        (599, .retryable),
        (410, .tokenNoLongerValid),
        (403, .providerAuth),
        (400, .permanent),
        (404, .permanent),
        (405, .permanent),
        (413, .permanent),
    ] as [(Int, RetryClass)])
    func unknownClassedByStatus(status: Int, expected: RetryClass) {
        #expect(RejectionReason.unknown("BrandNewReason").retryClass(status: status) == expected)
    }

    @Test("an unknown reason without a status is permanent")
    func unknownWithoutStatusIsPermanent() {
        #expect(RejectionReason.unknown("BrandNewReason").retryClass == .permanent)
    }

    // MARK: Validator reasons

    @Test("a validator reason APNs also has uses APNs' spelling",
          arguments: Violation.Reason.allCases.filter { $0.rejectionReason != nil })
    func violationReasonSpelling(reason: Violation.Reason) throws {
        let rejection = try #require(reason.rejectionReason)
        #expect(rejection.rawValue == reason.rawValue)
    }

    @Test("every validator reason spelled like an APNs reason maps to it", arguments: Violation.Reason.allCases)
    func violationReasonMapsWhenSpelledAlike(reason: Violation.Reason) {
        if case .unknown = RejectionReason(reason.rawValue) {
            #expect(reason.rejectionReason == nil)
        } else {
            #expect(reason.rejectionReason == RejectionReason(reason.rawValue))
        }
    }
}
