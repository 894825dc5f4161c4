import FilterChain
import Foundation

/// What `filterchain edit` serves, apart from HTTP: the chain being edited (the current,
/// unsaved one), the image decoded once, previews, saving and export. Every method is safe
/// to call from any thread. (@unchecked Sendable: the chain, the file's state and the preview
/// sessions are guarded by `lock`; the rest is `let`.)
public final class Editor: @unchecked Sendable {
    /// The chain file; errors name it as the command line does.
    public let chainPath: String
    public let imagePath: String
    /// Where Export writes, when `--output` was given.
    public let outputPath: String?
    /// The image as decoded, full size.
    public let image: RasterImage
    /// The image's HDR gain map, as its file describes it (nil: none). Previews show the SDR
    /// image; Export keeps the map.
    public let gainMap: GainMap?
    public let renderer: Renderer
    /// The preview size the page asks for unless told otherwise.
    public static let defaultPreviewSize = 1024
    /// Sessions kept for other preview sizes besides the default.
    static let extraSessionLimit = 2

    private let lock = NSLock()
    /// nil while the file on disk is invalid and has not been mended through `put`.
    private var current: Chain?
    private var loadError: ChainError?
    /// The file's bytes when it was loaded or last saved (409 when they differ on save).
    private var diskBytes: [UInt8]?
    /// The chain in the file as loaded or last saved, as filterchain writes it (nil while the
    /// file is invalid): the current chain differs from the file when its text differs.
    private var savedText: String?
    /// Cancels the region render in flight when the next one starts.
    private var regionFlag: CancellationFlag?
    private var sessions: [Int: PreviewSession] = [:]
    private var sessionUse: [Int: Int] = [:]
    private var useClock = 0
    private let scratch: String
    public let export: ExportJob?
    /// The sessions that render masks for the graph view (Editor+Graph.swift).
    let maskSessions = MaskSessions()

    /// Variables set on the command line (`--set`), applied to the chain as loaded.
    public let overrides: [(name: String, value: Double)]

    /// Loads CHAIN (creating it as an empty version 1 chain when it does not exist; an
    /// invalid one is kept as text with its error) and decodes IMAGE once. `variables`
    /// (`--set`) are set in the chain as loaded: a name it does not declare, or a value out
    /// of its variable's range, is a `VariableError` (while the file is invalid they wait).
    /// `exportOptions`: how Export writes `outputPath` (`--hdr`, say).
    public init(chainPath: String, imagePath: String, outputPath: String? = nil,
                renderer: Renderer = Renderer(), decode: DecodeOptions = .init(),
                variables: [(name: String, value: Double)] = [], exportOptions: EncodeOptions = EncodeOptions()) throws {
        overrides = variables
        self.chainPath = chainPath
        self.imagePath = imagePath
        self.outputPath = outputPath
        self.renderer = renderer
        if !FileManager.default.fileExists(atPath: chainPath) {
            try Chain().save(to: chainPath)
        }
        let decoded = try renderer.render(Chain(), source: .file(imagePath), decode: decode,
                                          outputs: [RenderOutput(step: 0, .memory())])
        image = decoded.images[0]!
        gainMap = decoded.info.metadata.gainMap?.map
        let upright = try decoded.info.metadata.gainMap.map { try $0.upright(from: decoded.info.appliedOrientation) }
        var template = Array((NSTemporaryDirectory() + "/filterchain-edit-XXXXXX").utf8CString)
        guard let dir = mkdtemp(&template) else {
            throw EditorError(status: 500, "cannot create a temporary folder: \(String(cString: strerror(errno)))")
        }
        scratch = String(cString: dir)
        export = outputPath.map { ExportJob(path: $0, options: exportOptions, gainMap: upright) }
        reloadFromDisk()
        if let chain = current, !variables.isEmpty {
            do { current = try chain.settingVariables(variables, file: chainPath) } catch {
                throw VariableError(message: error.description)
            }
        }
        sessions[Editor.defaultPreviewSize] = try PreviewSession(image: image, maxSize: Editor.defaultPreviewSize,
                                                               renderer: renderer)
    }

    deinit { try? FileManager.default.removeItem(atPath: scratch) }

    // MARK: The chain

    /// The current chain as version 1 JSON; 422 with the file's text and its error while the
    /// file is invalid and not yet mended.
    public func chainJSON() throws -> JSONNode {
        try lock.withLock { () throws -> JSONNode in
            guard let current else { throw invalidFileError() }
            return current.jsonNode
        }
    }

    /// The current chain; 422 with the file's text and its error while the file is invalid
    /// and not yet mended.
    func currentChain() throws -> Chain {
        try lock.withLock { () throws -> Chain in
            guard let current else { throw invalidFileError() }
            return current
        }
    }

    /// True when the current chain differs from the file as loaded or last saved: edits
    /// that Save would write (they survive a reload of the page, which must say so).
    public var unsaved: Bool {
        lock.withLock { current.map { $0.jsonText != savedText } ?? false }
    }

    /// What the page needs to show the file's state after any reload: whether the current
    /// chain differs from the file (`unsaved`), the file's chain as the API writes chains
    /// (`saved`; null while the file is invalid), whether the file changed on disk since it
    /// was loaded or saved (`changedOnDisk`), and whether its text is not the layout Save
    /// writes (`handWritten`: Save keeps its formatting where the edit is local, see
    /// `save`).
    public var statusJSON: JSONNode {
        let onDisk = FileManager.default.contents(atPath: chainPath).map { Array($0) }
        return lock.withLock {
            let savedChain = savedText.flatMap { try? Chain.parse(Array($0.utf8), file: chainPath) }
            let unsaved = current.map { $0.jsonText != savedText } ?? false
            let handWritten = isHandWritten
            return JSONNode(.object([
                ("unsaved", JSONNode(.bool(unsaved))),
                ("saved", savedChain?.jsonNode ?? JSONNode(.null)),
                ("changedOnDisk", JSONNode(.bool(onDisk != diskBytes))),
                ("handWritten", JSONNode(.bool(handWritten))),
            ]))
        }
    }

    /// Validates a whole chain (as a chain file is validated, and its expressions for this
    /// image; a version 1 chain that needs version 2 is read as version 2, since the page does
    /// not track versions) and makes it current.
    @discardableResult
    public func put(_ body: [UInt8]) throws -> JSONNode { try putChain(body).jsonNode }

    func putChain(_ body: [UInt8]) throws -> Chain {
        let chain: Chain
        do {
            chain = try Chain.parse(body, file: chainPath, upgrading: true)
            _ = try chain.resolved(sourceSize: imageSize)
        } catch {
            throw EditorError(chainError: error, status: 422)
        }
        lock.withLock { current = chain }
        return chain
    }

    /// The image's size, full size: what expressions see as the source.
    public var imageSize: ImageSize { ImageSize(width: image.width, height: image.height) }

    /// What the current chain's variables and expressions take for this image:
    /// `{"variables": {...}, "parameters": {"filters[1].parameters.sigma": 1.2}}`.
    public func valuesJSON() throws -> JSONNode {
        let chain = try lock.withLock { () throws -> Chain in
            guard let current else { throw invalidFileError() }
            return current
        }
        do { return try chain.resolved(sourceSize: imageSize).values.jsonNode } catch {
            throw EditorError(chainError: error, status: 422)
        }
    }

    /// The file's text is not the layout Save writes (call with `lock` held).
    private var isHandWritten: Bool {
        savedText != nil && diskBytes.map { String(decoding: $0, as: UTF8.self) } != savedText
    }

    /// Whether the file's text is not the layout Save writes (`statusJSON`'s handWritten).
    public var handWritten: Bool { lock.withLock { isHandWritten } }

    /// Reads the file again, dropping unsaved edits.
    @discardableResult
    public func reload() throws -> JSONNode {
        reloadFromDisk()
        return try chainJSON()
    }

    private func reloadFromDisk() {
        let bytes = FileManager.default.contents(atPath: chainPath).map { Array($0) }
        lock.withLock {
            diskBytes = bytes
            do {
                current = try Chain.parse(bytes ?? [], file: chainPath)
                savedText = current?.jsonText
                loadError = nil
            } catch let error as ChainError {
                current = nil
                savedText = nil
                loadError = error
            } catch {
                current = nil
                savedText = nil
            }
        }
    }

    private func invalidFileError() -> EditorError {
        var error = EditorError(chainError: loadError ?? ChainError(file: chainPath, problem: .unreadable("no chain")), status: 422)
        let text = diskBytes.map { String(decoding: $0, as: UTF8.self) } ?? ""
        error.extra.append(("text", JSONNode(.string(text))))
        return error
    }

    /// Writes the current chain to CHAIN atomically, validated as `chain set` validates.
    /// 409 when the file changed on disk since it was loaded or saved, unless `force`.
    /// A chain the file already holds is not written (a hand-written file keeps its own
    /// formatting until something changes): returns whether the file was written.
    @discardableResult
    public func save(force: Bool = false) throws -> Bool {
        try lock.withLock { () throws -> Bool in
            guard let chain = current else { throw invalidFileError() }
            let onDisk = FileManager.default.contents(atPath: chainPath).map { Array($0) }
            if !force && onDisk != diskBytes {
                throw EditorError(status: 409, "\(chainPath): the file changed on disk since it was loaded or saved; reload it or overwrite it")
            }
            if onDisk != nil && onDisk == diskBytes && chain.jsonText == savedText { return false }
            // A file formatted by hand keeps its formatting where only values changed.
            do { try chain.save(to: chainPath, keepingLayoutOf: onDisk) } catch let error as ChainError {
                throw EditorError(chainError: error, status: 500)
            }
            diskBytes = FileManager.default.contents(atPath: chainPath).map { Array($0) }
            savedText = chain.jsonText
            loadError = nil
            return true
        }
    }

    // MARK: Rendering

    /// The image after STEP (a position, an id, an id prefix or a name) of the current chain,
    /// its long side at most `size`, as an 8-bit PNG.
    public func renderPNG(step: String, size: Int = Editor.defaultPreviewSize) throws -> [UInt8] {
        try renderPreview(step: step, size: size).png
    }

    /// The image after STEP as `renderPNG` gives it, with the full-size image's size at that
    /// step (what the page shows: geometry steps change it; nil while the chain is invalid).
    public func renderPreview(step: String, size: Int = Editor.defaultPreviewSize) throws -> (png: [UInt8], fullSize: ImageSize?) {
        guard size >= 1 else { throw EditorError(status: 400, "size: \(size) is not allowed; allowed: a whole number of pixels, at least 1") }
        let chain = try lock.withLock { () throws -> Chain in
            // The input is there to see even while the chain file is invalid.
            guard let current else {
                if step.trimmingCharacters(in: .whitespaces) == "0" { return Chain() }
                throw invalidFileError()
            }
            return current
        }
        let position: Int
        do { position = try StepReference(step).resolve(in: chain) } catch {
            // An entry of the chain's images, by its id or name (the graph view's image nodes).
            if let png = try imagePNG(step, in: chain, size: size) { return (png, nil) }
            throw EditorError(status: 404, "\(chainPath): \(error)")
        }
        let session = try session(for: size)
        do {
            let image = try session.render(chain, at: [position])[0]
            let full = try? chain.sizes(at: [position], input: ImageSize(width: self.image.width, height: self.image.height))[0]
            return (try encodePNG(image), full)
        } catch is RenderCancelled {
            throw EditorError(status: 503, "cancelled: a newer edit superseded this render")
        } catch let error as EditorError {
            throw error
        } catch {
            throw EditorError(status: 500, "\(error)")
        }
    }

    func session(for size: Int) throws -> PreviewSession {
        let longSide = min(size, max(image.width, image.height))
        let key = size >= Editor.defaultPreviewSize && longSide <= Editor.defaultPreviewSize ? Editor.defaultPreviewSize : longSide
        return try lock.withLock {
            useClock += 1
            sessionUse[key] = useClock
            if let session = sessions[key] { return session }
            let session = try PreviewSession(image: image, maxSize: key, renderer: renderer)
            sessions[key] = session
            let extra = sessions.keys.filter { $0 != Editor.defaultPreviewSize }
            if extra.count > Editor.extraSessionLimit,
               let oldest = extra.min(by: { sessionUse[$0, default: 0] < sessionUse[$1, default: 0] }) {
                sessions[oldest] = nil
            }
            return session
        }
    }

    /// An image as 8-bit sRGB PNG bytes for the page (zlib level 1: previews favour speed).
    /// A wide-gamut image is converted to sRGB (what the page's canvas and untagged images
    /// are), tagged with the sRGB chunk and nothing else.
    func encodePNG(_ image: RasterImage, chain: Chain = Chain(), cancel: CancellationFlag? = nil) throws -> [UInt8] {
        let path = scratch + "/" + UUID().uuidString + ".png"
        defer { unlink(path) }
        _ = try renderer.render(chain, image: image, outputs: [
            RenderOutput(step: chain.steps.count, .file(.file(path), EncodeOptions(format: .png, depth: .eight, compressionLevel: 1,
                                                                                   stripMetadata: true, outputProfile: .srgb))),
        ], cancel: cancel)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EditorError(status: 500, "cannot read the preview back")
        }
        return Array(data)
    }

    /// A flag for a new region render; the one before it is cancelled.
    func startRegionRender() -> CancellationFlag {
        let flag = CancellationFlag()
        lock.withLock {
            regionFlag?.cancel()
            regionFlag = flag
        }
        return flag
    }

    // MARK: Export

    /// Starts rendering the current chain at full size to `--output`.
    public func startExport() throws {
        guard let export else { throw EditorError(status: 404, "no --output was given, so there is nothing to export to") }
        let chain = try lock.withLock { () throws -> Chain in
            guard let current else { throw invalidFileError() }
            return current
        }
        try export.start(chain, image: image, renderer: renderer)
    }

    // MARK: Catalogue and facts

    /// The catalogue, as `filterchain filters --json` prints it.
    public static var filtersJSON: JSONNode { JSONNode(.array(FilterRegistry.infos.map(\.jsonNode))) }

    /// What the page shows in its header.
    public var infoJSON: JSONNode {
        let preview = lock.withLock { sessions[Editor.defaultPreviewSize] }.map { [("previewWidth", JSONNode(.number(Double($0.image.width)))),
                                                                  ("previewHeight", JSONNode(.number(Double($0.image.height))))] } ?? []
        return JSONNode(.object([
            ("chain", JSONNode(.string(chainPath))),
            ("image", JSONNode(.string(imagePath))),
            ("width", JSONNode(.number(Double(image.width)))),
            ("height", JSONNode(.number(Double(image.height)))),
            ("output", outputPath.map { JSONNode(.string($0)) } ?? JSONNode(.null)),
            ("gainMap", gainMap.map { m in JSONNode(.object([
                ("width", JSONNode(.number(Double(m.width)))), ("height", JSONNode(.number(Double(m.height)))),
                ("channels", JSONNode(.number(Double(m.channels)))), ("metadata", JSONNode(.string(m.source.title))),
                ("headroom", JSONNode(.number(max(m.baseHeadroom, m.alternateHeadroom)))),
            ])) } ?? JSONNode(.null)),
            ("hdr", export?.options.hdr.map { JSONNode(.string($0.transfer.rawValue)) } ?? JSONNode(.null)),
            // A PQ or HLG source (no map): the previews are its SDR rendition (tone-mapped).
            ("transfer", image.metadata.nclx.flatMap { HDRTransfer(codePoint: $0.transferCharacteristics) }
                .map { JSONNode(.string($0.rawValue)) } ?? JSONNode(.null)),
            ("overrides", JSONNode(.object(overrides.map { ($0.name, JSONNode(.number($0.value))) }))),
        ] + preview))
    }
}

/// A `--set` the chain does not take: a variable it does not declare, or a value outside
/// the variable's range (the command line's usage error).
public struct VariableError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A refusal as the API sends it: an HTTP status and `{"error": "..."}`, with the same text
/// as the command line's message.
public struct EditorError: Error, Sendable, CustomStringConvertible {
    public var status: Int
    public var message: String
    /// More members of the JSON object (a chain error's path, line and column, ...).
    public var extra: [(String, JSONNode)] = []

    public init(status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    init(chainError: ChainError, status: Int) {
        self.init(status: status, chainError.description)
        // The problem alone, for the page to say where it is in its own words.
        extra.append(("message", JSONNode(.string(chainError.message))))
        if !chainError.path.isEmpty { extra.append(("path", JSONNode(.string(chainError.path)))) }
        if let line = chainError.line { extra.append(("line", JSONNode(.number(Double(line))))) }
        if let column = chainError.column { extra.append(("column", JSONNode(.number(Double(column))))) }
    }

    public var description: String { message }

    public var json: JSONNode {
        JSONNode(.object([("error", JSONNode(.string(message)))] + extra.map { (key: $0.0, value: $0.1) }))
    }
}
