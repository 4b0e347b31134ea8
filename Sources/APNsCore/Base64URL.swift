/// Base64url without padding (RFC 4648 §5), the encoding of JWT segments.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let decodingTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            appendSextets(chunk, count: 4, to: &output)
            index += 3
        }
        switch bytes.count - index {
        case 1: appendSextets(UInt32(bytes[index]) << 16, count: 2, to: &output)
        case 2: appendSextets(UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8, count: 3, to: &output)
        default: break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes unpadded base64url; nil for any other character or an impossible length.
    public static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in input {
            let value = decodingTable[Int(character)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return output
    }

    private static func appendSextets(_ chunk: UInt32, count: Int, to output: inout [UInt8]) {
        for position in 0..<count {
            output.append(alphabet[Int(chunk >> UInt32(18 - 6 * position) & 0x3F)])
        }
    }
}
