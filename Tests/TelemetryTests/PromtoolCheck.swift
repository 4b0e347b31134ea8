import Foundation
import PushlineTestKit
import Testing

/// Runs `promtool check metrics` (Debian package `prometheus`), Prometheus' own parser and linter.
enum PromtoolCheck {
    /// Expects promtool to find nothing to report in `exposition`. A missing promtool fails the
    /// test with the package to install.
    static func expectAccepted(_ exposition: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let promtool = try ExternalCommand.locate("promtool", package: "prometheus")
        let result = try ExternalCommand.run(promtool, ["check", "metrics"], standardInput: Data(exposition.utf8))
        #expect(result.status == 0, "promtool exit status", sourceLocation: sourceLocation)
        #expect(result.standardOutput.isEmpty && result.standardError.isEmpty,
                "promtool reported: \(result.standardOutput)\(result.standardError)\nfor:\n\(exposition)",
                sourceLocation: sourceLocation)
    }
}
