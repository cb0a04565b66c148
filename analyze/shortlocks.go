package analyze

// ShortLockShare is the least share of the work a lock must be held for
// ShortLocks to name it.
const ShortLockShare = 0.15

// shortLocks returns the locks of a held, on average, for less than one
// check of a goroutine spinning for a sync.Mutex (SpinCheckNs of
// a.Overheads) and for at least ShortLockShare of the work, the longest
// held first: Analysis.ShortLocks, which says why they matter.
func (a *Analysis) shortLocks() []Lock {
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
