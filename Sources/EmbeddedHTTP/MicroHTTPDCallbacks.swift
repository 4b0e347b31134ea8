internal import CMicroHTTPD

// libmicrohttpd's callbacks. They run on the daemon's thread; they never throw and never trap on
// what the peer sent: a problem becomes an HTTP error response or MHD_NO (close the connection).

/// The body of one request while it arrives; owned through the request's `req_cls` slot from the
/// first callback until `requestCompleted` releases it.
final class RequestBody {
    var bytes: [UInt8] = []
    var exceededLimit = false
}

/// `MHD_AccessHandlerCallback`: called once when the headers are in, once per body chunk, and once
/// more with no data when the request is complete; only that last call answers.
func accessHandler(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
    method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?,
    uploadDataSize: UnsafeMutablePointer<Int>?, requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let context, let connection, let url, let method, let uploadDataSize, let requestContext else { return .NO }
    let server = Unmanaged<ServerContext>.fromOpaque(context).takeUnretainedValue()
    guard let bodyPointer = requestContext.pointee else {
        requestContext.pointee = Unmanaged.passRetained(RequestBody()).toOpaque()
        return .YES
    }
    let body = Unmanaged<RequestBody>.fromOpaque(bodyPointer).takeUnretainedValue()
    if uploadDataSize.pointee > 0 {
        if let uploadData, body.bytes.count + uploadDataSize.pointee <= server.maximumBodyBytes {
            uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadDataSize.pointee) { bytes in
                body.bytes.append(contentsOf: UnsafeBufferPointer(start: bytes, count: uploadDataSize.pointee))
            }
        } else {
            body.exceededLimit = true
        }
        uploadDataSize.pointee = 0
        return .YES
    }
    let response: EmbeddedHTTPResponse
    if body.exceededLimit {
        response = .text("request body larger than \(server.maximumBodyBytes) bytes\n", status: 413)
    } else {
        let request = EmbeddedHTTPRequest(
            method: String(cString: method), path: String(cString: url),
            query: queryArguments(of: connection), body: body.bytes
        )
        response = server.handler(request)
    }
    return queue(response, on: connection)
}

/// `MHD_RequestCompletedCallback`: frees the request's body, however the request ended.
func requestCompleted(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, reason: MHD_RequestTerminationCode
) {
    guard let requestContext, let bodyPointer = requestContext.pointee else { return }
    Unmanaged<RequestBody>.fromOpaque(bodyPointer).release()
    requestContext.pointee = nil
}

/// Collects query arguments through `MHD_get_connection_values`, which libmicrohttpd has already
/// split and percent-decoded.
private final class QueryCollector {
    var arguments: [String: String] = [:]
}

private func queryArguments(of connection: OpaquePointer) -> [String: String] {
    let collector = QueryCollector()
    withExtendedLifetime(collector) {
        _ = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, collectArgument,
                                      Unmanaged.passUnretained(collector).toOpaque())
    }
    return collector.arguments
}

/// `MHD_KeyValueIterator` for query arguments; a name without `=value` has an empty value.
private func collectArgument(
    context: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let context, let key else { return .YES }
    let collector = Unmanaged<QueryCollector>.fromOpaque(context).takeUnretainedValue()
    collector.arguments[String(cString: key)] = value.map { String(cString: $0) } ?? ""
    return .YES
}

private func queue(_ response: EmbeddedHTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    var body = response.body
    let handle = body.withUnsafeMutableBytes { raw in
        MHD_create_response_from_buffer(raw.count, raw.baseAddress, .RESPMEM_MUST_COPY)
    }
    guard let handle else { return .NO }
    defer { MHD_destroy_response(handle) }
    guard MHD_add_response_header(handle, "Content-Type", response.contentType) == .YES else { return .NO }
    return MHD_queue_response(connection, UInt32(clamping: response.status), handle)
}
