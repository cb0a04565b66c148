package profiler

import (
	"bytes"
	"io"
	"slices"
	"testing"
)

// TestRepeatFile checks that a Repeat written by WriteTo and read back
// by ReadRepeat pools as the original would: TestRepeatPools's second
// and third recordings, each made in a "new process" from the file the
// one before left.
func TestRepeatFile(t *testing.T) {
	through := func(rp *Repeat) *Repeat {
		t.Helper()
		var buf bytes.Buffer
		n, err := rp.WriteTo(&buf)
		if err != nil || n != int64(buf.Len()) {
			t.Fatalf("WriteTo: %d bytes, %v; wrote %d", n, err, buf.Len())
		}
		back, err := ReadRepeat(&buf)
		if err != nil {
			t.Fatal(err)
		}
		return back
	}
	rp := &Repeat{}
	recordWith(t, rp, 1, loopEvents([9]int64{1000, 200, 300, 400, 500, 200, 300, 400, 500}, 1), 70)
	rp = through(rp)
	second := recordWith(t, rp, 1, loopEvents([9]int64{1000, 250, 290, 900, 500, 200, 300, 400, 480}, 1), 60)
	if want := []int64{1000, 200, 290, 400, 500, 200, 300, 400, 480, 100, 60}; !slices.Equal(second, want) {
		t.Errorf("second recording: leaves %v, want %v", second, want)
	}
	rp = through(rp)
	third := recordWith(t, rp, 0.5, loopEvents([9]int64{1800, 400, 580, 780, 1000, 400, 600, 800, 1000}, 1), 200)
	if want := []int64{1000, 200, 290, 400, 500, 200, 300, 400, 500, 100, 70}; !slices.Equal(third, want) {
		t.Errorf("third recording: leaves %v, want %v", third, want)
	}
	if rp.Runs() != 3 || rp.Mismatch() != "" {
		t.Errorf("Runs %d, Mismatch %q: want 3 and none", rp.Runs(), rp.Mismatch())
	}
	// A mismatch travels with the file.
	recordWith(t, rp, 1, loopEvents([9]int64{500, 100, 100, 100, 100, 100, 100, 100, 100}, 2), 70)
	if back := through(rp); back.Mismatch() == "" || back.Mismatch() != rp.Mismatch() || back.Runs() != 4 {
		t.Errorf("after a mismatch: read back Runs %d, Mismatch %q; want 4 and %q", back.Runs(), back.Mismatch(), rp.Mismatch())
	}
}

// TestReadRepeatDamaged checks that every truncation of a valid file,
// and a few damaged ones, are errors, not panics or huge allocations.
func TestReadRepeatDamaged(t *testing.T) {
	rp := &Repeat{}
	recordWith(t, rp, 1, loopEvents([9]int64{1000, 200, 300, 400, 500, 200, 300, 400, 500}, 1), 70)
	var buf bytes.Buffer
	if _, err := rp.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	for n := 0; n < len(good); n++ {
		if _, err := ReadRepeat(bytes.NewReader(good[:n])); err == nil {
			t.Errorf("a file cut to %d of %d bytes was read", n, len(good))
		}
	}
	for name, b := range map[string][]byte{
		"other magic":   append([]byte("PPRX"), good[4:]...),
		"other version": append(append([]byte(repeatMagic), 9), good[5:]...),
		"huge count":    append(append([]byte(repeatMagic), repeatVersion, 1, 0), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f),
	} {
		if _, err := ReadRepeat(bytes.NewReader(b)); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
	if _, err := ReadRepeat(io.LimitReader(bytes.NewReader(good), int64(len(good)))); err != nil {
		t.Errorf("the whole file: %v", err)
	}
}

// FuzzReadRepeat checks that no input makes ReadRepeat panic.
func FuzzReadRepeat(f *testing.F) {
	rp := &Repeat{}
	var buf bytes.Buffer
	_, _ = rp.WriteTo(&buf)
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ReadRepeat(bytes.NewReader(b))
	})
}

// TestReadRepeatVersion1 reads a file of version 1 (one length an event,
// the shortest so far) of two recordings and pools a third with it: the
// kept length counts as the shortest two, so the third keeps it.
func TestReadRepeatVersion1(t *testing.T) {
	rp := &Repeat{}
	recordWith(t, rp, 1, loopEvents([9]int64{1000, 200, 300, 400, 500, 200, 300, 400, 500}, 1), 70)
	recordWith(t, rp, 1, loopEvents([9]int64{1000, 250, 290, 900, 500, 200, 300, 400, 480}, 1), 60)
	// The same pool as version 1 wrote it: the shortest lengths only.
	back := rewritten(t, rp, 1)
	third := recordWith(t, back, 0.5, loopEvents([9]int64{1800, 400, 580, 780, 1000, 400, 600, 800, 1000}, 1), 200)
	if want := []int64{1000, 200, 290, 400, 500, 200, 300, 400, 480, 100, 60}; !slices.Equal(third, want) {
		t.Errorf("third recording from a version 1 file: leaves %v, want %v (the kept lengths)", third, want)
	}
}

// TestReadRepeatVersion2 reads a file of version 2 (raw lengths, each
// recording's overheads included): the Repeat goes on pooling raw, so a
// third recording's overheads come off the pooled raw lengths, and it is
// written back as version 2.
func TestReadRepeatVersion2(t *testing.T) {
	lens := [9]int64{1000, 200, 300, 400, 500, 200, 300, 400, 500}
	rp := &Repeat{}
	recordCost(t, rp, 0, 0, lens, 70)
	recordCost(t, rp, 0, 0, lens, 70)
	back := rewritten(t, rp, 2)
	// The third recording's reads cost 20 ticks: its raw intervals are
	// 20 longer, the pooled raw lengths are the first two's, and 20
	// comes off them.
	third := recordCost(t, back, 20, 0, lens, 70)
	if want := []int64{980, 180, 280, 380, 480, 180, 280, 380, 480, 80, 50}; !slices.Equal(third, want) {
		t.Errorf("third recording from a version 2 file: leaves %v, want %v", third, want)
	}
	var buf bytes.Buffer
	if _, err := back.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if v := buf.Bytes()[len(repeatMagic)]; v != 2 {
		t.Errorf("a pool read from version 2 is written as version %d, want 2", v)
	}
}

// rewritten returns rp written in format version and read back.
func rewritten(t *testing.T, rp *Repeat, version byte) *Repeat {
	t.Helper()
	var buf bytes.Buffer
	if _, err := rp.writeVersion(&buf, version); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRepeat(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return back
}
