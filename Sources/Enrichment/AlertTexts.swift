import APNsCore

/// Fills a template's alert fields for one intent: literal text from the arguments, localization
/// keys checked against the catalog (client mode), or text rendered from the catalog in the
/// resolved locale (server mode). Also what a skeleton's holes are filled from, alert or not
/// (``PayloadSkeleton/payload(filling:)``): the intent's arguments and locale.
struct AlertTexts {
    let template: Template
    let app: EnrichmentCatalog.App
    let args: JSONObject
    /// Set in server mode.
    let locale: LocaleResolution?

    func content(_ alert: Template.AlertTemplate) throws(EnrichmentError) -> AlertContent {
        // Built with every field at once: assigning three at a time after `init` copied the content
        // each time (the initialiser itself still copies it once: docs/BENCHMARKS.md, "Whole copies
        // per delivery").
        let title = try filled(alert.title), subtitle = try filled(alert.subtitle), body = try filled(alert.body)
        return AlertContent(title: title.text, subtitle: subtitle.text, body: body.text,
                            titleLocKey: title.key, titleLocArgs: title.args, subtitleLocKey: subtitle.key,
                            subtitleLocArgs: subtitle.args, locKey: body.key, locArgs: body.args)
    }

    /// One alert field's text, or its localization key and arguments (nil when it has none).
    private func filled(_ field: Template.AlertText?) throws(EnrichmentError) -> (text: String?, key: String?, args: [String]?) {
        switch field {
        case nil:
            return (nil, nil, nil)
        case .text(let source)?:
            return (try source.render(args), nil, nil)
        case .localized(let catalogKey, let argTemplates)?:
            let rendered = try arguments(argTemplates)
            if let locale {
                return (try localized(catalogKey, rendered, locale: locale), nil, nil)
            }
            guard app.strings.contains(catalogKey) else {
                throw EnrichmentError(.missingLocalization,
                                      "template \(template.name) sends loc-key \"\(catalogKey)\", which is not in the app's catalog; the device would show the raw key")
            }
            return (nil, catalogKey, rendered.isEmpty ? nil : rendered)
        }
    }

    /// A server-rendered field's text: the catalog's string for `catalogKey` in `locale`, filled
    /// with `argTemplates` rendered from the arguments.
    func localizedText(_ catalogKey: String, _ argTemplates: [TemplateText], locale: LocaleResolution) throws(EnrichmentError) -> String {
        try localized(catalogKey, try arguments(argTemplates), locale: locale)
    }

    /// A localized field's arguments, each rendered from the intent's arguments.
    private func arguments(_ argTemplates: [TemplateText]) throws(EnrichmentError) -> [String] {
        var rendered: [String] = []
        rendered.reserveCapacity(argTemplates.count)
        for argument in argTemplates { rendered.append(try argument.render(args)) }
        return rendered
    }

    /// The key's text in the resolved locale, else in the app's default locale.
    private func localized(_ key: String, _ arguments: [String], locale: LocaleResolution) throws(EnrichmentError) -> String {
        // The resolved locale, then the app's default; two lookups, without an array of them per text.
        if let text = try renderedText(key, arguments, in: locale.resolved) { return text }
        if let text = try renderedText(key, arguments, in: app.defaultLocale) { return text }
        throw EnrichmentError(.missingLocalization,
                              "template \(template.name) uses key \"\(key)\", which is in neither \(locale.resolved) nor the default locale \(app.defaultLocale)")
    }

    /// `key`'s string in `locale` rendered with `arguments`, or nil when the locale has no such key.
    private func renderedText(_ key: String, _ arguments: [String], in locale: String) throws(EnrichmentError) -> String? {
        guard let string = app.strings.lookup(key, locale: locale) else { return nil }
        return try string.render(arguments, locale: locale)
    }
}
