import Foundation

/// Every app's compiled templates and localized strings: immutable once loaded, so a reload builds
/// a new catalog and swaps it in (``CatalogStore``) while work in flight keeps the old one.
public struct EnrichmentCatalog: Sendable {
    /// One app's templates and strings. A class: composing a notification passes it along
    /// several times, and copying its fields retained each of them.
    final class App: Sendable {
        /// The templates by name, each with its payload with holes for its texts: one lookup per
        /// intent finds both. A template without a skeleton (its payload breaks an APNs rule) is
        /// always composed the general way.
        let templates: [String: (template: Template, skeleton: PayloadSkeleton?)]
        let strings: StringCatalog
        /// Normalized; the last step of every locale fallback.
        let defaultLocale: String

        init(id: String, templates: [String: Template], strings: StringCatalog, defaultLocale: String) {
            self.templates = templates.mapValues { ($0, PayloadSkeleton(template: $0, app: id, strings: strings)) }
            self.strings = strings
            self.defaultLocale = defaultLocale
        }
    }

    private let apps: [String: App]

    /// The bundle ids that have a template file.
    public var appIDs: [String] { apps.keys.sorted() }

    /// The templates of `app`, by name.
    public func templateNames(of app: String) -> [String] {
        apps[app]?.templates.keys.sorted() ?? []
    }

    func app(_ id: String) -> App? { apps[id] }

    /// The app and the template `templateName` of `app`, each looked up once: an intent's
    /// deliveries are composed with them, whatever the number of its devices.
    func template(_ templateName: String, of app: String) throws(EnrichmentError) -> NamedTemplate {
        guard let found = apps[app] else {
            throw EnrichmentError(.unknownApp, "no template file for app \(app)")
        }
        guard let named = found.templates[templateName] else {
            throw EnrichmentError(.unknownTemplate, "app \(app) has no template \"\(templateName)\"")
        }
        return NamedTemplate(app: found, template: named.template, skeleton: named.skeleton)
    }

    /// Loads `<templatesDirectory>/<app>.yaml` for every app, with its strings from
    /// `<localesDirectory>/<app>/`: String Catalogs (`*.xcstrings`) and plain JSON per locale
    /// (`<locale>.json`). The app's default locale is the template file's `default_locale`, else
    /// the String Catalog's source language, else `en`.
    public static func load(templatesDirectory: String, localesDirectory: String) throws(CatalogLoadError) -> EnrichmentCatalog {
        var apps: [String: App] = [:]
        for fileName in try listing(templatesDirectory) where fileName.hasSuffix(".yaml") {
            let appID = String(fileName.dropLast(".yaml".count))
            let path = "\(templatesDirectory)/\(fileName)"
            let templates = try TemplateFile(try read(path), file: path)
            var strings = StringCatalog()
            let appLocales = "\(localesDirectory)/\(appID)"
            if FileManager.default.fileExists(atPath: appLocales) {
                for localeFile in try listing(appLocales) {
                    let localePath = "\(appLocales)/\(localeFile)"
                    if localeFile.hasSuffix(".xcstrings") {
                        try strings.addStringCatalog(try read(localePath), file: localePath)
                    } else if localeFile.hasSuffix(".json") {
                        let locale = String(localeFile.dropLast(".json".count))
                        guard LanguageTag.isWellFormed(locale) else {
                            throw CatalogLoadError(.invalidStrings, file: localePath, "the file name must be a BCP 47 locale, such as de.json")
                        }
                        try strings.addPlainJSON(try read(localePath), locale: locale, file: localePath)
                    }
                }
            }
            let defaultLocale = templates.defaultLocale ?? strings.sourceLanguage ?? "en"
            apps[appID] = App(id: appID, templates: templates.templates, strings: strings, defaultLocale: LanguageTag.normalized(defaultLocale))
        }
        return EnrichmentCatalog(apps: apps)
    }

    private init(apps: [String: App]) {
        self.apps = apps
    }

    private static func listing(_ directory: String) throws(CatalogLoadError) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            throw CatalogLoadError(.unreadableFile, file: directory, "cannot list the directory")
        }
    }

    private static func read(_ path: String) throws(CatalogLoadError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CatalogLoadError(.unreadableFile, file: path, "cannot read the file")
        }
        return [UInt8](data)
    }
}
