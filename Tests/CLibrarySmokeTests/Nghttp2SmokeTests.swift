import CNghttp2
import Testing

/// nghttp2 in memory mode, as the APNs client uses it: a client session and a server session
/// exchange one APNs-shaped request by passing `mem_send` output straight into the peer's `mem_recv`.
@Suite("nghttp2 in-memory exchange")
struct Nghttp2SmokeTests {
    private static let requestBody = Array(#"{"aps":{"alert":"hello","sound":"default"}}"#.utf8)
    private static let apnsID = "4C106C1B-3E64-4B61-9C3A-6C8E5D3F1A2B"

    @Test func serverReceivesPostMethodPathHeadersAndBody() throws {
        let transcript = try exchangeOneRequest(body: Self.requestBody, apnsID: Self.apnsID)

        #expect(transcript.server.value(of: ":method") == "POST")
        #expect(transcript.server.value(of: ":path") == "/3/device/abcd")
        #expect(transcript.server.value(of: ":scheme") == "https")
        #expect(transcript.server.value(of: "apns-topic") == "com.example.pushline")
        #expect(transcript.server.value(of: "apns-push-type") == "alert")
        #expect(transcript.server.body == Self.requestBody)
        #expect(transcript.server.endedStreams == [transcript.streamID], "request ended its stream")
    }

    @Test func clientReceivesStatus200AndApnsIdHeader() throws {
        let transcript = try exchangeOneRequest(body: Self.requestBody, apnsID: Self.apnsID)

        #expect(transcript.client.value(of: ":status") == "200")
        #expect(transcript.client.value(of: "apns-id") == Self.apnsID)
        #expect(transcript.client.body.isEmpty)
        #expect(transcript.client.closedStreams[transcript.streamID] == NGHTTP2_NO_ERROR.rawValue)
    }

    @Test func eachSessionAppliesTheSettingsItsPeerSubmitted() throws {
        let transcript = try exchangeOneRequest(body: Self.requestBody, apnsID: Self.apnsID)

        // Defaults are unlimited streams, push enabled and a 65,535-byte window, so these only
        // hold if both SETTINGS frames crossed and were applied.
        #expect(transcript.serverSettingsSeenByClient.maxConcurrentStreams == 100)
        #expect(transcript.clientSettingsSeenByServer.enablePush == 0)
        #expect(transcript.clientSettingsSeenByServer.initialWindowSize == 1 << 20)
    }
}

// MARK: - Exchange

private struct Nghttp2Failure: Error, CustomStringConvertible {
    let description: String

    init(_ call: String, _ code: Int) {
        let reason = String(cString: nghttp2_strerror(Int32(truncatingIfNeeded: code)))
        description = "\(call) failed: \(code) (\(reason))"
    }

    init(_ description: String) {
        self.description = description
    }
}

/// What each side saw once the exchange went quiet.
private struct ExchangeTranscript {
    var streamID: Int32
    var server: StreamEvents
    var client: StreamEvents
    var serverSettingsSeenByClient: PeerSettings
    var clientSettingsSeenByServer: PeerSettings
}

/// The remote settings a session has applied (`nghttp2_session_get_remote_settings`).
private struct PeerSettings {
    var maxConcurrentStreams: UInt32
    var enablePush: UInt32
    var initialWindowSize: UInt32
}

/// Everything a session's callbacks recorded. Callbacks only append here; the test acts on it
/// after the nghttp2 call returns, never from inside a callback.
private struct StreamEvents {
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    var endedStreams: Set<Int32> = []
    var closedStreams: [Int32: UInt32] = [:]

    func value(of name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}

/// The user data behind every callback: a class so `Unmanaged` can hand it to C.
private final class EventRecorder {
    var events = StreamEvents()
}

/// The request body the client's data provider streams out. nghttp2 reads it during later
/// `mem_send` calls, long after `submit_request` returns, so it lives as long as the session.
private final class BodySource {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }
}

/// Owns one `nghttp2_session` (deleted in `deinit`) and the objects its callbacks point at.
private final class Endpoint {
    let session: OpaquePointer
    let recorder = EventRecorder()
    let bodySource: BodySource?

    enum Role { case client, server }

    init(_ role: Role, bodySource: BodySource? = nil) throws {
        self.bodySource = bodySource

        var callbacks: OpaquePointer?
        let created = nghttp2_session_callbacks_new(&callbacks)
        guard created == 0, let callbacks else { throw Nghttp2Failure("nghttp2_session_callbacks_new", Int(created)) }
        // The session copies the callback table, so it can go as soon as the session exists.
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, recordHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, recordDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, recordFrame)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, recordStreamClose)

        // Unretained: `recorder` is a stored property, so it outlives the session deleted in deinit.
        let userData = Unmanaged.passUnretained(recorder).toOpaque()
        var session: OpaquePointer?
        let status = switch role {
        case .client: nghttp2_session_client_new(&session, callbacks, userData)
        case .server: nghttp2_session_server_new(&session, callbacks, userData)
        }
        guard status == 0, let session else { throw Nghttp2Failure("nghttp2_session_\(role)_new", Int(status)) }
        self.session = session
    }

    deinit {
        nghttp2_session_del(session)
    }

    func submitSettings(_ entries: [(nghttp2_settings_id, UInt32)]) throws {
        let settings = entries.map { nghttp2_settings_entry(settings_id: Int32($0.0.rawValue), value: $0.1) }
        let status = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), settings, settings.count)
        guard status == 0 else { throw Nghttp2Failure("nghttp2_submit_settings", Int(status)) }
    }

    var remoteSettings: PeerSettings {
        PeerSettings(
            maxConcurrentStreams: nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS),
            enablePush: nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_ENABLE_PUSH),
            initialWindowSize: nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE)
        )
    }
}

/// Runs a full client/server exchange of one `POST /3/device/abcd` and a 200 response.
private func exchangeOneRequest(body: [UInt8], apnsID: String) throws -> ExchangeTranscript {
    let client = try Endpoint(.client, bodySource: BodySource(body))
    let server = try Endpoint(.server)
    // An APNs client refuses server push; the server caps concurrent streams as APNs does.
    try client.submitSettings([(NGHTTP2_SETTINGS_ENABLE_PUSH, 0), (NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20)])
    try server.submitSettings([(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100)])

    let requestHeaders = [
        (":method", "POST"),
        (":scheme", "https"),
        (":authority", "api.sandbox.push.apple.com"),
        (":path", "/3/device/abcd"),
        ("apns-topic", "com.example.pushline"),
        ("apns-push-type", "alert"),
        ("content-type", "application/json"),
        ("content-length", String(body.count)),
    ]
    var provider = nghttp2_data_provider()
    provider.source.ptr = client.bodySource.map { Unmanaged.passUnretained($0).toOpaque() }
    provider.read_callback = readRequestBody
    // nghttp2 copies the header block and the provider struct (not the body it points at).
    let streamID = withHeaderBlock(requestHeaders) { nva, count in
        nghttp2_submit_request(client.session, nil, nva, count, &provider, nil)
    }
    guard streamID > 0 else { throw Nghttp2Failure("nghttp2_submit_request", Int(streamID)) }

    // Bounded: the whole exchange needs a handful of rounds; a stuck state machine fails, not hangs.
    var responded = false
    var quiet = false
    for _ in 0..<50 {
        let moved = try pump(from: client, to: server) + pump(from: server, to: client)
        if !responded, server.recorder.events.endedStreams.contains(streamID) {
            // Acting on what the callbacks recorded, now that mem_recv has returned.
            let responseHeaders = [(":status", "200"), ("apns-id", apnsID)]
            let status = withHeaderBlock(responseHeaders) { nva, count in
                nghttp2_submit_response(server.session, streamID, nva, count, nil)
            }
            guard status == 0 else { throw Nghttp2Failure("nghttp2_submit_response", Int(status)) }
            responded = true
        } else if moved == 0 {
            quiet = true
            break
        }
    }
    guard quiet else { throw Nghttp2Failure("exchange still moving bytes after 50 rounds") }
    guard responded else { throw Nghttp2Failure("server never saw the request end; it saw \(server.recorder.events)") }

    return ExchangeTranscript(
        streamID: streamID,
        server: server.recorder.events,
        client: client.recorder.events,
        serverSettingsSeenByClient: client.remoteSettings,
        clientSettingsSeenByServer: server.remoteSettings
    )
}

/// Moves everything `sender` has queued into `receiver`; returns the byte count.
private func pump(from sender: Endpoint, to receiver: Endpoint) throws -> Int {
    var total = 0
    for _ in 0..<1_000 {
        var chunk: UnsafePointer<UInt8>?
        let length = nghttp2_session_mem_send(sender.session, &chunk)
        guard length >= 0 else { throw Nghttp2Failure("nghttp2_session_mem_send", length) }
        guard length > 0 else { return total }
        // `chunk` is valid only until the next mem_send on `sender`: hand it over right away.
        let consumed = nghttp2_session_mem_recv(receiver.session, chunk, length)
        guard consumed >= 0 else { throw Nghttp2Failure("nghttp2_session_mem_recv", consumed) }
        guard consumed == length else { throw Nghttp2Failure("mem_recv consumed \(consumed) of \(length) bytes") }
        total += length
    }
    throw Nghttp2Failure("session still sending after 1000 chunks")
}

/// Copies `headers` into C memory that lives for the duration of `body` (nghttp2 copies it again).
private func withHeaderBlock<R>(_ headers: [(String, String)], _ body: (UnsafePointer<nghttp2_nv>?, Int) -> R) -> R {
    var storage: [UnsafeMutableBufferPointer<UInt8>] = []
    defer { storage.forEach { $0.deallocate() } }
    func copy(_ text: String) -> UnsafeMutablePointer<UInt8>? {
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, text.utf8.count))
        _ = buffer.initialize(from: text.utf8)
        storage.append(buffer)
        return buffer.baseAddress
    }
    var nva: [nghttp2_nv] = []
    for (name, value) in headers {
        nva.append(nghttp2_nv(
            name: copy(name), value: copy(value),
            namelen: name.utf8.count, valuelen: value.utf8.count,
            flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
        ))
    }
    return nva.withUnsafeBufferPointer { body($0.baseAddress, $0.count) }
}

// MARK: - Callbacks (file-scope, exact C signatures; they record and return)

private func recorder(_ userData: UnsafeMutableRawPointer?) -> EventRecorder? {
    userData.map { Unmanaged<EventRecorder>.fromOpaque($0).takeUnretainedValue() }
}

/// Header bytes from nghttp2 as text (pointer plus length; never NUL-terminated reads).
private func text(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> String {
    guard let bytes else { return "" }
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
}

private func recordHeader(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?,
    _ name: UnsafePointer<UInt8>?, _ nameLength: Int,
    _ value: UnsafePointer<UInt8>?, _ valueLength: Int,
    _ flags: UInt8, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let recorder = recorder(userData) else { return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue }
    recorder.events.headers.append((text(name, nameLength), text(value, valueLength)))
    return 0
}

private func recordDataChunk(
    _ session: OpaquePointer?, _ flags: UInt8, _ streamID: Int32,
    _ data: UnsafePointer<UInt8>?, _ length: Int, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let recorder = recorder(userData) else { return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue }
    if let data {
        recorder.events.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
    }
    return 0
}

private func recordFrame(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let recorder = recorder(userData), let header = frame?.pointee.hd else {
        return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue
    }
    let carriesStream = header.type == UInt8(NGHTTP2_HEADERS.rawValue) || header.type == UInt8(NGHTTP2_DATA.rawValue)
    if carriesStream, header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 {
        recorder.events.endedStreams.insert(header.stream_id)
    }
    return 0
}

private func recordStreamClose(
    _ session: OpaquePointer?, _ streamID: Int32, _ errorCode: UInt32, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let recorder = recorder(userData) else { return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue }
    recorder.events.closedStreams[streamID] = errorCode
    return 0
}

/// Data provider: copies the next slice of the `BodySource` and sets EOF after the last byte.
private func readRequestBody(
    _ session: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ dataFlags: UnsafeMutablePointer<UInt32>?, _ source: UnsafeMutablePointer<nghttp2_data_source>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let dataFlags, let pointer = source?.pointee.ptr else {
        return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
    }
    let body = Unmanaged<BodySource>.fromOpaque(pointer).takeUnretainedValue()
    let count = min(length, body.bytes.count - body.offset)
    body.bytes.withUnsafeBufferPointer { bytes in
        if let base = bytes.baseAddress, count > 0 {
            buffer.update(from: base + body.offset, count: count)
        }
    }
    body.offset += count
    if body.offset == body.bytes.count {
        dataFlags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
    }
    return count
}
