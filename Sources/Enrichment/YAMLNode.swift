/// A YAML document as a tree of strings, mappings and sequences, each with the line it starts on
/// (1-based) so configuration errors can name it. Scalars stay text; readers convert them.
enum YAMLNode: Sendable {
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
}
