extension String {
    /// Whether every UTF-8 byte passes `test`. Native strings lend their contiguous storage, so this
    /// is a pointer loop rather than `String.UTF8View` iteration: the simulator runs such checks over
    /// device tokens and header values on every request.
    package func allUTF8Bytes(satisfy test: (UInt8) -> Bool) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.allSatisfy(test) } ?? utf8.allSatisfy(test)
    }

    /// The longest prefix of at most `maxBytes` UTF-8 bytes that ends on a scalar boundary: text
    /// from the input bounded before it goes into a record.
    package func utf8Prefix(maxBytes: Int) -> String {
        guard utf8.count > maxBytes else { return self }
        let bytes = Array(utf8.prefix(maxBytes + 1))
        var end = maxBytes
        // A continuation byte (10xxxxxx) right after the cut means the cut splits a scalar.
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}
