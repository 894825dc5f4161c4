import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixed set of threads running the pipeline's tasks, most urgent first. One pool serves
/// every image in flight, so images in parallel and strips in parallel share the cores
/// instead of multiplying threads. (@unchecked Sendable: its queue and bookkeeping are guarded by
/// `monitor`; `workers` is touched only by init and `shutdown`.)
public final class WorkerPool: @unchecked Sendable {
    /// Which task runs first: lower values first, compared in order: the image's `order`
    /// among the images in flight, its lane (decode, stages, encode), and a rank in the lane.
    struct Priority: Comparable {
        var order: Int
        var lane: Int
        var rank: Int

        static func < (a: Priority, b: Priority) -> Bool {
            (a.order, a.lane, a.rank) < (b.order, b.lane, b.rank)
        }
    }

    private struct Task {
        var priority: Priority
        /// Submission order, among tasks of the same priority.
        var sequence: Int
        var work: () -> Void

        func runsBefore(_ other: Task) -> Bool {
            priority < other.priority || (priority == other.priority && sequence < other.sequence)
        }
    }

    public let threadCount: Int
    private let monitor = Monitor()
    private var heap: [Task] = []
    private var submitted = 0
    private let stopping = Atomic<Bool>(false)
    /// The number of tasks in the heap, readable without the lock.
    private let queued = Atomic<Int>(0)
    private var workers: [pthread_t] = []

    // Diagnostics (`stateDescription`, for tests' watchdogs). Under the lock, at no extra
    // cost: the task each worker took last, how many it took, and whether it sleeps on the
    // condition. Outside it, one relaxed store per task: how many it finished. A worker that
    // took more than it finished is running its last task.
    private final class Finished: Sendable { let count = Atomic<Int>(0) }
    private let finishedCounts: [Finished]
    private var taken: [Int]
    private var lastTaken: [(priority: Priority, sequence: Int)?]
    private var sleeping: [Bool]
    /// Descriptions of the images in flight (see `watching`).
    private var watches: [Int: () -> String] = [:]
    private var watchCount = 0

    /// The number of cores online.
    public static var availableCores: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    public init(threads: Int = WorkerPool.availableCores) {
        threadCount = max(1, threads)
        finishedCounts = (0..<threadCount).map { _ in Finished() }
        taken = Array(repeating: 0, count: threadCount)
        lastTaken = Array(repeating: nil, count: threadCount)
        sleeping = Array(repeating: false, count: threadCount)
        final class Start {
            let pool: WorkerPool
            let index: Int
            init(_ pool: WorkerPool, _ index: Int) { self.pool = pool; self.index = index }
        }
        for index in 0..<threadCount {
            let box = Unmanaged.passRetained(Start(self, index))
            var thread = pthread_t()
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            pthread_attr_setstacksize(&attributes, 8 << 20)
            let created = pthread_create(&thread, &attributes, { raw in
                let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
                start.pool.work(start.index)
                return nil
            }, box.toOpaque())
            pthread_attr_destroy(&attributes)
            precondition(created == 0, "cannot start a worker thread")
            #if canImport(Glibc)
            workers.append(thread)
            #else
            workers.append(thread!)
            #endif
        }
    }

    /// Stops the threads once the queue is empty.
    public func shutdown() {
        monitor.locked {
            stopping.store(true, ordering: .relaxed)
            monitor.broadcast()
        }
        for t in workers { pthread_join(t, nil) }
        workers.removeAll()
    }

    func submit(_ priority: Priority, _ work: @escaping () -> Void) {
        monitor.locked {
            heap.append(Task(priority: priority, sequence: submitted, work: work))
            queued.add(1, ordering: .relaxed)
            submitted += 1
            siftUp(heap.count - 1)
            monitor.signal()
        }
    }

    private func work(_ index: Int) {
        var finished = 0
        while true {
            // Between strips the queue empties for a moment: look again briefly before sleeping.
            pollBriefly { queued.load(ordering: .relaxed) > 0 || stopping.load(ordering: .relaxed) }
            let task: Task? = monitor.locked {
                while heap.isEmpty && !stopping.load(ordering: .relaxed) {
                    sleeping[index] = true
                    monitor.wait()
                    sleeping[index] = false
                }
                if heap.isEmpty { return nil }
                let task = pop()
                taken[index] += 1
                lastTaken[index] = (task.priority, task.sequence)
                return task
            }
            guard let task else { return }
            task.work()
            finished += 1
            finishedCounts[index].count.store(finished, ordering: .relaxed)
        }
    }

    /// Runs `body` with `describe` listed in `stateDescription` (an image in flight, say).
    func watching<T>(_ describe: @escaping () -> String, _ body: () throws -> T) rethrows -> T {
        let id: Int = monitor.locked {
            watchCount += 1
            watches[watchCount] = describe
            return watchCount
        }
        defer { _ = monitor.locked { watches.removeValue(forKey: id) } }
        return try body()
    }

    /// What every worker is doing, what waits in the queue and what the images in flight are
    /// doing: for a test's watchdog to print when a render takes too long.
    func stateDescription() -> String {
        let lanes = [1: "decode", 2: "source", 3: "rows", 4: "encode"]
        func name(_ p: Priority) -> String { "order \(p.order) \(lanes[p.lane] ?? "lane \(p.lane)") \(p.rank)" }
        let (lines, describers): ([String], [() -> String]) = monitor.locked {
            var lines = ["pool of \(threadCount) threads, \(submitted) tasks submitted, \(heap.count) queued"
                         + (stopping.load(ordering: .relaxed) ? ", stopping" : "")]
            for i in 0..<threadCount {
                let done = finishedCounts[i].count.load(ordering: .relaxed)
                var line = "  worker \(i): took \(taken[i]), finished \(done): "
                if sleeping[i] {
                    line += "sleeping on the condition"
                } else if taken[i] > done, let last = lastTaken[i] {
                    line += "running task #\(last.sequence) (\(name(last.priority)))"
                } else {
                    line += "between tasks (polling the queue)"
                }
                lines.append(line)
            }
            let next = heap.sorted { $0.runsBefore($1) }.prefix(8)
            for t in next { lines.append("  queued: task #\(t.sequence) (\(name(t.priority)))") }
            if heap.count > next.count { lines.append("  queued: \(heap.count - next.count) more") }
            return (lines, watches.sorted { $0.key < $1.key }.map(\.value))
        }
        // Outside the pool's lock: a description may take another lock.
        return (lines + describers.map { "  " + $0() }).joined(separator: "\n")
    }

    private func pop() -> Task {
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        queued.subtract(1, ordering: .relaxed)
        if !heap.isEmpty { siftDown(0) }
        return top
    }

    private func siftUp(_ start: Int) {
        var i = start
        while i > 0 {
            let parent = (i - 1) / 2
            if heap[i].runsBefore(heap[parent]) { heap.swapAt(i, parent); i = parent } else { return }
        }
    }

    private func siftDown(_ start: Int) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var best = i
            if l < heap.count, heap[l].runsBefore(heap[best]) { best = l }
            if r < heap.count, heap[r].runsBefore(heap[best]) { best = r }
            if best == i { return }
            heap.swapAt(i, best)
            i = best
        }
    }
}
