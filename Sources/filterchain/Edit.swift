import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `filterchain edit`: runs the editor, a program of its own (`filterchain-edit`, built
/// beside this one), so that building `filterchain apply` never builds the HTTP server.
struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Edit a chain live in the browser: the image after the selected step and the final image.",
        discussion: """
            Serves a page on 127.0.0.1 and prints its address with the session token as the
            first line on stdout. Runs until Ctrl-C or SIGTERM, then exits 0; unsaved edits
            are not written. Needs filterchain-edit beside filterchain, as this builds both:

              swift build -c release

              filterchain edit look.json photo.jpg
              filterchain edit look.json photo.jpg --port 8080 --no-browser \\
                --output out.jpg
              filterchain edit look.json photo.jpg --threads 2
              filterchain edit look.json photo.jpg --set strength=0.8
            """)

    /// Everything after `edit`, handed to filterchain-edit, which parses it (CHAIN IMAGE
    /// [--port N] [--no-browser] [--output PATH] [--threads N] [--set NAME=VALUE]; see its --help).
    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("CHAIN IMAGE [--port N] [--no-browser] [--output PATH] [--threads N] [--set NAME=VALUE ...]", valueName: "arguments"))
    var arguments: [String] = []

    func run() throws {
        let program = Edit.besideThisProgram("filterchain-edit")
        guard access(program, X_OK) == 0 else {
            throw Failure(message: "\(program): not found; build it with 'swift build -c release --product filterchain-edit'",
                          status: Status.failure)
        }
        let cArguments = ([program] + arguments).map { strdup($0) } + [nil]
        Signals.unblockForExec()
        execv(program, cArguments)
        throw Failure(message: "\(program): cannot run: \(String(cString: strerror(errno)))", status: Status.failure)
    }

    /// The path of `name` in the folder this executable is in.
    static func besideThisProgram(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        #if os(Linux)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let me = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
        #else
        var size = UInt32(buffer.count)
        let me = _NSGetExecutablePath(&buffer, &size) == 0 ? String(cString: buffer) : CommandLine.arguments[0]
        #endif
        guard let slash = me.lastIndex(of: "/") else { return name }
        return String(me[...slash]) + name
    }
}
