#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One deterministic share of a batch's input list: input k (0-based) belongs to share
/// `k % count + 1`. Shares are numbered from 1, as `--shard I/N` writes them.
struct Shard: Equatable {
    /// 1-based.
    var index: Int
    var count: Int
    /// Where `--shard auto` found the numbers, for the log ("SLURM_ARRAY_TASK_ID=2 of 0-3").
    var origin: String? = nil

    /// "3/4".
    var text: String { "\(index)/\(count)" }

    /// Whether the input at `position` (0-based) of the list is in this share.
    func contains(position: Int) -> Bool { position % count == index - 1 }

    /// `--shard I/N`, or nil when it is not that.
    init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(i) else { return nil }
        index = i
        count = n
    }

    init(index: Int, count: Int, origin: String? = nil) {
        self.index = index
        self.count = count
        self.origin = origin
    }

    /// The variables `--shard auto` reads.
    static let variables = ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP",
                            "SLURM_ARRAY_TASK_COUNT", "SLURM_JOB_ID", "JOB_COMPLETION_INDEX", countVariable]

    /// The number of shares for a Kubernetes Indexed Job (its `completions`), or to make a
    /// Slurm array's task IDs the shard indices themselves.
    static let countVariable = "FILTERCHAIN_SHARD_COUNT"

    /// The process's values of `variables`.
    static var processEnvironment: [String: String] {
        var values: [String: String] = [:]
        for name in variables { if let value = getenv(name) { values[name] = String(cString: value) } }
        return values
    }

    /// `--shard auto`: this task's share from the scheduler's environment.
    ///
    /// - A Slurm array job (`SLURM_ARRAY_TASK_ID`): the task's position in the array,
    ///   `(ID - MIN) / STEP`, of `SLURM_ARRAY_TASK_COUNT` tasks, so `--array=0-3`, `1-4` and
    ///   `0-6:2` all make shares 1/4 to 4/4. The array must be evenly spaced (a list like
    ///   `1,3,10` is refused rather than guessed).
    /// - A Kubernetes Indexed Job (`JOB_COMPLETION_INDEX`, from 0), whose number of
    ///   completions is not in its environment: `count` (`--shard-count`) or
    ///   `FILTERCHAIN_SHARD_COUNT` gives it.
    /// - When a count is given, the task ID itself (Slurm's too) is the 0-based index, so a
    ///   single task of an array can be resubmitted alone (`sbatch --array=2`).
    static func automatic(environment: [String: String], count: Int?) throws -> Shard {
        func number(_ name: String) throws -> Int? {
            guard let text = environment[name] else { return nil }
            guard let value = Int(text.trimmingWhitespace) else {
                throw Failure.usage("--shard auto: \(name)='\(text)' is not a whole number")
            }
            return value
        }
        var count = count
        var countOrigin = "--shard-count"
        if count == nil, let text = environment[countVariable] {
            guard let n = Int(text.trimmingWhitespace), n >= 1 else {
                throw Failure.usage("--shard auto: \(countVariable)='\(text)' is not a number of shares (1 or more)")
            }
            count = n
            countOrigin = countVariable
        }
        func byIndex(_ name: String, _ id: Int, _ n: Int) throws -> Shard {
            guard (0..<n).contains(id) else {
                throw Failure.usage("--shard auto: \(name)=\(id) is not a shard index below \(n) (\(countOrigin)); with a count given, task indices run from 0 to \(n - 1)")
            }
            return Shard(index: id + 1, count: n, origin: "\(name)=\(id), \(countOrigin) \(n)")
        }
        if let id = try number("SLURM_ARRAY_TASK_ID") {
            if let count { return try byIndex("SLURM_ARRAY_TASK_ID", id, count) }
            guard let min = try number("SLURM_ARRAY_TASK_MIN"), let n = try number("SLURM_ARRAY_TASK_COUNT") else {
                throw Failure.usage("--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN or SLURM_ARRAY_TASK_COUNT is not; give --shard-count N (task IDs 0 to N-1) or --shard I/N")
            }
            let step = try number("SLURM_ARRAY_TASK_STEP") ?? 1
            let max = try number("SLURM_ARRAY_TASK_MAX") ?? (min + (n - 1) * step)
            let array = "SLURM_ARRAY_TASK_MIN=\(min), MAX=\(max), STEP=\(step), COUNT=\(n)"
            guard n >= 1, step >= 1, max >= min, (max - min) / step + 1 == n else {
                throw Failure.usage("--shard auto: the Slurm array is not evenly spaced (\(array)); submit it as --array=A-B or A-B:S, or give --shard-count N with task IDs 0 to N-1")
            }
            guard id >= min, id <= max, (id - min) % step == 0 else {
                throw Failure.usage("--shard auto: SLURM_ARRAY_TASK_ID=\(id) is not in the array (\(array))")
            }
            let range = step == 1 ? "\(min)-\(max)" : "\(min)-\(max):\(step)"
            return Shard(index: (id - min) / step + 1, count: n, origin: "SLURM_ARRAY_TASK_ID=\(id) of \(range)")
        }
        if let id = try number("JOB_COMPLETION_INDEX") {
            guard let count else {
                throw Failure.usage("--shard auto: JOB_COMPLETION_INDEX=\(id) (a Kubernetes Indexed Job) needs the number of shares, the Job's completions: --shard-count N or \(countVariable)=N")
            }
            return try byIndex("JOB_COMPLETION_INDEX", id, count)
        }
        var message = "--shard auto: no scheduler task index in the environment (looked for SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT, a Slurm array job; JOB_COMPLETION_INDEX, a Kubernetes Indexed Job)"
        if environment["SLURM_JOB_ID"] != nil { message += "; this Slurm job is not an array: submit it with sbatch --array" }
        throw Failure.usage(message + "; elsewhere use --shard I/N")
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line breaks.
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
