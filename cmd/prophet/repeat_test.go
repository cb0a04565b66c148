package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/profiler"
	"github.com/parallel-prophet/prophet/tree"
)

// TestSpikeHint checks that prophet run suggests --repeat where struck
// tasks hold a share of the work worth pooling, and not otherwise.
func TestSpikeHint(t *testing.T) {
	even := tree.New(tree.Sec("s", tree.Run(1000, tree.Task("t", tree.U(300)))))
	if h := spikeHint(even); h != "" {
		t.Errorf("even loop: hint %q", h)
	}
	// 0.3 ms of hiccups in a 30 ms loop: 1%.
	struck := tree.New(tree.Sec("s", tree.Run(50000, tree.Task("t", tree.U(600))), tree.Task("t", tree.U(300600))))
	if h := spikeHint(struck); !strings.Contains(h, "--repeat") || !strings.Contains(h, "1 task looks") {
		t.Errorf("struck loop: hint %q, want one task and --repeat", h)
	}
	// The same hiccup in a loop 100 times longer: below the threshold.
	long := tree.New(tree.Sec("s", tree.Run(5000000, tree.Task("t", tree.U(600))), tree.Task("t", tree.U(300600))))
	if h := spikeHint(long); h != "" {
		t.Errorf("long loop: hint %q", h)
	}
	// A loop of more tasks than a pool keeps events for: the hint says
	// that --repeat pools only the first of them.
	huge := tree.New(tree.Sec("s", tree.Run(3_000_000, tree.Task("t", tree.U(600))), tree.Task("t", tree.U(20_000_600))))
	if got, want := recordedEvents(huge), int64(2*(3_000_001+1)+1); got != want {
		t.Errorf("huge loop: %d events, want %d", got, want)
	}
	if h := spikeHint(huge); !strings.Contains(h, "--repeat") || !strings.Contains(h, "only over their first 4194304 events") || !strings.Contains(h, "6000005") {
		t.Errorf("huge loop: hint %q, want --repeat over the first events only", h)
	}
	if h := spikeHint(struck); strings.Contains(h, "only over") {
		t.Errorf("struck loop: hint %q says a pool would not hold it", h)
	}
}

// TestRunHelpPoolLimit keeps prophet run's help in step with how many
// events a pool of recordings keeps.
func TestRunHelpPoolLimit(t *testing.T) {
	n := profiler.MaxRepeatEvents
	want := strings.TrimLeft(fmt.Sprintf("%d,%03d,%03d", n/1_000_000, n/1000%1000, n%1000), "0,")
	if help := strings.Join(strings.Fields(runCommand().long), " "); !strings.Contains(help, "keeps the first "+want+" events") {
		t.Errorf("prophet run --help does not say that a pool keeps the first %s events", want)
	}
}
