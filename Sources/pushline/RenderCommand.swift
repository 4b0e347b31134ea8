import APNsCore
import CLI
import Enrichment
import Foundation
import Runtime

/// `pushline render`: turns an intent file into the APNs requests Pushline would send, without
/// sending anything.
enum RenderCommand: Command {
    static let name = "render"
    static let summary = "show the APNs requests an intent file becomes (templates, locales, validation)"
    static let help = """
        Usage: pushline render INTENT_FILE [--templates DIR] [--locales DIR] [--locale L]
                                           [--simulator-dir DIR]

        Decodes a schema v1 intent, fills the app's template, localizes it and checks the result
        against the APNs rules. Prints one JSON object per delivery (one per line):

          {"token", "environment", "headers": {"apns-topic", "apns-push-type", "apns-priority",
           "apns-expiration", "apns-collapse-id", "apns-id"}, "payload": {…}}

        with absent optional headers left out, and exits 0. When the intent cannot become a valid
        notification it prints "invalid: <Reason>: <detail>" lines and exits 1. Notes on locale
        fallback and shortened text go to standard error. Intents for a "user" need the token
        registry and are reported as invalid here.

        Options:
          --templates DIR       template files, <app>.yaml (default: the example app's,
                                Config/templates of the shared files: PREFIX/share/pushline
                                beside an installed pushline, else its checkout)
          --locales DIR         string catalogs, <app>/*.xcstrings and <app>/<locale>.json
                                (default: Config/locales of the shared files)
          --locale L            render as if the intent named locale L
          --simulator-dir DIR   also write each delivery as an .apns file for the iOS Simulator
                                (drag it onto the Simulator, or: xcrun simctl push booted FILE)
          -h, --help            show this help
        """
    static let arguments = ArgumentSpec(
        valueOptions: ["--templates", "--locales", "--locale", "--simulator-dir"],
        positionalNames: ["INTENT_FILE"]
    )

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let catalog = try EnrichmentCatalog.load(
            templatesDirectory: arguments.optional("--templates") ?? SharedFiles.path("Config/templates"),
            localesDirectory: arguments.optional("--locales") ?? SharedFiles.path("Config/locales")
        )
        let bytes = try readFile(arguments.positionals[0], purpose: "intent")
        var intent: Intent
        do {
            intent = try IntentDecoder.decode(bytes)
        } catch {
            print("invalid: \(error)")
            return 1
        }
        if let locale = arguments.optional("--locale") {
            guard LanguageTag.isWellFormed(locale) else { throw UsageError(message: "--locale \"\(locale)\" is not a BCP 47 language tag") }
            intent = intent.replacingLocale(locale)
        }
        let deliveries: [Delivery]
        do {
            deliveries = try Enricher(catalog: catalog).deliveries(for: intent)
        } catch {
            for problem in error.problems { print("invalid: \(problem)") }
            return 1
        }
        for delivery in deliveries {
            if let locale = delivery.locale, locale.isFallback {
                printNote("\(delivery.token.redacted): locale \(locale)")
            }
            if delivery.wasShortened { printNote("\(delivery.token.redacted): alert text shortened to fit \(delivery.pushType.payloadLimit) bytes") }
            print(String(decoding: json(delivery), as: UTF8.self))
        }
        if let directory = arguments.optional("--simulator-dir") {
            try writeSimulatorFiles(deliveries, app: intent.app, directory: directory)
        }
        return 0
    }

    /// The delivery as one JSON object; the payload's bytes are embedded as they are.
    static func json(_ delivery: Delivery) -> [UInt8] {
        var headers: [(String, String)] = [
            ("apns-topic", delivery.topic),
            ("apns-push-type", delivery.pushType.rawValue),
            ("apns-priority", String(delivery.priority.rawValue)),
        ]
        if let expiration = delivery.expiration.headerValue { headers.append(("apns-expiration", expiration)) }
        if let collapseID = delivery.collapseID { headers.append(("apns-collapse-id", collapseID)) }
        headers.append(("apns-id", delivery.notificationID.description))
        var output: [UInt8] = []
        output.append(contentsOf: #"{"token":"#.utf8)
        JSONWriter.appendString(delivery.token.hex, to: &output)
        output.append(contentsOf: #","environment":"#.utf8)
        JSONWriter.appendString(delivery.environment.rawValue, to: &output)
        output.append(contentsOf: #","headers":"#.utf8)
        JSONWriter.appendValue(.object(JSONObject(headers.map { JSONObject.Member($0.0, .string($0.1)) })), to: &output)
        output.append(contentsOf: #","payload":"#.utf8)
        output.append(contentsOf: delivery.payload)
        output.append(UInt8(ascii: "}"))
        return output
    }

    /// One `<apns-id>.apns` file per delivery: the payload plus `Simulator Target Bundle`.
    private static func writeSimulatorFiles(_ deliveries: [Delivery], app: String, directory: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw UsageError(message: "cannot create --simulator-dir \"\(directory)\": \(error.localizedDescription)")
        }
        for delivery in deliveries {
            // The payload is always a JSON object: add the key before its closing brace.
            var file = Array(delivery.payload.dropLast())
            file.append(contentsOf: #","Simulator Target Bundle":"#.utf8)
            JSONWriter.appendString(app, to: &file)
            file.append(contentsOf: "}\n".utf8)
            let path = "\(directory)/\(delivery.notificationID).apns"
            guard FileManager.default.createFile(atPath: path, contents: Data(file)) else {
                throw UsageError(message: "cannot write \"\(path)\"")
            }
        }
    }

    private static func printNote(_ message: String) {
        FileHandle.standardError.write(Data("pushline render: note: \(message)\n".utf8))
    }
}
