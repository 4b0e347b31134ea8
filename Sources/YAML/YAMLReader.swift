internal import CYAML

/// Reads one YAML document into a ``YAMLNode`` tree with libyaml's event parser. Anchors and
/// aliases are refused (configuration files have no use for them, and they can expand without bound),
/// and nesting is bounded.
public enum YAMLReader {
    /// The deepest nesting of mappings and sequences a document may have.
    public static let maximumDepth = 64

    /// Why a YAML file could not be read, and on which line.
    public struct Failure: Error, Sendable {
        /// 1-based; 0 when libyaml could not start.
        public let line: Int
        public let message: String
    }

    /// The document in `bytes`; an empty file is an empty mapping.
    public static func read(_ bytes: [UInt8]) throws(Failure) -> YAMLNode {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw Failure(line: 0, message: "libyaml could not start") }
        defer { yaml_parser_delete(&parser) }
        // libyaml reads the input during parsing, so the buffer stays pinned until the tree is built.
        let result: Result<YAMLNode, Failure> = bytes.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder()
            do throws(Failure) {
                return .success(try builder.run(&parser))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// Turns libyaml's events into a tree with an explicit stack.
private struct TreeBuilder {
    private enum Open {
        case mapping([(key: String, value: YAMLNode)], pendingKey: String?, line: Int)
        case sequence([YAMLNode], line: Int)
    }

    private var stack: [Open] = []
    private var root: YAMLNode?

    mutating func run(_ parser: inout yaml_parser_t) throws(YAMLReader.Failure) -> YAMLNode {
        while true {
            var event = yaml_event_t()
            guard yaml_parser_parse(&parser, &event) == 1 else {
                let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
                throw YAMLReader.Failure(line: Int(parser.problem_mark.line) + 1, message: problem)
            }
            defer { yaml_event_delete(&event) }
            let line = Int(event.start_mark.line) + 1
            switch event.type {
            case YAML_STREAM_END_EVENT:
                return root ?? .mapping([], line: 1)
            case YAML_DOCUMENT_START_EVENT:
                if root != nil { throw YAMLReader.Failure(line: line, message: "only one document per file") }
            case YAML_ALIAS_EVENT:
                throw YAMLReader.Failure(line: line, message: "aliases are not supported")
            case YAML_SCALAR_EVENT:
                if event.data.scalar.anchor != nil { throw YAMLReader.Failure(line: line, message: "anchors are not supported") }
                let scalar = event.data.scalar
                let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                try add(.scalar(text, line: line), line: line)
            case YAML_MAPPING_START_EVENT:
                if event.data.mapping_start.anchor != nil { throw YAMLReader.Failure(line: line, message: "anchors are not supported") }
                try open(.mapping([], pendingKey: nil, line: line), line: line)
            case YAML_SEQUENCE_START_EVENT:
                if event.data.sequence_start.anchor != nil { throw YAMLReader.Failure(line: line, message: "anchors are not supported") }
                try open(.sequence([], line: line), line: line)
            case YAML_MAPPING_END_EVENT, YAML_SEQUENCE_END_EVENT:
                guard let closed = stack.popLast() else { break }
                switch closed {
                case .mapping(let members, _, let start): try add(.mapping(members, line: start), line: line)
                case .sequence(let elements, let start): try add(.sequence(elements, line: start), line: line)
                }
            default:
                break
            }
        }
    }

    private mutating func open(_ collection: Open, line: Int) throws(YAMLReader.Failure) {
        guard stack.count < YAMLReader.maximumDepth else {
            throw YAMLReader.Failure(line: line, message: "nesting deeper than \(YAMLReader.maximumDepth)")
        }
        if case .mapping(_, nil, _)? = stack.last {
            throw YAMLReader.Failure(line: line, message: "a mapping key must be a scalar")
        }
        stack.append(collection)
    }

    private mutating func add(_ node: YAMLNode, line: Int) throws(YAMLReader.Failure) {
        guard let top = stack.popLast() else {
            root = node
            return
        }
        switch top {
        case .sequence(var elements, let start):
            elements.append(node)
            stack.append(.sequence(elements, line: start))
        case .mapping(var members, let pendingKey, let start):
            if let pendingKey {
                members.append((pendingKey, node))
                stack.append(.mapping(members, pendingKey: nil, line: start))
            } else {
                guard case .scalar(let key, _) = node else {
                    throw YAMLReader.Failure(line: line, message: "a mapping key must be a scalar")
                }
                if members.contains(where: { $0.key == key }) {
                    throw YAMLReader.Failure(line: line, message: "key \"\(key)\" appears more than once")
                }
                stack.append(.mapping(members, pendingKey: key, line: start))
            }
        }
    }
}
