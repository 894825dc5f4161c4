/// Which strips of a plan's stages can run, given how far each stage has got: the part of the
/// schedule that depends only on the plan, shared by the run and by the plan's inference of
/// its rings' sizes (which runs it ahead of time, so the run never stalls).
///
/// A stage runs its next strip when the rows it reads are finished (its input stage's and
/// every side's), and when the rows it writes into its ring would not overwrite rows that
/// any stage reading the ring still needs.
struct Schedule {
    enum Read {
        /// The reader's source reads the rows (a vertical pass, a geometry step, a copy).
        case input
        /// A row operation of the reader reads them at an offset (a layer, a mask's input).
        case side(Plan.Side)
    }

    let stages: [Plan.Stage]
    /// For each stage, the stages that read its rows, and how.
    let readers: [[(stage: Int, read: Read)]]
    /// The rows of each stage's ring (0: nothing reads it).
    var capacity: [Int]

    init(stages: [Plan.Stage], capacity: [Int]? = nil) {
        self.stages = stages
        var readers = [[(stage: Int, read: Read)]](repeating: [], count: stages.count)
        for (c, stage) in stages.enumerated() {
            if let p = stage.input { readers[p].append((c, .input)) }
            for side in stage.sides { readers[side.stage].append((c, .side(side))) }
        }
        self.readers = readers
        self.capacity = capacity ?? stages.indices.map { p in
            // Rows any one strip of a reader reads, plus two of the stage's strips, so that
            // one of the two can always move on; all rows at most.
            guard !readers[p].isEmpty else { return 0 }
            var reach = 0
            for (c, read) in readers[p] {
                switch read {
                case .input:
                    for k in 0..<stages[c].stripCount {
                        reach = max(reach, stages[c].inputRows(strip: k, previous: stages[p].size).count)
                    }
                case .side:
                    reach = max(reach, stages[c].stripHeight)
                }
            }
            let s = stages[p].stripHeight
            return min((reach + 3 * s - 1) / s * s, Schedule.wholeRing(stages[p]))
        }
    }

    /// A ring that holds every row of the stage.
    static func wholeRing(_ stage: Plan.Stage) -> Int {
        (stage.size.height + stage.stripHeight - 1) / stage.stripHeight * stage.stripHeight
    }

    func rowsDone(_ j: Int, _ done: [Int]) -> Int { min(stages[j].size.height, done[j] * stages[j].stripHeight) }
    func isFinished(_ j: Int, _ done: [Int]) -> Bool { done[j] >= stages[j].stripCount }

    /// The lowest row of stage `p` that a reader still needs; nil when it needs none.
    private func lowestNeeded(_ reader: (stage: Int, read: Read), of p: Int, _ done: [Int]) -> Int? {
        let c = stages[reader.stage]
        let k = done[reader.stage]
        if k >= c.stripCount { return nil }
        switch reader.read {
        case .input:
            return c.inputRows(strip: k, previous: stages[p].size).lowerBound
        case .side(let side):
            let first = k * c.stripHeight - side.y
            return first >= stages[p].size.height ? nil : max(0, first)
        }
    }

    enum Blocked { case finished, decoder, input, room }

    /// Why stage `j` cannot run its next strip; nil when it can. `decoded`: strips the decoder
    /// has delivered.
    func blocked(_ j: Int, done: [Int], decoded: Int) -> Blocked? {
        let stage = stages[j]
        let k = done[j]
        if k >= stage.stripCount { return .finished }
        if case .decoder = stage.source, decoded <= k { return .decoder }
        if let p = stage.input {
            if stage.inputRows(strip: k, previous: stages[p].size).upperBound >= rowsDone(p, done) { return .input }
        }
        for side in stage.sides {
            if let rows = stage.sideRows(strip: k, side: side, height: stages[side.stage].size.height),
               rows.upperBound >= rowsDone(side.stage, done) { return .input }
        }
        if roomNeeded(j, done: done) > capacity[j] { return .room }
        return nil
    }

    /// The ring stage `j` needs for its next strip not to overwrite rows still read.
    func roomNeeded(_ j: Int, done: [Int]) -> Int {
        let k = done[j]
        let end = k * stages[j].stripHeight + min(stages[j].stripHeight, stages[j].size.height - k * stages[j].stripHeight)
        var lowest = end
        for reader in readers[j] {
            if let low = lowestNeeded(reader, of: j, done) { lowest = min(lowest, low) }
        }
        return end - lowest
    }

    /// The decoder reads its next strip into one of two buffers while stage 0 works on the
    /// other.
    func decodes(decoded: Int, done: [Int]) -> Bool {
        decoded < stages[0].stripCount && done[0] >= decoded - 1
    }

    /// Rings large enough for the schedule never to stall: it is run ahead of time, and a ring
    /// that blocks every stage that could move is grown to what its next strip needs; then run
    /// again with the grown rings, until a run needs no growing. A ring grows only as far as
    /// the distance between the rows its readers need, so memory does not grow with the
    /// image's height unless a reader needs every row (a quarter turn).
    static func inferCapacities(_ stages: [Plan.Stage]) -> [Int] {
        var schedule = Schedule(stages: stages)
        for _ in 0..<64 {
            var done = [Int](repeating: 0, count: stages.count)
            var decoded = 0
            var grew = false
            while true {
                let decodes = schedule.decodes(decoded: decoded, done: done)
                var started: [Int] = []
                var cramped: [Int] = []
                for j in stages.indices {
                    switch schedule.blocked(j, done: done, decoded: decoded) {
                    case nil: started.append(j)
                    case .room?: cramped.append(j)
                    default: break
                    }
                }
                if !decodes && started.isEmpty {
                    if stages.indices.allSatisfy({ schedule.isFinished($0, done) }) { break }
                    precondition(!cramped.isEmpty, "the schedule stalled with room in every ring")
                    for j in cramped {
                        let s = stages[j].stripHeight
                        let need = (schedule.roomNeeded(j, done: done) + s - 1) / s * s
                        schedule.capacity[j] = min(max(need, schedule.capacity[j]), wholeRing(stages[j]))
                    }
                    grew = true
                    continue
                }
                if decodes { decoded += 1 }
                for j in started { done[j] += 1 }
            }
            if !grew { return schedule.capacity }
        }
        return stages.indices.map { schedule.readers[$0].isEmpty ? 0 : wholeRing(stages[$0]) }
    }
}
