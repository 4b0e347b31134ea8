/// A compiled localized format string: literal text and the specifiers Apple's catalogs use —
/// `%@`, `%d`/`%i`/`%ld`/`%lld`/`%u`, positional `%1$@`/`%2$lld`, `%%`, a substitution
/// `%#@name@` (String Catalog) and, inside a substitution's variants, `%arg`.
struct FormatString: Sendable, Equatable {
    /// Why a catalog's format string does not compile.
    struct SyntaxError: Error, Equatable {
        let message: String
    }

    enum Segment: Sendable, Equatable {
        case literal(String)
        /// Argument `index` (0-based); `integer` for `d`-style specifiers.
        case argument(index: Int, integer: Bool)
        /// `%#@name@`: the substitution's plural variant goes here.
        case substitution(String)
        /// `%arg`: the argument of the substitution whose variant this is.
        case substitutionArgument
    }

    let segments: [Segment]

    init(compiling source: String) throws(SyntaxError) {
        var segments: [Segment] = []
        var literal = ""
        var nextSequential = 0
        let scalars = Array(source.unicodeScalars)
        var position = 0

        func flush() {
            if !literal.isEmpty { segments.append(.literal(literal)) }
            literal = ""
        }

        while position < scalars.count {
            let scalar = scalars[position]
            position += 1
            guard scalar == "%" else {
                literal.unicodeScalars.append(scalar)
                continue
            }
            guard position < scalars.count else { throw SyntaxError(message: "the string ends with a lone %") }
            if scalars[position] == "%" {
                literal.append("%")
                position += 1
                continue
            }
            if Self.matches("arg", scalars, at: position) {
                flush()
                segments.append(.substitutionArgument)
                position += 3
                continue
            }
            var explicitIndex: Int?
            var digits = 0
            var lookahead = position
            while lookahead < scalars.count, ("0"..."9").contains(scalars[lookahead]) {
                let digit = Int(scalars[lookahead].value - Unicode.Scalar("0").value)
                digits = digits * 10 + digit
                lookahead += 1
                guard digits < 100 else { throw SyntaxError(message: "argument position \(digits)… is too large") }
            }
            if lookahead > position, lookahead < scalars.count, scalars[lookahead] == "$" {
                guard digits > 0 else { throw SyntaxError(message: "argument positions start at 1") }
                explicitIndex = digits - 1
                position = lookahead + 1
            }
            let index = explicitIndex ?? nextSequential
            if explicitIndex == nil { nextSequential += 1 }
            flush()
            if position < scalars.count, scalars[position] == "#" {
                guard position + 1 < scalars.count, scalars[position + 1] == "@" else {
                    throw SyntaxError(message: "%# must be followed by @name@")
                }
                position += 2
                var name = ""
                while position < scalars.count, scalars[position] != "@" {
                    name.unicodeScalars.append(scalars[position])
                    position += 1
                }
                guard position < scalars.count, !name.isEmpty else { throw SyntaxError(message: "%#@ needs a name and a closing @") }
                position += 1
                segments.append(.substitution(name))
                continue
            }
            guard let (integer, length) = Self.conversion(scalars, at: position) else {
                let rest = String(String.UnicodeScalarView(scalars[(position - 1)...].prefix(4)))
                throw SyntaxError(message: "unsupported format specifier \"\(rest)\"; use %@, %d, %lld or %1$@")
            }
            position += length
            segments.append(.argument(index: index, integer: integer))
        }
        flush()
        self.segments = segments
    }

    /// The first argument formatted as an integer: what a plural variation counts.
    var firstIntegerArgument: Int? {
        for case .argument(let index, true) in segments { return index }
        return nil
    }

    /// Formats with `args` (already text), `integer` specifiers requiring whole numbers;
    /// `substitute` supplies `%#@name@` and `%arg`.
    func format(_ args: [String], substitute: (Segment) throws(EnrichmentError) -> String) throws(EnrichmentError) -> String {
        var output = ""
        for segment in segments {
            switch segment {
            case .literal(let text):
                output += text
            case .argument(let index, let integer):
                output += try Self.argument(args, index, integer: integer)
            case .substitution, .substitutionArgument:
                output += try substitute(segment)
            }
        }
        return output
    }

    /// Argument `index` as text; a `d`-style specifier needs a whole number and prints it plainly.
    static func argument(_ args: [String], _ index: Int, integer: Bool) throws(EnrichmentError) -> String {
        guard index < args.count else {
            throw EnrichmentError(.badFormatArgument, "the string uses argument \(index + 1) but the template passes \(args.count)")
        }
        guard integer else { return args[index] }
        guard let number = Int64(args[index]) else {
            throw EnrichmentError(.badFormatArgument, "argument \(index + 1) is \"\(args[index])\", not a whole number")
        }
        return String(number)
    }

    private static func matches(_ word: String, _ scalars: [Unicode.Scalar], at position: Int) -> Bool {
        let wordScalars = Array(word.unicodeScalars)
        guard position + wordScalars.count <= scalars.count else { return false }
        return Array(scalars[position..<(position + wordScalars.count)]) == wordScalars
    }

    /// The conversion at `position`: whether it is an integer one, and how many scalars it spans.
    private static func conversion(_ scalars: [Unicode.Scalar], at position: Int) -> (integer: Bool, length: Int)? {
        let forms: [(String, Bool)] = [("@", false), ("lld", true), ("llu", true), ("ld", true), ("lu", true),
                                       ("d", true), ("i", true), ("u", true)]
        for (form, integer) in forms where matches(form, scalars, at: position) {
            return (integer, form.unicodeScalars.count)
        }
        return nil
    }
}
