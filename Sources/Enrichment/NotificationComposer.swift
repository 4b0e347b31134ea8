import APNsCore

/// Composes one intent's notification for one requested locale: template or raw payload,
/// overrides, headers, payload bytes (shortened to fit), then the APNs validator.
struct NotificationComposer {
    /// A notification ready to be addressed to devices.
    struct Composed: Sendable {
        let topic: String
        let pushType: PushType
        let priority: APNsPriority
        let collapseID: String?
        let payload: [UInt8]
        let locale: LocaleResolution?
        let wasShortened: Bool
    }

    let catalog: EnrichmentCatalog

    /// A template's payload before it is written: what the headers need to know besides.
    struct Draft {
        var payload: APNsPayload
        let pushType: PushType
        let templatePriority: APNsPriority?
        let collapseID: String?
        let locale: LocaleResolution?
    }

    func compose(_ intent: Intent, profileLocale: String?) throws(EnrichmentError) -> Composed {
        switch intent.content {
        case .payload(let object):
            var bytes: [UInt8] = []
            JSONWriter.appendValue(.object(object), to: &bytes)
            return try validated(intent, pushType: intent.overrides.pushType ?? .alert, templatePriority: nil,
                                 collapseID: intent.overrides.collapseID, payload: bytes, locale: nil, shortened: false)
        case .template(let name):
            var draft = try draft(intent, templateName: name, profileLocale: profileLocale)
            let encoded = try AlertShortener.encode(&draft.payload, limit: draft.pushType.payloadLimit)
            return try validated(intent, pushType: draft.pushType, templatePriority: draft.templatePriority,
                                 collapseID: draft.collapseID, payload: encoded.bytes, locale: draft.locale,
                                 shortened: encoded.shortened)
        }
    }

    /// The template filled with the intent's arguments and overrides, in the requested locale.
    func draft(_ intent: Intent, templateName: String, profileLocale: String?) throws(EnrichmentError) -> Draft {
        guard let app = catalog.app(intent.app) else {
            throw EnrichmentError(.unknownApp, "no template file for app \(intent.app)")
        }
        guard let template = app.templates[templateName] else {
            throw EnrichmentError(.unknownTemplate, "app \(intent.app) has no template \"\(templateName)\"")
        }
        let args = intent.args
        let overrides = intent.overrides
        let pushType = intent.liveActivity != nil ? .liveActivity : overrides.pushType ?? template.pushType
        var locale: LocaleResolution?
        if template.localization == .server {
            locale = LocaleResolution(requested: intent.locale ?? profileLocale, source: intent.locale != nil ? .intent : .profile,
                                      available: app.strings.locales, defaultLocale: app.defaultLocale)
        }
        var payload = APNsPayload()
        if let alert = template.alert {
            let texts = AlertTexts(template: template, app: app, args: args, locale: locale)
            payload.alert = .content(try texts.content(alert))
        }
        payload.badge = overrides.badge
        payload.sound = overrides.sound.map(Sound.named) ?? template.sound
        payload.threadID = try overridden(overrides.threadID, template.threadID, args)
        payload.category = overrides.category ?? template.category
        payload.contentAvailable = pushType == .background
        payload.mutableContent = template.mutableContent
        payload.interruptionLevel = overrides.interruptionLevel ?? template.interruptionLevel
        payload.relevanceScore = overrides.relevanceScore ?? template.relevanceScore
        if let liveActivity = intent.liveActivity, let createdAt = intent.createdAt {
            let isStart = liveActivity.event == .start
            payload.liveActivity = LiveActivityContent(
                timestamp: createdAt / 1000, event: liveActivity.event, contentState: args,
                staleDate: liveActivity.staleDate, dismissalDate: liveActivity.dismissalDate,
                attributesType: isStart ? template.attributesType : nil,
                attributes: isStart ? liveActivity.attributes : nil
            )
        }
        payload.custom = try customKeys(template, args: args, intentCustom: intent.custom)
        return Draft(payload: payload, pushType: pushType, templatePriority: template.priority,
                     collapseID: try overridden(overrides.collapseID, template.collapseID, args), locale: locale)
    }

    /// The intent's value, else the template's text filled in.
    private func overridden(_ value: String?, _ text: TemplateText?, _ args: JSONObject) throws(EnrichmentError) -> String? {
        if let value { return value }
        return try text?.render(args)
    }

    /// The template's custom keys, then the intent's, which replace any of the same name.
    private func customKeys(_ template: Template, args: JSONObject, intentCustom: JSONObject) throws(EnrichmentError) -> JSONObject {
        var custom = JSONObject()
        for key in template.custom {
            let value: JSONValue
            if let path = key.value.singlePlaceholder {
                guard let argument = path.value(in: args) else { _ = try path.text(in: args); continue }
                value = argument
            } else {
                value = .string(try key.value.render(args))
            }
            custom.members.append(JSONObject.Member(key.name, value))
        }
        for member in intentCustom.members {
            if let index = custom.members.firstIndex(where: { $0.key == member.key }) {
                custom.members[index] = member
            } else {
                custom.members.append(member)
            }
        }
        return custom
    }

    private func validated(_ intent: Intent, pushType: PushType, templatePriority: APNsPriority?, collapseID: String?,
                           payload: [UInt8], locale: LocaleResolution?, shortened: Bool) throws(EnrichmentError) -> Composed {
        let priority = intent.overrides.priority ?? templatePriority ?? pushType.defaultPriority
        let topic = intent.app + pushType.topicSuffix
        let request = NotificationRequest(pushType: pushType, topic: topic, priority: priority, collapseID: collapseID,
                                          payload: payload)
        let violations = NotificationValidator.violations(in: request)
        guard violations.isEmpty else {
            throw EnrichmentError(.invalidNotification, "the notification breaks \(violations.count) APNs rule(s)",
                                  violations: violations)
        }
        return Composed(topic: topic, pushType: pushType, priority: priority, collapseID: collapseID, payload: payload,
                        locale: locale, wasShortened: shortened)
    }
}
