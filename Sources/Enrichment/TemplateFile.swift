import APNsCore
import YAML

/// One app's template file, `Config/templates/<app>.yaml`, compiled: its default locale and its
/// templates by name. The format is documented in `docs/templates.md`.
struct TemplateFile: Sendable {
    var defaultLocale: String?
    var templates: [String: Template] = [:]

    /// Parses and compiles `bytes`; errors name `file`, the line and the key.
    init(_ bytes: [UInt8], file: String) throws(CatalogLoadError) {
        let root: YAMLNode
        do {
            root = try YAMLReader.read(bytes)
        } catch {
            throw CatalogLoadError(.syntax, file: file, line: error.line, error.message)
        }
        var top = try YAMLMapping(root, file: file, path: "")
        if let locale = try top.string("default_locale") {
            guard LanguageTag.isWellFormed(locale) else {
                throw top.error("default_locale", top.node("default_locale"), "\"\(locale)\" is not a BCP 47 language tag")
            }
            defaultLocale = locale
        }
        if var section = try top.mapping("templates") {
            for name in section.keys {
                guard let fields = try section.mapping(name) else { continue }
                templates[name] = try Self.template(name, fields)
            }
            try section.rejectUnknownKeys()
        }
        try top.rejectUnknownKeys()
    }

    private static func template(_ name: String, _ fields: YAMLMapping) throws(CatalogLoadError) -> Template {
        var fields = fields
        let pushType = try fields.choice("push_type", known: PushType.all.map(\.rawValue), PushType.init(rawValue:)) ?? .alert
        let priority = try fields.choice("priority", known: APNsPriority.all.map(\.description)) {
            Int($0).flatMap(APNsPriority.init(rawValue:))
        }
        let interruptionLevel = try fields.choice("interruption_level", known: InterruptionLevel.all.map(\.rawValue),
                                                  InterruptionLevel.init(rawValue:))
        let category = try fields.string("category")
        let threadID = try fields.text("thread_id")
        let collapseID = try fields.text("collapse_id")
        let mutableContent = try fields.bool("mutable_content") ?? false
        let relevanceScore = try fields.number("relevance_score")
        let sound = try sound(&fields)
        let localization = try fields.choice("localization", known: Template.Localization.allCases.map(\.rawValue),
                                             Template.Localization.init(rawValue:)) ?? .server
        var alertTemplate: Template.AlertTemplate?
        if var alert = try fields.mapping("alert") {
            alertTemplate = Template.AlertTemplate(
                title: try alertText("title", &alert),
                subtitle: try alertText("subtitle", &alert),
                body: try alertText("body", &alert)
            )
            try alert.rejectUnknownKeys()
        }
        var customKeys: [Template.CustomKey] = []
        if var custom = try fields.mapping("custom") {
            for key in custom.keys {
                guard key != "aps" else { throw custom.error(key, custom.node(key), "\"aps\" is reserved for APNs") }
                guard let value = try custom.text(key) else { continue }
                customKeys.append(Template.CustomKey(name: key, value: value))
            }
            try custom.rejectUnknownKeys()
        }
        var attributesType: String?
        if var liveActivity = try fields.mapping("live_activity") {
            attributesType = try liveActivity.string("attributes_type")
            try liveActivity.rejectUnknownKeys()
        }
        let serviceExtension = try ServiceExtensionTemplate.read(&fields, localization: localization, customKeys: customKeys.map(\.name),
                                                                 alertText: alertText)
        let policies = try TemplatePolicies.read(&fields)
        try fields.rejectUnknownKeys()
        return Template(name: name, pushType: pushType, priority: priority, interruptionLevel: interruptionLevel,
                        category: category, threadID: threadID, collapseID: collapseID, mutableContent: mutableContent,
                        sound: sound, relevanceScore: relevanceScore, localization: localization, alert: alertTemplate,
                        custom: customKeys, attributesType: attributesType, serviceExtension: serviceExtension,
                        policies: policies)
    }

    /// `sound: name`, or `sound: {name, critical, volume}` for a critical alert.
    private static func sound(_ fields: inout YAMLMapping) throws(CatalogLoadError) -> Sound? {
        guard let node = fields.node("sound") else { return nil }
        if case .scalar(let name, _) = node { return .named(name) }
        var sound = try YAMLMapping(node, file: fields.file, path: fields.keyPath("sound"))
        let name = try sound.string("name") ?? "default"
        let critical = try sound.bool("critical") ?? false
        let volume = try sound.number("volume")
        try sound.rejectUnknownKeys()
        guard critical else {
            if volume != nil { throw sound.error("volume", sound.node("volume"), "only a critical sound has a volume") }
            return .named(name)
        }
        return .critical(name: name, volume: volume ?? 1)
    }

    /// `title: "{{sender}}"` (text), or `title: {key: chat.title, args: ["{{sender}}"]}` (localized).
    static func alertText(_ key: String, _ alert: inout YAMLMapping) throws(CatalogLoadError) -> Template.AlertText? {
        guard let node = alert.node(key) else { return nil }
        if case .scalar(let source, _) = node { return .text(try alert.compileText(source, key: key, node: node)) }
        var localized = try YAMLMapping(node, file: alert.file, path: alert.keyPath(key))
        guard let catalogKey = try localized.string("key") else {
            throw localized.error("key", nil, "a localized alert field needs the catalog key")
        }
        var args: [TemplateText] = []
        if let argsNode = localized.node("args") {
            guard case .sequence(let elements, _) = argsNode else {
                throw localized.error("args", argsNode, "must be a sequence of texts, got \(argsNode.kindName)")
            }
            for (index, element) in elements.enumerated() {
                guard case .scalar(let source, _) = element else {
                    throw localized.error("args[\(index)]", element, "must be a scalar, got \(element.kindName)")
                }
                args.append(try localized.compileText(source, key: "args[\(index)]", node: element))
            }
        }
        try localized.rejectUnknownKeys()
        return .localized(key: catalogKey, args: args)
    }
}
