/// The values of the headers APNs reads, found in one pass over a request's headers: the checks of
/// one push read them about ten times, and searching the header array each time cost more than the
/// checks themselves.
///
/// Only these names count for `DuplicateHeaders`: the simulator ignores every other header (spec
/// §7.5), repeated or not. Each value is the first one sent.
struct APNsHeaders: Sendable {
    var authorization: String?
    var id: String?
    var expiration: String?
    var priority: String?
    var topic: String?
    var pushType: String?
    var collapseID: String?
    var channelID: String?
    var requestID: String?
    /// Whether one of these names appears more than once.
    private(set) var hasRepeatedName = false

    init(_ headers: [HTTPHeader]) {
        for header in headers { read(header) }
    }

    /// Names are told apart by their length first, so most headers are compared with one name.
    private mutating func read(_ header: HTTPHeader) {
        let value = header.value
        let isNew: Bool
        switch header.name.utf8.count {
        case 7 where header.name == "apns-id": isNew = Self.keep(value, in: &id)
        case 10 where header.name == "apns-topic": isNew = Self.keep(value, in: &topic)
        case 13 where header.name == "authorization": isNew = Self.keep(value, in: &authorization)
        case 13 where header.name == "apns-priority": isNew = Self.keep(value, in: &priority)
        case 14 where header.name == "apns-push-type": isNew = Self.keep(value, in: &pushType)
        case 15 where header.name == "apns-expiration": isNew = Self.keep(value, in: &expiration)
        case 15 where header.name == "apns-channel-id": isNew = Self.keep(value, in: &channelID)
        case 15 where header.name == "apns-request-id": isNew = Self.keep(value, in: &requestID)
        case 16 where header.name == "apns-collapse-id": isNew = Self.keep(value, in: &collapseID)
        default: isNew = true
        }
        if !isNew { hasRepeatedName = true }
    }

    /// Keeps `value` unless the slot holds one already; false when it did.
    private static func keep(_ value: String, in slot: inout String?) -> Bool {
        guard slot == nil else { return false }
        slot = value
        return true
    }
}
