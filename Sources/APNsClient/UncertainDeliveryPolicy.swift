/// What happens to a delivery that APNs may or may not have taken: a stream reset or a connection
/// lost after its request was written, a request that timed out, or a delivery whose worker died
/// while it was at APNs (its claim left `pending` by an owner that no longer lives).
/// APNs has no idempotency key, so nothing can tell which; the pipeline chooses what to risk.
public enum UncertainDeliveryPolicy: String, Sendable, CaseIterable {
    /// Send it again: at-least-once (a device may get it twice). The default.
    case resend
    /// Do not send it again: at-most-once; its outcome is `unknown`.
    case skip
}
