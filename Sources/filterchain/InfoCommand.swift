import ArgumentParser
import FilterChain
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
            let gainMap = reader.info.sourceFormat == .jpeg ? GainMap.search(jpegFile: file) : .none
            let facts = ImageFacts(file: file, info: reader.info, gainMap: gainMap)
            print(json ? facts.jsonLine : facts.text, terminator: json ? "\n" : "")
        }
        if failed { throw ExitCodeFailure(status: Status.failure) }
    }
}

/// What `info` says of one file.
struct ImageFacts {
    let file: String
    let info: ImageInfo
    var gainMap: GainMap.Search = .none

    private var format: PixelFormat { info.imageFormat }
    private var channels: String { info.inks ? "CMYK" : format.channels.isGrey ? "grey" : "RGB" }
    private var bits: String { "\(format.depth.rawValue)\(format.depth.isFloat ? " float" : "")" }
    /// The orientation the file stores (EXIF, or TIFF's tag), applied to give the size shown.
    private var orientation: Orientation {
        info.appliedOrientation ?? info.metadata.cameraRAW.flatMap { Orientation(rawValue: $0.orientation) } ?? .up
    }
    private var profile: ColorProfile? { info.metadata.iccProfile.flatMap { try? ColorProfile(iccData: $0) } }

    /// How the file describes its colour: an ICC profile (its description, space and size),
    /// an nclx box, PNG's colour chunks, or nothing (taken as sRGB).
    private var colour: String {
        let m = info.metadata
        if m.cameraRAW != nil { return "camera RAW: linear ProPhoto from the camera's matrix (written as sRGB unless --output-profile says)" }
        if let icc = m.iccProfile {
            let name = profile?.profileDescription.map { "\"\($0)\" " } ?? ""
            return "ICC profile \(name)(" + (m.iccColorSpace.map { $0.trimmingWhitespace + ", " } ?? "") + "\(icc.count) bytes)"
        }
        // PNG's cICP chunk holds the same four code points as an nclx box.
        if let nclx = m.nclx {
            let hdr = HDRTransfer(codePoint: nclx.transferCharacteristics).map { " (HDR, \($0.rawValue.uppercased()))" } ?? ""
            return (info.sourceFormat == .png ? "cICP" + "\(nclx)".dropFirst(4) : "\(nclx)") + hdr
        }
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
        if let camera = info.metadata.cameraRAW {
            out += "  camera: \(camera)\n"
            if camera.previewWidth > 0 {
                out += "  preview: \(camera.previewWidth) x \(camera.previewHeight)\(camera.previewIsJPEG ? "" : " (not a JPEG: --raw-preview cannot use it)")\n"
            }
        }
        if let a = info.animation, a.frameCount > 1 {
            out += "  animation: \(a); delays " + Self.delays(a.delays) + "\n"
        }
        switch gainMap {
        case .none: break
        case .found(let map): out += "  gain map: \(Self.describe(map))\n"
        case .damaged(let why): out += "  gain map: not usable: \(why) (the image reads as SDR)\n"
        }
        if let jpeg = info.metadata.sourceJPEG {
            out += "  JPEG: quality " + (jpeg.quality.map { "about \($0)" } ?? "unknown (custom tables)")
                + (jpeg.chroma.map { ", chroma \($0)" } ?? "") + "\n"
        }
        return out
    }

    /// "100, 200 ms" or, when they are all one, "100 ms each".
    static func delays(_ delays: [Int]) -> String {
        if let first = delays.first, delays.allSatisfy({ $0 == first }) { return "\(first) ms each" }
        let shown = delays.prefix(12).map(String.init).joined(separator: ", ")
        return shown + (delays.count > 12 ? ", ... (\(delays.count))" : "") + " ms"
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
        if let a = info.animation {
            line.add("frames", a.frameCount)
            line.addRaw("delays", "[" + a.delays.map(String.init).joined(separator: ",") + "]")
            line.add("loop", a.loopCount)
        }
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
            colour.add("kind", info.sourceFormat == .png ? "cICP" : "nclx")
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
        if let light = m.contentLightLevel {
            var c = JSONLine()
            c.add("maxCLL", light.maxCLL)
            c.add("maxFALL", light.maxFALL)
            line.addRaw("contentLight", c.text)
        }
        if let c = m.cameraRAW {
            var j = JSONLine()
            j.add("make", c.make)
            j.add("model", c.model)
            j.add("lens", c.lens.isEmpty ? nil : c.lens)
            j.add("pattern", c.pattern)
            j.add("black", c.blackLevel)
            j.add("white", c.whiteLevel)
            j.addRaw("asShot", c.asShot.isEmpty ? "null" : "[" + c.asShot.prefix(3).map { JSONWriter.number($0) }.joined(separator: ",") + "]")
            j.add("dngVersion", c.dngVersion)
            j.add("sensorWidth", c.sensorWidth)
            j.add("sensorHeight", c.sensorHeight)
            if c.previewWidth > 0 {
                var p = JSONLine()
                p.add("width", c.previewWidth)
                p.add("height", c.previewHeight)
                p.add("jpeg", c.previewIsJPEG)
                j.addRaw("preview", p.text)
            }
            line.addRaw("camera", j.text)
        }
        if let jpeg = m.sourceJPEG {
            var j = JSONLine()
            j.add("quality", jpeg.quality)
            j.add("chroma", jpeg.chroma.map { "\($0)" })
            line.addRaw("jpeg", j.text)
        }
        switch gainMap {
        case .none: line.addRaw("gainMap", "null")
        case .found(let map): line.addRaw("gainMap", Self.json(map))
        case .damaged(let why):
            var d = JSONLine()
            d.add("damaged", why)
            line.addRaw("gainMap", d.text)
        }
        return line.text
    }

    /// "150 x 225, 1 channel, ISO 21496-1: gain 1 to 49.26 (0 to 5.622 stops), HDR capacity 1 to 49.26, gamma 1".
    static func describe(_ m: GainMap) -> String {
        func n(_ v: Double) -> String { JSONWriter.number((v * 1000).rounded() / 1000) }
        func linear(_ stops: [Double]) -> String {
            Set(stops).count == 1 ? n(exp2(stops[0])) : "[" + stops.map { n(exp2($0)) }.joined(separator: ", ") + "]"
        }
        func plain(_ v: [Double]) -> String { Set(v).count == 1 ? n(v[0]) : "[" + v.map(n).joined(separator: ", ") + "]" }
        let source = switch m.source {
        case .iso21496: "ISO 21496-1"
        case .hdrgm: "Ultra HDR (hdrgm XMP)"
        case .apple: "Apple"
        }
        var text = "\(m.width) x \(m.height), \(m.channels) channel\(m.channels == 1 ? "" : "s"), \(source): "
        text += "gain \(linear(m.gainMapMin)) to \(linear(m.gainMapMax)) (\(plain(m.gainMapMin)) to \(plain(m.gainMapMax)) stops)"
        text += ", HDR capacity \(n(exp2(m.baseHeadroom))) to \(n(exp2(m.alternateHeadroom))), gamma \(plain(m.gamma))"
        if m.baseOffset.contains(where: { $0 != 0 }) || m.alternateOffset.contains(where: { $0 != 0 }) {
            text += ", offsets \(plain(m.baseOffset)) (SDR) and \(plain(m.alternateOffset)) (HDR)"
        }
        if m.baseIsHDR { text += ", the base image is the HDR one" }
        return text
    }

    /// The map in JSON, its gains and capacity as linear factors (as libultrahdr's
    /// metadata and libvips's give them).
    static func json(_ m: GainMap) -> String {
        func list(_ v: [Double]) -> String { "[" + v.map { JSONWriter.number($0) }.joined(separator: ",") + "]" }
        var j = JSONLine()
        j.add("width", m.width)
        j.add("height", m.height)
        j.add("channels", m.channels)
        j.add("metadata", m.source.rawValue)
        j.add("bytes", m.byteCount)
        j.addRaw("minContentBoost", list(m.gainMapMin.map(exp2)))
        j.addRaw("maxContentBoost", list(m.gainMapMax.map(exp2)))
        j.addRaw("gamma", list(m.gamma))
        j.addRaw("offsetSDR", list(m.baseOffset))
        j.addRaw("offsetHDR", list(m.alternateOffset))
        j.addRaw("hdrCapacityMin", JSONWriter.number(exp2(m.baseHeadroom)))
        j.addRaw("hdrCapacityMax", JSONWriter.number(exp2(m.alternateHeadroom)))
        j.add("baseRenditionIsHDR", m.baseIsHDR)
        j.add("useBaseColourSpace", m.usesBaseColourSpace)
        return j.text
    }
}
