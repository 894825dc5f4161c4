/// The editor's page: the HTML, CSS and JavaScript files in Resources/, where an editor
/// highlights them and `node --check` reads them (CI does), compiled into the binary by
/// SwiftPM (`embedInCode`): no build step, no CDN, nothing read from disk at run time, so the
/// editor is one file to copy. A request's path only selects one of these.
enum Page {
    struct Asset {
        var contentType: String
        var body: [UInt8]
        /// `{{TOKEN}}` is replaced by the session token (so the page's own script and style
        /// requests carry it).
        var templated = false
    }

    private static let javaScript = "text/javascript; charset=utf-8"
    private static let css = "text/css; charset=utf-8"

    /// The files by the path the page asks for them at.
    static func asset(_ path: String) -> Asset? {
        switch path {
        case "/", "/index.html": Asset(contentType: "text/html; charset=utf-8", body: PackageResources.index_html, templated: true)
        case "/app.js": Asset(contentType: javaScript, body: PackageResources.app_js)
        case "/curve.js": Asset(contentType: javaScript, body: PackageResources.curve_js)
        case "/controls.js": Asset(contentType: javaScript, body: PackageResources.controls_js)
        case "/graph-layout.js": Asset(contentType: javaScript, body: PackageResources.graph_layout_js)
        case "/graph.js": Asset(contentType: javaScript, body: PackageResources.graph_js)
        case "/masks.js": Asset(contentType: javaScript, body: PackageResources.masks_js)
        case "/numbers.js": Asset(contentType: javaScript, body: PackageResources.numbers_js)
        case "/wire-route.js": Asset(contentType: javaScript, body: PackageResources.wire_route_js)
        case "/variables.js": Asset(contentType: javaScript, body: PackageResources.variables_js)
        case "/zoom.js": Asset(contentType: javaScript, body: PackageResources.zoom_js)
        case "/style.css": Asset(contentType: css, body: PackageResources.style_css)
        case "/graph.css": Asset(contentType: css, body: PackageResources.graph_css)
        default: nil
        }
    }

    /// The body a request gets: the file, with the token written in where it is templated.
    static func body(_ asset: Asset, token: String) -> [UInt8] {
        guard asset.templated else { return asset.body }
        return Array(String(decoding: asset.body, as: UTF8.self).replacingOccurrences(of: "{{TOKEN}}", with: token).utf8)
    }
}
