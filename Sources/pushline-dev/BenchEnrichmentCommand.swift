import APNsCore
import CLI
import Enrichment
import Foundation
import Runtime

/// `pushline-dev bench enrichment`: decode → render → payload bytes on one core, Pushline's path
/// against Foundation's `JSONDecoder` + `JSONEncoder` on the same intents, in one run.
enum BenchEnrichmentCommand: Command {
    static let name = "bench enrichment"
    static let summary = "measure intents/s per core: Pushline's decoder and writer vs Foundation's JSON"
    static let help = """
        Usage: pushline-dev bench enrichment [--seconds N] [--templates DIR] [--locales DIR]

        Decodes intents, renders the example app's templates (client and server localization,
        plurals) and writes the payload bytes, on one thread: first with Pushline's path
        (IntentDecoder, Enricher with validation and apns-id, the APNsCore writer), then with
        Foundation's JSONDecoder and JSONEncoder around the same rendering. The two alternate in
        rounds so both see the same machine. Prints both rates and their ratio.

        Before measuring, every intent's payload from both paths is checked to be the same JSON.

        Options:
          --seconds N       measuring time per path, split over 10 rounds (default: 5)
          --templates DIR   template files (default: Config/templates of the shared files:
                            PREFIX/share/pushline beside an installed pushline-dev, else its checkout)
          --locales DIR     string catalogs (default: Config/locales of the shared files)
          -h, --help        show this help
        """
    static let arguments = ArgumentSpec(valueOptions: ["--seconds", "--templates", "--locales"])

    private static let rounds = 10
    private static let sampleCount = 1000

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let seconds = try arguments.optionalInteger("--seconds") ?? 5
        guard seconds > 0 else { throw UsageError(message: "--seconds must be positive") }
        let enricher = Enricher(catalog: try EnrichmentCatalog.load(
            templatesDirectory: arguments.optional("--templates") ?? SharedFiles.path("Config/templates"),
            localesDirectory: arguments.optional("--locales") ?? SharedFiles.path("Config/locales")
        ))
        let intents = sampleIntents()
        let datas = intents.map { Data($0) }
        let decoder = JSONDecoder()
        let encoder = JSONEncoder()

        func pushline(_ index: Int) throws -> Int {
            let intent = try IntentDecoder.decode(intents[index])
            return try enricher.deliveries(for: intent).reduce(0) { $0 + $1.payload.count }
        }
        func foundation(_ index: Int) throws -> Int {
            let intent = try FoundationBaseline.decode(datas[index], with: decoder)
            return try FoundationBaseline.encode(try enricher.templatePayload(for: intent), with: encoder).count
        }

        for index in intents.indices {
            let ours = try JSONParser.parse(try enricher.deliveries(for: try IntentDecoder.decode(intents[index]))[0].payload)
            let theirs = try JSONParser.parse(Array(try FoundationBaseline.encode(
                try enricher.templatePayload(for: try FoundationBaseline.decode(datas[index], with: decoder)), with: encoder)))
            guard canonical(ours) == canonical(theirs) else {
                print("bench enrichment: the two paths disagree on intent \(index); not measuring")
                return 1
            }
        }

        var bytes = 0
        let totals = try AlternatingRounds.measure(rounds: rounds, perWay: .seconds(seconds), [
            { bytes += try pushline($0 % intents.count) },
            { _ = try foundation($0 % intents.count) },
        ])
        let ours = totals[0].rate
        let theirs = totals[1].rate
        print("""
            bench enrichment: decode → render → payload bytes, 1 thread, \(intents.count) distinct intents, \
            \(rounds) alternating rounds, \(seconds) s per path
              pushline   (IntentDecoder + Enricher + APNsCore writer): \(formatted(ours)) intents/s, \
            \(bytes / max(totals[0].runs, 1)) payload bytes/intent
              foundation (JSONDecoder + JSONEncoder):                  \(formatted(theirs)) intents/s
              ratio: \(String(format: "%.2f", ours / theirs))×
            """)
        return 0
    }

    /// A mix of the example app's templates: client-localized chat messages, server-rendered
    /// order updates with plurals in Japanese and Arabic, and German critical alerts.
    private static func sampleIntents() -> [[UInt8]] {
        (0..<sampleCount).map { index in
            let token = String(repeating: String(format: "%08x", index), count: 8)
            let common = #""id":"bench-\#(index)","app":"com.example.pushline","tokens":["\#(token)"],"created_at":1764489600000"#
            let json: String
            switch index % 4 {
            case 0:
                json = """
                    {\(common),"template":"chat_message","args":{"sender":"User \(index)","chat":{"id":"\(index % 97)","name":"Team \
                    \(index % 13)"},"message_id":"m-\(index)","text":"Message \(index) says \\"hi\\" 🎉 — see you at 5"}}
                    """
            case 1:
                json = """
                    {\(common),"template":"order_update","locale":"ja-JP","args":{"order":{"id":"\(index)","items":\(index % 7)},\
                    "carrier":"ヤマト運輸"}}
                    """
            case 2:
                json = """
                    {\(common),"template":"order_update","locale":"ar","args":{"order":{"id":"\(index)","items":\(index % 12)},\
                    "carrier":"أرامكس"}}
                    """
            default:
                json = """
                    {\(common),"template":"smoke_alarm","locale":"de","args":{"device":"Melder \(index)","room":"Küche"}}
                    """
            }
            return Array(json.utf8)
        }
    }

    /// The value with every object's members sorted by key, so documents that differ only in
    /// key order compare equal.
    private static func canonical(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            .object(JSONObject(object.members.map { JSONObject.Member($0.key, canonical($0.value)) }.sorted { $0.key < $1.key }))
        case .array(let elements):
            .array(elements.map(canonical))
        default:
            value
        }
    }

    private static func formatted(_ rate: Double) -> String {
        let whole = Int(rate.rounded())
        var digits = String(whole)
        var index = digits.count - 3
        while index > 0 {
            digits.insert(",", at: digits.index(digits.startIndex, offsetBy: index))
            index -= 3
        }
        return digits
    }
}
