package main

import (
	"strings"
	"testing"

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
}
