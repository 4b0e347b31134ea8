import APNsCore

/// Why the simulator refused a request: the reason APNs would send and, for 410, the time in
/// milliseconds at which the token stopped being valid.
struct Rejection: Error, Equatable {
    let reason: RejectionReason
    let timestamp: Int64?

    init(_ reason: RejectionReason, timestamp: Int64? = nil) {
        self.reason = reason
        self.timestamp = timestamp
    }
}
