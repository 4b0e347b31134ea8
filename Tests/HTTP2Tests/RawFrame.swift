@testable import HTTP2
import HTTPFields

/// HTTP/2 frames written by hand, for a peer that answers in ways our own server never would.
enum RawFrame {
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
struct ClientUnderTest {
    let session: HTTP2Session

    /// - Parameter keptNames: the regular response fields the session keeps (all when nil).
    init(method: String = "POST", keepingResponseFields keptNames: [String]? = nil) throws {
        session = try HTTP2Session(role: .client, keepingResponseFields: keptNames)
        try session.submitClientSettings()
        _ = try session.submitRequest(method: method, scheme: "https", authority: "localhost", path: HTTP2RequestPath(route: "/3/device/", "abcd"),
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
