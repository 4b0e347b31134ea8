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

    @Test("the digits lent are String's, and their count is known before writing them", arguments: values)
    func digitsAndCount(_ value: Int64) {
        let text = withDecimal(value) { String(decoding: $0, as: UTF8.self) }
        #expect(text == String(value))
        #expect(decimalCount(value) == text.utf8.count)
    }
}
