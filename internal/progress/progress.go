package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

const (
	// width is the number of cells between the brackets.
	width = 24
	// ttyEvery is the shortest time between two redraws on a terminal;
	// logEvery the shortest time between two lines elsewhere.
	ttyEvery = 100 * time.Millisecond
	logEvery = 5 * time.Second
)

// Bar is one progress bar. Its methods are safe for concurrent use.
type Bar struct {
	mu      sync.Mutex
	w       io.Writer
	label   string
	total   int
	done    int
	tty     bool
	now     func() time.Time
	start   time.Time
	last    time.Time // last time a line was written
	drawn   bool      // a line has been written
	lastLen int       // length of the last terminal line, to blank it
	closed  bool
}

// New returns a bar labelled label counting to total, writing to w. With
// a nil w the bar prints nothing.
func New(w io.Writer, label string, total int) *Bar {
	return newBar(w, label, total, IsTerminal(w), time.Now)
}

func newBar(w io.Writer, label string, total int, tty bool, now func() time.Time) *Bar {
	b := &Bar{w: w, label: label, total: max(total, 0), tty: tty, now: now}
	b.start = now()
	if tty && w != nil {
		b.draw(b.start)
	}
	return b
}

// IsTerminal reports whether w is a terminal (a character device that
// answers terminal ioctls).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	return isTerminalFd(f.Fd())
}

// Add advances the bar by n steps.
func (b *Bar) Add(n int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.update(b.done + n)
}

// Set sets the number of steps done to n.
func (b *Bar) Set(n int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.update(n)
}

// SetTotal changes the number of steps to count to (for work whose size
// becomes known late).
func (b *Bar) SetTotal(total int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total = max(total, 0)
	b.update(b.done)
}

// Report sets the count to done of total steps: a progress callback of
// the func(done, total int) shape the measuring functions take.
func (b *Bar) Report(done, total int) {
	b.SetTotal(total)
	b.Set(done)
}

// Done completes the bar: it prints the final line (with the elapsed
// time) and a newline. Later calls do nothing.
func (b *Bar) Done() { b.finish(true) }

// Stop ends the bar where it stands, for work that failed: it prints the
// last count reached (with the elapsed time) and a newline, instead of a
// full bar. Later calls, and later calls of Done, do nothing.
func (b *Bar) Stop() { b.finish(false) }

// finish prints the bar's final line, full when complete is set.
func (b *Bar) finish(complete bool) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	if complete && b.done < b.total {
		b.done = b.total
	}
	if b.w == nil {
		return
	}
	now := b.now()
	line := b.line(now, true)
	if b.tty {
		fmt.Fprintf(b.w, "\r%s%s\n", line, pad(b.lastLen-len(line)))
	} else {
		fmt.Fprintln(b.w, line)
	}
}

func (b *Bar) update(n int) {
	if b.closed {
		return
	}
	b.done = max(n, 0)
	if b.total > 0 {
		b.done = min(b.done, b.total)
	}
	if b.w == nil {
		return
	}
	now := b.now()
	every := logEvery
	if b.tty {
		every = ttyEvery
	}
	if b.drawn && now.Sub(b.last) < every {
		return
	}
	if !b.tty && !b.drawn && now.Sub(b.start) < logEvery {
		return // a log gets its first line after a few seconds
	}
	b.draw(now)
}

func (b *Bar) draw(now time.Time) {
	line := b.line(now, false)
	if b.tty {
		fmt.Fprintf(b.w, "\r%s%s", line, pad(b.lastLen-len(line)))
		b.lastLen = len(line)
	} else {
		fmt.Fprintln(b.w, line)
	}
	b.last = now
	b.drawn = true
}

func pad(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat(" ", n)
}

// line formats "label [=====>    ] 12/40  30% ETA 20s"; final lines show
// the elapsed time instead of the ETA.
func (b *Bar) line(now time.Time, final bool) string {
	frac := 0.0
	if b.total > 0 {
		frac = min(float64(b.done)/float64(b.total), 1)
	}
	fill := int(frac * width)
	bar := strings.Repeat("=", fill)
	if fill < width {
		bar += ">" + strings.Repeat(" ", width-fill-1)
	}
	if b.done == 0 {
		bar = strings.Repeat(" ", width)
	}
	elapsed := now.Sub(b.start)
	var tail string
	switch {
	case final:
		tail = "in " + short(elapsed)
	case b.done > 0 && b.total > b.done:
		eta := time.Duration(float64(elapsed) * float64(b.total-b.done) / float64(b.done))
		tail = "ETA " + short(eta)
	case b.done >= b.total && b.total > 0:
		tail = "ETA 0s"
	default:
		tail = "ETA ?"
	}
	return fmt.Sprintf("%s [%s] %d/%d %3.0f%% %s", b.label, bar, b.done, b.total, 100*frac, tail)
}

// short formats a duration in whole seconds (minutes above 100 s).
func short(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s < 100 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}
