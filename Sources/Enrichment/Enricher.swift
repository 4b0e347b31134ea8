import APNsCore

/// Turns intents into APNs requests with a catalog of templates and strings: the template filled
/// with the intent's arguments, text in the recipient's language (or localization keys for the
/// device), overrides applied, the alert shortened to fit, and every APNs rule checked.
public struct Enricher: Sendable {
    public let catalog: EnrichmentCatalog

    /// An enricher over one catalog snapshot; take a new one from ``CatalogStore`` after a reload.
    public init(catalog: EnrichmentCatalog) {
        self.catalog = catalog
    }

    /// The deliveries of an intent addressed by `tokens`. An intent for a `user` throws
    /// `RecipientsNeedRegistry`: its devices come from the token registry, through
    /// ``deliveries(for:devices:)``.
    public func deliveries(for intent: Intent) throws(EnrichmentError) -> [Delivery] {
        guard case .tokens(let tokens) = intent.recipients else {
            throw EnrichmentError(.recipientsNeedRegistry, "recipients given as user must be resolved through the token registry by the pipeline")
        }
        return try deliveries(for: intent, devices: tokens.map { RecipientDevice(token: $0, environment: intent.environment) })
    }

    /// One delivery per device, in order. Devices sharing a profile locale share one payload.
    public func deliveries(for intent: Intent, devices: [RecipientDevice]) throws(EnrichmentError) -> [Delivery] {
        var deliveries: [Delivery] = []
        deliveries.reserveCapacity(devices.count)
        try forEachDelivery(for: intent, devices: devices) { deliveries.append($0) }
        return deliveries
    }

    /// Makes one delivery per device, in order, and hands each to `take` as it is made: the caller
    /// keeps it without a copy (the worker puts it straight into its object for the delivery).
    /// Devices sharing a profile locale share one payload.
    public func forEachDelivery(for intent: Intent, devices: [RecipientDevice],
                                _ take: (consuming Delivery) -> Void) throws(EnrichmentError) {
        guard !devices.isEmpty else { return }
        // The app and template looked up once for all the devices.
        let source = try NotificationComposer.Source(intent, catalog: catalog)
        var composedByLocale: [String?: NotificationComposer.Composed] = [:]
        let policy = DeliveryPolicyTraits(intent, template: source.template)
        for device in devices {
            let localeKey = intent.locale == nil ? device.profileLocale : nil
            let composed: NotificationComposer.Composed
            if devices.count > 1, let cached = composedByLocale[localeKey] {
                composed = cached
            } else {
                composed = try NotificationComposer().compose(intent, source, profileLocale: device.profileLocale)
                if devices.count > 1 { composedByLocale[localeKey] = composed }
            }
            take(Delivery(composed, token: device.token, environment: device.environment,
                          notificationID: NotificationID.derived(intentID: intent.id, deviceToken: device.token),
                          expiration: intent.overrides.expiration, policy: policy))
        }
    }

    /// A template intent's payload before it is written, shortened and validated: for callers
    /// that write payloads with another encoder, such as `pushline-dev bench enrichment`'s Foundation
    /// baseline. An intent with a raw payload has no template and throws `UnknownTemplate`.
    public func templatePayload(for intent: Intent, profileLocale: String? = nil) throws(EnrichmentError) -> APNsPayload {
        guard case .template(let name) = intent.content else {
            throw EnrichmentError(.unknownTemplate, "the intent carries a raw payload, not a template")
        }
        let draft = try NotificationComposer().draft(intent, try catalog.template(name, of: intent.app), profileLocale: profileLocale)
        return NotificationComposer.payload(draft, overrides: intent.overrides, intentCustom: intent.custom)
    }
}
