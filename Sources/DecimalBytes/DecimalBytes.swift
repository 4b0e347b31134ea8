/// Lends `value`'s digits in decimal, as `String(value)` writes it, without making a `String`: the
/// digits are made on the stack, valid only inside `body`. The one integer writer of JSON records
/// (APNsCore's `JSONWriter`, the pipeline's record writer) and of Redis commands and their RESP length
/// headers, on every delivery's way.
@inlinable @inline(__always)
public func withDecimal<Result>(_ value: Int64, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    var magnitude = value.magnitude
    // Two digits a step, from a table of the hundred pairs: half the divisions of one digit a
    // step, for the 13-digit timestamps in every record (a literal: a constant, nothing made).
    let pairs: StaticString = """
        0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849\
        5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899
        """
    // The digits from the last, at the end of room for the most an Int64 has (a sign and 19 digits).
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
        var first = digits.count
        while magnitude >= 100 {
            let pair = Int(magnitude % 100) * 2
            magnitude /= 100
            first -= 2
            digits[first] = pairs.utf8Start[pair]
            digits[first + 1] = pairs.utf8Start[pair + 1]
        }
        if magnitude >= 10 {
            first -= 2
            digits[first] = pairs.utf8Start[Int(magnitude) * 2]
            digits[first + 1] = pairs.utf8Start[Int(magnitude) * 2 + 1]
        } else {
            first -= 1
            digits[first] = UInt8(ascii: "0") + UInt8(magnitude)
        }
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
