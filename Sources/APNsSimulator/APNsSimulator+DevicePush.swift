import APNsCore

extension APNsSimulator {
    /// `POST /3/device/<token>`, checked in the order documented on ``APNsSimulator``.
    func devicePush(_ request: SimulatorRequest, on connection: SimulatedConnection, now: Int64) -> RouteOutcome {
        let idHeader = HTTPHeader("apns-id", request.text(request.apns.id) ?? connection.generatedID())
        func reject(_ reason: RejectionReason) -> RouteOutcome { .rejected(Rejection(reason), idHeader: idHeader) }

        guard request.isPOST else { return reject(.methodNotAllowed) }
        // The route matched the ASCII prefix: the token is the bytes after it, made a `String` at once.
        let tokenText = request.path(droppingPrefixOf: Self.devicePathPrefix.utf8.count)
        guard tokenText.allUTF8Bytes(satisfy: { $0 != UInt8(ascii: "/") }) else { return reject(.badPath) }
        let token: DeviceToken
        do {
            token = try DeviceToken(tokenText)
        } catch {
            return reject(tokenText.isEmpty ? .missingDeviceToken : .badDeviceToken)
        }
        guard !request.apns.hasRepeatedName else { return reject(.duplicateHeaders) }
        let headers: DevicePushHeaders
        switch DevicePushHeaders.read(request) {
        case .failure(let rejection): return .rejected(rejection, idHeader: idHeader)
        case .success(let read): headers = read
        }
        if let rejection = authentication.authenticate(request, on: connection, now: now) {
            return .rejected(rejection, idHeader: idHeader)
        }
        let topic: String
        switch Self.topic(of: request, on: connection) {
        case .failure(let rejection): return .rejected(rejection, idHeader: idHeader)
        case .success(let resolved): topic = resolved
        }
        let pushType = headers.effectivePushType(topic: topic)
        // Apple documents no reason for a push type sent to another type's topic (spec §9.8):
        // TopicDisallowed says "not allowed to push to this topic", which is what happened.
        guard pushType.topicMismatch(topic) == nil else { return reject(.topicDisallowed) }
        guard !request.body.isEmpty else { return reject(.payloadEmpty) }
        guard request.body.count <= pushType.payloadLimit else { return reject(.payloadTooLarge) }
        let notification = DeliveredNotification(
            receivedAt: now, token: token.hex, channelID: nil, topic: topic, pushType: pushType.rawValue,
            priority: headers.priority.rawValue, expiration: headers.expiration,
            collapseID: headers.collapseID?.value, apnsID: idHeader.value, body: request.body
        )
        let success = SimulatorResponse.accepted(idHeader: idHeader,
                                                 uniqueID: configuration.environment == .sandbox ? connection.uniqueID() : nil)
        return .deliverable(notification, success: success, idHeader: idHeader)
    }

    /// The topic of a push: `apns-topic`, or the only topic of the client certificate.
    private static func topic(of request: SimulatorRequest, on connection: SimulatedConnection) -> Result<String, Rejection> {
        let certificateTopics = connection.certificateTopics
        let topic: String
        if let header = request.text(request.apns.topic), !header.isEmpty {
            topic = header
        } else if let certificateTopics, certificateTopics.count == 1 {
            topic = certificateTopics[0]
        } else {
            return .failure(Rejection(.missingTopic))
        }
        guard isWellFormedTopic(topic) else { return .failure(Rejection(.badTopic)) }
        if let certificateTopics, !certificateTopics.contains(topic) { return .failure(Rejection(.topicDisallowed)) }
        return .success(topic)
    }

    /// A bundle id with an optional suffix: dot-separated labels of letters, digits and hyphens.
    static func isWellFormedTopic(_ topic: String) -> Bool {
        var labelIsEmpty = true
        for byte in topic.utf8 {
            switch byte {
            case UInt8(ascii: "."):
                if labelIsEmpty { return false }
                labelIsEmpty = true
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                labelIsEmpty = false
            default:
                return false
            }
        }
        return !labelIsEmpty
    }
}
