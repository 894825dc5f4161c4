import ArgumentParser
import FilterChain
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct Apply: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Apply a chain file to one image, or to many into a folder.",
        // Paragraphs are single lines: the help is wrapped to the terminal as a whole, so
        // line breaks written here would break lines mid-phrase.
        discussion: """
            One image, and the image as it stood after step 2, from the same evaluation:

              filterchain apply chain.json in.jpg out.jpg \\
                --preview 2 --preview-output step2.png

            The steps on the command line instead of a chain file (as 'chain add' reads them), and the chain that ran kept:

              filterchain apply --step 'resize width=800 fast=true' \\
                --step 'unsharpMask sigma=1' in.jpg out.jpg --save-chain thumb.json

            Many images into a folder, 4 at a time, as JPEG, named like photo-edit.jpg:

              filterchain apply chain.json photos/*.png --output-dir out \\
                --format jpeg --suffix=-edit --jobs 4

            Outputs appear only when complete (a failure leaves no partial file and never touches an existing one), and none replaces an input. Exit status: 0 success; 1 an image could not be read, processed or written; 64 usage error; 65 invalid chain file; 130 interrupted.
            """)

    @Argument(help: "The chain file (JSON, version 1 or 2); may be left out when --step gives the steps.")
    var chain: String?

    @Argument(help: ArgumentHelp("INPUT OUTPUT; or, with --output-dir, any number of INPUTs. '-' as INPUT reads standard input, as OUTPUT writes standard output (then --format is required).", valueName: "paths"))
    var paths: [String] = []

    // The help lists the groups in this order: what most runs need first, sharding last.
    @OptionGroup(title: "Preview")
    var previewOptions: PreviewOptions

    @OptionGroup(title: "Batch")
    var batch: BatchOptions

    @OptionGroup(title: "Reading and writing")
    var codec: CodecOptions

    @OptionGroup(title: "Steps on the command line")
    var inline: InlineStepOptions

    @OptionGroup(title: "Variables")
    var variables: VariableOptions

    @OptionGroup(title: "Rendering")
    var rendering: ThreadOptions

    @OptionGroup(title: "Animations")
    var animation: AnimationOptions

    @OptionGroup(title: "Across machines (Slurm, Kubernetes) and reports")
    var sharding: ShardOptions

    @Flag(name: .customLong("in-place"), help: "Replace each INPUT with its result: atomically (a failure leaves it untouched), keeping its permissions and its format.")
    var inPlace = false

    var preview: String? { previewOptions.preview }
    var previewOutput: String? { previewOptions.previewOutput }
    var previewFrame: Int? { previewOptions.previewFrame }

    func validate() throws {
        if batch.filesFrom != nil && batch.outputDir == nil { throw ValidationError("--files-from needs --output-dir") }
        if previewFrame != nil && preview == nil { throw ValidationError("--preview-frame goes with --preview") }
        if let previewFrame, previewFrame < 0 { throw ValidationError("--preview-frame \(previewFrame): frames count from 0") }
        if (preview == nil) != (previewOutput == nil) {
            throw ValidationError("--preview and --preview-output go together")
        }
        if sharding.report != nil && !inPlace && !batch.isBatch {
            throw ValidationError("--report records a batch; give --output-dir (or --in-place)")
        }
        if inPlace {
            if batch.outputDir != nil { throw ValidationError("--in-place replaces the inputs; it takes no --output-dir") }
            if preview != nil { throw ValidationError("--in-place works without --preview; use 'filterchain steps' to see every step") }
            if codec.format != nil { throw ValidationError("--in-place keeps each file's format; it takes no --format") }
            if !batch.suffix.isEmpty { throw ValidationError("--in-place keeps each file's name; it takes no --suffix") }
            if batch.skipExisting { throw ValidationError("--in-place replaces files that exist; it takes no --skip-existing") }
        }
    }

    func run() throws {
        Console.quiet = batch.quiet
        let resolved = try inline.resolve(chain: self.chain, paths: self.paths)
        let (chainLabel, paths) = (resolved.label, resolved.paths)
        let chain = try variables.apply(to: resolved.chain, file: chainLabel)
        if inPlace || batch.isBatch {
            if preview != nil { throw Failure.usage("--preview works on one image; use 'filterchain steps' to see every step") }
            try BatchRun(chainPath: chainLabel, chain: chain, paths: paths, options: batch, sharding: sharding, codec: codec, animation: animation,
                         threads: rendering.count, inPlace: inPlace, beforeWork: { inputs in try inline.save(resolved, inputs: inputs) }).run()
            return
        }
        guard paths.count == 2 else {
            throw Failure.usage(paths.count < 2
                ? "apply needs INPUT and OUTPUT (or --output-dir for many inputs)"
                : "apply got \(paths.count) paths; many inputs need --output-dir DIR")
        }
        let (input, output) = (paths[0], paths[1])
        if batch.json && output == "-" {
            throw Failure.usage("--json prints on standard output, where OUTPUT '-' writes the image; write the image to a file")
        }
        try refuseFolder(input)
        let destination = try codec.destination(output)
        var outputs = [RenderOutput(step: chain.steps.count, .file(destination, codec.encodeOptions))]
        var formats = [try codec.output(output).format]
        let guardInput = InputGuard(inputs: [input])
        try guardInput.check(output)
        if input != "-" && input == output {
            throw Failure.usage("\(output): the output would replace the input; write to another path, or use --in-place to replace inputs on purpose")
        }
        if let preview, let previewOutput {
            let position = try resolveStep(preview, in: chain, file: chainLabel)
            let sameFile = FileIdentity(previewOutput).map { $0 == FileIdentity(output) } ?? false
            if previewOutput == output || sameFile { throw Failure.usage("\(previewOutput): the preview and the output are the same file") }
            try guardInput.check(previewOutput)
            let preview = try codec.output(previewOutput, ownFormat: true)
            outputs.append(RenderOutput(step: position, .file(preview.destination, preview.options)))
            formats.append(preview.format)
        }
        try inline.save(resolved, inputs: [input])
        let renderer = rendering.renderer()
        let result: RenderResult
        let started = now()
        // --json: the line a batch prints for each input, for this one.
        var line = JSONLine()
        line.add("input", input)
        line.add("output", output)
        func milliseconds() -> Int { Int(((now() - started) * 1000).rounded()) }
        do {
            result = try animation.render(renderer, chain: chain, input: input, decode: codec.decodeOptions, outputs: outputs,
                                          formats: formats, previewFrame: previewFrame)
        } catch {
            if batch.json && !(error is RenderCancelled) {
                line.add("status", "failed")
                line.add("error", describe(error))
                line.add("width", nil as Int?)
                line.add("height", nil as Int?)
                line.add("milliseconds", milliseconds())
                Console.output(line.text)
            }
            throw Failure.image(error)
        }
        if batch.json {
            BatchRun.addWritten(result, chain: chain, encode: codec.encodeOptions, destination: destination, to: &line)
            line.add("milliseconds", milliseconds())
            Console.output(line.text)
        }
        if codec.lenient { for warning in result.warnings { Console.warning(about: input, warning) } }
        for note in result.notes { Console.warning(about: input, note) }
    }
}

struct BatchOptions: ParsableArguments {
    @Option(name: .customLong("output-dir"), help: ArgumentHelp("Write every output into this folder (created if missing); outputs keep their input's base name.", valueName: "dir"))
    var outputDir: String?

    @Option(name: .customLong("files-from"), help: ArgumentHelp("Read input paths from this file, one per line ('-': stdin).", valueName: "file"))
    var filesFrom: String?

    @Option(help: ArgumentHelp("Text put before each output's extension (write --suffix=-edit when it starts with '-').", valueName: "text"))
    var suffix: String = ""

    @Option(help: ArgumentHelp("Images processed at once (default: the number of threads). They share the --threads threads, never multiplying them.", valueName: "n"))
    var jobs: Int?

    @Flag(name: .customLong("skip-existing"), help: "Skip inputs whose output already exists (resumes a batch).")
    var skipExisting = false

    @Flag(help: "Print one JSON object per input on stdout as it finishes.")
    var json = false

    @Flag(name: .shortAndLong, help: "No progress line, no summary and no warnings (errors always show).")
    var quiet = false

    var isBatch: Bool { outputDir != nil || filesFrom != nil }

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs: must be 1 or more") }
    }

}

/// --shard, --shard-count and --report: a batch split across machines, and its record.
struct ShardOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Process only share I of N (1-based) of the input list, for splitting a batch across machines; 'auto': from a Slurm array job's or a Kubernetes Indexed Job's environment.", valueName: "I/N|auto"))
    var shard: String?

    @Option(name: .customLong("shard-count"), help: ArgumentHelp("With --shard auto: the number of shares (a Kubernetes Indexed Job's completions; default \(Shard.countVariable)); the scheduler's task index, from 0, is then the share.", valueName: "n"))
    var shardCount: Int?

    @Option(help: ArgumentHelp("Append one JSON line per input as it finishes to this file (input, output, status, error, seconds, shard); {shard} in the name becomes the share's number. 'filterchain report merge' checks the reports of every share.", valueName: "file"))
    var report: String?

    func validate() throws {
        if let shard, shard != "auto" && Shard(parsing: shard) == nil {
            throw ValidationError("--shard: '\(shard)'; write I/N with 1 <= I <= N, like 2/8, or auto")
        }
        if let shardCount {
            if shard != "auto" { throw ValidationError("--shard-count goes with --shard auto") }
            if shardCount < 1 { throw ValidationError("--shard-count: must be 1 or more") }
        }
        if let report, report.isEmpty { throw ValidationError("--report: give a file name") }
    }

    /// The share to process: --shard I/N, or --shard auto from the scheduler's environment;
    /// nil without --shard.
    func resolvedShard(environment: [String: String] = Shard.processEnvironment) throws -> Shard? {
        guard let shard else { return nil }
        if shard == "auto" { return try Shard.automatic(environment: environment, count: shardCount) }
        return Shard(parsing: shard)
    }
}

/// --preview, --preview-output and --preview-frame: the image after a step, from the same
/// evaluation.
struct PreviewOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Also write the image as it stood after this step (needs --preview-output): a position (1-based; 0 is the decoded input), a full id, an id prefix of at least 4 characters, a step's name, or a filter type when exactly one step has that type.", valueName: "step"))
    var preview: String?

    @Option(name: .customLong("preview-output"), help: ArgumentHelp("Where the --preview image goes (format from its extension).", valueName: "path"))
    var previewOutput: String?

    @Option(name: .customLong("preview-frame"), help: ArgumentHelp("The frame of an animation the --preview image shows (default: every frame taken, where its format holds an animation; else the first).", valueName: "n"))
    var previewFrame: Int?
}
