import APNsCore

/// A compiled text template: literal text, `{{name}}` placeholders (dotted names reach into
/// nested `args` objects) and sections, `{{#name}}…{{/name}}` shown when the value is present and
/// not empty, false or zero, `{{^name}}…{{/name}}` shown when it is not.
///
/// Rendering produces plain text; JSON escaping happens once, when the payload is written, so an
/// argument can never add keys or break the payload.
///
/// A class: immutable, and handed around for every intent (an alert's texts, a skeleton's holes),
/// where a copy of a struct retained its segments, placeholder and literal each.
final class TemplateText: Sendable, Equatable {
    /// Why a template's text does not compile; `offset` counts characters from its start.
    struct SyntaxError: Error, Equatable {
        let offset: Int
        let message: String
    }

    private indirect enum Segment: Sendable, Equatable {
        case literal(String)
        case placeholder(ArgumentPath)
        case section(ArgumentPath, inverted: Bool, [Segment])
    }

    private let segments: [Segment]

    /// Deeper nesting is refused, so rendering's recursion stays shallow whatever the file holds.
    static let maximumSectionDepth = 16

    /// The argument when the text is exactly one placeholder, so a custom key can keep its JSON
    /// type. Kept, not worked out per use: most texts are one placeholder, rendered for every intent.
    let singlePlaceholder: ArgumentPath?

    /// The text when it has neither placeholders nor sections (a placeholder body such as "New
    /// message", rendered for every sealed delivery): returned as it is.
    let literal: String?

    init(compiling source: String) throws(SyntaxError) {
        var parser = TemplateTextParser(source)
        segments = try parser.parseSegments(closing: nil)
        if segments.count == 1, case .placeholder(let path) = segments[0] { singlePlaceholder = path } else { singlePlaceholder = nil }
        switch segments.first {
        case nil: literal = ""
        case .literal(let text)? where segments.count == 1: literal = text
        default: literal = nil
        }
    }

    /// The argument a text that is exactly one placeholder stands for, with its JSON type (a
    /// custom key's value keeps it); nil for any other text, and when the argument is absent or
    /// `null`: the text is then rendered, and a missing argument fails there.
    func singleArgument(in args: JSONObject) -> JSONValue? {
        singlePlaceholder?.value(in: args)
    }

    static func == (left: TemplateText, right: TemplateText) -> Bool {
        left.segments == right.segments
    }

    /// The text with `args` filled in.
    func render(_ args: JSONObject) throws(EnrichmentError) -> String {
        if let literal { return literal }
        if let singlePlaceholder { return try singlePlaceholder.text(in: args) }
        var output = ""
        try Self.render(segments, args, into: &output)
        return output
    }

    /// The text with `args` filled in, appended to `output` piece by piece: for a payload written
    /// straight from the template (``PayloadSkeleton``), with no `String` of the whole text.
    func render(_ args: JSONObject, into output: inout some RenderedTextSink) throws(EnrichmentError) {
        if let literal { return output.append(literal) }
        if let singlePlaceholder { return output.append(try singlePlaceholder.text(in: args)) }
        try Self.render(segments, args, into: &output)
    }

    private static func render(_ segments: [Segment], _ args: JSONObject, into output: inout some RenderedTextSink) throws(EnrichmentError) {
        for segment in segments {
            switch segment {
            case .literal(let text):
                output.append(text)
            case .placeholder(let path):
                output.append(try path.text(in: args))
            case .section(let path, let inverted, let body):
                if path.isShown(in: args) != inverted { try render(body, args, into: &output) }
            }
        }
    }

    /// Reads the segments of a template's text.
    private struct TemplateTextParser {
        private let characters: [Character]
        private var position = 0
        private var depth = 0

        init(_ source: String) {
            characters = Array(source)
        }

        mutating func parseSegments(closing: ArgumentPath?) throws(SyntaxError) -> [Segment] {
            var segments: [Segment] = []
            var literal = ""
            while position < characters.count {
                guard startsTag else {
                    literal.append(characters[position])
                    position += 1
                    continue
                }
                let tagStart = position
                let (sigil, name) = try readTag()
                if !literal.isEmpty {
                    segments.append(.literal(literal))
                    literal = ""
                }
                switch sigil {
                case "#", "^":
                    depth += 1
                    guard depth <= TemplateText.maximumSectionDepth else {
                        throw SyntaxError(offset: tagStart, message: "sections nest deeper than \(TemplateText.maximumSectionDepth)")
                    }
                    let body = try parseSegments(closing: name)
                    depth -= 1
                    segments.append(.section(name, inverted: sigil == "^", body))
                case "/":
                    guard name == closing else {
                        throw SyntaxError(offset: tagStart, message: "{{/\(name)}} closes no open section")
                    }
                    return segments
                default:
                    segments.append(.placeholder(name))
                }
            }
            if let closing { throw SyntaxError(offset: position, message: "section {{#\(closing)}} is not closed") }
            if !literal.isEmpty { segments.append(.literal(literal)) }
            return segments
        }

        private var startsTag: Bool {
            position + 1 < characters.count && characters[position] == "{" && characters[position + 1] == "{"
        }

        private mutating func readTag() throws(SyntaxError) -> (sigil: Character?, name: ArgumentPath) {
            let start = position
            position += 2
            var inside = ""
            while position + 1 < characters.count, !(characters[position] == "}" && characters[position + 1] == "}") {
                inside.append(characters[position])
                position += 1
            }
            guard position + 1 < characters.count else { throw SyntaxError(offset: start, message: "{{ is not closed") }
            position += 2
            var trimmed = Substring(inside).drop { $0 == " " }
            while trimmed.last == " " { trimmed.removeLast() }
            var sigil: Character?
            if let first = trimmed.first, "#^/".contains(first) {
                sigil = first
                trimmed = trimmed.dropFirst().drop { $0 == " " }
            }
            guard let name = ArgumentPath(String(trimmed)) else {
                throw SyntaxError(offset: start, message: "\"\(trimmed)\" is not an argument name (letters, digits, _ and -, dotted)")
            }
            return (sigil, name)
        }
    }
}

/// Where a template's rendered text goes, piece by piece.
protocol RenderedTextSink {
    mutating func append(_ text: String)
}

extension String: RenderedTextSink {}
