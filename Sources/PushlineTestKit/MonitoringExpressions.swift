import Foundation
import YAML

/// The PromQL of the monitoring files Pushline ships: `Config/prometheus/pushline.rules.yml`
/// (recording rules and alerts) and `Config/grafana/pushline.json` (the dashboard's panels and
/// template variables), and the metric names each expression reads.
public struct MonitoringExpressions: Sendable {
    /// One expression and where it is: `alert PushlineDown`, `panel "Lag in time by partition" A`.
    public struct Expression: Sendable {
        public let place: String
        public let text: String
    }

    public static let rulesFile = "Config/prometheus/pushline.rules.yml"
    public static let rulesTestFile = "Config/prometheus/tests/pushline.rules.test.yml"
    public static let dashboardFile = "Config/grafana/pushline.json"

    /// Every `expr` of the rule file.
    public let rules: [Expression]
    /// The names the rule file records (`pipeline:pushline_consumer_lag_seconds:max`).
    public let recordedNames: Set<String>
    /// Every panel target's `expr` and every query variable's query, with Grafana's variables in them.
    public let dashboard: [Expression]

    /// Reads both files from the repository.
    public init() throws {
        var rules: [Expression] = []
        var recorded: Set<String> = []
        let root = try YAMLReader.read(Array(try Data(contentsOf: URL(fileURLWithPath: RepositoryPaths.file(Self.rulesFile)))))
        for group in Self.sequence(Self.member("groups", of: root)) {
            for rule in Self.sequence(Self.member("rules", of: group)) {
                guard case .scalar(let expression, _)? = Self.member("expr", of: rule) else {
                    throw TestKitError("\(Self.rulesFile):\(rule.line): a rule without expr")
                }
                if case .scalar(let name, _)? = Self.member("record", of: rule) {
                    recorded.insert(name)
                    rules.append(Expression(place: "record \(name)", text: expression))
                } else if case .scalar(let name, _)? = Self.member("alert", of: rule) {
                    rules.append(Expression(place: "alert \(name)", text: expression))
                }
            }
        }
        self.rules = rules
        recordedNames = recorded
        let dashboard = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: RepositoryPaths.file(Self.dashboardFile))))
        guard let model = dashboard as? [String: Any] else { throw TestKitError("\(Self.dashboardFile) is not a JSON object") }
        var expressions: [Expression] = []
        for panel in model["panels"] as? [[String: Any]] ?? [] {
            for target in panel["targets"] as? [[String: Any]] ?? [] {
                guard let expression = target["expr"] as? String else { continue }
                expressions.append(Expression(place: "panel \"\(panel["title"] as? String ?? "?")\" \(target["refId"] as? String ?? "?")",
                                              text: expression))
            }
        }
        let variables = (model["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? []
        for variable in variables where variable["type"] as? String == "query" {
            guard let query = (variable["query"] as? [String: Any])?["query"] as? String else { continue }
            expressions.append(Expression(place: "variable \(variable["name"] as? String ?? "?")", text: Self.promQL(ofVariableQuery: query)))
        }
        self.dashboard = expressions
    }

    /// A query variable's PromQL: Grafana's `label_values(selector, label)` reads `selector`; other
    /// queries are PromQL already.
    static func promQL(ofVariableQuery query: String) -> String {
        guard query.range(of: #"^label_values\(.*,\s*[A-Za-z_][A-Za-z0-9_]*\)$"#, options: .regularExpression) != nil,
              let comma = query.lastIndex(of: ",") else { return query }
        return String(query[query.index(query.startIndex, offsetBy: "label_values(".count)..<comma])
    }

    /// The metric names `expression` reads: its identifiers once strings, label matchers, ranges,
    /// grouping lists, Grafana variables, function calls and keywords are taken out.
    public static func metricNames(in expression: String) -> Set<String> {
        var text = expression
        for pattern in [#""(?:[^"\\]|\\.)*""#, #"'(?:[^'\\]|\\.)*'"#, #"\{[^}]*\}"#, #"\[[^\]]*\]"#,
                        #"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)"#, #"\$\{?[A-Za-z_]+\}?"#] {
            text = text.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
        }
        let keywords: Set<String> = ["and", "or", "unless", "offset", "bool", "by", "without", "on", "ignoring", "group_left", "group_right"]
        let identifier = try! NSRegularExpression(pattern: #"(?<![A-Za-z0-9_:.])[A-Za-z_:][A-Za-z0-9_:]*(?![A-Za-z0-9_:])(?!\s*\()"#)
        let range = NSRange(text.startIndex..., in: text)
        return Set(identifier.matches(in: text, range: range).compactMap { match in
            Range(match.range, in: text).map { String(text[$0]) }
        }.filter { !keywords.contains($0) })
    }

    private static func member(_ key: String, of node: YAMLNode) -> YAMLNode? {
        guard case .mapping(let members, _) = node else { return nil }
        return members.first { $0.key == key }?.value
    }

    private static func sequence(_ node: YAMLNode?) -> [YAMLNode] {
        guard case .sequence(let items, _)? = node else { return [] }
        return items
    }
}
