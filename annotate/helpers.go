package annotate

// Loop annotates a loop that could run in parallel: a section named name
// of n tasks (also named name), task i running body(i). It ends with a
// barrier.
func Loop(name string, n int, body func(i int)) {
	SecBegin(name)
	for i := range n {
		TaskBegin(name)
		body(i)
		TaskEnd()
	}
	SecEnd(false)
}

// Lock annotates fn as a critical section holding lock id.
func Lock(id int, fn func()) {
	LockBegin(id)
	fn()
	LockEnd(id)
}
