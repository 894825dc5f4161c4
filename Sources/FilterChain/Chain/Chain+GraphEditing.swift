/// Editing a chain's graph: a step's input and mask, object parameters field by field,
/// images, and removing or moving steps without breaking what other steps read. Every edit
/// leaves the chain as it was when it throws.
extension Chain {
    /// Sets one key of the step at `index` (0-based), as `filterchain chain set` writes it:
    ///
    /// - `input`: a reference (null: the step above, the default);
    /// - `layout`: where the editor's graph view draws the step, [x, y] (null: where its
    ///   layout puts it);
    /// - `mask`: a whole mask object (null: none);
    /// - `mask.FIELD`, dotted to any depth (`mask.radius`, `mask.placement.gravity`); setting
    ///   `mask.type` to another type starts that type at its defaults, keeping invert and
    ///   opacity;
    /// - a parameter, or a field of an object parameter (`placement.gravity`).
    ///
    /// Values are checked as a chain file's are; references are checked by `checkGraph`
    /// (an edit may be one of several that make the chain valid together).
    public mutating func set(_ key: String, to value: JSONNode, atStep index: Int, file: String) throws(ChainError) {
        try checkIndex(index, file: file)
        let parts = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let path = "filters[\(index)]"
        switch parts[0] {
        case "input":
            guard parts.count == 1 else {
                throw ChainError(file: file, path: path + "." + key, problem: .wrongType(expected: "input=REF", found: key))
            }
            switch value.value {
            case .null: steps[index].input = nil
            case .string(let text) where !text.isEmpty: steps[index].input = Reference(text)
            default:
                throw ChainError(file: file, path: path + ".input", problem: .wrongType(
                    expected: "a reference (\"source\", an image's or a step's id or name), or null for the step above", found: value.typeName))
            }
        case "layout":
            guard parts.count == 1 else {
                throw ChainError(file: file, path: path + "." + key, problem: .wrongType(expected: "layout=[x,y]", found: key))
            }
            if case .null = value.value { layout[steps[index].id] = nil; return }
            do throws(ParameterError) {
                let v = try readNumbers(value, count: 2, in: NodePosition.range, what: "a position [x, y] in the editor's graph view, or null")
                layout[steps[index].id] = NodePosition(v[0], v[1])
            } catch {
                throw ChainError(file: file, path: path + ".layout" + error.subpath, problem: error.problem)
            }
        case "mask":
            let rest = Array(parts.dropFirst())
            var node = value
            if !rest.isEmpty {
                node = Chain.maskJSON(steps[index].mask?.jsonNode ?? JSONNode(.object([])), setting: rest, to: value)
            }
            if case .null = node.value, rest.isEmpty { steps[index].mask = nil; return }
            do throws(ParameterError) { steps[index].mask = try Mask(json: node) } catch {
                throw ChainError(file: file, path: path + ".mask" + error.subpath, problem: error.problem)
            }
        default:
            guard parts.count > 1 else { return try setParameter(at: index, key, to: value, file: file) }
            let current = steps[index].parametersJSON.member(parts[0]) ?? JSONNode(.object([]))
            try setParameter(at: index, parts[0], to: current.setting(Array(parts.dropFirst()), to: value), file: file)
        }
    }

    /// Sets several keys of the step at `index` in order, as `set` does, except that the
    /// `mask...` keys are gathered into one mask, read once they are all set: a new type's
    /// required fields may come after the type (`mask.type=image mask.source=logo`).
    public mutating func set(_ assignments: [(key: String, value: JSONNode)], atStep index: Int, file: String) throws(ChainError) {
        try checkIndex(index, file: file)
        var copy = self
        var mask: JSONNode?
        for (key, value) in assignments {
            let parts = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard parts[0] == "mask", parts.count > 1 else {
                try copy.set(key, to: value, atStep: index, file: file)
                if parts[0] == "mask" { mask = nil }
                continue
            }
            let current = mask ?? copy.steps[index].mask?.jsonNode ?? JSONNode(.object([]))
            mask = Chain.maskJSON(current, setting: Array(parts.dropFirst()), to: value)
        }
        if let mask { try copy.set("mask", to: mask, atStep: index, file: file) }
        self = copy
    }

    /// A mask's JSON with the field at `path` set; another type keeps only invert and opacity.
    static func maskJSON(_ current: JSONNode, setting path: [String], to value: JSONNode) -> JSONNode {
        var current = current
        if path == ["type"], case .string(let type) = value.value, current.member("type")?.value != .string(type) {
            // Another type: its own fields at their defaults.
            current = JSONNode(.object([("invert", current.member("invert") ?? JSONNode(.bool(false))),
                                        ("opacity", current.member("opacity") ?? JSONNode(.number(1)))]))
        }
        return current.setting(path, to: value)
    }

    func checkIndex(_ index: Int, file: String) throws(ChainError) {
        guard steps.indices.contains(index) else {
            throw ChainError(file: file, path: "filters[\(index)]", problem: .notAllowed(
                "index \(index)", allowed: steps.isEmpty ? "none (the chain is empty)" : "0...\(steps.count - 1)", suggestion: nil))
        }
    }

    /// Removes the step at `index`, unless another step reads it by a reference (those are
    /// named in the error).
    public mutating func removeStep(at index: Int, file: String) throws(ChainError) {
        try checkIndex(index, file: file)
        let readers = readers(of: .step(index)).filter { $0.step != index }
        guard readers.isEmpty else {
            throw ChainError(file: file, path: "filters[\(index)]", problem: .referenced(stepTitle(index), readers: readers.map(\.description)))
        }
        layout[steps.remove(at: index).id] = nil
    }

    /// Moves the step at `from` to index `to` (both 0-based), unless that puts a step at or
    /// below a step that reads it: the error names each reference it would break.
    public mutating func moveStep(from: Int, to: Int, file: String) throws(ChainError) {
        try checkIndex(from, file: file)
        try checkIndex(to, file: file)
        var moved = self
        moved.steps.insert(moved.steps.remove(at: from), at: to)
        // Where each step of `moved` was before.
        var before = Array(steps.indices)
        before.insert(before.remove(at: from), at: to)
        var broken: [String] = []
        for (j, original) in before.enumerated() {
            for (path, reference) in references(ofStep: original) {
                guard moved.resolve(reference, from: j) == nil, case .step(let target)? = resolve(reference, from: original) else { continue }
                broken.append("\(stepTitle(original)) reads \(stepTitle(target)) in \(path)")
            }
        }
        guard broken.isEmpty else {
            throw ChainError(file: file, path: "filters[\(from)]", problem: .moveBreaksReferences(stepTitle(from), to: to + 1, broken: broken))
        }
        self = moved
    }

    /// Adds an image (its `file` as the chain file will hold it: relative to the chain file's
    /// folder, or absolute), reading it relative to `directory` unless it is already read.
    public mutating func addImage(_ image: ChainImage, relativeTo directory: String, file: String) throws(ChainError) {
        var image = image
        let index = images.count
        if image.image == nil {
            do throws(ImageFileError) { try image.load(relativeTo: directory) } catch {
                throw ChainError(file: file, path: "images[\(index)].file", problem: .imageFile(file: image.file, reason: error.reason))
            }
        }
        // Checked against everything already there, so the error is at the new image.
        var identities = Identities(reserveSource: true)
        for (i, step) in steps.enumerated() { _ = identities.claim(step.id, step.name, .step(i)) }
        for (i, old) in images.enumerated() { _ = identities.claim(old.id, old.name, .image(i)) }
        if let (key, problem) = identities.claim(image.id, image.name, .image(index)) {
            throw ChainError(file: file, path: "images[\(index)].\(key)", problem: problem)
        }
        images.append(image)
    }

    /// Removes the image `reference` names (its id or name), unless a step reads it.
    public mutating func removeImage(_ reference: Reference, file: String) throws(ChainError) {
        guard case .image(let index)? = resolve(reference) else {
            let names = images.map { $0.name ?? $0.id }
            throw ChainError(file: file, path: "images", problem: .notAllowed(
                "\"\(reference.text)\"", allowed: names.isEmpty ? "none (the chain has no images)" : "an image's id or name: " + names.joined(separator: ", "),
                suggestion: closestMatch(reference.text, in: images.compactMap(\.name))))
        }
        let readers = readers(of: .image(index))
        guard readers.isEmpty else {
            throw ChainError(file: file, path: "images[\(index)]",
                             problem: .referenced("image \(images[index].label)", readers: readers.map(\.description)))
        }
        images.remove(at: index)
    }
}

extension JSONNode {
    /// The value of an object's member `key`.
    public func member(_ key: String) -> JSONNode? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// A copy with the member at `path` (keys into nested objects) set to `newValue`; objects
    /// missing on the way are made, and so is this one when it is not an object.
    func setting(_ path: [String], to newValue: JSONNode) -> JSONNode {
        guard let key = path.first else { return newValue }
        var members: [(key: String, value: JSONNode)] = []
        if case .object(let list) = value { members = list }
        let child = (members.first { $0.key == key }?.value ?? JSONNode(.object([]))).setting(Array(path.dropFirst()), to: newValue)
        if let i = members.firstIndex(where: { $0.key == key }) { members[i].value = child } else { members.append((key, child)) }
        return JSONNode(.object(members))
    }
}
