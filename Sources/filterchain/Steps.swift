import ArgumentParser
import FilterChain

struct Steps: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the image after every step of a chain, from one evaluation.",
        discussion: """
            Writes 00-input.png, 01-<name or type>.png, ... into the folder (disabled steps too: their image equals the one before), and with --sheet a contact sheet of every step's thumbnail labelled with its position.

              filterchain steps chain.json photo.jpg --output-dir steps --sheet steps/sheet.png
            """)

    @Argument(help: "The chain file.")
    var chain: String

    @Argument(help: "The image.")
    var input: String

    @Option(name: .customLong("output-dir"), help: ArgumentHelp("Folder for the step images (created if missing).", valueName: "dir"))
    var outputDir: String

    @Option(help: ArgumentHelp("Also write a contact sheet of every step here (.png or .jpg).", valueName: "path"))
    var sheet: String?

    @OptionGroup(title: "Reading and writing")
    var codec: CodecOptions

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
        let chain = try loadChain(self.chain)
        let ext = codec.format.map { $0.lowercased() == "jpeg" ? "jpg" : $0.lowercased() } ?? "png"
        let width = max(2, String(chain.steps.count).count)
        func number(_ i: Int) -> String { String(repeating: "0", count: max(0, width - String(i).count)) + String(i) }
        var paths = [joinPath(outputDir, number(0) + "-input." + ext)]
        for (i, step) in chain.steps.enumerated() {
            paths.append(joinPath(outputDir, number(i + 1) + "-" + Steps.slug(step.label) + "." + ext))
        }
        var outputs: [RenderOutput] = []
        for (position, path) in paths.enumerated() {
            outputs.append(RenderOutput(step: position, .file(try codec.destination(path), codec.encodeOptions)))
        }
        let sheetOutput = try sheet.map { try codec.output($0, ownFormat: true) }
        if sheetOutput != nil {
            for position in paths.indices { outputs.append(RenderOutput(step: position, .memory(depth: .eight))) }
        }
        let guardInput = InputGuard(inputs: [input])
        for path in paths + [sheet].compactMap({ $0 }) { try guardInput.check(path) }
        try makeDirectory(outputDir)
        let result: RenderResult
        do {
            result = try Renderer().render(chain, source: input == "-" ? .standardInput : .file(input),
                                           decode: codec.decodeOptions, outputs: outputs, cancel: Signals.cancel)
        } catch {
            throw Failure.image(error)
        }
        if codec.lenient { for warning in result.warnings { Console.warning("\(input): \(warning)") } }
        if let sheetOutput {
            let images = result.images.compactMap { $0 }
            do {
                let image = try ContactSheet.make(images, labels: images.indices.map(String.init))
                let writer = try ImageWriter(sheetOutput.destination, format: sheetOutput.format,
                                             header: EncodeHeader(width: image.width, height: image.height, format: image.format),
                                             options: sheetOutput.options)
                try writer.write(image)
                try writer.finish()
            } catch {
                throw Failure.image(error)
            }
        }
    }
}
