/// The `apns-expiration` header: how long APNs stores a notification for an offline device.
public enum APNsExpiration: Hashable, Sendable {
    /// No header: APNs applies its default storage policy.
    case unspecified
    /// `0`: one delivery attempt, nothing stored.
    case immediately
    /// Store and retry until this UNIX time, in seconds (APNs keeps at most 30 days).
    case at(unixSeconds: Int64)

    /// The header value, or nil when the header is not sent.
    public var headerValue: String? {
        switch self {
        case .unspecified: nil
        case .immediately: "0"
        case .at(let seconds): String(seconds)
        }
    }

    /// Reads a header value: a non-negative count of seconds, `0` meaning immediately.
    public init?(headerValue: String) {
        guard let seconds = Int64(headerValue), seconds >= 0 else { return nil }
        self = seconds == 0 ? .immediately : .at(unixSeconds: seconds)
    }
}
