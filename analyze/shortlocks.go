package analyze

// ShortLockShare is the least share of the work a lock must be held for
// ShortLocks to name it.
const ShortLockShare = 0.15

// ShortLocks returns the locks of a held, on average, for less than one
// check of a goroutine spinning for a sync.Mutex (SpinCheckNs of
// a.Overheads) and for at least ShortLockShare of the work, the longest
// held first. Threads that meet at such a lock wait a whole check each
// time they do, many times what the lock is held for. Real runs of such
// a loop either take turns at the lock or meet at it at nearly every
// other acquisition, and which one a run falls into changes from run to
// run; the speedup bounds and ff's predictions, whose threads settle
// into turns, show only the first. For a program with such a lock, they
// are the upper end of what real runs give.
func (a *Analysis) ShortLocks() []Lock {
	check := a.Overheads.SpinCheckNs()
	var out []Lock
	for _, l := range a.Locks {
		if l.Acquisitions <= 0 || a.WorkNs <= 0 {
			continue
		}
		mean := float64(l.HeldNs) / float64(l.Acquisitions)
		if mean < check && float64(l.HeldNs) >= ShortLockShare*float64(a.WorkNs) {
			out = append(out, l)
		}
	}
	return out
}
