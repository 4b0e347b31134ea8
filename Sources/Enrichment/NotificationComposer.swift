import APNsCore

/// Composes one intent's notification for one requested locale: template or raw payload,
/// overrides, headers, payload bytes (shortened to fit), then the APNs validator, which checks the
/// tree the bytes were written from rather than parsing them back. A template intent that only
/// fills the template's texts has them written into the template's ``PayloadSkeleton`` instead,
/// whose body passed the validator once.
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
        /// Set when the template encrypts: the payload waits for the recipient's key.
        var sealing: SealingRequest? = nil
    }

    /// A template filled for one intent, before its payload is assembled: the texts from the
    /// arguments and what the headers need to know besides.
    struct Draft {
        let template: Template
        let pushType: PushType
        let alert: AlertContent?
        /// The intent's, else the template's filled in.
        let threadID: String?
        /// The template's custom keys' values, in its order.
        let customValues: [JSONValue]
        let collapseID: String?
        let locale: LocaleResolution?
        let liveActivity: LiveActivityContent?
    }

    /// What an intent's notification is made from: its raw payload, or the template it names, looked
    /// up once per intent (``EnrichmentCatalog/template(_:of:)``) however many devices it has.
    enum Source {
        case payload(JSONObject)
        case template(NamedTemplate)

        /// The source of `intent`'s notifications in `catalog`; throws `UnknownApp` or
        /// `UnknownTemplate` for a template the catalog does not have.
        init(_ intent: borrowing Intent, catalog: EnrichmentCatalog) throws(EnrichmentError) {
            switch intent.content {
            case .payload(let object): self = .payload(object)
            case .template(let name): self = .template(try catalog.template(name, of: intent.app))
            }
        }

        /// The template, if the notification is made from one.
        var template: Template? {
            if case .template(let named) = self { named.template } else { nil }
        }
    }

    func compose(_ intent: Intent, _ source: Source, profileLocale: String?) throws(EnrichmentError) -> Composed {
        switch source {
        case .payload(let object):
            return try validated(intent, pushType: intent.overrides.pushType ?? .alert, templatePriority: nil,
                                 collapseID: intent.overrides.collapseID, payload: WrittenPayload(object), locale: nil,
                                 shortened: false)
        case .template(let named):
            // A skeleton is filled straight from the arguments or, for a service extension's
            // template, from the draft; what it cannot hold takes the general path.
            let skeleton = named.skeleton
            if let skeleton, skeleton.fillsDirectly,
               let composed = filledDirectly(skeleton, intent, named, profileLocale: profileLocale) {
                return composed
            }
            let draft = try self.draft(intent, named, profileLocale: profileLocale)
            let serviceExtension = draft.template.serviceExtension
            if let skeleton, !skeleton.fillsDirectly, let composed = filled(skeleton, draft, intent, app: named.app) {
                return composed
            }
            var payload = Self.payload(draft, overrides: intent.overrides, intentCustom: intent.custom)
            var plaintext: [UInt8]?
            if let serviceExtension {
                plaintext = try ServiceExtensionContent(template: draft.template, app: named.app, args: intent.args, locale: draft.locale)
                    .apply(serviceExtension, to: &payload)
            }
            let reserve = plaintext == nil ? 0 : ServiceExtensionContent.keyFieldsReserve
            let encoded = try AlertShortener.encode(&payload, limit: draft.pushType.payloadLimit - reserve)
            var composed = try validated(intent, pushType: draft.pushType, templatePriority: draft.template.priority,
                                         collapseID: draft.collapseID, payload: encoded.written, locale: draft.locale,
                                         shortened: encoded.shortened)
            if let plaintext, let encryption = serviceExtension?.encryption {
                composed.sealing = Self.sealing(plaintext, encryption, written: encoded.written.bytes, limit: draft.pushType.payloadLimit)
            }
            return composed
        }
    }

    /// What ``PayloadSealer`` needs: the payload `written` ends with the box's member,
    /// `,"e2e":"<stand-in>"}` (after `aps`, so never first); under `without_key: placeholder`, the
    /// payload without that member too.
    private static func sealing(_ plaintext: [UInt8], _ encryption: ServiceExtensionTemplate.Encryption,
                                written: [UInt8], limit: Int) -> SealingRequest {
        let prefixCount = written.count - ServiceExtensionContent.standInCount(plaintextCount: plaintext.count) - 2
        var placeholder: [UInt8]?
        if encryption.withoutKey == .placeholder {
            placeholder = written[..<(prefixCount - ",\"\(ServiceExtensionTemplate.PayloadKey.sealedBox)\":\"".utf8.count)] + [UInt8(ascii: "}")]
        }
        return SealingRequest(plaintext: plaintext, prefixCount: prefixCount, withoutKey: encryption.withoutKey,
                              placeholderPayload: placeholder, limit: limit)
    }

    /// The template filled with the intent's arguments, in the requested locale.
    func draft(_ intent: Intent, _ named: NamedTemplate, profileLocale: String?) throws(EnrichmentError) -> Draft {
        let app = named.app
        let template = named.template
        // The intent's fields are read where they lie: a `let` of its overrides copied them all.
        let args = intent.args
        let pushType = intent.liveActivity != nil ? .liveActivity : intent.overrides.pushType ?? template.pushType
        let locale = Self.locale(intent, template, app: app, profileLocale: profileLocale)
        var alert: AlertContent?
        if let alertTemplate = template.alert {
            alert = try AlertTexts(template: template, app: app, args: args, locale: locale).content(alertTemplate)
        }
        let threadID = try overridden(intent.overrides.threadID, template.threadID, args)
        var liveActivityContent: LiveActivityContent?
        if let liveActivity = intent.liveActivity, let createdAt = intent.createdAt {
            let isStart = liveActivity.event == .start
            liveActivityContent = LiveActivityContent(
                timestamp: createdAt / 1000, event: liveActivity.event, contentState: args,
                staleDate: liveActivity.staleDate, dismissalDate: liveActivity.dismissalDate,
                attributesType: isStart ? template.attributesType : nil,
                attributes: isStart ? liveActivity.attributes : nil
            )
        }
        let customValues = try Self.customValues(template, args: args)
        return Draft(template: template, pushType: pushType, alert: alert, threadID: threadID, customValues: customValues,
                     collapseID: try overridden(intent.overrides.collapseID, template.collapseID, args), locale: locale,
                     liveActivity: liveActivityContent)
    }

    /// The locale a server-rendered template is written in for this intent (nil for client
    /// localization): the intent's, else the recipient's profile's, as the app's catalog has it.
    private static func locale(_ intent: Intent, _ template: Template, app: EnrichmentCatalog.App,
                               profileLocale: String?) -> LocaleResolution? {
        guard template.localization == .server else { return nil }
        return LocaleResolution(requested: intent.locale ?? profileLocale, source: intent.locale != nil ? .intent : .profile,
                                available: app.strings.locales, defaultLocale: app.defaultLocale)
    }

    /// The draft's payload: the template's `aps` keys, the intent's overrides, then the custom keys.
    static func payload(_ draft: Draft, overrides: Intent.Overrides, intentCustom: JSONObject) -> APNsPayload {
        let template = draft.template
        var payload = APNsPayload()
        payload.alert = draft.alert.map(Alert.content)
        payload.badge = overrides.badge
        payload.sound = overrides.sound.map(Sound.named) ?? template.sound
        payload.threadID = draft.threadID
        payload.category = overrides.category ?? template.category
        payload.contentAvailable = draft.pushType == .background
        payload.mutableContent = template.mutableContent
        payload.interruptionLevel = overrides.interruptionLevel ?? template.interruptionLevel
        payload.relevanceScore = overrides.relevanceScore ?? template.relevanceScore
        payload.liveActivity = draft.liveActivity
        payload.custom = customKeys(template, values: draft.customValues, intentCustom: intentCustom)
        return payload
    }

    /// The intent's value, else the template's text filled in.
    private func overridden(_ value: String?, _ text: TemplateText?, _ args: JSONObject) throws(EnrichmentError) -> String? {
        if let value { return value }
        return try text?.render(args)
    }

    /// The values of the template's custom keys: a single placeholder keeps its argument's JSON type.
    private static func customValues(_ template: Template, args: JSONObject) throws(EnrichmentError) -> [JSONValue] {
        var values: [JSONValue] = []
        values.reserveCapacity(template.custom.count)
        for index in template.custom.indices {
            // A missing argument fails in `render` with the same error as any placeholder.
            if let argument = template.custom[index].value.singleArgument(in: args) {
                values.append(argument)
            } else {
                values.append(.string(try template.custom[index].value.render(args)))
            }
        }
        return values
    }

    /// The template's custom keys, then the intent's, which replace any of the same name.
    private static func customKeys(_ template: Template, values: [JSONValue], intentCustom: JSONObject) -> JSONObject {
        var custom = JSONObject(zip(template.custom, values).map { JSONObject.Member($0.name, $1) })
        for member in intentCustom.members {
            if let index = custom.members.firstIndex(where: { $0.key == member.key }) {
                custom.members[index] = member
            } else {
                custom.members.append(member)
            }
        }
        return custom
    }

    /// The notification with its payload written into the template's skeleton from the draft (a
    /// service extension's template: others are filled straight from the arguments,
    /// ``filledDirectly(_:_:_:profileLocale:)``), or nil when the intent changes more than the
    /// texts, the payload is too large, a header breaks a rule, or a service extension's value is
    /// refused: the general path then shortens the alert or reports every violation or the refusal.
    private func filled(_ skeleton: PayloadSkeleton, _ draft: Draft, _ intent: Intent, app: EnrichmentCatalog.App) -> Composed? {
        guard draft.pushType == draft.template.pushType, draft.liveActivity == nil, Self.changesOnlyTexts(intent) else { return nil }
        var values = PayloadSkeleton.ExtensionValues()
        var plaintext: [UInt8]?
        if let serviceExtension = draft.template.serviceExtension {
            guard let prepared = try? ServiceExtensionContent(template: draft.template, app: app, args: intent.args, locale: draft.locale)
                      .skeletonValues(serviceExtension, alert: draft.alert, customValues: draft.customValues) else { return nil }
            (values, plaintext) = prepared
        }
        let limit = draft.pushType.payloadLimit - (plaintext == nil ? 0 : ServiceExtensionContent.keyFieldsReserve)
        guard let bytes = skeleton.payload(alert: draft.alert, threadID: draft.threadID, customValues: draft.customValues, extension: values),
              bytes.count <= limit else { return nil }
        var sealing: SealingRequest?
        if let plaintext, let encryption = draft.template.serviceExtension?.encryption {
            sealing = Self.sealing(plaintext, encryption, written: bytes, limit: draft.pushType.payloadLimit)
        }
        return Self.composed(skeleton, intent, draft.template, collapseID: draft.collapseID, payload: bytes, locale: draft.locale,
                             sealing: sealing)
    }

    /// A payload filled into the template's skeleton as a notification, or nil when a header breaks
    /// a rule (the general path reports it). Its push type is the template's: an intent that
    /// changes it takes the general path.
    private static func composed(_ skeleton: PayloadSkeleton, _ intent: Intent, _ template: Template, collapseID: String?,
                                 payload: [UInt8], locale: LocaleResolution?, sealing: SealingRequest?) -> Composed? {
        let priority = priority(intent, pushType: template.pushType, templatePriority: template.priority)
        // No topic: the skeleton's was checked with its body.
        let request = NotificationRequest(pushType: template.pushType, topic: nil, priority: priority, collapseID: collapseID,
                                          payload: payload)
        guard NotificationValidator.headerViolations(in: request).isEmpty else { return nil }
        // Made whole in the return: made first and then given its sealing, it was copied into the optional result.
        return Composed(topic: skeleton.topic, pushType: template.pushType, priority: priority, collapseID: collapseID,
                        payload: payload, locale: locale, wasShortened: false, sealing: sealing)
    }

    /// The notification with its payload filled into the template's skeleton straight from the
    /// intent's arguments (``PayloadSkeleton/payload(filling:)``), without a draft; nil when
    /// ``filled(_:_:_:app:)``'s conditions do not hold, the skeleton is not filled so, the payload is
    /// over the limit or a text does not render: the draft's path then composes it, or reports the
    /// first error in its order.
    func filledDirectly(_ skeleton: PayloadSkeleton, _ intent: Intent, _ named: NamedTemplate, profileLocale: String?) -> Composed? {
        let template = named.template
        guard intent.liveActivity == nil, (intent.overrides.pushType ?? template.pushType) == template.pushType,
              Self.changesOnlyTexts(intent) else { return nil }
        let locale = Self.locale(intent, template, app: named.app, profileLocale: profileLocale)
        let texts = AlertTexts(template: template, app: named.app, args: intent.args, locale: locale)
        let collapseID: String?
        let payload: [UInt8]?
        do {
            payload = try skeleton.payload(filling: texts)
            collapseID = try overridden(intent.overrides.collapseID, template.collapseID, intent.args)
        } catch {
            return nil
        }
        guard let payload else { return nil }
        return Self.composed(skeleton, intent, template, collapseID: collapseID, payload: payload, locale: locale, sealing: nil)
    }

    /// Whether the intent changes nothing of the template's payload but its texts: no custom keys
    /// and no override of an `aps` key, so that its payload fits the template's skeleton.
    private static func changesOnlyTexts(_ intent: Intent) -> Bool {
        intent.custom.members.isEmpty && intent.overrides.threadID == nil && intent.overrides.badge == nil
            && intent.overrides.sound == nil && intent.overrides.category == nil && intent.overrides.interruptionLevel == nil
            && intent.overrides.relevanceScore == nil
    }

    /// `apns-topic`: the app's bundle id and the push type's suffix.
    static func topic(app: String, pushType: PushType) -> String {
        app + pushType.topicSuffix
    }

    /// The intent's priority, else the template's, else the push type's default.
    private static func priority(_ intent: Intent, pushType: PushType, templatePriority: APNsPriority?) -> APNsPriority {
        intent.overrides.priority ?? templatePriority ?? pushType.defaultPriority
    }

    private func validated(_ intent: Intent, pushType: PushType, templatePriority: APNsPriority?, collapseID: String?,
                           payload: WrittenPayload, locale: LocaleResolution?, shortened: Bool) throws(EnrichmentError) -> Composed {
        let topic = Self.topic(app: intent.app, pushType: pushType)
        let priority = Self.priority(intent, pushType: pushType, templatePriority: templatePriority)
        let request = NotificationRequest(pushType: pushType, topic: topic, priority: priority, collapseID: collapseID,
                                          payload: payload.bytes)
        let violations = NotificationValidator.violations(in: request, payload: payload)
        guard violations.isEmpty else {
            throw EnrichmentError(.invalidNotification, "the notification breaks \(violations.count) APNs rule(s)",
                                  violations: violations)
        }
        return Composed(topic: topic, pushType: pushType, priority: priority, collapseID: collapseID, payload: payload.bytes,
                        locale: locale, wasShortened: shortened)
    }
}
