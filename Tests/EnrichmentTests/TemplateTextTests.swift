import APNsCore
@testable import Enrichment
import Testing

@Suite("Template text")
struct TemplateTextTests {
    private func render(_ source: String, _ args: JSONObject) throws -> String {
        try TemplateText(compiling: source).render(args)
    }

    @Test("placeholders, dotted names and spaces inside braces")
    func placeholders() throws {
        let args: JSONObject = ["sender": "Anna", "chat": .object(["id": 4521, "title": "Crew"]), "urgent": true, "score": 0.5]
        #expect(try render("{{sender}} in {{ chat.title }} #{{chat.id}} {{urgent}} {{score}}", args) == "Anna in Crew #4521 true 0.5")
    }

    @Test("a section shows when its value is present and not empty, false or zero")
    func sections() throws {
        let source = "Hi{{#name}} {{name}}{{/name}}{{^name}} there{{/name}}!"
        #expect(try render(source, ["name": "Anna"]) == "Hi Anna!")
        for absent: JSONValue in [.null, false, 0, "", []] {
            #expect(try render(source, ["name": absent]) == "Hi there!")
        }
        #expect(try render(source, [:]) == "Hi there!")
    }

    @Test("sections nest")
    func nestedSections() throws {
        #expect(try render("{{#a}}A{{#b}}B{{/b}}{{/a}}", ["a": 1, "b": 1]) == "AB")
        #expect(try render("{{#a}}A{{#b}}B{{/b}}{{/a}}", ["a": 1]) == "A")
    }

    @Test("a missing argument is an error that says how to make it optional")
    func missingArgument() throws {
        #expect {
            try render("Hello {{user.name}}", ["user": .object([:])])
        } throws: { error in
            (error as? EnrichmentError)?.code == .missingArgument && "\(error)".contains("args.user.name")
        }
    }

    @Test("an object or array is not text")
    func notText() throws {
        #expect(throws: EnrichmentError.self) { try render("{{list}}", ["list": [1, 2]]) }
        #expect(throws: EnrichmentError.self) { try render("{{user}}", ["user": .object(["a": 1])]) }
    }

    @Test("syntax errors", arguments: ["{{name", "{{#a}}open", "{{/a}}", "{{#a}}{{/b}}", "{{bad name}}", "{{a..b}}", "{{}}"])
    func syntaxError(source: String) {
        #expect(throws: TemplateText.SyntaxError.self) { try TemplateText(compiling: source) }
    }

    @Test("sections nest at most 16 deep")
    func nestingLimit() throws {
        let nested = { (depth: Int) in String(repeating: "{{#a}}", count: depth) + String(repeating: "{{/a}}", count: depth) }
        #expect(try render(nested(16), ["a": true]) == "")
        #expect(throws: TemplateText.SyntaxError.self) { try TemplateText(compiling: nested(17)) }
    }

    @Test("text that only looks like a tag is literal")
    func singleBraces() throws {
        #expect(try render("{a} }} {", [:]) == "{a} }} {")
    }

    @Test("an argument's own braces are not expanded again")
    func noReexpansion() throws {
        #expect(try render("{{a}}", ["a": "{{b}}", "b": "secret"]) == "{{b}}")
    }
}
