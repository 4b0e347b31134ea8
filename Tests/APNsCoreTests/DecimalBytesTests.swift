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

    @Test("every number below 100,000 and 20,000 spread over Int64's range, either sign, lent as String writes it")
    func sweep() {
        var generator = SystemRandomNumberGenerator()
        let values = (0..<100_000).map { Int64($0) } + (0..<20_000).map { _ in Int64.random(in: (.min + 1) ... .max, using: &generator) }
        let wrong = values.filter { value in withDecimal(value) { String(decoding: $0, as: UTF8.self) } != String(value) }
            + values.filter { value in withDecimal(-value) { String(decoding: $0, as: UTF8.self) } != String(-value) || decimalCount(-value) != String(-value).utf8.count }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }

    @Test("the digits lent are String's, and their count is known before writing them", arguments: values)
    func digitsAndCount(_ value: Int64) {
        let text = withDecimal(value) { String(decoding: $0, as: UTF8.self) }
        #expect(text == String(value))
        #expect(decimalCount(value) == text.utf8.count)
    }
}
