/// The Prometheus text exposition format, version 0.0.4: comment lines, sample lines, escaping and
/// number formatting.
enum PrometheusText {
    /// The `content-type` of an exposition.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Appends `# HELP` (when there is help text) and `# TYPE` for one family.
    static func appendHeader(name: String, help: String, type: String, to buffer: inout [UInt8]) {
        if !help.isEmpty {
            buffer.append(contentsOf: "# HELP \(name) ".utf8)
            appendEscaped(help, escapingQuotes: false, to: &buffer)
            buffer.append(UInt8(ascii: "\n"))
        }
        buffer.append(contentsOf: "# TYPE \(name) \(type)\n".utf8)
    }

    /// Appends `name{label="value",…} value`.
    static func appendSample(name: String, dimensions: [(String, String)], value: Int64, to buffer: inout [UInt8]) {
        appendSample(name: name, dimensions: dimensions, formattedValue: String(value), to: &buffer)
    }

    /// Appends `name{label="value",…} value`.
    static func appendSample(name: String, dimensions: [(String, String)], value: Double, to buffer: inout [UInt8]) {
        appendSample(name: name, dimensions: dimensions, formattedValue: format(value), to: &buffer)
    }

    /// A value as Prometheus reads it: `+Inf`, `-Inf`, `NaN`, integral values without a fraction
    /// (`le="1"`, as the Go client writes them), others in Swift's shortest round-trip form.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 0x1p53 { return String(Int64(value)) }
        return value.description
    }

    private static func appendSample(name: String, dimensions: [(String, String)], formattedValue: String,
                                     to buffer: inout [UInt8]) {
        buffer.append(contentsOf: name.utf8)
        if !dimensions.isEmpty {
            buffer.append(UInt8(ascii: "{"))
            for (index, (labelName, labelValue)) in dimensions.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                buffer.append(contentsOf: labelName.utf8)
                buffer.append(contentsOf: "=\"".utf8)
                appendEscaped(labelValue, escapingQuotes: true, to: &buffer)
                buffer.append(UInt8(ascii: "\""))
            }
            buffer.append(UInt8(ascii: "}"))
        }
        buffer.append(UInt8(ascii: " "))
        buffer.append(contentsOf: formattedValue.utf8)
        buffer.append(UInt8(ascii: "\n"))
    }

    /// Help text escapes `\` and line feeds; label values also escape `"`.
    private static func appendEscaped(_ text: String, escapingQuotes: Bool, to buffer: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): buffer.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): buffer.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\"") where escapingQuotes: buffer.append(contentsOf: #"\""#.utf8)
            default: buffer.append(byte)
            }
        }
    }
}
