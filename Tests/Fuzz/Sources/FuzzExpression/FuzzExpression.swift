import FilterChain

/// The expression parser and evaluator (`"=0.002 * min(width, height)"`): any text (given an
/// '=' when it lacks one) is parsed against fixed names. A refusal names a character inside
/// the text or just past its end, with a message; an accepted expression keeps its text,
/// reads only the names given, and evaluates to a finite number or an error at a character
/// inside the text. Then the same text as a parameter of a chain file (escaped as JSON
/// writes it): refused with a line and a column on the parameter's line, or accepted and
/// resolved for an image.
let names = ["strength", "long", "width", "height", "sourceWidth", "sourceHeight"]
let values: [String: Double] = ["strength": 0.5, "long": 1600, "width": 640, "height": 480, "sourceWidth": 640, "sourceHeight": 480]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let raw = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let text = raw.hasPrefix("=") ? raw : "=" + raw
    let count = text.count
    do {
        let e = try NumberExpression(text, names: names, laterNames: ["later"])
        precondition(e.text == text && e.names.isSubset(of: Set(names)))
        do {
            let v = try e.evaluate(values)
            precondition(v.isFinite, "\(text) gave \(v)")
        } catch {
            precondition((0..<count).contains(error.offset), "\(text): \(error)")
            precondition(!error.message.isEmpty)
        }
    } catch {
        precondition((0...count).contains(error.offset), "\(text): \(error)")
        precondition(!error.message.isEmpty)
    }
    // In a chain file.
    let file = #"{ "version": 2, "variables": [ { "name": "strength", "value": 0.5 }, { "name": "long", "value": 1600 } ],"#
        + "\n" + #"  "filters": [ { "id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "type": "gaussianBlur", "parameters": { "sigma": "#
        + JSONWriter.quote(text) + " } } ] }\n"
    let lineLength = file.split(separator: "\n")[1].utf8.count
    do {
        let chain = try Chain.parse(Array(file.utf8), file: "fuzz.json")
        _ = try? chain.resolved(sourceSize: ImageSize(width: 640, height: 480))
    } catch {
        if error.path == "filters[0].parameters.sigma" {
            precondition(error.line == 2 && (1...lineLength + 1).contains(error.column ?? 0), "\(text): \(error)")
        }
        precondition(!error.description.isEmpty)
    }
    return 0
}
