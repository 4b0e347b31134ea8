/// A YAML document as a tree of strings, mappings and sequences, each with the line it starts on
/// (1-based) so configuration errors can name it. Scalars stay text; readers convert them.
indirect enum YAMLNode: Sendable, Equatable {
    case scalar(String, line: Int)
    case mapping([(key: String, value: YAMLNode)], line: Int)
    case sequence([YAMLNode], line: Int)

    var line: Int {
        switch self {
        case .scalar(_, let line), .mapping(_, let line), .sequence(_, let line): line
        }
    }

    var kindName: String {
        switch self {
        case .scalar: "a scalar"
        case .mapping: "a mapping"
        case .sequence: "a sequence"
        }
    }

    static func == (left: YAMLNode, right: YAMLNode) -> Bool {
        switch (left, right) {
        case (.scalar(let a, let lineA), .scalar(let b, let lineB)): a == b && lineA == lineB
        case (.sequence(let a, let lineA), .sequence(let b, let lineB)): a == b && lineA == lineB
        case (.mapping(let a, let lineA), .mapping(let b, let lineB)):
            lineA == lineB && a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }
}
