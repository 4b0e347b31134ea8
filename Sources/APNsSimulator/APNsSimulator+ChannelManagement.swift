import APNsCore

extension APNsSimulator {
    /// The channel management API (spec §6.2) on ``ServicePort/channelManagement``:
    ///
    /// - `POST /1/apps/<bundle-id>/channels`, body `{"message-storage-policy": 0|1, "push-type":
    ///   "LiveActivity"}` → 201 with `apns-channel-id`;
    /// - `GET …/channels` with `apns-channel-id` → 200 `{"message-storage-policy": n, "push-type": "LiveActivity"}`;
    /// - `DELETE …/channels` with `apns-channel-id` → 204;
    /// - `GET /1/apps/<bundle-id>/all-channels` → 200 `{"channels": [ids]}`.
    ///
    /// Checks: 404 `BadPath`, 405 `MethodNotAllowed`, 400 `DuplicateHeaders`, 400 `BadMessageId`
    /// (`apns-request-id`), authentication, then per operation: `PayloadEmpty`,
    /// `BadRequestPayload` (not a JSON object), `BadRequestParams` (an unknown attribute, or a
    /// storage policy missing or not 0/1), `MissingPushType`, `InvalidPushType`,
    /// `CannotCreateChannelConfig` (over the per-app limit); `MissingChannelId`, `BadChannelId`,
    /// `ChannelNotRegistered`. Every answer carries `apns-request-id`, echoed or generated.
    func channelManagement(_ request: SimulatorRequest, on connection: SimulatedConnection, now: Int64) -> RouteOutcome {
        let requestID = request.text(request.apns.requestID)
        let idHeader = HTTPHeader("apns-request-id", requestID ?? connection.generatedID())
        func reject(_ reason: RejectionReason) -> RouteOutcome { .rejected(Rejection(reason), idHeader: idHeader) }

        guard let (bundleID, resource) = Self.channelRoute(request.path) else { return reject(.badPath) }
        let allowedMethods = resource == .channels ? ["POST", "GET", "DELETE"] : ["GET"]
        guard allowedMethods.contains(request.method) else { return reject(.methodNotAllowed) }
        guard !request.apns.hasRepeatedName else { return reject(.duplicateHeaders) }
        if let requestID, NotificationID(requestID) == nil { return reject(.badMessageId) }
        if let rejection = authenticateForApp(bundleID, request: request, on: connection, now: now) {
            return .rejected(rejection, idHeader: idHeader)
        }
        let result: Result<SimulatorResponse, Rejection> = switch (resource, request.method) {
        case (.allChannels, _): .success(listChannels(bundleID: bundleID, idHeader: idHeader))
        case (_, "POST"): createChannel(bundleID: bundleID, body: request.body, idHeader: idHeader)
        case (_, "GET"): readChannel(bundleID: bundleID, request: request, idHeader: idHeader)
        default: deleteChannel(bundleID: bundleID, request: request, idHeader: idHeader)
        }
        switch result {
        case .success(let response): return .answered(response)
        case .failure(let rejection): return .rejected(rejection, idHeader: idHeader)
        }
    }

    private enum ChannelResource {
        case channels, allChannels
    }

    /// `/1/apps/<bundle-id>/channels` or `/1/apps/<bundle-id>/all-channels`.
    private static func channelRoute(_ path: String) -> (bundleID: String, resource: ChannelResource)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "1", parts[2] == "apps", !parts[3].isEmpty else { return nil }
        switch parts[4] {
        case "channels": return (String(parts[3]), .channels)
        case "all-channels": return (String(parts[3]), .allChannels)
        default: return nil
        }
    }

    private func createChannel(bundleID: String, body: [UInt8], idHeader: HTTPHeader) -> Result<SimulatorResponse, Rejection> {
        guard !body.isEmpty else { return .failure(Rejection(.payloadEmpty)) }
        guard case .object(let object)? = try? JSONParser.parse(body) else { return .failure(Rejection(.badRequestPayload)) }
        let known: Set<String> = ["message-storage-policy", "push-type"]
        guard object.members.allSatisfy({ known.contains($0.key) }), object.repeatedKeys.isEmpty else {
            return .failure(Rejection(.badRequestParams))
        }
        guard case .integer(let policyValue)? = object["message-storage-policy"],
              let policy = MessageStoragePolicy(rawValue: policyValue)
        else { return .failure(Rejection(.badRequestParams)) }
        guard let pushType = object["push-type"]?.stringValue else { return .failure(Rejection(.missingPushType)) }
        guard pushType.lowercased() == PushType.liveActivity.rawValue else { return .failure(Rejection(.invalidPushType)) }
        let created = state.withLock { state -> String? in
            let channel = BroadcastChannel(id: BroadcastChannel.randomID(using: &state.random), storagePolicy: policy)
            return state.channels.add(channel, bundleID: bundleID) ? channel.id : nil
        }
        guard let created else { return .failure(Rejection(.cannotCreateChannelConfig)) }
        return .success(SimulatorResponse(status: 201, headers: [idHeader, HTTPHeader("apns-channel-id", created)], body: []))
    }

    private func readChannel(bundleID: String, request: SimulatorRequest, idHeader: HTTPHeader) -> Result<SimulatorResponse, Rejection> {
        existingChannel(bundleID: bundleID, request: request).map { channel in
            .json(.object([
                "message-storage-policy": .integer(channel.storagePolicy.rawValue),
                "push-type": "LiveActivity",
            ]), status: 200, headers: [idHeader])
        }
    }

    private func deleteChannel(bundleID: String, request: SimulatorRequest, idHeader: HTTPHeader) -> Result<SimulatorResponse, Rejection> {
        existingChannel(bundleID: bundleID, request: request).flatMap { channel in
            guard state.withLock({ $0.channels.remove(channel.id, bundleID: bundleID) }) else {
                return .failure(Rejection(.channelNotRegistered))
            }
            return .success(SimulatorResponse(status: 204, headers: [idHeader], body: []))
        }
    }

    private func listChannels(bundleID: String, idHeader: HTTPHeader) -> SimulatorResponse {
        let ids = state.withLock { $0.channels.ids(bundleID: bundleID) }
        return .json(.object(["channels": .array(ids.map(JSONValue.string))]), status: 200, headers: [idHeader])
    }

    /// The channel named by `apns-channel-id`: `MissingChannelId`, `BadChannelId` or
    /// `ChannelNotRegistered` otherwise.
    private func existingChannel(bundleID: String, request: SimulatorRequest) -> Result<BroadcastChannel, Rejection> {
        guard let id = request.text(request.apns.channelID) else { return .failure(Rejection(.missingChannelId)) }
        guard BroadcastChannel.isWellFormedID(id) else { return .failure(Rejection(.badChannelId)) }
        guard let channel = state.withLock({ $0.channels.channel(id, bundleID: bundleID) }) else {
            return .failure(Rejection(.channelNotRegistered))
        }
        return .success(channel)
    }
}
