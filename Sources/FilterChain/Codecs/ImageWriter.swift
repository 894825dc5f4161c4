/// The first part of an image file: everything an encoder needs before the rows.
public struct EncodeHeader: Sendable, Hashable {
    public var width: Int
    public var height: Int
    /// The layout of the rows handed to `write` (16-bit samples in host byte order).
    public var format: PixelFormat
    public var metadata: ImageMetadata
    /// The rows' four samples are C, M, Y, K ink amounts (0: no ink) in `format`'s RGBA
    /// layout, for a format that holds CMYK (`FormatCapabilities.cmyk`), described by the
    /// metadata's CMYK ICC profile.
    public var inks: Bool

    public init(width: Int, height: Int, format: PixelFormat, metadata: ImageMetadata = .none, inks: Bool = false) {
        precondition(!inks || format.channels == .rgba, "inks are four samples a pixel")
        self.width = width
        self.height = height
        self.format = format
        self.metadata = metadata
        self.inks = inks
    }
}

/// Work an encoder hands out so that it can run on another thread (PNG deflates pieces of
/// the image in parallel). Run each job once, on any thread, then call `flush()`.
package protocol EncoderJob: AnyObject, Sendable {
    func run()
}

protocol RowEncoder: AnyObject {
    /// Metadata that has no place in the format, or did not fit, and was not written.
    var notes: [String] { get }
    func write(rows: UnsafeRawPointer, stride: Int, count: Int) throws -> [EncoderJob]
    func flush() throws
    func finish() throws
}

/// Writes one image, top to bottom, to a file or standard output; the output appears only
/// when `finish()` succeeds. Used from one thread at a time; its jobs may run anywhere.
/// (@unchecked Sendable: it has no lock; a FileSink hands it between threads, one encoder task
/// at a time, and drains them before it finishes.)
public final class ImageWriter: @unchecked Sendable {
    public let header: EncodeHeader
    public let format: ImageFormat
    public let name: String
    private let output: OutputFile?
    private let encoder: RowEncoder
    private var rowsWritten = 0
    /// Metadata that could not be written (an ICC profile for another colour space, ...).
    public private(set) var notes: [String] = []

    static let stripLeavesOutGainMap = "--strip leaves out the HDR gain map; the output is the SDR image only"

    public convenience init(_ destination: ImageDestination, format: ImageFormat, header: EncodeHeader,
                options: EncodeOptions = .init()) throws {
        try self.init(destination, format: format, header: header, options: options, optionsChecked: false)
    }

    /// `optionsChecked`: the caller has checked `options` for `format` at the header's depth
    /// (a render does, in its output plan), so they are not checked again.
    init(_ destination: ImageDestination, format: ImageFormat, header: EncodeHeader,
         options: EncodeOptions, optionsChecked: Bool) throws {
        _ = try RenderError.elementCount(width: header.width, height: header.height, perPixel: header.format.bytesPerPixel)
        let declaration = format.declaration
        guard let makeEncoder = declaration.encoder else {
            throw CodecError(destination.name, .unsupported("filterchain does not write \(declaration.name)"))
        }
        if header.inks {
            guard declaration.capabilities.cmyk else {
                throw RenderError(.mismatch("\(declaration.name) does not hold CMYK rows"))
            }
            guard declaration.capabilities.depths.contains(header.format.depth) else {
                throw RenderError(.mismatch("\(declaration.name) does not hold \(header.format.depth.rawValue)-bit CMYK rows"))
            }
        } else if !declaration.capabilities.holds(header.format) {
            throw RenderError(.mismatch("\(declaration.name) does not hold \(header.format) rows"))
        }
        if !optionsChecked { try options.validate(for: format, depth: header.format.depth) }
        if let side = declaration.capabilities.maxSide, header.width > side || header.height > side {
            throw CodecError(destination.name, .unsupported(
                "\(declaration.name) holds at most \(side) pixels on a side; this image is \(header.width) x \(header.height)"))
        }
        self.header = header
        self.format = format
        self.name = destination.name
        let output: OutputFile?
        if case .frame = destination { output = nil } else { output = try OutputFile(destination) }
        self.output = output
        var metadata = options.stripMetadata ? header.metadata.keepingColourOnly : header.metadata
        if options.stripMetadata && options.stripKeepsGainMap {
            metadata.gainMap = header.metadata.gainMap
            metadata.gainMapToCome = header.metadata.gainMapToCome
        } else if options.stripMetadata, header.metadata.gainMap != nil { notes.append(Self.stripLeavesOutGainMap) }
        if options.gainMapChoice(for: format, source: header.metadata) == .drop { metadata.gainMap = nil }
        // An HDR output keeps what says its samples are PQ or HLG (nclx, cICP): without it
        // they would be read as SDR.
        if options.stripColorProfile && options.hdr == nil {
            metadata.iccProfile = nil
            metadata.pngColor = nil
            metadata.nclx = nil
        }
        if let space = metadata.iccColorSpace {
            let wanted = header.inks ? "CMYK" : header.format.channels.isGrey ? "GRAY" : "RGB "
            if space != wanted {
                metadata.iccProfile = nil
                notes.append("the ICC profile (\(space.trimmingWhitespace)) does not fit a \(header.format.channels.isGrey ? "grey" : "colour") output and was not written")
            }
        }
        // Each encoder places the metadata its format holds, and says what it could not.
        if case .frame(let slot) = destination {
            encoder = try FrameRows(slot, header: EncodeHeader(width: header.width, height: header.height, format: header.format,
                                                               metadata: metadata), options: options)
        } else {
            encoder = try makeEncoder(output!, header, metadata,
                                      EncodeSettings(declaration: declaration, options: options, source: header.metadata))
        }
        notes += encoder.notes
    }

    /// Hands over the next `count` rows. Returns jobs to run (anywhere) before `flush()`
    /// (the renderer's pool runs them; `writeNow` runs them here).
    package func write(rows: UnsafeRawPointer, stride: Int, count: Int) throws -> [EncoderJob] {
        guard count >= 0, rowsWritten + count <= header.height else {
            throw RenderError(.mismatch("\(rowsWritten) + \(count) rows: more rows than the header's \(header.height)"))
        }
        guard stride >= header.width * header.format.bytesPerPixel else {
            throw RenderError(.mismatch("rows \(stride) bytes apart are shorter than a row (\(header.width * header.format.bytesPerPixel) bytes)"))
        }
        rowsWritten += count
        return try encoder.write(rows: rows, stride: stride, count: count)
    }

    /// Writes out what finished jobs produced, in order.
    public func flush() throws { try encoder.flush() }

    /// Writes rows and runs their jobs right here.
    public func writeNow(rows: UnsafeRawPointer, stride: Int, count: Int) throws {
        for job in try write(rows: rows, stride: stride, count: count) { job.run() }
        try flush()
    }

    /// Writes every row of an image in memory, laid out as the header says.
    public func write(_ image: RasterImage) throws {
        try image.checked()
        guard image.width == header.width && image.height == header.height && image.format == header.format else {
            throw RenderError(.mismatch("a \(image.width) x \(image.height) \(image.format) image does not match the header's \(header.width) x \(header.height) \(header.format)"))
        }
        try image.pixels.withUnsafeBytes { p in
            try writeNow(rows: p.baseAddress!, stride: image.rowBytes, count: image.height)
        }
    }

    /// After the last row and its jobs: ends the file and makes it appear.
    public func finish() throws {
        try complete()
        try commit()
    }

    /// After the last row and its jobs: ends the encoding, still in the temporary file.
    public func complete() throws {
        guard rowsWritten == header.height else {
            throw RenderError(.mismatch("\(rowsWritten) rows written: fewer than the header's \(header.height)"))
        }
        try encoder.flush()
        try encoder.finish()
    }

    /// Makes a completed output appear at its destination.
    public func commit() throws { try output?.commit() }

    /// Throws the output away; an existing file at the destination is untouched.
    public func abort() { output?.abort() }
}
