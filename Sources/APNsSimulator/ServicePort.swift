/// Which APNs service a listening port emulates.
public enum ServicePort: Sendable, Equatable {
    /// `api[.sandbox].push.apple.com`: device pushes (`/3/device/…`) and broadcast publishing
    /// (`/4/broadcasts/apps/…`).
    case device
    /// `api-manage-broadcast[.sandbox].push.apple.com`: the channel management API (`/1/apps/…`).
    case channelManagement
}
