import DecimalBytes
import Testing

@Suite("Decimal bytes")
struct DecimalBytesTests {
    /// Each power of ten and its neighbours, both signs, and the ends of `Int64`.
    static let values: [Int64] = {
        var values: [Int64] = [0, .max, .min, .min + 1]
        var power: Int64 = 1
        for _ in 0...18 {
            values += [power - 1, power, power + 1, -(power - 1), -power, -(power + 1)]
            if power <= Int64.max / 10 { power *= 10 }
        }
        return values
    }()

    @Test("every number below 100,000 and 20,000 spread over Int64's range, both signs: the digits String writes, their count known")
    func sweep() {
        // A fixed sequence (a 64-bit linear congruential generator's), so a failure can be run again.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let spread = (0..<20_000).map { _ -> Int64 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int64(bitPattern: state) == .min ? 0 : Int64(bitPattern: state)
        }
        let wrong = ((0..<100_000).map { Int64($0) } + spread).flatMap { [$0, -$0] }.filter { value in
            withDecimal(value) { String(decoding: $0, as: UTF8.self) } != String(value) || decimalCount(value) != String(value).utf8.count
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }

    @Test("the digits lent are String's, and their count is known before writing them", arguments: values)
    func digitsAndCount(_ value: Int64) {
        let text = withDecimal(value) { String(decoding: $0, as: UTF8.self) }
        #expect(text == String(value))
        #expect(decimalCount(value) == text.utf8.count)
    }
}
