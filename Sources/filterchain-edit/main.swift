import ArgumentParser
import FilterChain
import FilterChainEditor
import Foundation

/// `filterchain edit`: a program of its own so that `filterchain apply` never builds the HTTP
/// server; `filterchain edit ...` runs this one from beside itself.
struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filterchain edit",
        abstract: "Edit a chain live in the browser: the image after the selected step and the final image.",
        discussion: """
            Serves a page on 127.0.0.1 and prints its address with the session token as the first line on stdout. CHAIN is created as an empty chain if it does not exist; an invalid CHAIN still opens, with its error shown on the page. Runs until Ctrl-C or SIGTERM, then exits 0; unsaved edits are not written.

              filterchain edit look.json photo.jpg
              filterchain edit look.json photo.jpg --port 8080 --no-browser \\
                --output out.jpg
              filterchain edit look.json photo.jpg --threads 2
              filterchain edit look.json photo.jpg --set strength=0.8
            """)

    @Argument(help: "The chain file (created if missing).")
    var chain: String

    @Argument(help: "The image to preview (decoded once).")
    var image: String

    @Option(help: "The port on 127.0.0.1 (0: a free port).")
    var port: Int = 0

    @Flag(name: .customLong("no-browser"), help: "Do not open the default browser.")
    var noBrowser = false

    @Option(help: ArgumentHelp("Where Export writes the full-size image, in the format its extension names (\(CodecRegistry.writable.flatMap(\.extensions).map { "." + $0 }.joined(separator: ", "))).", valueName: "path"))
    var output: String?

    @Option(help: ArgumentHelp("With --output: Export writes the HDR rendition of an image with a gain map, as `apply --hdr` does (PNG or AVIF).", valueName: "pq|hlg"))
    var hdr: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Threads that render the previews and the export, 1 or more (default: the number of cores).", valueName: "n"))
    var threads: Int?

    @Option(name: .customLong("set"), help: ArgumentHelp("Start with a variable the chain declares set to VALUE: NAME=VALUE, within its range (repeatable; saved if you save).", valueName: "name=value"))
    var assignments: [String] = []
}

func fail(_ message: String, _ status: Int32) -> Never {
    FileHandle.standardError.write(Data("filterchain: error: \(message)\n".utf8))
    exit(status)
}

// What parsing says is kept as text, and the error let go, before the process exits (an error
// alive at exit is a leak to LeakSanitizer).
var parsed: EditCommand?
var refusal: (text: String, status: Int32)?
do {
    parsed = try EditCommand.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    if EditCommand.exitCode(for: error) == .success {
        refusal = (EditCommand.fullMessage(for: error), 0)
    } else {
        refusal = (EditCommand.message(for: error).split(whereSeparator: \.isNewline).joined(separator: "; ")
                   + " (see 'filterchain edit --help')", 64)
    }
}
if let refusal {
    if refusal.status == 0 {
        print(refusal.text)
        exit(0)
    }
    fail(refusal.text, refusal.status)
}
let command = parsed!
guard (0...65535).contains(command.port) else { fail("--port \(command.port): allowed 0...65535", 64) }
if let threads = command.threads, threads < 1 { fail("--threads: \(threads); must be 1 or more", 64) }
var overrides: [(name: String, value: Double)] = []
for text in command.assignments {
    guard let assignment = ChainVariable.assignment(text) else {
        fail("--set '\(text)': write NAME=VALUE with a number, like --set strength=0.8", 64)
    }
    overrides.append(assignment)
}
var exportOptions = EncodeOptions()
if let hdr = command.hdr {
    guard let transfer = HDRTransfer(rawValue: hdr) else { fail("--hdr: '\(hdr)' is not pq or hlg", 64) }
    guard command.output != nil else { fail("--hdr goes with --output (it is how Export writes)", 64) }
    exportOptions.hdr = HDROutput(transfer)
}
if let output = command.output {
    do { try exportOptions.validate(for: try exportOptions.resolvedFormat(for: .file(output))) } catch { fail("\(error)", 64) }
}

let editor: Editor
do {
    editor = try Editor(chainPath: command.chain, imagePath: command.image, outputPath: command.output,
                        renderer: Renderer(threads: command.threads ?? WorkerPool.availableCores), variables: overrides,
                        exportOptions: exportOptions)
} catch let error as VariableError {
    fail("--set: \(error)", 64)
} catch {
    fail("\(error)", 1)
}
let server: EditorServer
do { server = try EditorServer(editor: editor, port: UInt16(command.port)) } catch { fail("\(error)", 1) }

// Ctrl-C and SIGTERM: stop an export (its temporary file goes), write nothing else, exit 0.
signal(SIGINT, SIG_IGN)
signal(SIGTERM, SIG_IGN)
var signalSources: [DispatchSourceSignal] = []
for sig in [SIGINT, SIGTERM] {
    let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
    source.setEventHandler {
        editor.export?.cancel()
        editor.export?.waitUntilIdle()
        TemporaryFiles.shared.removeAll()
        exit(0)
    }
    source.resume()
    signalSources.append(source)
}

let boundPort: UInt16
let serving: Task<Void, any Error>
do { (boundPort, serving) = try await server.start() } catch {
    let why = (error as? LocalizedError)?.errorDescription ?? "\(error)"
    fail("cannot listen on 127.0.0.1:\(command.port): \(why)", 1)
}
let address = server.url(port: boundPort)
FileHandle.standardOutput.write(Data((address + "\n").utf8))

if !command.noBrowser {
    #if os(macOS)
    let opener: String? = "/usr/bin/open"
    #else
    let env = ProcessInfo.processInfo.environment
    let hasDisplay = !(env["DISPLAY"] ?? "").isEmpty || !(env["WAYLAND_DISPLAY"] ?? "").isEmpty
    let opener: String? = hasDisplay ? "/usr/bin/xdg-open" : nil
    #endif
    if let opener, FileManager.default.isExecutableFile(atPath: opener) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opener)
        process.arguments = [address]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }
}

do { try await serving.value } catch { fail("the server stopped: \(error)", 1) }
