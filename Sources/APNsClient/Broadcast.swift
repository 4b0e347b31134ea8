import APNsCore
import HTTP2

/// A Live Activity update published to a broadcast channel (`POST /4/broadcasts/apps/<bundle id>`).
public struct BroadcastMessage: Sendable {
    /// The bare bundle id: broadcasts never carry a push-type suffix.
    public var bundleID: String
    /// `apns-channel-id`, base64 as APNs returned it.
    public var channelID: String
    public var priority: APNsPriority
    /// Required on broadcasts; `0` on a "no message stored" channel.
    public var expiration: APNsExpiration
    /// `apns-request-id`; echoed by APNs.
    public var requestID: NotificationID
    public var payload: [UInt8]

    public init(bundleID: String, channelID: String, priority: APNsPriority = .immediate,
                expiration: APNsExpiration = .immediately, requestID: NotificationID = .random(), payload: [UInt8]) {
        self.bundleID = bundleID
        self.channelID = channelID
        self.priority = priority
        self.expiration = expiration
        self.requestID = requestID
        self.payload = payload
    }

    var request: APNsRequest {
        var fields = HTTP2FieldBlock()
        fields.append("apns-push-type", PushType.liveActivity.rawValue)
        fields.append("apns-channel-id", channelID)
        fields.append("apns-priority", priority.description)
        fields.append("apns-expiration", expiration.headerValue ?? "0")
        fields.append("apns-request-id", requestID.description, indexing: .never)
        return APNsRequest(method: "POST", path: HTTP2RequestPath(route: "/4/broadcasts/apps/", bundleID), fields: fields, body: payload, throttleKey: nil)
    }
}

/// What APNs answered to a broadcast or channel-management request.
public struct BroadcastResult: Sendable, Equatable {
    public var outcome: DeliveryResult.Outcome
    public var status: Int?
    /// `apns-request-id` as answered.
    public var requestID: String?
    /// `apns-unique-id` of a published broadcast.
    public var uniqueID: String?
    public var reason: RejectionReason?
    public var attempts: Int
    public var failureDetail: String?

    init(_ outcome: RequestOutcome) {
        self.outcome = outcome.outcome
        status = outcome.response?.status
        requestID = outcome.response?.header("apns-request-id")
        uniqueID = outcome.response?.header("apns-unique-id")
        reason = outcome.outcome == .accepted ? nil : outcome.body.reason
        attempts = outcome.attempts
        failureDetail = outcome.detail
    }
}

/// A broadcast channel's message storage policy, fixed at creation.
public enum ChannelStoragePolicy: Int, Sendable {
    /// No storage for offline devices; publishing needs `apns-expiration: 0`.
    case noMessageStored = 0
    /// The latest message is kept for offline devices for up to 8 hours.
    case mostRecentMessageStored = 1
}

/// A channel-management call that did not succeed.
public struct ChannelManagementError: Error, Sendable, Equatable, CustomStringConvertible {
    public let result: BroadcastResult

    public var description: String {
        "channel management failed: \(result.status.map(String.init) ?? "no answer") \(result.reason?.rawValue ?? result.failureDetail ?? "")"
    }
}

extension APNsEnvironment {
    /// `api-manage-broadcast.push.apple.com:2196`, the production channel-management service.
    public static let productionChannelManagement = APNsEnvironment(
        host: "api-manage-broadcast.push.apple.com", port: 2196, name: "production-channels")
    /// `api-manage-broadcast.sandbox.push.apple.com:2195`.
    public static let sandboxChannelManagement = APNsEnvironment(
        host: "api-manage-broadcast.sandbox.push.apple.com", port: 2195, name: "sandbox-channels")
}

extension APNsSender {
    /// Publishes to a channel through a pool of the device service (Apple's prose names the same
    /// hosts for broadcasts; spec §9.2 notes its examples differ).
    public func broadcast(_ message: BroadcastMessage, pool: String) async throws -> BroadcastResult {
        let outcomes = try await perform([(message.request, message.expiration)], pool: pool)
        return BroadcastResult(outcomes[0])
    }

    /// Creates a Live Activity channel and returns its id. `pool` must point at a channel-management service.
    public func createChannel(bundleID: String, storagePolicy: ChannelStoragePolicy, pool: String) async throws -> String {
        var body: [UInt8] = []
        JSONWriter.appendValue(.object(["message-storage-policy": .integer(Int64(storagePolicy.rawValue)), "push-type": "LiveActivity"]), to: &body)
        let response = try await manage("POST", channelsPath(bundleID), channelID: nil, body: body, pool: pool)
        guard let channelID = response.header("apns-channel-id") else {
            throw ChannelManagementError(result: BroadcastResult(RequestOutcome(
                outcome: .failed, response: response, body: APNsResponseBody(response.body), attempts: 1, latencyMilliseconds: 0,
                detail: "no apns-channel-id in the answer")))
        }
        return channelID
    }

    /// A channel's storage policy.
    public func readChannel(bundleID: String, channelID: String, pool: String) async throws -> ChannelStoragePolicy? {
        let response = try await manage("GET", channelsPath(bundleID), channelID: channelID, body: [], pool: pool)
        guard case .object(let object)? = try? JSONParser.parse(response.body),
              case .integer(let policy)? = object["message-storage-policy"] else { return nil }
        return ChannelStoragePolicy(rawValue: Int(policy))
    }

    public func deleteChannel(bundleID: String, channelID: String, pool: String) async throws {
        _ = try await manage("DELETE", channelsPath(bundleID), channelID: channelID, body: [], pool: pool)
    }

    /// Every channel id of the app in this environment.
    public func listChannels(bundleID: String, pool: String) async throws -> [String] {
        let response = try await manage("GET", "/1/apps/\(bundleID)/all-channels", channelID: nil, body: [], pool: pool)
        guard case .object(let object)? = try? JSONParser.parse(response.body), case .array(let ids)? = object["channels"] else {
            return []
        }
        return ids.compactMap(\.stringValue)
    }

    private func channelsPath(_ bundleID: String) -> String { "/1/apps/\(bundleID)/channels" }

    private func manage(_ method: String, _ path: String, channelID: String?, body: [UInt8], pool: String) async throws -> HTTP2Response {
        var fields = HTTP2FieldBlock()
        fields.append("apns-request-id", NotificationID.random().description, indexing: .never)
        if let channelID { fields.append("apns-channel-id", channelID) }
        let request = APNsRequest(method: method, path: HTTP2RequestPath(path), fields: fields, body: body, throttleKey: nil)
        let outcome = try await perform([(request, .unspecified)], pool: pool)[0]
        guard outcome.outcome == .accepted, let response = outcome.response else {
            throw ChannelManagementError(result: BroadcastResult(outcome))
        }
        return response
    }
}
