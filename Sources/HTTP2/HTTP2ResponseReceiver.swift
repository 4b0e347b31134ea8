/// Where the end of a client request goes: the response, or why there is none. A sender with many
/// requests in flight implements it once and tells its requests apart by their `context`, instead
/// of allocating a completion closure per request. Called on the connection's event loop.
public protocol HTTP2ResponseReceiver: AnyObject {
    /// The stream of the request sent with `context` ended.
    func connection(_ connection: HTTP2Connection, endedStreamOf context: AnyObject,
                    with result: Result<HTTP2Response, HTTP2StreamFailure>)
}

/// A request in flight: who hears of its end, and what they sent it with.
struct PendingResponse {
    let receiver: HTTP2ResponseReceiver
    let context: AnyObject
}

/// Runs a completion closure: the receiver behind the closure-taking `send`, its own context.
final class CompletionReceiver: HTTP2ResponseReceiver {
    private let completion: (Result<HTTP2Response, HTTP2StreamFailure>) -> Void

    init(_ completion: @escaping (Result<HTTP2Response, HTTP2StreamFailure>) -> Void) {
        self.completion = completion
    }

    func connection(_ connection: HTTP2Connection, endedStreamOf context: AnyObject,
                    with result: Result<HTTP2Response, HTTP2StreamFailure>) {
        completion(result)
    }
}
