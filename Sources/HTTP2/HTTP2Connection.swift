#if canImport(Glibc)
import Glibc
#endif
import HTTPFields
import Runtime
import TLS

/// What a connection tells its owner. Called on the connection's event loop.
public protocol HTTP2ConnectionDelegate: AnyObject {
    /// Server role: TLS is up and our SETTINGS are on their way. Client role: the server's first
    /// SETTINGS arrived, so its stream limit is known and requests may be sent.
    func connectionReady(_ connection: HTTP2Connection)
    /// Server role: a complete request arrived; answer with ``HTTP2Connection/respond(streamID:_:)``.
    func connection(_ connection: HTTP2Connection, received request: HTTP2Request)
    /// The peer sent GOAWAY.
    func connection(_ connection: HTTP2Connection, receivedGoAway goAway: HTTP2GoAway)
    /// The peer changed its SETTINGS (client role: the stream limit may have changed).
    func connectionSettingsChanged(_ connection: HTTP2Connection)
    /// The peer answered a PING sent with ``HTTP2Connection/ping()``.
    func connectionPingAcknowledged(_ connection: HTTP2Connection)
    /// The connection is closed; every stream without a response has failed.
    func connectionClosed(_ connection: HTTP2Connection, error: (any Error)?)
}

extension HTTP2ConnectionDelegate {
    public func connectionReady(_ connection: HTTP2Connection) {}
    public func connection(_ connection: HTTP2Connection, received request: HTTP2Request) {}
    public func connection(_ connection: HTTP2Connection, receivedGoAway goAway: HTTP2GoAway) {}
    public func connectionSettingsChanged(_ connection: HTTP2Connection) {}
    public func connectionPingAcknowledged(_ connection: HTTP2Connection) {}
}

/// Why a client request ended without a response.
public enum HTTP2StreamFailure: Error, Sendable, Equatable {
    /// The stream was reset with this error code: by the peer (RST_STREAM), or by us with
    /// PROTOCOL_ERROR for a malformed response (see `ResponseCheck`).
    case reset(errorCode: UInt32)
    /// The stream was above the last stream id of a GOAWAY: never processed, safe to retry.
    case refusedByGoAway
    /// The connection closed first, after the whole request had left (END_STREAM sent): the server
    /// may have processed it.
    case connectionClosed
    /// The connection closed before the whole request had left: the server cannot have processed it.
    case connectionClosedBeforeSent
    /// It was cancelled locally (deadline).
    case cancelled
    /// It was cancelled locally (RST_STREAM CANCEL) because no answer came in time; the server may
    /// have processed it.
    case timedOut
}

/// One HTTP/2 connection over TLS over TCP, driven by an ``EventLoop``: bytes from the socket go
/// through TLS into nghttp2; after each batch of input, every frame nghttp2 has ready is encrypted
/// in one TLS write and sent in one socket write.
///
/// Confined to its event loop: create it and call it only there.
public final class HTTP2Connection: FileDescriptorHandler {
    public let loop: EventLoop
    public weak var delegate: HTTP2ConnectionDelegate?
    /// Owner's per-connection state (the simulator keeps its connection model here).
    public var attachment: AnyObject?

    private let descriptor: Int32
    private let tls: TLSSession
    private let session: HTTP2Session
    private let serverSettings: HTTP2Settings?
    private var lifecycle: Lifecycle
    private var pendingOutput: [UInt8] = []
    private var pendingOutputOffset = 0
    private var watchingWrites = false
    /// A flush is already deferred to the end of the loop's batch.
    private var flushDeferred = false
    /// Written once per request and per answer, in accesses that call out to nothing (a receiver
    /// runs after its entry is taken out), so the runtime's exclusivity check is left out
    /// (docs/BENCHMARKS.md, "Exclusivity checks").
    @exclusivity(unchecked) private var pendingResponses = StreamTable<PendingResponse>()
    /// The session's events being handled; kept between batches for its storage.
    private var sessionEvents: [HTTP2Session.Event] = []
    /// Ciphertext from the socket; allocated once, read into again and again.
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    private var plaintext: [UInt8] = []
    private var ciphertext: [UInt8] = []

    /// Server role: takes over an accepted socket.
    public init(accepted descriptor: Int32, loop: EventLoop, tls context: TLSContext, settings: HTTP2Settings,
                delegate: HTTP2ConnectionDelegate) throws {
        self.loop = loop
        self.descriptor = descriptor
        self.tls = try TLSSession(context: context)
        self.session = try HTTP2Session(role: .server)
        self.serverSettings = settings
        self.delegate = delegate
        self.lifecycle = .handshaking
        try loop.register(descriptor, interest: .read, handler: self)
    }

    /// Client role: connects to `host:port`, sending `serverName` as SNI. With
    /// `keepingResponseFields`, responses carry only those regular fields (lower-case names): a client
    /// that reads two fields does not pay for the server's others.
    public init(connectingTo host: String, port: UInt16, serverName: String? = nil, loop: EventLoop,
                tls context: TLSContext, keepingResponseFields: [String]? = nil, delegate: HTTP2ConnectionDelegate) throws {
        self.loop = loop
        self.descriptor = try Socket.connect(host: host, port: port)
        self.tls = try TLSSession(context: context, serverName: serverName ?? host)
        self.session = try HTTP2Session(role: .client, keepingResponseFields: keepingResponseFields)
        self.serverSettings = nil
        self.delegate = delegate
        self.lifecycle = .connecting
        try loop.register(descriptor, interest: [.read, .write], handler: self)
        watchingWrites = true
    }

    // MARK: Public API (loop thread)

    /// The ALPN protocol TLS agreed on; nil when the client used prior knowledge.
    public var negotiatedProtocol: String? { tls.negotiatedProtocol }

    /// Subject `UID`s of the peer's certificate (server role with client certificates).
    public var peerCertificateSubjectUIDs: [String] { tls.peerCertificateSubjectUIDs }

    /// Client role: how many more requests the server lets us have in flight right now.
    public var availableStreams: Int { session.availableOutgoingStreams }

    /// Client role: the server's current SETTINGS_MAX_CONCURRENT_STREAMS.
    public var remoteMaxConcurrentStreams: Int { Int(session.remoteMaxConcurrentStreams) }

    /// Server role: requests received and not yet answered or reset.
    public var activeStreamCount: Int { session.activeStreamCount }

    public var isOpen: Bool { !isClosed }

    /// Server role: answers a request. Ignored when the stream is gone.
    public func respond(streamID: Int32, _ response: HTTP2Response) {
        guard !isClosed else { return }
        perform { try session.submitResponse(streamID: streamID, response) }
    }

    /// Server role: answers a request whose regular fields are already packed, each with how the
    /// HPACK encoder may remember it (a value unique to one response is best never indexed).
    /// Ignored when the stream is gone.
    public func respond(streamID: Int32, status: Int, fields: HTTPFieldBlock, body: [UInt8]) {
        guard !isClosed else { return }
        perform { try session.submitResponse(streamID: streamID, status: status, fields: fields, body: body) }
    }

    /// Server role: announces a new stream limit.
    public func setMaxConcurrentStreams(_ limit: Int) {
        guard !isClosed else { return }
        perform { try session.submitMaxConcurrentStreams(UInt32(max(limit, 0))) }
    }

    /// Sends GOAWAY; the connection closes once the streams below `lastStreamID` are answered.
    public func goAway(errorCode: UInt32, debugData: [UInt8], lastStreamID: Int32? = nil) {
        guard !isClosed else { return }
        perform { try session.submitGoAway(lastStreamID: lastStreamID, errorCode: errorCode, debugData: debugData) }
    }

    /// Client role: sends a request; `completion` runs on the loop with the response or the reason
    /// there is none. Returns the stream id. Only after ``HTTP2ConnectionDelegate/connectionReady(_:)``,
    /// so that the server's stream limit is known; requests beyond it wait inside nghttp2.
    @discardableResult
    public func send(method: String = "POST", path: String, authority: String, headers: [HTTP2Header], body: [UInt8],
                     completion: @escaping (Result<HTTP2Response, HTTP2StreamFailure>) -> Void) throws -> Int32 {
        try send(method: method, path: path, authority: authority, fields: HTTPFieldBlock(headers), body: body,
                 completion: completion)
    }

    /// Client role: sends a request whose regular fields are already packed: `connectionFields`
    /// (what this connection adds to every request, such as a provider token) and then `fields`.
    /// Otherwise as ``send(method:path:authority:headers:body:completion:)``.
    @discardableResult
    public func send(method: String = "POST", path: String, authority: String, connectionFields: HTTPFieldBlock? = nil,
                     fields: HTTPFieldBlock, body: [UInt8],
                     completion: @escaping (Result<HTTP2Response, HTTP2StreamFailure>) -> Void) throws -> Int32 {
        let receiver = CompletionReceiver(completion)
        return try send(method: method, path: HTTP2RequestPath(path), authority: authority, connectionFields: connectionFields,
                        fields: fields, body: body, receiver: receiver, context: receiver)
    }

    /// Client role: as ``send(method:path:authority:connectionFields:fields:body:completion:)``, but
    /// the end of the stream goes to `receiver` with `context` rather than to a closure per request.
    @discardableResult
    public func send(method: String = "POST", path: HTTP2RequestPath, authority: String, connectionFields: HTTPFieldBlock? = nil,
                     fields: HTTPFieldBlock, body: [UInt8], receiver: HTTP2ResponseReceiver, context: AnyObject) throws -> Int32 {
        guard !isClosed else { throw HTTP2Error("send on a closed connection") }
        guard case .established(serverSettingsArrived: true) = lifecycle else {
            throw HTTP2Error("send before the server's SETTINGS arrived")
        }
        let streamID = try session.submitRequest(method: method, scheme: "https", authority: authority, path: path,
                                                 connectionFields: connectionFields, fields: fields, body: body)
        pendingResponses[streamID] = PendingResponse(receiver: receiver, context: context)
        deferFlush()
        return streamID
    }

    /// Client role: cancels a request (RST_STREAM CANCEL); its receiver gets `failure`
    /// (`.cancelled` or `.timedOut`).
    public func cancel(streamID: Int32, reporting failure: HTTP2StreamFailure = .cancelled) {
        guard let pending = pendingResponses.removeValue(forKey: streamID) else { return }
        session.submitReset(streamID: streamID, errorCode: HTTP2ErrorCode.cancel)
        deferFlush()
        end(pending, with: .failure(failure))
    }

    /// Client role: whether the request on `streamID` still waits for its answer.
    public func isAwaitingResponse(streamID: Int32) -> Bool {
        pendingResponses[streamID] != nil
    }

    /// Sends a PING (keeps idle connections alive through middleboxes and proves the peer answers).
    public func ping() {
        guard !isClosed else { return }
        session.submitPing()
        deferFlush()
    }

    /// Closes now: an orderly close, or a TCP reset when `reset` is true.
    public func close(reset: Bool = false, error: (any Error)? = nil) {
        guard !isClosed else { return }
        let wasEstablished = isEstablished
        lifecycle = .closed
        loop.unregister(descriptor)
        if reset {
            Socket.reset(descriptor)
        } else {
            if wasEstablished {
                tls.close()
                ciphertext.removeAll(keepingCapacity: true)
                tls.takeCiphertext(into: &ciphertext)
                ciphertext.withUnsafeBytes { _ = Socket.write(descriptor, $0) }
            }
            Glibc.close(descriptor)
        }
        for stream in pendingResponses.removeAll() {
            let sent = session.requestSent(streamID: stream.streamID)
            end(stream.value, with: .failure(sent ? .connectionClosed : .connectionClosedBeforeSent))
        }
        delegate?.connectionClosed(self, error: error)
    }

    // MARK: FileDescriptorHandler

    public func readable() {
        guard !isClosed else { return }
        var sawEnd = false
        reading: while true {
            let result = readBuffer.withUnsafeMutableBytes { Socket.read(descriptor, into: $0) }
            switch result {
            case .transferred(let count):
                readBuffer.withUnsafeBytes { tls.receiveCiphertext(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            case .wouldBlock:
                break reading
            case .closed:
                sawEnd = true
                break reading
            }
        }
        do {
            plaintext.removeAll(keepingCapacity: true)
            let status = try tls.readPlaintext(into: &plaintext)
            if case .handshaking = lifecycle, tls.isHandshakeComplete { try becomeReady() }
            if !plaintext.isEmpty { try plaintext.withUnsafeBytes { try session.receive($0) } }
            handleSessionEvents()
            if status == .closed { sawEnd = true }
        } catch {
            close(error: error)
            return
        }
        if sawEnd {
            flush()
            close()
        } else {
            // At the batch's end: what the owner submits in answer to these events (new requests
            // in the freed streams) leaves in the same write as the frames nghttp2 has ready now.
            deferFlush()
        }
    }

    public func writable() {
        guard !isClosed else { return }
        if case .connecting = lifecycle {
            let error = Socket.pendingError(descriptor)
            guard error == 0 else {
                close(error: SystemError("connect", errorNumber: error))
                return
            }
            lifecycle = .handshaking
            perform { try tls.handshake() }
        }
        flush()
    }

    // MARK: Internals

    private func becomeReady() throws {
        lifecycle = .established(serverSettingsArrived: false)
        if let serverSettings {
            try session.submitServerSettings(serverSettings)
            delegate?.connectionReady(self)
        } else {
            try session.submitClientSettings()
        }
    }

    private func perform(_ body: () throws -> Void) {
        do {
            try body()
        } catch {
            close(error: error)
            return
        }
        deferFlush()
    }

    private func end(_ pending: PendingResponse, with result: Result<HTTP2Response, HTTP2StreamFailure>) {
        pending.receiver.connection(self, endedStreamOf: pending.context, with: result)
    }

    /// Flushes once at the end of the loop's current batch, so the frames of every response and
    /// request submitted meanwhile leave in one TLS write and one `send`.
    private func deferFlush() {
        guard !flushDeferred, !isClosed else { return }
        flushDeferred = true
        loop.deferUntilBatchEnd { [self] in
            flushDeferred = false
            flush()
        }
    }

    private func handleSessionEvents() {
        session.takeEvents(into: &sessionEvents)
        // Let go of the events as soon as they are handled: a request's field and body storage is
        // then its stream's alone again, and is reused rather than copied when the stream closes.
        defer { sessionEvents.removeAll(keepingCapacity: true) }
        for event in sessionEvents {
            switch event {
            case .request(let request):
                delegate?.connection(self, received: request)
            case .response(let streamID, let response):
                if let pending = pendingResponses.removeValue(forKey: streamID) { end(pending, with: .success(response)) }
            case .streamFailed(let streamID, let errorCode):
                if let pending = pendingResponses.removeValue(forKey: streamID) {
                    end(pending, with: .failure(.reset(errorCode: errorCode)))
                }
            case .goAway(let goAway):
                for stream in pendingResponses.sortedEntries() where stream.streamID > goAway.lastStreamID {
                    // Looked up again: an earlier one's receiver may have closed the connection.
                    if let pending = pendingResponses.removeValue(forKey: stream.streamID) {
                        end(pending, with: .failure(.refusedByGoAway))
                    }
                }
                delegate?.connection(self, receivedGoAway: goAway)
            case .pingAcknowledged:
                delegate?.connectionPingAcknowledged(self)
            case .remoteSettingsChanged:
                if serverSettings == nil, case .established(serverSettingsArrived: false) = lifecycle {
                    lifecycle = .established(serverSettingsArrived: true)
                    delegate?.connectionReady(self)
                } else {
                    delegate?.connectionSettingsChanged(self)
                }
            }
            if isClosed { return }
        }
    }

    /// Moves everything nghttp2 and TLS have ready to the socket: frames are coalesced into one TLS
    /// write and one `send`; what the kernel does not take waits for the next writable event.
    private func flush() {
        guard !isClosed else { return }
        do {
            if isEstablished {
                plaintext.removeAll(keepingCapacity: true)
                try session.produce(into: &plaintext)
                handleSessionEvents()
                guard !isClosed else { return } // the owner closed it while handling those events
                if !plaintext.isEmpty { try plaintext.withUnsafeBytes { try tls.writePlaintext($0) } }
            }
        } catch {
            close(error: error)
            return
        }
        if pendingOutputOffset >= pendingOutput.count {
            pendingOutput.removeAll(keepingCapacity: true)
            pendingOutputOffset = 0
        }
        tls.takeCiphertext(into: &pendingOutput)
        while pendingOutputOffset < pendingOutput.count {
            let result = pendingOutput.withUnsafeBytes { Socket.write(descriptor, UnsafeRawBufferPointer(rebasing: $0[pendingOutputOffset...])) }
            switch result {
            case .transferred(let count): pendingOutputOffset += count
            case .wouldBlock:
                watchWrites(true)
                return
            case .closed:
                close(error: SystemError("send", errorNumber: ECONNRESET))
                return
            }
        }
        if !isConnecting { watchWrites(false) }
        // After a GOAWAY both ways, or ours with its streams answered, nghttp2 wants nothing more.
        if isEstablished && !session.isActive { close() }
    }

    // MARK: Lifecycle

    /// Where the connection is in its life: one value, so no combination of flags can contradict
    /// another.
    private enum Lifecycle {
        /// Client role: the non-blocking TCP connect is under way.
        case connecting
        /// The TLS handshake is under way.
        case handshaking
        /// TLS is up and the HTTP/2 session runs. Client role: requests may be sent once the
        /// server's first SETTINGS frame has arrived (its stream limit is then known).
        case established(serverSettingsArrived: Bool)
        case closed
    }

    private var isConnecting: Bool {
        if case .connecting = lifecycle { true } else { false }
    }

    private var isEstablished: Bool {
        if case .established = lifecycle { true } else { false }
    }

    private var isClosed: Bool {
        if case .closed = lifecycle { true } else { false }
    }

    private func watchWrites(_ enabled: Bool) {
        guard enabled != watchingWrites else { return }
        watchingWrites = enabled
        loop.modify(descriptor, interest: enabled ? [.read, .write] : .read)
    }
}
