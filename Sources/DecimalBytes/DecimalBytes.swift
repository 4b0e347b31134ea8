/// Lends `value`'s digits in decimal, as `String(value)` writes it, without making a `String`: the
/// digits are made on the stack, valid only inside `body`. The one integer writer of JSON records
/// (APNsCore's `JSONWriter`, the pipeline's record writer) and of Redis commands and their RESP length
/// headers, on every delivery's way.
@inlinable
public func withDecimal<Result>(_ value: Int64, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    var magnitude = value.magnitude
    // The digits from the last, at the end of room for the most an Int64 has (a sign and 19 digits).
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
        var first = digits.count
        repeat {
            first -= 1
            digits[first] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        if value < 0 {
            first -= 1
            digits[first] = UInt8(ascii: "-")
        }
        return body(UnsafeBufferPointer(rebasing: digits[first...]))
    }
}

/// How many bytes ``withDecimal(_:_:)`` lends for `value` (its digits, and a sign when negative):
/// for a writer that sizes its output before writing it.
@inlinable
public func decimalCount(_ value: Int64) -> Int {
    var magnitude = value.magnitude
    var count = value < 0 ? 2 : 1
    while magnitude >= 10 {
        magnitude /= 10
        count += 1
    }
    return count
}

extension Array where Element == UInt8 {
    /// Appends `value` in decimal, as `String(value)` writes it (``withDecimal(_:_:)``).
    @inlinable
    public mutating func appendDecimal(_ value: Int64) {
        withDecimal(value) { append(contentsOf: $0) }
    }
}
