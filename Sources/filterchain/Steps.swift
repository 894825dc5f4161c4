import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FilterChain

struct Steps: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "steps",
        abstract: "Write the image after every step of a chain, from one evaluation.",
        discussion: """
            Writes 00-input.png, 01-<name or type>.png, ... into the folder (disabled steps too: their image equals the one before), and with --sheet a contact sheet of every step's thumbnail labelled with its position and name (or type). The step images and the sheet appear together, or not at all.

              filterchain steps chain.json photo.jpg --output-dir steps \\
                --sheet steps/sheet.png
              filterchain steps --step 'exposure ev=0.5' --step 'gaussianBlur sigma=2' \\
                photo.jpg --output-dir steps
            """)

    @Argument(help: "The chain file; may be left out when --step gives the steps.")
    var chain: String?

    @Argument(help: "The image.")
    var input: String?

    @OptionGroup(title: "Steps on the command line")
    var inline: InlineStepOptions

    @Option(name: .customLong("output-dir"), help: ArgumentHelp("Folder for the step images (created if missing).", valueName: "dir"))
    var outputDir: String

    @Option(help: ArgumentHelp("Also write a contact sheet of every step here (its format from the extension).", valueName: "path"))
    var sheet: String?

    @Option(help: ArgumentHelp("The frame of an animation (GIF, WebP) the steps show, from 0 (default: the first).", valueName: "n"))
    var frame: Int?

    @OptionGroup(title: "Reading and writing")
    var codec: CodecOptions

    @OptionGroup(title: "Rendering")
    var rendering: ThreadOptions

    @OptionGroup(title: "Variables")
    var variables: VariableOptions

    /// A file name part from a step's name or type: lowercase letters, digits and dashes.
    static func slug(_ text: String) -> String {
        var out = ""
        for ch in text.lowercased() {
            if ch.isASCII && (ch.isLetter || ch.isNumber) { out.append(ch) } else if !out.hasSuffix("-") { out.append("-") }
        }
        while out.hasSuffix("-") { out.removeLast() }
        while out.hasPrefix("-") { out.removeFirst() }
        return out.isEmpty ? "step" : out
    }

    func run() throws {
        let resolved = try inline.resolve(chain: self.chain, paths: [self.input].compactMap { $0 })
        let chain = try variables.apply(to: resolved.chain, file: resolved.label)
        guard resolved.paths.count == 1 else {
            throw Failure.usage(resolved.paths.isEmpty ? "steps needs the image (after the chain file, if one is given)"
                                : "steps takes one image; got \(resolved.paths.count) paths")
        }
        let input = resolved.paths[0]
        try refuseFolder(input)
        let ext = codec.imageFormat?.preferredExtension ?? ImageFormat.png.preferredExtension
        let width = max(2, String(chain.steps.count).count)
        func number(_ i: Int) -> String { String(repeating: "0", count: max(0, width - String(i).count)) + String(i) }
        var names = [number(0) + "-input"]
        for (i, step) in chain.steps.enumerated() { names.append(number(i + 1) + "-" + Steps.slug(step.label)) }
        let paths = names.map { joinPath(outputDir, $0 + "." + ext) }
        // Steps and sheet are all or nothing: the render writes the steps under hidden names,
        // the sheet is made from those files and completed, and only then does everything
        // take its place.
        let staged = names.map { joinPath(outputDir, ".\($0).staged-\(getpid())." + ext) }
        var outputs: [RenderOutput] = []
        for (position, path) in staged.enumerated() {
            // Without --format the step images are PNGs of their own, taking what of the
            // options fits PNG (--quality 85 is the JPEG sheet's).
            let output = try codec.output(path, ownFormat: codec.imageFormat == nil)
            outputs.append(RenderOutput(step: position, .file(output.destination, output.options)))
        }
        let sheetOutput = try sheet.map { try codec.output($0, ownFormat: true) }
        // A folder in the way would only be found after all the work, half put in place.
        for path in paths + (sheet.map { [$0] } ?? []) where isDirectory(path) {
            throw Failure(message: "\(path): is a folder, not an image file", status: Status.failure)
        }
        let guardInput = InputGuard(inputs: [input])
        for path in paths + [sheet].compactMap({ $0 }) { try guardInput.check(path) }
        try inline.save(resolved, inputs: [input])
        try makeDirectory(outputDir)
        for path in staged { TemporaryFiles.shared.insert(path) }
        defer {
            for path in staged {
                unlink(path)
                TemporaryFiles.shared.remove(path)
            }
        }
        let result: RenderResult
        do {
            let source: ImageSource = input == "-" ? .standardInput : .file(input)
            if let frame {
                // Every step of that frame: the frames before it are decoded (each is drawn on
                // the ones before), only it goes through the chain.
                guard frame >= 0 else { throw Failure.usage("--frame \(frame): frames count from 0") }
                let frames = try rendering.renderer().render(chain, animation: source, decode: codec.decodeOptions,
                                                             outputs: outputs.map { AnimationOutput(step: $0.step, $0.target, frame: frame) },
                                                             frames: .one(frame), cancel: Signals.cancel)
                result = RenderResult(info: frames.info, images: [], sizes: frames.sizes, notes: frames.notes, warnings: frames.warnings)
            } else {
                result = try rendering.renderer().render(chain, source: source, decode: codec.decodeOptions, outputs: outputs,
                                                         cancel: Signals.cancel)
            }
        } catch {
            throw Failure.image(error)
        }
        if codec.lenient { for warning in result.warnings { Console.warning(about: input, warning) } }
        for note in result.notes { Console.warning(about: input, note) }
        var sheetWriter: ImageWriter?
        if let sheetOutput {
            do {
                sheetWriter = try makeSheet(chain: chain, from: staged, to: sheetOutput)
            } catch {
                throw Failure.image(error)
            }
        }
        do { try sheetWriter?.commit() } catch { throw Failure.image(error) }
        for (from, to) in zip(staged, paths) where rename(from, to) != 0 {
            throw Failure(message: "\(to): cannot write: \(String(cString: strerror(errno)))", status: Status.failure)
        }
    }

    /// The contact sheet, from thumbnails made by reading each step's file back in strips
    /// (memory: one strip and the thumbnails), completed but not yet in place.
    func makeSheet(chain: Chain, from files: [String],
                   to output: (destination: ImageDestination, options: EncodeOptions, format: ImageFormat)) throws -> ImageWriter {
        var thumbnails: [RasterImage] = []
        // The step files share their colour (the output profile's): the sheet says it too.
        var colour = ImageMetadata.none
        for file in files {
            if Signals.cancel.isCancelled { throw RenderCancelled() }
            let reader = try ImageReader.open(.file(file), options: DecodeOptions(maxPixels: 0, autoOrient: false))
            if file == files.first, reader.info.metadata.iccColorSpace != "GRAY" { colour = reader.info.metadata.keepingColourOnly }
            thumbnails.append(try ContactSheet.thumbnail(reading: reader))
        }
        let labels = files.indices.map { position in
            ContactSheet.label(position: position, name: position == 0 ? "input" : chain.steps[position - 1].label)
        }
        let image = try ContactSheet.make(thumbnails: thumbnails, labels: labels)
        let writer = try ImageWriter(output.destination, format: output.format,
                                     header: EncodeHeader(width: image.width, height: image.height, format: image.format,
                                                          metadata: colour),
                                     options: output.options)
        do {
            try writer.write(image)
            try writer.complete()
        } catch {
            writer.abort()
            throw error
        }
        return writer
    }
}
