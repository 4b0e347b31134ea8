import APNsCore

/// One compiled template of an app: what kind of push it makes, its headers and `aps` keys, the
/// alert's text (literal, or localization keys with arguments), and the custom keys it adds.
struct Template: Sendable {
    /// Who turns localization keys into text.
    enum Localization: String, Sendable, CaseIterable {
        /// Pushline renders the text in the recipient's language.
        case server
        /// The payload carries `loc-key`/`loc-args` and the device localizes.
        case client
    }

    /// One alert field: text to fill in, or a catalog key with arguments for its format string.
    enum AlertText: Sendable {
        case text(TemplateText)
        case localized(key: String, args: [TemplateText])
    }

    struct AlertTemplate: Sendable {
        var title: AlertText?
        var subtitle: AlertText?
        var body: AlertText?
    }

    /// A top-level payload key filled from the template's text; when the text is a single
    /// placeholder the argument keeps its JSON type.
    struct CustomKey: Sendable {
        let name: String
        let value: TemplateText
    }

    let name: String
    var pushType: PushType = .alert
    var priority: APNsPriority?
    var interruptionLevel: InterruptionLevel?
    var category: String?
    var threadID: TemplateText?
    var collapseID: TemplateText?
    var mutableContent = false
    var sound: Sound?
    var relevanceScore: Double?
    var localization: Localization = .server
    var alert: AlertTemplate?
    var custom: [CustomKey] = []
    /// `liveactivity` templates: the app's `ActivityAttributes` type, sent with `start` events.
    var attributesType: String?

    init(name: String) {
        self.name = name
    }
}
