import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixed set of threads running the pipeline's tasks, most urgent first. One pool serves
/// every image in flight, so images in parallel and strips in parallel share the cores
/// instead of multiplying threads.
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

    /// The number of cores online.
    public static var availableCores: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    public init(threads: Int = WorkerPool.availableCores) {
        threadCount = max(1, threads)
        for _ in 0..<threadCount {
            let box = Unmanaged.passRetained(self)
            var thread = pthread_t()
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            pthread_attr_setstacksize(&attributes, 8 << 20)
            let created = pthread_create(&thread, &attributes, { raw in
                let pool = Unmanaged<WorkerPool>.fromOpaque(raw!).takeRetainedValue()
                pool.work()
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

    private func work() {
        while true {
            // Between strips the queue empties for a moment: look again briefly before sleeping.
            pollBriefly { queued.load(ordering: .relaxed) > 0 || stopping.load(ordering: .relaxed) }
            let task: Task? = monitor.locked {
                while heap.isEmpty && !stopping.load(ordering: .relaxed) { monitor.wait() }
                if heap.isEmpty { return nil }
                return pop()
            }
            guard let task else { return }
            task.work()
        }
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
