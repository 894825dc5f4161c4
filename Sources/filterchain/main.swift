import ArgumentParser
import FilterChain
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct FilterChainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filterchain",
        abstract: "Apply chains of image filters to PNG, JPEG, WebP, TIFF, AVIF, HEIC, GIF and JPEG XL images, and camera RAW (read).",
        discussion: """
            A chain file is an ordered list of filters (see 'filterchain filters'). Try:

              filterchain apply samples/chains/look.json samples/chelsea.png out.png \\
                --preview 1 --preview-output step1.png

            Exit status: 0 success; 1 an image could not be read, processed or written; 64 usage error; 65 invalid chain file; 130 interrupted (Ctrl-C, SIGTERM).
            """,
        version: filterChainVersion,
        subcommands: [Apply.self, ThumbnailCommand.self, Steps.self, Info.self, Filters.self, Formats.self, Validate.self, ChainCommand.self, ReportCommand.self, Edit.self])
}

Console.setUp()
Signals.install()
var status = Status.success
do {
    var command = try FilterChainCommand.parseAsRoot()
    try command.run()
} catch let failure as Failure {
    Console.error(failure.message)
    status = failure.status
} catch let failure as ExitCodeFailure {
    status = failure.status
} catch {
    let code = FilterChainCommand.exitCode(for: error)
    if code == .success {
        print(FilterChainCommand.fullMessage(for: error))
    } else {
        let message = FilterChainCommand.message(for: error)
            .split(whereSeparator: \.isNewline).joined(separator: "; ")
        Console.error(message + " (see 'filterchain help')")
        status = Status.usage
    }
}
TemporaryFiles.shared.removeAll()
if Signals.cancel.isCancelled && status != Status.success { status = Status.interrupted }
exit(status)
