/// What a route decided, before the steps every push shares.
enum RouteOutcome {
    /// Refused; the answer carries `idHeader` (`apns-id` or `apns-request-id`).
    case rejected(Rejection, idHeader: HTTPHeader)
    /// A push that passed its checks: delivered and answered with `success`, unless the per-device
    /// rate or an injected error refuses it (then answered with `idHeader`).
    case deliverable(DeliveredNotification, success: SimulatorResponse, idHeader: HTTPHeader)
    /// A final answer that no fault replaces (channel management).
    case answered(SimulatorResponse)
}
