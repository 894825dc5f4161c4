/// Colour at both ends of a render: every source (the input and the chain's images) comes
/// into the chain's working space from what its metadata describes, and every output goes out
/// to the colour its options ask for, with the description it is written with.
extension Renderer {
    /// How the sources come in.
    struct InputColour {
        let space: WorkingSpace
        /// What the input's samples mean.
        let source: ImageColour
        let sourceLeg: InputLeg
        let imageLegs: [InputLeg]
        /// Descriptions that could not be used (sRGB was assumed), with the file named.
        let notes: [String]

        /// An HDR source's peak (cd/m²): its SDR outputs are tone-mapped from it
        /// (`HDRTransfer.sourcePeak(_:)`).
        var hdrPeak: Double? = nil
    }

    /// `format`: what the input is (`ImageInfo.imageFormat`); `inks`: its rows are CMYK.
    static func inputColour(space: WorkingSpace, metadata: ImageMetadata, format: PixelFormat, inks: Bool, name: String,
                            images: [ChainImage], intent: RenderingIntent = .relative) throws(RenderError) -> InputColour {
        var notes: [String] = []
        func leg(_ metadata: ImageMetadata, _ name: String, grey: Bool, inks: Bool, bytes: Int) throws(RenderError) -> (ImageColour, InputLeg) {
            var (colour, warning) = ImageColour.of(metadata)
            if let warning { notes.append("\(name): \(warning)") }
            // A profile must describe the samples there are.
            if let p = colour.profile {
                let fits = inks ? p.space == .cmyk : (grey ? p.space == .grey : p.space == .rgb)
                if !fits {
                    let what = inks ? "CMYK" : grey ? "grey" : "RGB"
                    notes.append("\(name): its ICC profile is for \(p.space.rawValue.uppercased()) images, not \(what) ones; the pixels are taken as sRGB")
                    colour = .srgb
                }
            }
            if inks && colour.profile == nil {
                throw RenderError(.colour("its CMYK samples have no usable CMYK profile"), file: name)
            }
            do {
                return (colour, try InputLeg.into(space, from: colour, intent: intent, sampleBytes: bytes))
            } catch {
                throw RenderError(.colour("cannot convert it into the working space \(space.rawValue): \(error)"), file: name)
            }
        }
        // lcms2's integer transforms take 8 or 16 bits: float samples come to a LUT-based
        // profile as 16-bit ones (see InputConversion.throughLCMS).
        let (source, sourceLeg) = try leg(metadata, name, grey: format.channels.isGrey, inks: inks, bytes: min(format.depth.bytes, 2))
        var imageLegs: [InputLeg] = []
        for image in images {
            imageLegs.append(try leg(image.image?.metadata ?? .none, image.file,
                                     grey: image.image?.format.channels.isGrey ?? false, inks: false,
                                     bytes: min(image.image?.format.depth.bytes ?? 1, 2)).1)
        }
        var input = InputColour(space: space, source: source, sourceLeg: sourceLeg, imageLegs: imageLegs, notes: notes)
        if case .hdr(let transfer, _) = source { input.hdrPeak = transfer.sourcePeak(metadata.contentLightLevel) }
        return input
    }

    /// How an output goes out: its leg, the metadata it is written with (its colour
    /// description replaced where its colour changes), and its layout (a grey layout becomes
    /// RGB when the output's profile is an RGB one other than sRGB; a CMYK profile's output
    /// is four samples of ink, `inks`, alpha composited over `background`).
    /// `holdsColourChunks`, `holdsNCLX`: what the output's format can hold; `cmykRefusal`:
    /// why this output cannot be CMYK (nil when it can: a JPEG or TIFF file).
    static func outputColour(_ profile: OutputProfile, intent: RenderingIntent, input: InputColour,
                             metadata: ImageMetadata, layout: OutputLayout,
                             holdsColourChunks: Bool, holdsNCLX: Bool, cmykRefusal: String?,
                             background: RGBColor) throws(RenderError)
        -> (leg: OutputLeg, metadata: ImageMetadata, layout: OutputLayout, note: String?, inks: Bool)
    {
        let choice = try outputTarget(profile, intent: intent, input: input, grey: layout.format.channels.isGrey,
                                      cmykRefusal: cmykRefusal)
        var layout = layout
        switch choice.layout {
        case .asIs:
            break
        case .rgb:
            layout = OutputLayout(format: PixelFormat(Channels(grey: false, alpha: layout.format.channels.hasAlpha),
                                                      layout.format.depth), background: layout.background)
        case .inks:
            let alpha = layout.format.channels.hasAlpha
            layout = OutputLayout(format: PixelFormat(.rgba, layout.format.depth),
                                  background: layout.background ?? (alpha ? background : nil))
        }
        let leg: OutputLeg
        do { leg = try OutputLeg.from(input.space, to: choice.target, intent: intent) } catch {
            throw RenderError(.colour("cannot convert from the working space \(input.space.rawValue) to \(profile): \(error)"))
        }
        let out = described(metadata, by: choice.description, layout: layout, holdsColourChunks: holdsColourChunks,
                            holdsNCLX: holdsNCLX)
        return (leg, out, layout, choice.note, choice.layout == .inks)
    }

    /// How an output's colour is described in its metadata.
    enum OutputDescription {
        /// The input's own description, untouched (an sRGB or untagged input).
        case keep
        /// sRGB: PNG's sRGB chunk, a compact ICC profile elsewhere (sGrey for grey).
        case srgb
        case icc([UInt8])
        /// The input's own profile, kept as it came where the format holds it.
        case derived(ColorProfile)
    }

    /// What an output's layout becomes: as the image is, RGB (a grey image in an RGB profile),
    /// or four samples of ink (a CMYK profile).
    enum OutputLayoutChange { case asIs, rgb, inks }

    /// The colour an output is written in, how that is described, what its layout becomes, and
    /// a note when the input's own description could not be kept.
    static func outputTarget(_ profile: OutputProfile, intent: RenderingIntent, input: InputColour, grey: Bool,
                             cmykRefusal: String?) throws(RenderError)
        -> (target: ImageColour, description: OutputDescription, layout: OutputLayoutChange, note: String?) {
        switch profile {
        case .source:
            return sourceTarget(input, intent: intent, grey: grey)
        case .srgb:
            return (.srgb, .srgb, .asIs, nil)
        case .displayP3:
            return (.profile(.displayP3, origin: "Display P3"), .icc(ColorProfile.displayP3.iccData ?? []), grey ? .rgb : .asIs, nil)
        case .icc(let name, let data):
            let p: ColorProfile
            do { p = try ProfileCache.shared.profile(data) } catch {
                throw RenderError(.colour("the output profile \(name): \(error)"))
            }
            var change = OutputLayoutChange.asIs
            switch p.space {
            case .cmyk:
                if let cmykRefusal {
                    throw RenderError(.colour("the output profile \(name) is a CMYK profile: \(cmykRefusal)"))
                }
                change = .inks
            case .grey where !grey:
                throw RenderError(.colour("the output profile \(name) is a grey profile, but the image is in colour"))
            case .rgb where grey: change = .rgb
            default: break
            }
            return (.profile(p, origin: name), .icc(data), change, nil)
        }
    }

    /// `--output-profile source`: the input's own colour and description where they can
    /// describe the output, else sRGB (or Display P3 in a P3 chain) with a note.
    static func sourceTarget(_ input: InputColour, intent: RenderingIntent, grey: Bool)
        -> (target: ImageColour, description: OutputDescription, layout: OutputLayoutChange, note: String?) {
        if case .hdr = input.source {
            // The SDR rendition of an HDR source (tone-mapped, SDRRendition) keeps its wide
            // gamut as far as Display P3, what HDR photographs are mastered within.
            return (.profile(.displayP3, origin: "Display P3"), .icc(ColorProfile.displayP3.iccData ?? []), grey ? .rgb : .asIs, nil)
        }
        // A camera RAW's linear ProPhoto describes its development, not a look to keep: its
        // outputs are sRGB, untagged, as an untagged input's (--output-profile chooses a wider one).
        guard case .profile(let p, _) = input.source else { return (.srgb, .keep, .asIs, nil) }
        if p.space != .cmyk && !p.servesAsOutput(intent: intent) {
            // A profile that cannot describe an output (an input-only LUT profile such as
            // jpegli's XYB one, or one whose output direction does not undo its input
            // direction) is not written back: the working space's standard profile is.
            let why = p.roundTripError(intent: intent).map {
                "its output direction does not undo its input direction (up to \(Int(($0 * 255).rounded())) 8-bit levels off)"
            } ?? "it has no output direction"
            if !grey && (input.space == .displayP3 || input.space == .linearDisplayP3) {
                return (.profile(.displayP3, origin: "Display P3"), .icc(ColorProfile.displayP3.iccData ?? []), .asIs,
                        "its ICC profile cannot describe an output (\(why)); written as Display P3 (--output-profile chooses another)")
            }
            return (.srgb, .srgb, .asIs,
                    "its ICC profile cannot describe an output (\(why)); written as sRGB (--output-profile chooses another)")
        }
        switch p.space {
        case .cmyk:
            return (.srgb, .srgb, .asIs, nil)
        case .grey where !grey:
            // A grey profile cannot describe colour: the chain brought colour in.
            return (.srgb, .srgb, .asIs, "its grey ICC profile cannot describe the colours the chain made; written as sRGB")
        case .rgb where grey:
            return (input.source, .derived(p), .rgb, nil)
        default:
            return (input.source, .derived(p), .asIs, nil)
        }
    }

    /// `metadata` with its colour description replaced as `description` says, for an output of
    /// `layout` in a format that holds colour chunks (PNG) and nclx (HEIF, AVIF) or not.
    static func described(_ metadata: ImageMetadata, by description: OutputDescription, layout: OutputLayout,
                          holdsColourChunks: Bool, holdsNCLX: Bool) -> ImageMetadata {
        var out = metadata
        // A camera RAW's development describes the decoded samples (linear ProPhoto); an
        // output's are in the output's colour, whatever it is.
        out.cameraRAW = nil
        switch description {
        case .keep:
            break
        case .srgb:
            out.nclx = nil
            out.contentLightLevel = nil
            out.pngChunks.removeAll { $0.type == "cICP" }
            if holdsColourChunks {
                out.iccProfile = nil
                out.pngColor = PNGColorChunks(srgbIntent: 0)
            } else {
                out.pngColor = nil
                out.iccProfile = layout.format.channels.isGrey ? ColorProfile.srgbGrey.iccData : ColorProfile.srgb.iccData
            }
        case .icc(let data):
            out.iccProfile = data
            out.pngColor = nil
            out.nclx = nil
            out.contentLightLevel = nil
            out.pngChunks.removeAll { $0.type == "cICP" }
        case .derived(let p):
            // The input's own description, kept as it came where the format holds it (an
            // ICC profile always; cHRM/gAMA in PNG; nclx in HEIF/AVIF), else as the ICC
            // profile made from it.
            if out.iccProfile == nil {
                let chunksKept = holdsColourChunks && out.pngColor.map { !$0.isEmpty } == true
                let nclxKept = holdsNCLX && out.nclx != nil
                if !chunksKept && !nclxKept { out.iccProfile = p.iccData }
            }
        }
        return out
    }
}

extension Renderer {
    /// `metadata` described as an HDR output's: no ICC profile or PNG colour chunks, and
    /// BT.2020 with `transfer`, full range, as `signalling` says it (an nclx box, or a cICP
    /// chunk).
    static func hdrDescribed(_ metadata: ImageMetadata, transfer: HDRTransfer, by signalling: HDRSignalling) -> ImageMetadata {
        var out = metadata
        out.iccProfile = nil
        out.pngColor = nil
        out.nclx = nil
        out.pngChunks.removeAll { $0.type == "cICP" }
        switch signalling {
        case .nclx:
            out.nclx = NCLXColor(colourPrimaries: 9, transferCharacteristics: transfer.codePoint, matrixCoefficients: 9, fullRange: true)
        case .cicp:
            out.pngChunks.append(PNGChunk(type: "cICP", data: [9, UInt8(transfer.codePoint), 0, 1]))
        }
        return out
    }
}
