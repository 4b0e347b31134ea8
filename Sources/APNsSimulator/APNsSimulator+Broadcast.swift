import APNsCore

extension APNsSimulator {
    /// The largest broadcast payload (spec §6.1).
    static let broadcastPayloadLimit = PushType.largePayloadLimit

    /// `POST /4/broadcasts/apps/<bundle-id>` (spec §6.1), checked in this order:
    ///
    /// 1. 405 `MethodNotAllowed`; 404 `BadPath` (no bundle id, or more after it).
    /// 2. 400 `DuplicateHeaders`.
    /// 3. 400 header values: `BadMessageId` (`apns-request-id`, or `apns-id` as in one of Apple's
    ///    samples), `MissingPushType`, `InvalidPushType` (only `liveactivity`, any case),
    ///    `BadPriority` (required: 10, 5 or 1), `BadExpirationDate` (required),
    ///    `MissingChannelId`, `BadChannelId`.
    /// 4. 403/429 authentication; 403 `TopicMismatch` when a client certificate lacks the bundle id.
    /// 5. 400 `TopicDisallowed`: the bundle id carries a push-type suffix.
    /// 6. 400 `PayloadEmpty`, 413 `PayloadTooLarge` (5120 bytes).
    /// 7. 400 `ChannelNotRegistered`; 400 `BadExpirationDate` for a non-zero expiration on a
    ///    no-storage channel.
    /// 8. Injected errors, then 200 with `apns-request-id` and `apns-unique-id`.
    func broadcast(_ request: SimulatorRequest, on connection: SimulatedConnection, now: Int64) -> RouteOutcome {
        let requestID = request.text(request.apns.requestID) ?? request.text(request.apns.id)
        let idHeader = HTTPHeader("apns-request-id", requestID ?? connection.generatedID())
        func reject(_ reason: RejectionReason) -> RouteOutcome { .rejected(Rejection(reason), idHeader: idHeader) }

        guard request.method == "POST" else { return reject(.methodNotAllowed) }
        let bundleID = String(request.path.dropFirst(Self.broadcastPathPrefix.count))
        guard !bundleID.isEmpty, !bundleID.utf8.contains(UInt8(ascii: "/")) else { return reject(.badPath) }
        guard !request.apns.hasRepeatedName else { return reject(.duplicateHeaders) }
        if let requestID, NotificationID(requestID) == nil { return reject(.badMessageId) }
        guard let pushType = request.text(request.apns.pushType) else { return reject(.missingPushType) }
        // Apple spells it Liveactivity, LiveActivity and liveactivity (spec §9.3): any case.
        guard pushType.lowercased() == PushType.liveActivity.rawValue else { return reject(.invalidPushType) }
        guard let priority = request.text(request.apns.priority).flatMap(Int.init).flatMap(APNsPriority.init(rawValue:))
        else { return reject(.badPriority) }
        guard let expiration = request.text(request.apns.expiration).flatMap(APNsExpiration.init(headerValue:))
        else { return reject(.badExpirationDate) }
        guard let channelID = request.text(request.apns.channelID) else { return reject(.missingChannelId) }
        guard BroadcastChannel.isWellFormedID(channelID) else { return reject(.badChannelId) }
        if let rejection = authenticateForApp(bundleID, request: request, on: connection, now: now) {
            return .rejected(rejection, idHeader: idHeader)
        }
        guard PushType.owningSuffix(of: bundleID) == nil else { return reject(.topicDisallowed) }
        guard !request.body.isEmpty else { return reject(.payloadEmpty) }
        guard request.body.count <= Self.broadcastPayloadLimit else { return reject(.payloadTooLarge) }
        guard let channel = state.withLock({ $0.channels.channel(channelID, bundleID: bundleID) }) else {
            return reject(.channelNotRegistered)
        }
        if channel.storagePolicy == .noMessageStored, expiration != .immediately { return reject(.badExpirationDate) }
        let notification = DeliveredNotification(
            receivedAt: now, token: nil, channelID: channelID, topic: bundleID, pushType: PushType.liveActivity.rawValue,
            priority: priority.rawValue, expiration: expiration, collapseID: nil,
            apnsID: idHeader.value, body: request.body
        )
        return .deliverable(notification, success: .accepted(idHeader: idHeader, uniqueID: connection.uniqueID()), idHeader: idHeader)
    }

    /// Authentication for the broadcast and channel APIs, whose topic is the bundle id in the
    /// path: provider tokens as for device pushes; a client certificate must name the bundle id
    /// (`TopicMismatch`, spec §2.2).
    func authenticateForApp(_ bundleID: String, request: SimulatorRequest, on connection: SimulatedConnection,
                            now: Int64) -> Rejection? {
        if let topics = connection.certificateTopics, !topics.contains(bundleID) { return Rejection(.topicMismatch) }
        return authentication.authenticate(request, on: connection, now: now)
    }
}
