package annotate

// Loop annotates a loop that could run in parallel: a section named name
// of n tasks (also named name), task i running body(i). It ends with a
// barrier. In race mode (EnvRace) each task runs on a goroutine of its
// own, so the race detector checks the loop.
func Loop(name string, n int, body func(i int)) {
	if raceMode() {
		raceSecBegin(name)
		for i := range n {
			raceTask(name, func() { body(i) })
		}
		raceSecEnd(false)
		return
	}
	SecBegin(name)
	for i := range n {
		TaskBegin(name)
		body(i)
		TaskEnd()
	}
	SecEnd(false)
}

// Task annotates fn as a task named name of the innermost section: a
// loop iteration, or a call the parallel version would start with a go
// statement (recursive calls included). It is TaskBegin, fn, TaskEnd;
// in race mode (EnvRace) fn runs on a goroutine of its own, so the race
// detector checks it against the section's other tasks, which tasks
// written with TaskBegin and TaskEnd cannot be.
func Task(name string, fn func()) {
	if raceMode() {
		raceTask(name, fn)
		return
	}
	TaskBegin(name)
	fn()
	TaskEnd()
}

// raceMode reports whether the closure forms run their tasks on
// goroutines of their own: in race mode, unless a recording was started
// since (it takes precedence, as for the other calls).
func raceMode() bool { return raceBuild && raceOn && rec.p.Load() == nil }

// Setup annotates fn as per-worker setup (see SetupBegin): in a task,
//
//	annotate.Task("row", func() {
//		var buf []float64
//		annotate.Setup(func() { buf = make([]float64, 4096) })
//		use(buf)
//	})
//
// records a loop whose parallel version allocates buf once per worker.
func Setup(fn func()) {
	SetupBegin()
	fn()
	SetupEnd()
}

// Lock annotates fn as a critical section holding lock id. In race mode
// it holds a real mutex for id, as LockBegin and LockEnd do.
func Lock(id int, fn func()) {
	LockBegin(id)
	fn()
	LockEnd(id)
}

// LockIndexed annotates fn as an indexed critical section holding lock
// id (see LockIndexedBegin): one that updates data the task picks, such
// as a histogram's bin:
//
//	annotate.LockIndexed(1, func() { bins[b]++ })
//
// In race mode it holds a real mutex for id, as Lock does.
func LockIndexed(id int, fn func()) {
	LockIndexedBegin(id)
	fn()
	LockEnd(id)
}
