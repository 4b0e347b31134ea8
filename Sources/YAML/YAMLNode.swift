/// A YAML document as a tree of strings, mappings and sequences, each with the line it starts on
/// (1-based) so configuration errors can name it. Scalars stay text; readers convert them.
public enum YAMLNode: Sendable {
    case scalar(String, line: Int)
    case mapping([(key: String, value: YAMLNode)], line: Int)
    case sequence([YAMLNode], line: Int)

    /// The 1-based line the node starts on.
    public var line: Int {
        switch self {
        case .scalar(_, let line), .mapping(_, let line), .sequence(_, let line): line
        }
    }

    /// "a scalar", "a mapping" or "a sequence", for error messages.
    public var kindName: String {
        switch self {
        case .scalar: "a scalar"
        case .mapping: "a mapping"
        case .sequence: "a sequence"
        }
    }
}
