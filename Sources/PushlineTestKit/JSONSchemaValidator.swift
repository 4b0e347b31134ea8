import Foundation

/// Checks JSON documents against a JSON Schema (draft 2020-12) with Python's `jsonschema` from
/// Debian (`python3-jsonschema`): a validator that shares no code with Pushline's writers.
public enum JSONSchemaValidator {
    /// The problems of each document, in order; an empty list means valid.
    public static func problems(of documents: [[UInt8]], schemaFile: String) throws -> [[String]] {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestKitError("\(python) is missing (Debian package python3); run `make test`, which installs it")
        }
        let script = """
            import json, sys
            try:
                import jsonschema
            except ImportError:
                sys.exit("python3-jsonschema is not installed (Debian package python3-jsonschema); run `make test`")
            schema = json.load(open(sys.argv[1]))
            validator = jsonschema.Draft202012Validator(schema)
            for line in sys.stdin.read().splitlines():
                errors = sorted(e.message for e in validator.iter_errors(json.loads(line)))
                print(json.dumps(errors))
            """
        let input = documents.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n") + "\n"
        let result = try ExternalCommand.run(python, ["-c", script, schemaFile], standardInput: Data(input.utf8))
        guard result.status == 0 else { throw TestKitError("schema check failed: \(result.standardError)") }
        return try result.standardOutput.split(separator: "\n").map { line in
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String] ?? []
        }
    }
}
