import FilterChain
import FlyingFox
import Foundation

/// The editor's HTTP server on 127.0.0.1: the embedded page and the JSON API (README,
/// "The editor"). Every request must carry the session token (`?token=` or the header
/// `X-Filterchain-Token`) and a Host header of `127.0.0.1:PORT` or `localhost:PORT`
/// (against DNS rebinding); anything else gets 403. Bodies over 1 MiB get 413.
/// (@unchecked Sendable: `boundPort` is guarded by `lock`; the rest is `let`, the server an actor.)
public final class EditorServer: @unchecked Sendable {
    public let editor: Editor
    public let token: String
    public static let bodyLimit = 1 << 20
    private let server: HTTPServer
    private let lock = NSLock()
    private var boundPort: UInt16?

    /// `port` 0 picks a free port.
    public init(editor: Editor, port: UInt16 = 0, token: String = EditorServer.makeToken()) throws {
        self.editor = editor
        self.token = token
        let config = HTTPServer.Configuration(address: try .inet(ip4: "127.0.0.1", port: port), timeout: 600,
                                              logger: .disabled)
        let handler = Handler()
        server = HTTPServer(config: config, handler: handler)
        handler.owner = self
    }

    /// Hands requests to the server object (made before it, so it holds it weakly).
    /// (@unchecked Sendable: `owner` is set once, in EditorServer's init, before the server
    /// runs; requests only read it.)
    private final class Handler: HTTPHandler, @unchecked Sendable {
        weak var owner: EditorServer?

        func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
            guard let owner else { return HTTPResponse(statusCode: .serviceUnavailable) }
            return await owner.handle(request)
        }
    }

    /// 128 random bits as 32 hex digits (the system's secure generator).
    public static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// Starts serving in the background; returns the port once listening, or throws at once
    /// when the server cannot listen (the port is taken, ...). `served` ends when it stops.
    public func start() async throws -> (port: UInt16, served: Task<Void, any Error>) {
        let server = self.server
        let failure = FailureBox()
        let served = Task {
            do { try await server.run() } catch {
                failure.set(error)
                throw error
            }
        }
        while true {
            if case .ip4(_, let port)? = await server.listeningAddress {
                lock.withLock { boundPort = port }
                return (port, served)
            }
            if let error = failure.get() { throw error }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The error the server stopped with, for `start`. (@unchecked Sendable: `error` is guarded by
    /// `lock`.)
    private final class FailureBox: @unchecked Sendable {
        private let lock = NSLock()
        private var error: (any Error)?
        func set(_ e: any Error) { lock.withLock { error = e } }
        func get() -> (any Error)? { lock.withLock { error } }
    }

    public func stop() async { await server.stop() }

    /// The page's address with the session token.
    public func url(port: UInt16) -> String { "http://127.0.0.1:\(port)/?token=\(token)" }

    // MARK: Requests

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        guard let port = lock.withLock({ boundPort }) else {
            return Self.error(EditorError(status: 503, "the server is starting"))
        }
        let host = request.headers[.host] ?? ""
        guard host == "127.0.0.1:\(port)" || host == "localhost:\(port)" else {
            return Self.error(EditorError(status: 403, "forbidden: the Host header must be 127.0.0.1:\(port) or localhost:\(port)"))
        }
        let given = request.query["token"] ?? request.headers[HTTPHeader("X-Filterchain-Token")] ?? ""
        guard Self.constantTimeEqual(given, token) else {
            return Self.error(EditorError(status: 403, "forbidden: a valid session token is required"))
        }
        guard let body = await Self.readBody(request) else {
            var response = Self.error(EditorError(status: 413, "the request body is over 1 MiB"))
            response.headers[.connection] = "close"
            return response
        }
        do {
            return try await route(request, body: body)
        } catch let error as EditorError {
            return Self.error(error)
        } catch {
            return Self.error(EditorError(status: 500, "\(error)"))
        }
    }

    private func route(_ request: HTTPRequest, body: [UInt8]) async throws -> HTTPResponse {
        let method = request.method
        switch request.path {
        case "/api/chain":
            // Every answer with the chain says whether it differs from the file.
            // With ?graph=1 the answer is {"chain": ..., "graph": ...}: the wires the graph view draws.
            let withGraph = request.query["graph"] == "1"
            let editor = self.editor
            if method == .GET {
                let chain = try editor.currentChain()
                return unsavedSaid(Self.json(withGraph ? Editor.withGraph(chain) : chain.jsonNode))
            }
            if method == .PUT {
                let chain = try await Self.offload { try editor.putChain(body) }
                return unsavedSaid(Self.json(withGraph ? Editor.withGraph(chain) : chain.jsonNode))
            }
        case "/api/graph":
            if method == .POST {
                let editor = self.editor
                return Self.json(try await Self.offload { try editor.graphEdit(body) })
            }
        case "/api/status":
            if method == .GET { return Self.json(editor.statusJSON) }
        case "/api/render":
            if method == .GET {
                let step = request.query["step"] ?? ""
                guard !step.isEmpty else { throw EditorError(status: 400, "step: missing; give a position, an id, an id prefix or a name") }
                let editor = self.editor
                if let text = request.query["region"] {
                    let numbers = text.split(separator: ",").map { Int($0) }
                    guard numbers.count == 4, let x = numbers[0], let y = numbers[1], let w = numbers[2], let h = numbers[3] else {
                        throw EditorError(status: 400, "region: '\(text)' is not allowed; allowed: x,y,width,height in whole pixels of the full-size image")
                    }
                    let region = try await Self.offload { try editor.renderRegion(step: step, rect: PixelRect(x: x, y: y, width: w, height: h)) }
                    return HTTPResponse(statusCode: .ok, headers: [
                        .contentType: "image/png", .cacheControl: "no-store",
                        HTTPHeader("X-Filterchain-Size"): "\(region.fullSize.width)x\(region.fullSize.height)",
                        // WIDTHxHEIGHT+X+Y (commas would read as a list of values).
                        HTTPHeader("X-Filterchain-Region"): "\(region.rect.width)x\(region.rect.height)+\(region.rect.x)+\(region.rect.y)",
                        HTTPHeader("X-Filterchain-Rendered"): region.method,
                    ], body: Data(region.png))
                }
                let size = try Self.size(request.query["size"], default: Editor.defaultPreviewSize)
                let preview = try await Self.offload { [size] in try editor.renderPreview(step: step, size: size) }
                var headers: HTTPHeaders = [.contentType: "image/png", .cacheControl: "no-store"]
                if let full = preview.fullSize { headers[HTTPHeader("X-Filterchain-Size")] = "\(full.width)x\(full.height)" }
                return HTTPResponse(statusCode: .ok, headers: headers, body: Data(preview.png))
            }
        case "/api/thumbnails", "/api/mask":
            // The graph view's requests (Editor+Graph.swift).
            if method == .GET {
                let fallback = request.path == "/api/mask" ? Editor.defaultPreviewSize : 96
                let size = try Self.size(request.query["size"], default: fallback)
                let editor = self.editor
                if request.path == "/api/thumbnails" {
                    return Self.json(try await Self.offload { try editor.thumbnailsJSON(size: size) })
                }
                let step = request.query["step"] ?? ""
                guard !step.isEmpty else { throw EditorError(status: 400, "step: missing; give a position, an id, an id prefix or a name") }
                let png = try await Self.offload { try editor.maskPNG(step: step, size: size) }
                return HTTPResponse(statusCode: .ok, headers: [.contentType: "image/png", .cacheControl: "no-store"],
                                    body: Data(png))
            }
        case "/api/save":
            if method == .POST {
                let force = ["1", "true"].contains(request.query["force"] ?? "")
                let editor = self.editor
                let written = try await Self.offload { try editor.save(force: force) }
                return Self.json(JSONNode(.object([("saved", JSONNode(.string(editor.chainPath))), ("written", JSONNode(.bool(written))),
                                                   ("handWritten", JSONNode(.bool(editor.handWritten)))])))
            }
        case "/api/reload":
            if method == .POST { return unsavedSaid(Self.json(try editor.reload())) }
        case "/api/filters":
            if method == .GET { return Self.json(Editor.filtersJSON) }
        case "/api/info":
            if method == .GET { return Self.json(editor.infoJSON) }
        case "/api/values":
            if method == .GET { return Self.json(try editor.valuesJSON()) }
        case "/api/export":
            guard let export = editor.export else {
                throw EditorError(status: 404, "no --output was given, so there is nothing to export to")
            }
            if method == .GET { return Self.json(export.statusJSON) }
            if method == .POST {
                try editor.startExport()
                return Self.json(export.statusJSON, status: 202)
            }
        default:
            guard let asset = Page.asset(request.path) else {
                throw EditorError(status: 404, "not found: \(request.path)")
            }
            if method == .GET {
                return HTTPResponse(statusCode: .ok, headers: [.contentType: asset.contentType, .cacheControl: "no-store"],
                                    body: Data(Page.body(asset, token: token)))
            }
        }
        throw EditorError(status: 405, "method \(method.rawValue) is not allowed for \(request.path)")
    }

    /// The response with `X-Filterchain-Unsaved: true|false`: whether the current chain
    /// differs from the file.
    private func unsavedSaid(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers[HTTPHeader("X-Filterchain-Unsaved")] = editor.unsaved ? "true" : "false"
        return response
    }

    /// A `size` query value: a whole number of pixels, at least 1 (`fallback` when absent).
    static func size(_ text: String?, default fallback: Int) throws -> Int {
        guard let text else { return fallback }
        guard let n = Int(text), n >= 1 else {
            throw EditorError(status: 400, "size: '\(text)' is not allowed; allowed: a whole number of pixels, at least 1")
        }
        return n
    }

    /// The body, or nil when it is over the limit (it is then not read further).
    static func readBody(_ request: HTTPRequest) async -> [UInt8]? {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > bodyLimit { return nil }
        var bytes: [UInt8] = []
        do {
            for try await chunk in request.bodySequence {
                bytes.append(contentsOf: chunk)
                if bytes.count > bodyLimit { return nil }
            }
        } catch {
            return []
        }
        return bytes
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    /// Runs blocking work (a render, a file write) on its own thread, off the server's.
    static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    static func json(_ node: JSONNode, status: Int = 200) -> HTTPResponse {
        HTTPResponse(statusCode: HTTPStatusCode(status, phrase: phrase(status)),
                     headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                     body: Data((JSONWriter.compact(node) + "\n").utf8))
    }

    static func error(_ error: EditorError) -> HTTPResponse { json(error.json, status: error.status) }

    static func phrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 202: "Accepted"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 422: "Unprocessable Content"
        case 503: "Service Unavailable"
        default: "Internal Server Error"
        }
    }
}
