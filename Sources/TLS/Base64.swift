internal import COpenSSL

/// Standard base64 (RFC 4648 §4, with `=` padding) through OpenSSL's `EVP_EncodeBlock` and
/// `EVP_DecodeBlock`: what `Data.base64EncodedString()` and Python's `base64.b64encode` write.
public enum Base64 {
    /// The length of `count` bytes once encoded.
    public static func encodedCount(_ count: Int) -> Int {
        (count + 2) / 3 * 4
    }

    /// `bytes` as base64 text.
    public static func encode(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        append(bytes, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// `bytes` as base64 text, appended to `text` (UTF-8): no string in between.
    public static func append(_ bytes: [UInt8], to text: inout [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0, to: &text) }
    }

    /// `bytes` in a buffer as base64 text, appended to `text` (a sealed box lent by ``AES256GCM/withSealedBox(_:nonce:authenticating:_:)``).
    public static func append(_ bytes: UnsafeBufferPointer<UInt8>, to text: inout [UInt8]) {
        guard let input = bytes.baseAddress, !bytes.isEmpty else { return }
        let start = text.count
        let count = encodedCount(bytes.count)
        // EVP_EncodeBlock writes a terminating NUL after the text.
        text.append(contentsOf: repeatElement(0, count: count + 1))
        text.withUnsafeMutableBufferPointer { out in
            _ = EVP_EncodeBlock(out.baseAddress! + start, input, Int32(bytes.count))
        }
        text.removeLast()
    }

    /// The bytes of base64 `text`, or nil when it is not base64 (its length not a multiple of 4,
    /// a character outside the alphabet).
    public static func decode(_ text: String) -> [UInt8]? {
        decode(bytes: Array(text.utf8)[...])
    }

    /// ``decode(_:)`` of text given as its UTF-8 bytes.
    public static func decode(bytes input: ArraySlice<UInt8>) -> [UInt8]? {
        guard input.count % 4 == 0 else { return nil }
        guard !input.isEmpty else { return [] }
        guard input.allSatisfy({ $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\t") })
        else { return nil }
        var out = [UInt8](repeating: 0, count: input.count / 4 * 3)
        let written = input.withUnsafeBufferPointer { EVP_DecodeBlock(&out, $0.baseAddress, Int32(input.count)) }
        // EVP_DecodeBlock counts the padding as zero bytes.
        let padding = input.reversed().prefix(2).prefix { $0 == UInt8(ascii: "=") }.count
        guard written >= padding else { return nil }
        out.removeLast(out.count - (Int(written) - padding))
        return out
    }
}
