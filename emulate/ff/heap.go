package ff

import "container/heap"

// heap0Fix restores the heap after the root event's time was moved later.
func heap0Fix(s *state) { heap.Fix(&s.h, 0) }
