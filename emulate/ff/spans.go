package ff

import (
	"slices"

	"github.com/parallel-prophet/prophet/emulate"
)

// span appends a timeline span when recording.
func (s *state) span(core int, start, end float64, kind, name string, sec *cnode) {
	if s.spans == nil || end <= start {
		return
	}
	s.addSpan(emulate.Span{
		Thread: core, StartNs: s.offset + start, EndNs: s.offset + end,
		Kind: kind, Name: name, Section: s.p.name(sec),
	})
}

// addSpan appends x to the timeline unless it is full.
func (s *state) addSpan(x emulate.Span) {
	if s.maxSpans > 0 && len(*s.spans) >= s.maxSpans {
		return
	}
	*s.spans = append(*s.spans, x)
}

// cutSpans cuts the spans drawn on core at the current time: the parts
// past it are removed from the timeline and appended to moved, in time
// order, which it returns.
func (s *state) cutSpans(core int, moved []emulate.Span) []emulate.Span {
	now := s.offset + s.now
	sp := *s.spans
	first := len(moved)
	cut := false
	for i := len(sp) - 1; i >= 0; i-- {
		x := &sp[i]
		if x.Thread != core {
			continue
		}
		if x.EndNs <= now {
			break // a core's spans are drawn in time order
		}
		tail := *x
		tail.StartNs = max(tail.StartNs, now)
		moved = append(moved, tail)
		if x.StartNs < now {
			x.EndNs = now
		} else {
			x.Thread, cut = -1, true // removed below
		}
	}
	slices.Reverse(moved[first:])
	if cut {
		*s.spans = slices.DeleteFunc(sp, func(x emulate.Span) bool { return x.Thread < 0 })
	}
	return moved
}

// redraw draws the spans g moved when it yielded its core again on the
// core it resumes on, shifted to the time it resumes.
func (s *state) redraw(g *gor) {
	if len(g.moved) == 0 {
		return
	}
	d := s.offset + g.clock - g.moved[0].StartNs
	for _, x := range g.moved {
		x.Thread, x.StartNs, x.EndNs = g.core, x.StartNs+d, x.EndNs+d
		s.addSpan(x)
	}
	g.moved = g.moved[:0]
}
