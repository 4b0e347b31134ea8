extension Array where Element == UInt8 {
    /// Appends `value` in decimal, as `String(value)` writes it, the digits made on the stack: the
    /// one decimal writer of the Redis module (integer arguments of commands, RESP length headers).
    @inlinable
    mutating func appendDecimal(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // The digits from the last, at the end of room for the most an Int's magnitude has (19).
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
