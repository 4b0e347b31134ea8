internal import CNghttp2
#if canImport(Glibc)
import Glibc
#endif
import HTTPFields

/// An nghttp2 session in memory mode (`mem_recv`/`mem_send`), for either role.
///
/// nghttp2 calls back from inside `receive`, `produce` and `submit…`; the callbacks only *record*
/// (complete requests, complete responses, resets, GOAWAY, settings) and the owning connection acts
/// on the records after the call returns. Not thread-safe: it belongs to its connection's loop.
final class HTTP2Session {
    enum Role { case server, client }

    /// What the session saw since the owner last took the events.
    enum Event {
        case request(HTTP2Request)
        case response(streamID: Int32, HTTP2Response)
        /// A stream ended without a complete message (RST_STREAM, GOAWAY, connection error).
        case streamFailed(streamID: Int32, errorCode: UInt32)
        case goAway(HTTP2GoAway)
        case remoteSettingsChanged
        /// The peer answered our PING.
        case pingAcknowledged
    }

    /// One open stream: the message being received, and the body being sent (a request's or a
    /// response's). A class, so each callback mutates it in place after one lookup.
    ///
    /// Its properties, and the session's own below, are marked `@exclusivity(unchecked)`: only the
    /// connection's loop thread touches them, each callback reads or changes one and returns (nghttp2
    /// calls back one at a time, never from inside another), so no two accesses overlap. The runtime
    /// checks cost a thread-local look-up per access, a few percent of a server's time per request.
    private final class PartialMessage {
        /// Server role: every field of the request; client role: the response's regular fields
        /// kept. As bytes.
        @exclusivity(unchecked) var fields = HTTPFieldBlock()
        /// Client role: the response's `:status` and the framing checks nghttp2 no longer makes.
        @exclusivity(unchecked) var check = ResponseCheck()
        /// Client role: the stream was reset for a malformed response.
        @exclusivity(unchecked) var isReset = false
        @exclusivity(unchecked) var body: [UInt8] = []
        @exclusivity(unchecked) var complete = false
        /// The body nghttp2 reads from while it produces DATA frames, and how much it has read.
        @exclusivity(unchecked) var outgoing: [UInt8] = []
        @exclusivity(unchecked) var outgoingOffset = 0

        /// Empties the message for another stream. A client's response fields and body went to the
        /// finished response (which may outlive the stream), so they are let go rather than emptied
        /// in place, which would copy them (an APNs answer keeps its ids; most have no body). A server's
        /// request was handed on and let go by the time its stream closes (the response is sent),
        /// so its field and body storage is emptied in place and serves the next request.
        func reset(role: Role) {
            switch role {
            case .server:
                fields.removeAll()
                body.removeAll(keepingCapacity: true)
            case .client:
                fields = HTTPFieldBlock()
                body = []
            }
            check = ResponseCheck()
            isReset = false
            complete = false
            outgoing = []
            outgoingOffset = 0
        }
    }

    /// Messages of closed streams, handed to new ones instead of allocating a message and its
    /// field and body storage per stream. As many as a busy client keeps streams open (a sender
    /// runs hundreds at once per connection), so a server's messages keep their storage.
    @exclusivity(unchecked) private var spareMessages: [PartialMessage] = []
    private static let spareMessageLimit = 1024

    let role: Role
    /// Client role: the only regular response fields kept (lower-case names); nil keeps every field.
    /// The others are skipped before anything is copied of them; the kept ones are copied as bytes
    /// into their response's block.
    private let keptResponseFields: [[UInt8]]?
    private var session: OpaquePointer!
    @exclusivity(unchecked) private var partial = StreamTable<PartialMessage>()
    /// The message the last callback touched: a stream's HEADERS and DATA callbacks come in runs.
    /// Not retained, and lent without a retain (see ``withMessage(_:_:)``): `partial` holds the
    /// message until its stream closes, and `streamClosed` forgets it first.
    @exclusivity(unchecked) private var recentStreamID: Int32 = 0
    @exclusivity(unchecked) private var recentMessage: Unmanaged<PartialMessage>?
    /// Reused between submissions: header bytes and the `nghttp2_nv` array pointing into them.
    @exclusivity(unchecked) private var headerStorage: [UInt8] = []
    @exclusivity(unchecked) private var headerRanges: [(name: Range<Int>, value: Range<Int>)] = []
    /// What the reused storage holds after a request: its `:method`, `:scheme` and `:authority`,
    /// the same for nearly every request of a connection, and so kept for the next (the `:path` is
    /// joined in ``pathStorage``).
    @exclusivity(unchecked) private var requestPrefix: (method: String, scheme: String, authority: String)?
    /// Reused between submissions: the request's `:path`, its route and the rest joined.
    @exclusivity(unchecked) private var pathStorage: [UInt8] = []
    @exclusivity(unchecked) private var events: [Event] = []

    init(role: Role, keepingResponseFields keptNames: [String]? = nil) throws(HTTP2Error) {
        self.role = role
        self.keptResponseFields = keptNames.map { $0.map { Array($0.utf8) } }
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { throw HTTP2Error("nghttp2_session_callbacks_new") }
        defer { nghttp2_session_callbacks_del(callbacks) }
        // A client's messages exist from its submission on: nothing to begin per response.
        if role == .server { nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrame)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        var options: OpaquePointer?
        guard nghttp2_option_new(&options) == 0, let options else { throw HTTP2Error("nghttp2_option_new") }
        defer { nghttp2_option_del(options) }
        if role == .client {
            // A client reads only `:status` and a few `apns-*` fields of a response, each checked
            // where it is read; nghttp2's HTTP semantics checks of every received field (names,
            // values, pseudo-headers, content-length) cost more than the rest of its header handling.
            // The checks a response's framing needs are made by `ResponseCheck` instead.
            nghttp2_option_set_no_http_messaging(options, 1)
        }
        var created: OpaquePointer?
        let context = Unmanaged.passUnretained(self).toOpaque()
        let result = role == .server
            ? nghttp2_session_server_new2(&created, callbacks, context, options)
            : nghttp2_session_client_new2(&created, callbacks, context, options)
        guard result == 0, let created else { throw HTTP2Error("nghttp2 session", code: result) }
        session = created
    }

    deinit {
        nghttp2_session_del(session)
    }

    /// Hands the events recorded so far to the caller, in `buffer` (emptied first); the two arrays
    /// trade storage, so neither is allocated again.
    func takeEvents(into buffer: inout [Event]) {
        buffer.removeAll(keepingCapacity: true)
        swap(&buffer, &events)
    }

    // MARK: Input and output

    /// Feeds received plaintext; callbacks run inside.
    func receive(_ bytes: UnsafeRawBufferPointer) throws(HTTP2Error) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let consumed = nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        guard consumed >= 0 else { throw HTTP2Error("nghttp2_session_mem_recv", code: Int32(consumed)) }
    }

    /// Appends every frame nghttp2 has ready to `output`, so many frames leave in one TLS write.
    func produce(into output: inout [UInt8]) throws(HTTP2Error) {
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            guard count >= 0 else { throw HTTP2Error("nghttp2_session_mem_send", code: Int32(count)) }
            guard count > 0, let data else { return }
            // The buffer is valid only until the next nghttp2 call: copy now.
            output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        }
    }

    /// False once both sides are done (after GOAWAY, or a fatal error): the connection can close.
    var isActive: Bool {
        nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
    }

    // MARK: Submitting

    func submitSettings(_ settings: [(id: Int32, value: UInt32)]) throws(HTTP2Error) {
        let entries = settings.map { nghttp2_settings_entry(settings_id: $0.id, value: $0.value) }
        let result = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), entries, entries.count)
        guard result == 0 else { throw HTTP2Error("nghttp2_submit_settings", code: result) }
    }

    func submitServerSettings(_ settings: HTTP2Settings) throws(HTTP2Error) {
        try submitSettings([
            (Int32(NGHTTP2_SETTINGS_HEADER_TABLE_SIZE.rawValue), settings.headerTableSize),
            (Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), settings.maxConcurrentStreams),
            (Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), settings.initialWindowSize),
            (Int32(NGHTTP2_SETTINGS_MAX_FRAME_SIZE.rawValue), settings.maxFrameSize),
            (Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), settings.maxHeaderListSize),
        ])
    }

    func submitMaxConcurrentStreams(_ limit: UInt32) throws(HTTP2Error) {
        try submitSettings([(Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), limit)])
    }

    /// The client's opening SETTINGS: no server push.
    func submitClientSettings() throws(HTTP2Error) {
        try submitSettings([(Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), 0)])
    }

    func submitResponse(streamID: Int32, _ response: HTTP2Response) throws(HTTP2Error) {
        try submitResponse(streamID: streamID, status: response.status, fields: response.fields, body: response.body)
    }

    /// Answers a request with `:status` and the regular fields of `fields`, lent to nghttp2 in
    /// place with their indexing.
    func submitResponse(streamID: Int32, status: Int, fields: HTTPFieldBlock, body: [UInt8]) throws(HTTP2Error) {
        startHeaderFields()
        appendHeaderField(":status", String(status))
        // The stream's message lives until the stream closes; without one, nghttp2 refuses below.
        let stream = partial[streamID]
        stream?.outgoing = body
        let result = withHeaderFields(then: fields) { nva, count in
            withBodyProvider(hasBody: !body.isEmpty) { provider in
                nghttp2_submit_response(session, streamID, nva, count, provider)
            }
        }
        // The stream may already be closed (reset by the client): nothing to answer then.
        guard result == 0 || result == NGHTTP2_ERR_INVALID_ARGUMENT.rawValue || result == NGHTTP2_ERR_STREAM_CLOSED.rawValue
        else { throw HTTP2Error("nghttp2_submit_response", code: result) }
        if result != 0 { stream?.outgoing = [] }
    }

    /// Opens a stream for a request and returns its id. The regular fields are the connection's
    /// own (`connectionFields`, such as a provider token) followed by the request's `fields`, both
    /// lent to nghttp2 in place.
    func submitRequest(method: String, scheme: String, authority: String, path: HTTP2RequestPath,
                       connectionFields: HTTPFieldBlock?, fields: HTTPFieldBlock, body: [UInt8]) throws(HTTP2Error) -> Int32 {
        // Compared where they lie (mapping the optional copied the three strings per request); no
        // prefix yet compares unequal.
        if requestPrefix?.method != method || requestPrefix?.scheme != scheme || requestPrefix?.authority != authority {
            startHeaderFields()
            appendHeaderField(":method", method)
            appendHeaderField(":scheme", scheme)
            appendHeaderField(":authority", authority)
            requestPrefix = (method, scheme, authority)
        }
        // The path is joined in the session's own buffer (nghttp2 copies the fields it is given).
        pathStorage.removeAll(keepingCapacity: true)
        path.route.withUTF8Buffer { pathStorage.append(contentsOf: $0) }
        path.rest.withContiguousUTF8 { pathStorage.append(contentsOf: $0) }
        // nghttp2 reads the body only while producing frames, after the stream has its message.
        let streamID = pathStorage.withUnsafeBufferPointer { path in
            withHeaderFields(path: path, then: connectionFields ?? HTTPFieldBlock(), fields) { nva, count in
                withBodyProvider(hasBody: !body.isEmpty) { provider in
                    nghttp2_submit_request(session, nil, nva, count, provider, nil)
                }
            }
        }
        guard streamID > 0 else { throw HTTP2Error("nghttp2_submit_request", code: streamID) }
        let message = newMessage()
        message.outgoing = body
        if method == "HEAD" { message.check.expectsBody = false }
        partial[streamID] = message
        return streamID
    }

    func submitGoAway(lastStreamID: Int32?, errorCode: UInt32, debugData: [UInt8]) throws(HTTP2Error) {
        let last = lastStreamID ?? nghttp2_session_get_last_proc_stream_id(session)
        let result = debugData.withUnsafeBufferPointer { data in
            nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, errorCode, data.baseAddress, data.count)
        }
        guard result == 0 else { throw HTTP2Error("nghttp2_submit_goaway", code: result) }
    }

    func submitReset(streamID: Int32, errorCode: UInt32) {
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode)
    }

    /// Client role: whether the whole request of `streamID` was produced for the network (its
    /// END_STREAM sent), so that the server may have processed it.
    func requestSent(streamID: Int32) -> Bool {
        nghttp2_session_get_stream_local_close(session, streamID) == 1
    }

    func submitPing() {
        _ = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
    }

    /// Streams opened by the peer and not yet closed (server role).
    var activeStreamCount: Int { partial.count }

    /// The peer's SETTINGS_MAX_CONCURRENT_STREAMS (client role).
    var remoteMaxConcurrentStreams: UInt32 {
        nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
    }

    /// How many more streams the peer currently allows us to open.
    var availableOutgoingStreams: Int {
        Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)) - outgoingStreamsOpen
    }

    private var outgoingStreamsOpen: Int { role == .client ? partial.count : 0 }

    // MARK: Helpers for submit

    /// Empties the reused header storage before the fields of one submission are appended.
    private func startHeaderFields() {
        headerStorage.removeAll(keepingCapacity: true)
        headerRanges.removeAll(keepingCapacity: true)
        requestPrefix = nil
    }

    /// Copies one field into the reused storage: no array of fields is built per submission.
    private func appendHeaderField(_ name: String, _ value: String) {
        let nameStart = headerStorage.count
        name.withContiguousUTF8 { headerStorage.append(contentsOf: $0) }
        let valueStart = headerStorage.count
        value.withContiguousUTF8 { headerStorage.append(contentsOf: $0) }
        headerRanges.append((nameStart..<valueStart, valueStart..<headerStorage.count))
    }

    /// Lends nghttp2 the appended fields, then `:path` when given, then the fields of `first` and
    /// `second`, as an `nghttp2_nv` array whose names and values stay valid for the one call
    /// (nghttp2 copies them).
    private func withHeaderFields<Result>(
        path: UnsafeBufferPointer<UInt8>? = nil,
        then first: HTTPFieldBlock = HTTPFieldBlock(), _ second: HTTPFieldBlock = HTTPFieldBlock(),
        _ body: (UnsafePointer<nghttp2_nv>, Int) -> Result
    ) -> Result {
        if headerStorage.isEmpty { headerStorage.append(0) } // a valid base address even without fields
        let ranges = headerRanges
        let count = ranges.count + (path == nil ? 0 : 1) + first.count + second.count
        return headerStorage.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            return withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: count) { nva in
                var index = 0
                for range in ranges {
                    nva[index] = nghttp2_nv(name: base + range.name.lowerBound, value: base + range.value.lowerBound,
                                            namelen: range.name.count, valuelen: range.value.count,
                                            flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
                    index += 1
                }
                if let path {
                    nva[index] = Self.nameValue((Self.pathName, path, .allowed))
                    index += 1
                }
                return first.withUnsafeFields { firstFields in
                    second.withUnsafeFields { secondFields in
                        for field in firstFields { nva[index] = Self.nameValue(field); index += 1 }
                        for field in secondFields { nva[index] = Self.nameValue(field); index += 1 }
                        return body(UnsafePointer(nva.baseAddress!), count)
                    }
                }
            }
        }
    }

    /// One field of a block as nghttp2 takes it; unique values are marked never to be indexed.
    private static func nameValue(
        _ field: (name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, indexing: HTTPFieldBlock.Indexing)
    ) -> nghttp2_nv {
        // Empty buffers may have no base address; nghttp2 reads nothing through a zero length.
        let empty = UnsafeMutablePointer<UInt8>(bitPattern: 1)!
        return nghttp2_nv(name: field.name.baseAddress.map { UnsafeMutablePointer(mutating: $0) } ?? empty,
                          value: field.value.baseAddress.map { UnsafeMutablePointer(mutating: $0) } ?? empty,
                          namelen: field.name.count, valuelen: field.value.count,
                          flags: UInt8(field.indexing == .never ? NGHTTP2_NV_FLAG_NO_INDEX.rawValue : NGHTTP2_NV_FLAG_NONE.rawValue))
    }

    /// A data provider reading the stream's `outgoing` body (kept in its message, since nghttp2
    /// reads it while producing frames later); nil for an empty body, so HEADERS carries END_STREAM.
    private func withBodyProvider(hasBody: Bool, _ call: (UnsafePointer<nghttp2_data_provider>?) -> Int32) -> Int32 {
        guard hasBody else { return call(nil) }
        var provider = nghttp2_data_provider(source: nghttp2_data_source(fd: 0), read_callback: readBody)
        return call(&provider)
    }

    // MARK: Callback bodies (recording only)

    /// Lends `body` the message of `streamID`; nil when the stream has none. Lent without a retain
    /// (`partial` holds it meanwhile), and the last one touched again without a lookup: a client's
    /// HEADERS and DATA frames come in runs, though nghttp2 sends a batch's HEADERS before its DATA.
    private func withMessage<Result>(_ streamID: Int32, _ body: (PartialMessage) -> Result) -> Result? {
        if let recentMessage, recentStreamID == streamID { return recentMessage._withUnsafeGuaranteedRef(body) }
        guard let found = partial.unretainedValue(forKey: streamID) else { return nil }
        recentStreamID = streamID
        recentMessage = found
        return found._withUnsafeGuaranteedRef(body)
    }

    fileprivate func beginHeaders(streamID: Int32) {
        let message = newMessage()
        partial[streamID] = message
        recentStreamID = streamID
        recentMessage = Unmanaged.passUnretained(message)
    }

    fileprivate func header(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        // A server session keeps nghttp2's checks, so a request's fields are valid here; each is
        // copied as it is into the request's block (no `String` per name and value).
        guard role == .client else {
            withMessage(streamID) { $0.fields.append(name: name, value: value) }
            return
        }
        // Most fields are regular: one byte tells, instead of comparing with `:status`.
        // A field not kept is dropped before its stream's message is even looked up.
        guard name.first == UInt8(ascii: ":") else {
            if Self.bytes(Self.contentLengthName, equal: name) {
                withMessage(streamID) { $0.check.readContentLength(value) }
            }
            if let kept = keptResponseFields, !kept.contains(where: { Self.bytes($0, equal: name) }) { return }
            withMessage(streamID) { message in
                // Room for APNs' two ids at once: the block grows only for more or longer fields.
                if message.fields.count == 0 { message.fields = HTTPFieldBlock(reservingCapacity: Self.keptFieldsCapacity) }
                message.fields.append(name: name, value: value)
            }
            return
        }
        // A response's only pseudo-header, compared as bytes.
        withMessage(streamID) { message in
            if Self.bytes(Self.statusName, equal: name) { message.check.readStatus(value) } else { message.check.readOtherPseudoHeader() }
        }
    }

    /// Bytes reserved for a response's kept fields: `apns-id` and `apns-unique-id` with their
    /// 36-character values take 111 (``HTTPFieldBlock`` adds nine bytes per field).
    private static var keptFieldsCapacity: Int { 128 }
    private static let statusName = Array(":status".utf8)
    private static let contentLengthName = Array("content-length".utf8)
    /// The name of `:path`, in static storage that outlives every nghttp2 call.
    private static var pathName: UnsafeBufferPointer<UInt8> {
        let name: StaticString = ":path"
        return UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
    }

    private static func bytes(_ expected: [UInt8], equal bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard expected.count == bytes.count else { return false }
        guard let base = bytes.baseAddress else { return true }
        return expected.withUnsafeBufferPointer { memcmp($0.baseAddress!, base, bytes.count) == 0 }
    }

    fileprivate func data(streamID: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        withMessage(streamID) { message in
            if role == .client {
                message.check.receiveData()
                guard !resetIfMalformed(message, streamID: streamID) else { return }
            }
            message.body.append(contentsOf: bytes)
        }
    }

    /// A HEADERS frame and its CONTINUATIONs ended: a client checks the block (an informational
    /// one's fields are dropped, a malformed response's stream reset).
    fileprivate func headerBlockEnded(streamID: Int32, endsStream: Bool) {
        if role == .client {
            withMessage(streamID) { message in
                if message.check.endHeaderBlock(endsStream: endsStream) == .informational { message.fields.removeAll() }
                _ = resetIfMalformed(message, streamID: streamID)
            }
        }
        if endsStream { endOfStream(streamID: streamID) }
    }

    /// Resets the stream of a malformed response with PROTOCOL_ERROR (once) and tells whether it
    /// is malformed; its stream then fails instead of answering (see `streamClosed`).
    private func resetIfMalformed(_ message: PartialMessage, streamID: Int32) -> Bool {
        guard message.check.isMalformed else { return false }
        if !message.isReset {
            message.isReset = true
            submitReset(streamID: streamID, errorCode: HTTP2ErrorCode.protocolError)
        }
        return true
    }

    fileprivate func endOfStream(streamID: Int32) {
        withMessage(streamID) { message in
            guard !message.complete else { return }
            if role == .client {
                message.check.endStream(bodyCount: message.body.count)
                guard !resetIfMalformed(message, streamID: streamID) else { return }
            }
            message.complete = true
            switch role {
            case .server:
                events.append(.request(HTTP2Request(streamID: streamID, fields: message.fields, body: message.body)))
            case .client:
                events.append(.response(streamID: streamID, HTTP2Response(status: message.check.status, fields: message.fields,
                                                                          body: message.body)))
            }
        }
    }

    fileprivate func goAway(_ goAway: HTTP2GoAway) {
        events.append(.goAway(goAway))
    }

    fileprivate func pingAcknowledged() {
        events.append(.pingAcknowledged)
    }

    fileprivate func remoteSettingsChanged() {
        events.append(.remoteSettingsChanged)
    }

    fileprivate func streamClosed(streamID: Int32, errorCode: UInt32) {
        if recentStreamID == streamID { recentMessage = nil }
        guard let message = partial.removeValue(forKey: streamID) else { return }
        if !message.complete {
            // A malformed response's stream may close cleanly (both sides ended) before our reset leaves.
            events.append(.streamFailed(streamID: streamID, errorCode: message.isReset ? HTTP2ErrorCode.protocolError : errorCode))
        }
        if spareMessages.count < Self.spareMessageLimit {
            message.reset(role: role)
            spareMessages.append(message)
        }
    }

    private func newMessage() -> PartialMessage {
        spareMessages.popLast() ?? PartialMessage()
    }

    fileprivate func readOutgoing(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) -> (count: Int, finished: Bool) {
        withMessage(streamID) { stream in
            let count = min(capacity, stream.outgoing.count - stream.outgoingOffset)
            stream.outgoing.withUnsafeBufferPointer { source in
                if count > 0 { buffer.update(from: source.baseAddress! + stream.outgoingOffset, count: count) }
            }
            stream.outgoingOffset += count
            let finished = stream.outgoingOffset == stream.outgoing.count
            if finished { stream.outgoing = [] }
            return (count, finished)
        } ?? (0, true)
    }
}

/// A failed nghttp2 call, with nghttp2's error text.
public struct HTTP2Error: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let code: Int32

    init(_ operation: String, code: Int32 = 0) {
        self.operation = operation
        self.code = code
    }

    public var description: String {
        code == 0 ? operation : "\(operation): \(String(cString: nghttp2_strerror(code)))"
    }
}

// MARK: - nghttp2 callbacks: recover the session, record, return 0.

/// Lends `body` the session nghttp2 calls back for. The session is alive for the whole nghttp2
/// call that leads here, so it is borrowed without the retain and release `takeUnretainedValue()`
/// would cost on every callback (nghttp2 calls back per header field).
private func withOwner<Result>(_ userData: UnsafeMutableRawPointer?, _ body: (HTTP2Session) -> Result) -> Result {
    Unmanaged<HTTP2Session>.fromOpaque(userData!)._withUnsafeGuaranteedRef(body)
}

private func onBeginHeaders(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?,
                            _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
    withOwner(userData) { $0.beginHeaders(streamID: frame.pointee.hd.stream_id) }
    return 0
}

private func onHeader(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?,
                      _ name: UnsafePointer<UInt8>?, _ nameLength: Int, _ value: UnsafePointer<UInt8>?,
                      _ valueLength: Int, _ flags: UInt8, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, let name, let value else { return 0 }
    withOwner(userData) { owner in
        owner.header(streamID: frame.pointee.hd.stream_id, name: UnsafeBufferPointer(start: name, count: nameLength),
                     value: UnsafeBufferPointer(start: value, count: valueLength))
    }
    return 0
}

private func onDataChunk(_ session: OpaquePointer?, _ flags: UInt8, _ streamID: Int32, _ data: UnsafePointer<UInt8>?,
                         _ length: Int, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let data else { return 0 }
    withOwner(userData) { $0.data(streamID: streamID, UnsafeBufferPointer(start: data, count: length)) }
    return 0
}

private func onFrame(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?,
                     _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame else { return 0 }
    let header = frame.pointee.hd
    withOwner(userData) { owner in
        switch UInt32(header.type) {
        case NGHTTP2_HEADERS.rawValue:
            owner.headerBlockEnded(streamID: header.stream_id, endsStream: header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0)
        case NGHTTP2_DATA.rawValue:
            if header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 { owner.endOfStream(streamID: header.stream_id) }
        case NGHTTP2_GOAWAY.rawValue:
            let goAway = frame.pointee.goaway
            let debug = goAway.opaque_data.map { Array(UnsafeBufferPointer(start: $0, count: goAway.opaque_data_len)) } ?? []
            owner.goAway(HTTP2GoAway(lastStreamID: goAway.last_stream_id, errorCode: goAway.error_code, debugData: debug))
        case NGHTTP2_SETTINGS.rawValue:
            if header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 { owner.remoteSettingsChanged() }
        case NGHTTP2_PING.rawValue:
            if header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0 { owner.pingAcknowledged() }
        default:
            break
        }
    }
    return 0
}

private func onStreamClose(_ session: OpaquePointer?, _ streamID: Int32, _ errorCode: UInt32,
                           _ userData: UnsafeMutableRawPointer?) -> Int32 {
    withOwner(userData) { $0.streamClosed(streamID: streamID, errorCode: errorCode) }
    return 0
}

private func readBody(_ session: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
                      _ flags: UnsafeMutablePointer<UInt32>?, _ source: UnsafeMutablePointer<nghttp2_data_source>?,
                      _ userData: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
    let (count, finished) = withOwner(userData) { $0.readOutgoing(streamID: streamID, into: buffer, capacity: length) }
    if finished { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
    return count
}
