extension String {
    /// Lends the string's UTF-8 where it lies (a native string's bytes are contiguous), and copies
    /// only a string whose bytes are not. `withUTF8` is `mutating`: copying a field into a `var`
    /// for it cost a retain and a release per header field on the request path.
    @inlinable
    package func withContiguousUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var contiguous = self
        return try contiguous.withUTF8(body)
    }
}
