extension RasterImage {
    /// Decodes a whole image (PNG or JPEG, sniffed from its first bytes) with its metadata:
    /// from a file, standard input or bytes in memory.
    public init(_ source: ImageSource, options: DecodeOptions = .init()) throws {
        let reader = try ImageReader.open(source, options: options)
        let pixels = try reader.readAll()
        let info = reader.info
        try self.init(width: info.width, height: info.height, format: info.format, metadata: info.metadata, pixels: pixels)
        sourceFormat = info.sourceFormat
    }

    /// Decodes the image file at `path`.
    public init(contentsOf path: String, options: DecodeOptions = .init()) throws {
        try self.init(.file(path), options: options)
    }

    /// Decodes a PNG or JPEG file held in memory; `name` is what errors call it.
    public init(decoding bytes: [UInt8], name: String = "<memory>", options: DecodeOptions = .init()) throws {
        try self.init(.bytes(bytes, name: name), options: options)
    }

    /// The image encoded as a PNG or JPEG file, in memory, with its metadata (as a file
    /// output would be: 16-bit stays 16-bit in PNG unless `options.depth` says otherwise,
    /// alpha is composited over `options.background` for JPEG).
    public func encoded(as format: ImageFormat, options: EncodeOptions = .init()) throws -> [UInt8] {
        try Renderer(threads: 1).encode(self, as: format, options: options)
    }

    /// Writes the image to a file (format from `options.format`, else the extension),
    /// atomically: a failure leaves no partial file and an existing file untouched.
    public func write(to path: String, options: EncodeOptions = .init()) throws {
        _ = try Renderer(threads: 1).render(Chain(), image: self, outputs: [RenderOutput(step: 0, file: path, options)])
    }
}

extension Renderer {
    /// `image` encoded as a PNG or JPEG file, in memory.
    public func encode(_ image: RasterImage, as format: ImageFormat, options: EncodeOptions = .init()) throws -> [UInt8] {
        var options = options
        options.format = format
        let buffer = OutputBuffer()
        _ = try render(Chain(), image: image, outputs: [RenderOutput(step: 0, .file(.memory(buffer), options))])
        return buffer.bytes
    }

    /// The final image of `chain` on the image read from `source`, and the images after
    /// `steps` (positions, `.final`, or steps by name), from one evaluation:
    /// `try renderer.images(chain, source: .file("in.jpg"), steps: [1, "blur"])`, then
    /// `.final`, `[1]`, `["blur"]`. `depth` nil keeps the input's.
    public func images(_ chain: Chain, source: ImageSource, steps: [StepPosition] = [], decode: DecodeOptions = .init(),
                       depth: BitDepth? = nil, cancel: CancellationFlag? = nil) throws -> StepImages {
        let positions = try steps.map { try $0.resolve(in: chain) }
        let outputs = (positions + [chain.steps.count]).map { RenderOutput(step: $0, .memory(depth: depth)) }
        return StepImages(chain: chain, result: try render(chain, source: source, decode: decode, outputs: outputs, cancel: cancel),
                          positions: positions)
    }

    /// The final image of `chain` on an image in memory, and the images after `steps`,
    /// from one evaluation: `try renderer.images(chain, of: photo, steps: [1])`.
    public func images(_ chain: Chain, of image: RasterImage, steps: [StepPosition] = [], depth: BitDepth? = nil,
                       cancel: CancellationFlag? = nil) throws -> StepImages {
        let positions = try steps.map { try $0.resolve(in: chain) }
        let outputs = (positions + [chain.steps.count]).map { RenderOutput(step: $0, .memory(depth: depth)) }
        return StepImages(chain: chain, result: try render(chain, image: image, outputs: outputs, cancel: cancel),
                          positions: positions)
    }
}

extension StepImages {
    /// From a render whose outputs are `positions` and then the final image, all in memory.
    init(chain: Chain, result: RenderResult, positions: [Int]) {
        let images = result.images.map { $0! }
        self.init(chain: chain, positions: positions, images: Array(images.dropLast()), final: images[images.count - 1],
                  info: result.info, notes: result.notes)
    }
}

extension RenderOutput {
    /// The image after `step`, written to the file at `path` (format from
    /// `options.format`, else the path's extension).
    public init(step: Int, file path: String, _ options: EncodeOptions = .init()) {
        self.init(step: step, .file(.file(path), options))
    }
}
