import APNsCore

/// The `apns-*` header values of a device push, read in the documented order (step 5 of
/// ``APNsSimulator``): push type, priority, expiration, id, collapse id.
struct DevicePushHeaders {
    /// Nil when absent; then the push type follows from the topic.
    let pushType: PushType?
    /// 10 when absent, as APNs assumes.
    let priority: APNsPriority
    let expiration: APNsExpiration
    let collapseID: CollapseID?

    static func read(_ request: SimulatorRequest) -> Result<DevicePushHeaders, Rejection> {
        var pushType: PushType?
        if let value = request.text(request.apns.pushType) {
            // Case-insensitive: whether APNs is, is unconfirmed (spec §9.3), so be lenient. Values
            // are nearly always lower-case ASCII already; then `lowercased()` would only copy.
            let isLowerCaseASCII = value.allUTF8Bytes { $0 < 0x80 && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
            guard let known = PushType(rawValue: isLowerCaseASCII ? value : value.lowercased()) else {
                return .failure(Rejection(.invalidPushType))
            }
            pushType = known
        }
        var priority = APNsPriority.immediate
        if let value = request.text(request.apns.priority) {
            guard let number = Int(value), let known = APNsPriority(rawValue: number) else {
                return .failure(Rejection(.badPriority))
            }
            priority = known
        }
        var expiration = APNsExpiration.unspecified
        if let value = request.text(request.apns.expiration) {
            guard let parsed = APNsExpiration(headerValue: value) else { return .failure(Rejection(.badExpirationDate)) }
            expiration = parsed
        }
        if let id = request.apns.id, request.withBytes(id, NotificationID.init(utf8:)) == nil {
            return .failure(Rejection(.badMessageId))
        }
        var collapseID: CollapseID?
        if let value = request.text(request.apns.collapseID) {
            guard let parsed = try? CollapseID(value) else { return .failure(Rejection(.badCollapseId)) }
            collapseID = parsed
        }
        return .success(DevicePushHeaders(pushType: pushType, priority: priority, expiration: expiration, collapseID: collapseID))
    }

    /// The push type sent, or the one whose topic suffix `topic` carries, or `alert`.
    func effectivePushType(topic: String) -> PushType {
        pushType ?? PushType.owningSuffix(of: topic) ?? .alert
    }
}
