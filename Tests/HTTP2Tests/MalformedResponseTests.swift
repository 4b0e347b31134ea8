@testable import HTTP2
import HTTPFields
import Testing

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
