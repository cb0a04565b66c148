package profiler

import (
	"fmt"
)

// apply checks one event against the open annotations and builds the tree.
func (p *Profiler) apply(r *record) {
	raw := r.t - r.from
	p.rawTicks += raw
	if r.op == opStop {
		if p.err == nil {
			p.closeInterval(raw, p.stack[len(p.stack)-1].Kind)
			if p.carry > 0 {
				p.b.U(p.carry)
				p.carry = 0
			}
		}
		return
	}
	p.events++
	if p.err != nil {
		return
	}
	// The events of a loop's tasks, kept in a small function of their own.
	top := &p.stack[len(p.stack)-1]
	switch {
	case r.op == opTaskBegin && top.Kind == Sec:
		p.closeInterval(raw, Sec)
		p.b.BeginTask(r.name)
		p.push(Task, r.name, 0, p.events)
	case r.op == opTaskEnd && top.Kind == Task:
		p.closeTask(raw)
		p.b.EndTask()
		p.stack = p.stack[:len(p.stack)-1]
	default:
		p.applyOther(r, raw, top)
	}
}

// applyOther is apply for the other events and for every misplaced one.
func (p *Profiler) applyOther(r *record, raw int64, top *Annotation) {
	ev := p.events
	switch r.op {
	case opSecBegin:
		call := func() string { return fmt.Sprintf("SecBegin %q", r.name) }
		switch top.Kind {
		case Lock, Setup:
			p.misplaced(call(), ev, top, holdsOnly(top))
			return
		case Sec:
			p.misplaced(call(), ev, top, "a section holds tasks; a nested section belongs inside a task")
			return
		}
		p.closeInterval(raw, top.Kind)
		p.b.BeginSec(r.name)
		p.push(Sec, r.name, 0, ev)
	case opSecEnd:
		if top.Kind != Sec {
			p.mismatch("SecEnd", ev, top)
			return
		}
		p.closeInterval(raw, Sec)
		p.b.EndSec(r.arg&1 == 1, p.sectionCounters(top.Name, r.arg>>1))
		p.stack = p.stack[:len(p.stack)-1]
	case opTaskBegin:
		call := func() string { return fmt.Sprintf("TaskBegin %q", r.name) }
		switch top.Kind {
		case 0:
			p.misplaced(call(), ev, nil, "outside any section")
			return
		case Lock, Setup:
			p.misplaced(call(), ev, top, holdsOnly(top))
			return
		case Task:
			p.misplaced(call(), ev, top, "a task belongs directly to a section; a nested task needs a nested section")
			return
		}
		p.closeInterval(raw, Sec)
		p.b.BeginTask(r.name)
		p.push(Task, r.name, 0, ev)
	case opTaskEnd:
		if top.Kind != Task {
			p.mismatch("TaskEnd", ev, top)
			return
		}
		p.closeTask(raw)
		p.b.EndTask()
		p.stack = p.stack[:len(p.stack)-1]
	case opLockBegin, opLockIndexedBegin:
		indexed := r.op == opLockIndexedBegin
		if top.Kind == Lock || top.Kind == Setup {
			call := "LockBegin"
			if indexed {
				call = "LockIndexedBegin"
			}
			p.misplaced(fmt.Sprintf("%s(%d)", call, r.arg), ev, top, holdsOnly(top))
			return
		}
		p.closeInterval(raw, top.Kind)
		p.push(Lock, "", int(r.arg), ev)
		p.stack[len(p.stack)-1].Indexed = indexed
	case opLockEnd:
		if top.Kind != Lock || top.ID != int(r.arg) {
			p.mismatch(fmt.Sprintf("LockEnd(%d)", r.arg), ev, top)
			return
		}
		if top.Indexed {
			p.b.IndexedL(top.ID, p.net(raw))
		} else {
			p.b.L(top.ID, p.net(raw))
		}
		p.stack = p.stack[:len(p.stack)-1]
	case opSetupBegin:
		switch top.Kind {
		case 0:
			p.misplaced("SetupBegin", ev, nil, "outside any section: setup is what each worker of a section does once")
			return
		case Lock, Setup:
			p.misplaced("SetupBegin", ev, top, holdsOnly(top))
			return
		}
		p.closeInterval(raw, top.Kind)
		p.push(Setup, "", 0, ev)
	case opSetupEnd:
		if top.Kind != Setup {
			p.mismatch("SetupEnd", ev, top)
			return
		}
		p.b.Setup(p.net(raw))
		p.stack = p.stack[:len(p.stack)-1]
	}
}

// push opens an annotation. It fills the slot in place: a composite
// literal appended would be built on the stack and copied, which costs a
// store-forwarding stall on every TaskBegin.
func (p *Profiler) push(k Kind, name string, id int, ev int64) {
	n := len(p.stack)
	if n < cap(p.stack) {
		p.stack = p.stack[:n+1]
	} else {
		p.stack = append(p.stack, Annotation{})
	}
	a := &p.stack[n]
	a.Kind, a.Name, a.ID, a.Event, a.Indexed = k, name, id, ev, false
}

// closeTask closes a task's last interval (closeInterval) less the
// overlap a clock read took away there (lossNs), at most all of it.
func (p *Profiler) closeTask(raw int64) {
	ns := p.net(raw)
	l := min(p.lossNs, ns)
	p.lost += l
	p.closeNet(ns-l, Task)
}

// closeInterval adds an interval outside any lock to the open node, whose
// kind is open (0: the root), or, when it is shorter than minU (secGap in
// a section), carries it to the next one.
func (p *Profiler) closeInterval(raw int64, open Kind) {
	p.closeNet(p.net(raw), open)
}

// closeNet is closeInterval for an interval of net ns.
func (p *Profiler) closeNet(net int64, open Kind) {
	ns := net + p.carry
	least := p.minU
	if open == Sec {
		least = p.secGap
	}
	if ns < least {
		p.carry = ns
		return
	}
	p.carry = 0
	p.b.U(ns)
}

func (p *Profiler) mismatch(call string, ev int64, top *Annotation) {
	e := &AnnotationError{Problem: Mismatch, Call: call, Event: ev}
	if top.Kind != 0 {
		a := *top
		e.Open = &a
	}
	p.err = e
}

func (p *Profiler) misplaced(call string, ev int64, top *Annotation, reason string) {
	e := &AnnotationError{Problem: Misplaced, Call: call, Event: ev, Reason: reason}
	if top != nil && top.Kind != 0 {
		a := *top
		e.Open = &a
	}
	p.err = e
}

// holdsOnly is why nothing may begin inside top, a Lock or a Setup.
func holdsOnly(top *Annotation) string {
	if top.Kind == Setup {
		return "a setup holds computation only"
	}
	return "a lock holds computation only"
}
