/// The editor's page: plain HTML, CSS and JavaScript compiled into the binary. No build
/// step, no CDN, nothing read from disk: a request's path only selects one of these.
enum Page {
    struct Asset {
        var contentType: String
        var body: String
        /// `{{TOKEN}}` is replaced by the session token (so the page's own script and style
        /// requests carry it).
        var templated = false
    }

    static func asset(_ path: String) -> Asset? {
        switch path {
        case "/", "/index.html": Asset(contentType: "text/html; charset=utf-8", body: html, templated: true)
        case "/app.js": Asset(contentType: "text/javascript; charset=utf-8", body: script)
        case "/curve.js": Asset(contentType: "text/javascript; charset=utf-8", body: curveScript)
        case "/controls.js": Asset(contentType: "text/javascript; charset=utf-8", body: controlsScript)
        // The graph view and masks (issue 23).
        case "/graph-model.js": Asset(contentType: "text/javascript; charset=utf-8", body: graphModelScript)
        case "/graph.js": Asset(contentType: "text/javascript; charset=utf-8", body: graphScript)
        case "/masks.js": Asset(contentType: "text/javascript; charset=utf-8", body: maskScript)
        case "/numbers.js": Asset(contentType: "text/javascript; charset=utf-8", body: numberNodesScript)
        case "/graph.css": Asset(contentType: "text/css; charset=utf-8", body: graphStyle)
        case "/variables.js": Asset(contentType: "text/javascript; charset=utf-8", body: variablesScript)
        case "/zoom.js": Asset(contentType: "text/javascript; charset=utf-8", body: zoomScript)
        case "/style.css": Asset(contentType: "text/css; charset=utf-8", body: style)
        default: nil
        }
    }
}
