import APNsCore

/// One compiled template of an app: what kind of push it makes, its headers and `aps` keys, the
/// alert's text (literal, or localization keys with arguments), and the custom keys it adds.
/// Immutable and shared by reference, so composing a notification never copies its fields.
final class Template: Sendable {
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
    let pushType: PushType
    let priority: APNsPriority?
    let interruptionLevel: InterruptionLevel?
    let category: String?
    let threadID: TemplateText?
    let collapseID: TemplateText?
    let mutableContent: Bool
    let sound: Sound?
    let relevanceScore: Double?
    let localization: Localization
    let alert: AlertTemplate?
    let custom: [CustomKey]
    /// `liveactivity` templates: the app's `ActivityAttributes` type, sent with `start` events.
    let attributesType: String?
    /// What the template does for the app's Notification Service Extension, if anything.
    let serviceExtension: ServiceExtensionTemplate?
    /// The template's `policies:`: defaults for its intents' policy fields.
    let policies: TemplatePolicies

    init(name: String, pushType: PushType, priority: APNsPriority?, interruptionLevel: InterruptionLevel?,
         category: String?, threadID: TemplateText?, collapseID: TemplateText?, mutableContent: Bool, sound: Sound?,
         relevanceScore: Double?, localization: Localization, alert: AlertTemplate?, custom: [CustomKey],
         attributesType: String?, serviceExtension: ServiceExtensionTemplate? = nil, policies: TemplatePolicies = TemplatePolicies()) {
        self.name = name
        self.pushType = pushType
        self.priority = priority
        self.interruptionLevel = interruptionLevel
        self.category = category
        self.threadID = threadID
        self.collapseID = collapseID
        self.mutableContent = mutableContent
        self.sound = sound
        self.relevanceScore = relevanceScore
        self.localization = localization
        self.alert = alert
        self.custom = custom
        self.attributesType = attributesType
        self.serviceExtension = serviceExtension
        self.policies = policies
    }
}
