import APNsCore
import Foundation
import Pipeline

/// Writes an ``OutcomeReport`` for people (`table`), for spreadsheets (`csv`: the funnel's lines,
/// or with the token list the gone tokens) or for programs (`json`: everything).
public struct OutcomeReportWriter: Sendable {
    public enum Format: String, Sendable, CaseIterable {
        case table, csv, json
    }

    public var format: Format
    /// Whether the gone tokens are listed (always counted).
    public var listTokens: Bool
    /// The topics read, for the headings.
    public var outcomesTopic: String
    public var deadLetterTopic: String?

    public init(format: Format, listTokens: Bool, outcomesTopic: String, deadLetterTopic: String?) {
        self.format = format
        self.listTokens = listTokens
        self.outcomesTopic = outcomesTopic
        self.deadLetterTopic = deadLetterTopic
    }

    /// The whole report as text, ending with a newline.
    public func text(_ report: OutcomeReport) -> String {
        switch format {
        case .table: table(report)
        case .csv: listTokens ? csvTokens(report) : csvFunnel(report)
        case .json: json(report)
        }
    }

    private static let funnelHeader = ["app", "template", "push_type", "locale", "status", "reason", "count",
                                       "p50_ms", "p90_ms", "p99_ms", "max_ms"]

    private func funnelCells(_ report: OutcomeReport) -> [[String]] {
        report.sortedLines.map { entry in
            let line = entry.line
            let latency = entry.latency.map { [$0.p50, $0.p90, $0.p99, $0.max].map(Self.milliseconds) } ?? ["", "", "", ""]
            return [line.app, line.template ?? "", line.pushType ?? "", line.locale ?? "", line.status, line.reason ?? "",
                    String(entry.count)] + latency
        }
    }

    private func table(_ report: OutcomeReport) -> String {
        var text = "== Outcomes (\(outcomesTopic)): \(report.deliveries) deliveries from \(report.recordsRead) records"
        text += "; \(report.copies) copies of a delivery counted once (\(report.differingCopies) not byte for byte the first)"
        text += "; \(report.unreadableCount) unreadable; \(report.outsideRange) outside the time range\n"
        text += Self.columns([Self.funnelHeader.map { $0.uppercased() }]
            + funnelCells(report).map { $0.map { $0.isEmpty ? "-" : $0 } })
        text += "\n== By status\n"
        text += Self.columns(report.byStatus.map { [$0.status, String($0.count)] })
        text += "\n== Latency, intent created to outcome (ms)\n"
        let latencies = [("all", report.latency), ("accepted", report.acceptedLatency)].map { name, summary in
            [name] + (summary.map { ["\($0.count)", Self.milliseconds($0.p50), Self.milliseconds($0.p90), Self.milliseconds($0.p99),
                                     Self.milliseconds($0.max)] } ?? ["0", "-", "-", "-", "-"])
        }
        text += Self.columns([["DELIVERIES", "COUNT", "P50", "P90", "P99", "MAX"]] + latencies)
        text += "\n== Unregistered or expired tokens: \(report.goneTokens.count)\n"
        if listTokens {
            text += Self.columns(report.sortedGoneTokens.map {
                [$0.token.app, $0.token.environment, $0.token.token, $0.token.reason, Self.timestamp($0.at)]
            })
        }
        if let deadLetterTopic {
            text += "\n== Dead letters (\(deadLetterTopic)): \(report.deadLettersRead)\n"
            text += Self.columns(report.topDeadLetterReasons().map { [$0.reason, String($0.count)] })
        }
        for problem in report.unreadable { text += "unreadable: \(problem)\n" }
        return text
    }

    private func csvFunnel(_ report: OutcomeReport) -> String {
        ([Self.funnelHeader] + funnelCells(report)).map { $0.map(Self.csvField).joined(separator: ",") + "\n" }.joined()
    }

    private func csvTokens(_ report: OutcomeReport) -> String {
        ([["app", "environment", "token", "reason", "at"]] + report.sortedGoneTokens.map {
            [$0.token.app, $0.token.environment, $0.token.token, $0.token.reason, String($0.at)]
        }).map { $0.map(Self.csvField).joined(separator: ",") + "\n" }.joined()
    }

    private func json(_ report: OutcomeReport) -> String {
        var object: JSONObject = [
            "outcomes_topic": .string(outcomesTopic),
            "range": .object(Self.json(report.range)),
            "records_read": .integer(Int64(report.recordsRead)),
            "outside_range": .integer(Int64(report.outsideRange)),
            "unreadable": .integer(Int64(report.unreadableCount)),
            "deliveries": .integer(Int64(report.deliveries)),
            "copies": .integer(Int64(report.copies)),
            "differing_copies": .integer(Int64(report.differingCopies)),
            "by_status": .object(JSONObject(report.byStatus.map { .init($0.status, .integer(Int64($0.count))) })),
        ]
        object.append("latency_ms", report.latency.map(Self.json))
        object.append("accepted_latency_ms", report.acceptedLatency.map(Self.json))
        object.append("funnel", .array(report.sortedLines.map { entry in
            var line: JSONObject = ["app": .string(entry.line.app)]
            line.append("template", entry.line.template.map(JSONValue.string))
            line.append("push_type", entry.line.pushType.map(JSONValue.string))
            line.append("locale", entry.line.locale.map(JSONValue.string))
            line.append("status", .string(entry.line.status))
            line.append("reason", entry.line.reason.map(JSONValue.string))
            line.append("count", .integer(Int64(entry.count)))
            line.append("latency_ms", entry.latency.map(Self.json))
            return .object(line)
        }))
        var tokens: JSONObject = ["count": .integer(Int64(report.goneTokens.count))]
        if listTokens {
            tokens.append("tokens", .array(report.sortedGoneTokens.map {
                .object(["app": .string($0.token.app), "environment": .string($0.token.environment), "token": .string($0.token.token),
                         "reason": .string($0.token.reason), "at": .integer($0.at)])
            }))
        }
        object.append("gone_tokens", .object(tokens))
        if let deadLetterTopic {
            object.append("dead_letters", .object([
                "topic": .string(deadLetterTopic), "count": .integer(Int64(report.deadLettersRead)),
                "reasons": .array(report.topDeadLetterReasons().map { .object(["reason": .string($0.reason), "count": .integer(Int64($0.count))]) }),
            ]))
        }
        return String(decoding: object.encoded, as: UTF8.self) + "\n"
    }

    private static func json(_ range: RecordRange) -> JSONObject {
        var object = JSONObject()
        object.append("since", range.since.map(JSONValue.integer))
        object.append("until", range.until.map(JSONValue.integer))
        object.append("start_offset", range.startOffset.map(JSONValue.integer))
        object.append("end_offset", range.endOffset.map(JSONValue.integer))
        object.append("partitions", range.partitions.map { .array($0.sorted().map { .integer(Int64($0)) }) })
        return object
    }

    private static func json(_ summary: LatencySummary) -> JSONValue {
        .object(["count": .integer(Int64(summary.count)), "p50": .double(summary.p50), "p90": .double(summary.p90),
                 "p99": .double(summary.p99), "max": .double(summary.max)])
    }

    /// Rows as left-aligned columns two spaces apart.
    private static func columns(_ rows: [[String]]) -> String {
        var widths: [Int] = []
        for row in rows {
            for (index, cell) in row.enumerated() {
                if index == widths.count { widths.append(0) }
                widths[index] = max(widths[index], cell.count)
            }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ") + "\n"
        }.joined()
    }

    /// RFC 4180: quoted when it holds a comma, a quote or a line break.
    private static func csvField(_ text: String) -> String {
        text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) ? "\"" + text.replacing("\"", with: "\"\"") + "\"" : text
    }

    private static func milliseconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int64(value)) : String(format: "%.1f", value)
    }

    private static func timestamp(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
