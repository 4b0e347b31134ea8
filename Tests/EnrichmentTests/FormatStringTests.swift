@testable import Enrichment
import Testing

@Suite("Format specifiers")
struct FormatStringTests {
    private func format(_ source: String, _ args: [String]) throws -> String {
        try LocalizedString(variants: .single(FormatString(compiling: source)), substitutions: [:]).render(args, locale: "en")
    }

    @Test("%@ and %d/%lld take the arguments in order")
    func sequential() throws {
        #expect(try format("%@ has %d new and %lld old", ["Anna", "3", "12"]) == "Anna has 3 new and 12 old")
    }

    @Test("positional specifiers reorder arguments, as translations need")
    func positional() throws {
        #expect(try format("%2$@の%1$@", ["Anna", "Crew"]) == "CrewのAnna")
        #expect(try format("%1$@ and %1$@", ["x"]) == "x and x")
    }

    @Test("%% is a percent sign")
    func percent() throws {
        #expect(try format("100%% of %@", ["you"]) == "100% of you")
    }

    @Test("an integer specifier with a non-integer argument is BadFormatArgument")
    func notAnInteger() {
        #expect { try format("%d items", ["three"]) } throws: { ($0 as? EnrichmentError)?.code == .badFormatArgument }
    }

    @Test("a specifier past the last argument is BadFormatArgument")
    func tooFewArguments() {
        #expect { try format("%@ %@", ["one"]) } throws: { ($0 as? EnrichmentError)?.code == .badFormatArgument }
    }

    @Test("unsupported specifiers are rejected when the catalog loads", arguments: ["%s", "%f", "50%", "%0$@", "%#@x"])
    func unsupported(source: String) {
        #expect(throws: FormatString.SyntaxError.self) { try FormatString(compiling: source) }
    }
}
