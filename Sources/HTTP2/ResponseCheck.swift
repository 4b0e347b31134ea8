/// The checks RFC 9113 §8.1 and §8.3.2 ask of a received response, made by a client session
/// itself since it turns nghttp2's HTTP messaging off: exactly one `:status` of three digits per
/// header block and no other pseudo-header, informational (1xx) blocks before the final one and
/// never ending the stream, no DATA before the final block, trailers ending the stream, and a
/// `content-length` the body matches. A response failing one is malformed: its stream is reset
/// with PROTOCOL_ERROR and fails like a reset stream, as nghttp2 did, and never reaches its caller
/// as an answer (a status 0 read as the server's verdict).
struct ResponseCheck {
    /// What a header block turned out to be once it ended.
    enum Block {
        /// A 1xx answer before the final one: its fields are not the response's.
        case informational
        /// The response's own fields, or its trailers.
        case regular
    }

    /// The final (or, within an informational block, the interim) status; 0 until one is read.
    private(set) var status = 0
    private(set) var isMalformed = false
    /// A HEAD request's response announces a length but carries no body.
    var expectsBody = true
    private var hasFinalHeaders = false
    private var contentLength: Int?

    /// Reads `:status`: three digits, once per block and never in trailers.
    mutating func readStatus(_ digits: UnsafeBufferPointer<UInt8>) {
        guard status == 0, digits.count == 3, let value = decimalValue(digits), value >= 100 else { return markMalformed() }
        status = value
    }

    /// A pseudo-header other than `:status`, which a response may not carry.
    mutating func readOtherPseudoHeader() {
        markMalformed()
    }

    /// Reads `content-length`: digits, and at most one such field.
    mutating func readContentLength(_ digits: UnsafeBufferPointer<UInt8>) {
        guard contentLength == nil, let value = decimalValue(digits) else { return markMalformed() }
        contentLength = value
    }

    /// Called as a HEADERS frame (with its CONTINUATIONs) ends.
    mutating func endHeaderBlock(endsStream: Bool) -> Block {
        if hasFinalHeaders {
            // Trailers: whatever follows a final block must end the stream.
            if !endsStream { markMalformed() }
            return .regular
        }
        switch status {
        case 0:
            markMalformed()
        case 101:
            // Switching protocols does not exist in HTTP/2 (RFC 9113 §8.6).
            markMalformed()
        case 100..<200:
            if endsStream { markMalformed() }
            status = 0
            contentLength = nil
            return .informational
        default:
            hasFinalHeaders = true
        }
        return .regular
    }

    /// Called for each DATA frame of the stream.
    mutating func receiveData() {
        if !hasFinalHeaders { markMalformed() }
    }

    /// Called as the stream ends, with the length of the body received.
    mutating func endStream(bodyCount: Int) {
        guard hasFinalHeaders else { return markMalformed() }
        guard let contentLength, expectsBody, status != 304 else { return }
        if bodyCount != contentLength { markMalformed() }
    }

    private mutating func markMalformed() {
        isMalformed = true
    }
}

/// The value of a field made of decimal digits (at most 18: no overflow), read without making a
/// `String` of it; nil for anything else.
func decimalValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
    var value = 0
    for byte in bytes {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return value
}
