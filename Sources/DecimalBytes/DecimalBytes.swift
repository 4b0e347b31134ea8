extension Array where Element == UInt8 {
    /// Appends `value` in decimal, as `String(value)` writes it, without making a `String`: the
    /// digits are made on the stack. The one integer writer of JSON records (APNsCore's
    /// `JSONWriter`) and of Redis commands and their RESP length headers, on every delivery's way.
    @inlinable
    public mutating func appendDecimal(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // The digits from the last, at the end of room for the most an Int64's magnitude has (19).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 19) { digits in
            var first = digits.count
            repeat {
                first -= 1
                digits[first] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            append(contentsOf: UnsafeBufferPointer(rebasing: digits[first...]))
        }
    }
}
