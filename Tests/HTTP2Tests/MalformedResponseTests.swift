@testable import HTTP2
import HTTPFields
import Testing

/// HTTP/2 frames written by hand, for a peer that answers in ways our own server never would.
private enum RawFrame {
    static let settings: [UInt8] = frame(type: 0x4, flags: 0, streamID: 0, payload: [])

    /// A HEADERS frame with END_HEADERS whose block holds each field as a literal without indexing
    /// and without Huffman coding (RFC 7541 §6.2.2), so any name, even a wrong pseudo-header, fits.
    static func headers(_ fields: [(String, String)], endStream: Bool, streamID: UInt32 = 1) -> [UInt8] {
        var block: [UInt8] = []
        for (name, value) in fields {
            block.append(0x00)
            block.append(UInt8(name.utf8.count))
            block.append(contentsOf: name.utf8)
            block.append(UInt8(value.utf8.count))
            block.append(contentsOf: value.utf8)
        }
        return frame(type: 0x1, flags: 0x4 | (endStream ? 0x1 : 0), streamID: streamID, payload: block)
    }

    static func data(_ payload: String, endStream: Bool, streamID: UInt32 = 1) -> [UInt8] {
        frame(type: 0x0, flags: endStream ? 0x1 : 0, streamID: streamID, payload: Array(payload.utf8))
    }

    private static func frame(type: UInt8, flags: UInt8, streamID: UInt32, payload: [UInt8]) -> [UInt8] {
        let length = UInt32(payload.count)
        return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags,
                UInt8(streamID >> 24), UInt8(streamID >> 16 & 0xff), UInt8(streamID >> 8 & 0xff), UInt8(streamID & 0xff)] + payload
    }

    /// The type, stream id and payload of each frame in `bytes`.
    static func parse(_ bytes: [UInt8]) -> [(type: UInt8, streamID: UInt32, payload: [UInt8])] {
        var frames: [(type: UInt8, streamID: UInt32, payload: [UInt8])] = []
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            let streamID = word(bytes, at: offset + 5) & 0x7fff_ffff
            frames.append((bytes[offset + 3], streamID, Array(bytes[offset + 9..<min(bytes.count, offset + 9 + length)])))
            offset += 9 + length
        }
        return frames
    }

    /// The big-endian 32-bit number at `offset`; 0 past the end.
    static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        guard offset + 4 <= bytes.count else { return 0 }
        return bytes[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }
}

/// A client session that sent one request (stream 1) and is fed the peer's answer as raw bytes.
private struct ClientUnderTest {
    let session: HTTP2Session

    init(method: String = "POST") throws {
        session = try HTTP2Session(role: .client)
        try session.submitClientSettings()
        _ = try session.submitRequest(method: method, scheme: "https", authority: "localhost", path: "/3/device/abcd",
                                      connectionFields: nil, fields: HTTPFieldBlock(), body: [])
        var preface: [UInt8] = []
        try session.produce(into: &preface)
    }

    /// Feeds the peer's SETTINGS and `frames`, then has the session produce its answer, as its
    /// connection does; returns the events of both steps (a reset stream closes as its RST_STREAM
    /// is produced) and what the session sends back.
    func answer(_ frames: [[UInt8]]) throws -> (events: [HTTP2Session.Event], sent: [UInt8]) {
        let bytes = RawFrame.settings + frames.flatMap { $0 }
        try bytes.withUnsafeBytes { try session.receive($0) }
        var events: [HTTP2Session.Event] = []
        session.takeEvents(into: &events)
        var sent: [UInt8] = []
        try session.produce(into: &sent)
        var later: [HTTP2Session.Event] = []
        session.takeEvents(into: &later)
        return (events + later, sent)
    }
}

/// What became of stream 1: its response, or the error code it failed with.
private enum StreamOutcome: Equatable {
    case response(status: Int, body: String)
    case failed(errorCode: UInt32)
    case nothing
}

private func outcome(_ events: [HTTP2Session.Event]) -> StreamOutcome {
    for event in events {
        switch event {
        case .response(1, let response): return .response(status: response.status, body: String(decoding: response.body, as: UTF8.self))
        case .streamFailed(1, let errorCode): return .failed(errorCode: errorCode)
        default: continue
        }
    }
    return .nothing
}

/// Client sessions run without nghttp2's HTTP messaging checks; a malformed response must still
/// fail its stream (reset with PROTOCOL_ERROR, retried by the sender like any reset) rather than
/// reach the caller as an answer with a made-up status.
@Suite("HTTP/2 client: malformed responses")
struct MalformedResponseTests {
    private static let protocolError = HTTP2ErrorCode.protocolError

    @Test("a response without :status resets its stream with PROTOCOL_ERROR and fails it")
    func missingStatus() throws {
        let client = try ClientUnderTest()
        let (events, sent) = try client.answer([RawFrame.headers([("apns-id", "x")], endStream: false)])
        #expect(outcome(events) == .failed(errorCode: Self.protocolError))
        #expect(RawFrame.parse(sent).contains { $0.type == 0x3 && $0.streamID == 1 && RawFrame.word($0.payload, at: 0) == Self.protocolError },
                "an RST_STREAM with PROTOCOL_ERROR goes to the peer")
    }

    @Test("a response without :status that ends its stream fails it too")
    func missingStatusEndingStream() throws {
        let client = try ClientUnderTest()
        let (events, _) = try client.answer([RawFrame.headers([("apns-id", "x")], endStream: true)])
        #expect(outcome(events) == .failed(errorCode: Self.protocolError))
    }

    @Test("a :status that is not three digits fails the stream", arguments: ["20", "2000", "2x0", "", "099"])
    func badStatus(_ status: String) throws {
        let client = try ClientUnderTest()
        let (events, _) = try client.answer([RawFrame.headers([(":status", status)], endStream: true)])
        #expect(outcome(events) == .failed(errorCode: Self.protocolError))
    }

    @Test("two :status fields, or another pseudo-header, fail the stream")
    func extraPseudoHeaders() throws {
        let twice = try ClientUnderTest().answer([RawFrame.headers([(":status", "200"), (":status", "400")], endStream: true)])
        #expect(outcome(twice.events) == .failed(errorCode: Self.protocolError))
        let path = try ClientUnderTest().answer([RawFrame.headers([(":status", "200"), (":path", "/")], endStream: true)])
        #expect(outcome(path.events) == .failed(errorCode: Self.protocolError))
    }

    @Test("an informational 1xx before the final response is skipped; one ending the stream, or 101, fails it")
    func informational() throws {
        let continued = try ClientUnderTest().answer([
            RawFrame.headers([(":status", "100"), ("x-interim", "1")], endStream: false),
            RawFrame.headers([(":status", "200")], endStream: true),
        ])
        #expect(outcome(continued.events) == .response(status: 200, body: ""))
        let ending = try ClientUnderTest().answer([RawFrame.headers([(":status", "103")], endStream: true)])
        #expect(outcome(ending.events) == .failed(errorCode: Self.protocolError))
        let switching = try ClientUnderTest().answer([RawFrame.headers([(":status", "101")], endStream: false)])
        #expect(outcome(switching.events) == .failed(errorCode: Self.protocolError))
    }

    @Test("DATA before the response's HEADERS is a connection error: GOAWAY with PROTOCOL_ERROR, and the session ends")
    func dataBeforeHeaders() throws {
        // nghttp2's own framing rules catch this one even without HTTP messaging; the connection
        // then closes, and its open streams fail as closed with it (retried by the sender).
        let client = try ClientUnderTest()
        let (events, sent) = try client.answer([RawFrame.data("{}", endStream: true)])
        #expect(outcome(events) == .nothing, "no response is made up")
        #expect(RawFrame.parse(sent).contains { $0.type == 0x7 && RawFrame.word($0.payload, at: 4) == Self.protocolError })
        #expect(!client.session.isActive)
    }

    @Test("a body shorter or longer than content-length fails the stream; a matching one is answered")
    func contentLength() throws {
        let short = try ClientUnderTest().answer([
            RawFrame.headers([(":status", "400"), ("content-length", "30")], endStream: false),
            RawFrame.data(#"{"reason":"BadDeviceToken"}"#, endStream: true),
        ])
        #expect(outcome(short.events) == .failed(errorCode: Self.protocolError))
        let long = try ClientUnderTest().answer([
            RawFrame.headers([(":status", "400"), ("content-length", "2")], endStream: false),
            RawFrame.data(#"{"reason":"BadDeviceToken"}"#, endStream: true),
        ])
        #expect(outcome(long.events) == .failed(errorCode: Self.protocolError))
        let exact = try ClientUnderTest().answer([
            RawFrame.headers([(":status", "400"), ("content-length", "27")], endStream: false),
            RawFrame.data(#"{"reason":"BadDeviceToken"}"#, endStream: true),
        ])
        #expect(outcome(exact.events) == .response(status: 400, body: #"{"reason":"BadDeviceToken"}"#))
    }

    @Test("a HEAD request's response announces a length without a body")
    func headResponse() throws {
        let (events, _) = try ClientUnderTest(method: "HEAD").answer([
            RawFrame.headers([(":status", "200"), ("content-length", "27")], endStream: true),
        ])
        #expect(outcome(events) == .response(status: 200, body: ""))
    }

    @Test("trailers after the final response are accepted; trailers that do not end the stream, or carry :status, fail it")
    func trailers() throws {
        let accepted = try ClientUnderTest().answer([
            RawFrame.headers([(":status", "200")], endStream: false),
            RawFrame.headers([("x-trailer", "1")], endStream: true),
        ])
        #expect(outcome(accepted.events) == .response(status: 200, body: ""))
        let open = try ClientUnderTest().answer([
            RawFrame.headers([(":status", "200")], endStream: false),
            RawFrame.headers([("x-trailer", "1")], endStream: false),
        ])
        #expect(outcome(open.events) == .failed(errorCode: Self.protocolError))
        let status = try ClientUnderTest().answer([
            RawFrame.headers([(":status", "200")], endStream: false),
            RawFrame.headers([(":status", "500")], endStream: true),
        ])
        #expect(outcome(status.events) == .failed(errorCode: Self.protocolError))
    }
}
