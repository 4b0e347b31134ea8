import HTTP2

/// One HTTP/2 request to an APNs service as a pool sends it: a device push, a broadcast, or a
/// channel-management call.
struct APNsRequest: Sendable {
    var method: String
    var path: HTTP2RequestPath
    /// Regular fields without `authorization`, which the pool adds per connection; packed once,
    /// where the request is made.
    var fields: HTTP2FieldBlock
    var body: [UInt8]
    /// Requests with the same key are backed off together after `TooManyRequests` (the device
    /// token for device pushes); nil for requests APNs does not throttle per device.
    var throttleKey: String?
}

/// How a request ended, as the pool reports it.
struct RequestOutcome: Sendable {
    var outcome: DeliveryResult.Outcome
    /// The final response, when APNs answered.
    var response: HTTP2Response?
    var body: APNsResponseBody
    var attempts: Int
    var latencyMilliseconds: Double
    var detail: String?
}

extension APNsNotification {
    /// The request of the notification at `notification`, each field read where it lies: a method
    /// called on an array's element copies the whole notification first (a retain and a release
    /// of each of its fields), per request.
    static func request(at notification: UnsafePointer<APNsNotification>) -> APNsRequest {
        let token = notification.pointee.deviceToken.hex
        return APNsRequest(method: "POST", path: HTTP2RequestPath(route: "/3/device/", token), fields: fields(at: notification),
                           body: notification.pointee.payload, throttleKey: token)
    }
}
