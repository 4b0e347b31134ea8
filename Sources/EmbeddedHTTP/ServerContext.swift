/// What the C callbacks need: the handler and the body limit. Retained by the server until the
/// daemon has stopped, so it outlives every callback.
final class ServerContext: Sendable {
    let maximumBodyBytes: Int
    let handler: @Sendable (EmbeddedHTTPRequest) -> EmbeddedHTTPResponse

    init(maximumBodyBytes: Int, handler: @escaping @Sendable (EmbeddedHTTPRequest) -> EmbeddedHTTPResponse) {
        self.maximumBodyBytes = maximumBodyBytes
        self.handler = handler
    }
}
