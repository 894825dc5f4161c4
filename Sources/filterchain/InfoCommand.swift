import ArgumentParser
import FilterChain

/// `filterchain info`: what an image file is, read from its header (no pixel is decoded),
/// as `vipsheader` and `identify` say it.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show what image files are: format, size, bits, channels, colour, orientation and metadata.",
        discussion: """
            Reads each file's header and metadata; no pixel is decoded, and no size limit applies. The size is the image's upright size (as filterchain works on it), with the stored size beside it when an orientation turns it. A file that cannot be read gets an error line, the others are still shown, and the exit status is 1.

              filterchain info photo.jpg
              filterchain info *.heic --json
            """)

    @Argument(help: "Image files.")
    var files: [String]

    @Flag(help: "Print one JSON object a line, one a file.")
    var json = false

    func run() throws {
        var failed = false
        for file in files {
            let reader: ImageReader
            var options = DecodeOptions(maxPixels: 0)
            options.keepsInks = true
            do {
                reader = try ImageReader.open(.file(file), options: options)
            } catch {
                Console.error(describe(error))
                failed = true
                continue
            }
            let facts = ImageFacts(file: file, info: reader.info)
            print(json ? facts.jsonLine : facts.text, terminator: json ? "\n" : "")
        }
        if failed { throw ExitCodeFailure(status: Status.failure) }
    }
}

/// What `info` says of one file.
struct ImageFacts {
    let file: String
    let info: ImageInfo

    private var format: PixelFormat { info.imageFormat }
    private var channels: String { info.inks ? "CMYK" : format.channels.isGrey ? "grey" : "RGB" }
    private var bits: String { "\(format.depth.rawValue)\(format.depth.isFloat ? " float" : "")" }
    /// The orientation the file stores (EXIF, or TIFF's tag), applied to give the size shown.
    private var orientation: Orientation { info.appliedOrientation ?? .up }
    private var profile: ColorProfile? { info.metadata.iccProfile.flatMap { try? ColorProfile(iccData: $0) } }

    /// How the file describes its colour: an ICC profile (its description, space and size),
    /// an nclx box, PNG's colour chunks, or nothing (taken as sRGB).
    private var colour: String {
        let m = info.metadata
        if let icc = m.iccProfile {
            let name = profile?.profileDescription.map { "\"\($0)\" " } ?? ""
            return "ICC profile \(name)(" + (m.iccColorSpace.map { $0.trimmingWhitespace + ", " } ?? "") + "\(icc.count) bytes)"
        }
        if let nclx = m.nclx { return "\(nclx)" }
        if let c = m.pngColor {
            if let intent = c.srgbIntent { return "sRGB chunk (intent \(intent))" }
            if let g = c.gamma { return "gAMA \(g)" + (c.chromaticities != nil ? " with cHRM" : "") }
        }
        return "untagged (taken as sRGB)"
    }

    /// "EXIF (220 bytes), XMP (1,024 bytes)"; the colour description is said above.
    private var metadata: String {
        var m = info.metadata
        m.iccProfile = nil
        m.nclx = nil
        m.pngColor = nil
        return m.description
    }

    private var size: String {
        var text = "\(info.width) x \(info.height)"
        if orientation.swapsAxes { text += " (stored \(info.height) x \(info.width))" }
        return text
    }

    var text: String {
        var out = "\(file): \(info.sourceFormat?.name ?? "?"), \(size), \(channels)\(format.channels.hasAlpha ? " with alpha" : ""), \(bits)-bit\n"
        out += "  colour: \(colour)\n"
        out += "  orientation: " + (orientation == .up ? "as stored" : "\(orientation.rawValue) (\(orientation)), turned upright") + "\n"
        out += "  metadata: \(metadata)\n"
        if let jpeg = info.metadata.sourceJPEG {
            out += "  JPEG: quality " + (jpeg.quality.map { "about \($0)" } ?? "unknown (custom tables)")
                + (jpeg.chroma.map { ", chroma \($0)" } ?? "") + "\n"
        }
        return out
    }

    var jsonLine: String {
        var line = JSONLine()
        line.add("file", file)
        line.add("format", info.sourceFormat?.id)
        line.add("width", info.width)
        line.add("height", info.height)
        line.add("channels", channels.lowercased())
        line.add("alpha", format.channels.hasAlpha)
        line.add("bits", format.depth.rawValue)
        line.add("float", format.depth.isFloat)
        line.add("orientation", orientation.rawValue)
        let m = info.metadata
        if let icc = m.iccProfile {
            var colour = JSONLine()
            colour.add("kind", "icc")
            colour.add("description", profile?.profileDescription)
            colour.add("space", m.iccColorSpace?.trimmingWhitespace)
            colour.add("bytes", icc.count)
            line.addRaw("colour", colour.text)
        } else if let nclx = m.nclx {
            var colour = JSONLine()
            colour.add("kind", "nclx")
            colour.add("primaries", Int(nclx.colourPrimaries))
            colour.add("transfer", Int(nclx.transferCharacteristics))
            colour.add("matrix", Int(nclx.matrixCoefficients))
            colour.add("fullRange", nclx.fullRange)
            line.addRaw("colour", colour.text)
        } else {
            line.addRaw("colour", "null")
        }
        var kinds = JSONLine()
        if let exif = m.exif { kinds.add("exif", exif.count) }
        if let xmp = m.xmp { kinds.add("xmp", xmp.count) }
        if let extended = m.extendedXMP { kinds.add("extendedXMP", extended.packet.count) }
        if !m.comments.isEmpty { kinds.add("comments", m.comments.count) }
        line.addRaw("metadata", kinds.text)
        if let jpeg = m.sourceJPEG {
            var j = JSONLine()
            j.add("quality", jpeg.quality)
            j.add("chroma", jpeg.chroma.map { "\($0)" })
            line.addRaw("jpeg", j.text)
        }
        return line.text
    }
}
