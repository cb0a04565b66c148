package tree

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sample returns a small tree with every feature of the format: runs,
// locks, nowait, counters, nested sections and a shared node.
func sample() *Tree {
	shared := Task("inner", U(40), IndexedL(2, 10))
	t := New(
		U(1000),
		Sec("outer",
			Run(4, Task("o", U(100), L(1, 20),
				SecNowait("nested", shared, shared, Run(3, Task("x", U(7)))))),
			U(15),
		),
		Run(2, Sec("again", Run(10, Task("t", U(33))))),
	)
	t.Root.Children[1].Counters = &Counters{Instructions: 1e9, Cycles: 2e9, LLCMisses: 1e6, TimeNs: 5e8, Runs: 3}
	t.Meta = Meta{Program: "prog -x", Recorded: "2024-01-02T03:04:05Z", Clock: "nanotime",
		EventCostNs: 27.5, MeasuredNs: 123456, Tolerance: 0.05, CountersNote: "none", CPU: "test cpu",
		Tool: "v0.test", PausedNs: 7, Sites: map[string]string{"sec:outer": "main.go:12", "task:t": "lib/x.go:40"}}
	return t
}

func encodeTree(t *testing.T, tr *Tree) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	tr := sample()
	data := encodeTree(t, tr)
	got, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := compact(got.Root), compact(tr.Root); a != b {
		t.Errorf("tree\n got %s\nwant %s", a, b)
	}
	if !reflect.DeepEqual(got.Meta, tr.Meta) {
		t.Errorf("Meta = %+v, want %+v", got.Meta, tr.Meta)
	}
	if a, b := got.Totals(), tr.Totals(); a.SerialNs != b.SerialNs || a.Tasks != b.Tasks ||
		a.Nodes != b.Nodes || a.ExpandedNodes != b.ExpandedNodes {
		t.Errorf("Totals = %+v, want %+v", a, b)
	}
	c := got.Root.Children[1].Counters
	if c == nil || *c != *tr.Root.Children[1].Counters {
		t.Errorf("Counters = %+v", c)
	}
	nested := got.Root.Children[1].Children[0].Children[2]
	if nested.Kind != KindSec || !nested.Nowait || nested.Children[0] != nested.Children[1] {
		t.Errorf("shared node not shared after the round trip: %s", compact(nested))
	}
	// A second write gives the same bytes.
	if again := encodeTree(t, got); !bytes.Equal(again, data) {
		t.Error("writing the read tree gives different bytes")
	}
}

func TestRoundTripBuilder(t *testing.T) {
	b := NewBuilder(BuildOptions{})
	for i := range 20 {
		loop(b, "a", 100, 101, 99)
		b.U(int64(50 + i))
	}
	tr, err := b.Finish(Meta{Program: "p"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(encodeTree(t, tr)))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := got.Totals(), tr.Totals(); a.SerialNs != b.SerialNs || a.Nodes != b.Nodes {
		t.Errorf("Totals = %+v, want %+v", a, b)
	}
}

func TestWriteReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.ppt")
	if err := WriteFile(path, sample()); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); err != nil {
		t.Fatal(err)
	}
	// An invalid tree writes nothing and leaves the old file alone.
	bad := New(Task("t"))
	if err := WriteFile(path, bad); err == nil {
		t.Error("WriteFile of an invalid tree: no error")
	}
	if _, err := ReadFile(path); err != nil {
		t.Errorf("old file damaged: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries, want 1 (no temporary file left)", len(ents))
	}
	// Trailing bytes.
	data, _ := os.ReadFile(path)
	os.WriteFile(path, append(data, 0), 0o644)
	if _, err := ReadFile(path); !errors.Is(err, ErrCorrupt) {
		t.Errorf("trailing byte: err %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.ppt")); err == nil || !strings.Contains(err.Error(), "missing.ppt") {
		t.Errorf("missing file: err %v", err)
	}
}

func TestReadErrors(t *testing.T) {
	good := encodeTree(t, sample())
	withHeader := func(version, flags uint16, size uint64, crc uint32, payload []byte) []byte {
		h := make([]byte, headerSize)
		copy(h, magic[:])
		binary.LittleEndian.PutUint16(h[8:], version)
		binary.LittleEndian.PutUint16(h[10:], flags)
		binary.LittleEndian.PutUint64(h[12:], size)
		binary.LittleEndian.PutUint32(h[20:], crc)
		return append(h, payload...)
	}
	payload := good[headerSize:]
	sum := binary.LittleEndian.Uint32(good[20:])
	tests := []struct {
		name string
		data []byte
		kind error
		msg  string
	}{
		{"empty", nil, ErrTruncated, "truncated (want at least 24 bytes, have 0)"},
		{"text", []byte("hello, world, this is not a profile"), ErrNotProfile, "not a prophet profile (bad magic)"},
		{"short header", good[:10], ErrTruncated, "truncated (want at least 24 bytes, have 10)"},
		{"future version", withHeader(9, 0, uint64(len(payload)), sum, payload), ErrVersion,
			"format version 9 is newer than this prophet reads (5)"},
		{"version 0", withHeader(0, 0, uint64(len(payload)), sum, payload), ErrVersion, "format version 0"},
		{"flags", withHeader(1, 4, uint64(len(payload)), sum, payload), ErrVersion, "unknown format flags"},
		{"truncated payload", good[:len(good)-3], ErrTruncated, "truncated (want"},
		{"huge length", withHeader(1, 0, 1<<62, sum, payload), ErrTruncated, "truncated (want"},
		{"checksum", withHeader(1, 0, uint64(len(payload)), sum+1, payload), ErrChecksum,
			"checksum mismatch, the file is corrupted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tc.data))
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err = %v, want %v containing %q", err, tc.kind, tc.msg)
			}
		})
	}
}

// payloadFile frames a hand-made payload with a valid header.
func payloadFile(p []byte) []byte {
	var buf bytes.Buffer
	h := make([]byte, headerSize)
	copy(h, magic[:])
	binary.LittleEndian.PutUint16(h[8:], FormatVersion)
	binary.LittleEndian.PutUint64(h[12:], uint64(len(p)))
	binary.LittleEndian.PutUint32(h[20:], crc32IEEE(p))
	buf.Write(h)
	buf.Write(p)
	return buf.Bytes()
}

// rawNode is one node of a hand-made node table.
type rawNode struct {
	kind, flags byte
	name        uint64
	lock, len   int64
	count       uint64
	children    []uint64
}

func rawPayload(names []string, nodes []rawNode, nodeCount uint64) []byte {
	var p []byte
	str := func(s string) { p = binary.AppendUvarint(p, uint64(len(s))); p = append(p, s...) }
	for range 3 {
		str("")
	}
	p = binary.LittleEndian.AppendUint64(p, 0)
	p = binary.AppendVarint(p, 0)
	p = binary.LittleEndian.AppendUint64(p, 0)
	str("")
	str("")
	str("")                        // tool
	p = binary.AppendVarint(p, 0)  // paused
	p = binary.AppendUvarint(p, 0) // sites
	p = append(p, 0)               // no memory probe
	p = binary.AppendUvarint(p, uint64(len(names)))
	for _, s := range names {
		str(s)
	}
	p = binary.AppendUvarint(p, nodeCount)
	for _, n := range nodes {
		p = append(p, n.kind, n.flags)
		p = binary.AppendUvarint(p, n.name)
		p = binary.AppendVarint(p, n.lock)
		p = binary.AppendVarint(p, n.len)
		p = binary.AppendUvarint(p, n.count)
		p = binary.AppendUvarint(p, uint64(len(n.children)))
		for _, c := range n.children {
			p = binary.AppendUvarint(p, c)
		}
	}
	return p
}

func TestReadInvalidStructure(t *testing.T) {
	u := rawNode{kind: byte(KindU), len: 5, count: 1}
	root := func(ch ...uint64) rawNode { return rawNode{kind: byte(KindRoot), count: 1, children: ch} }
	tests := []struct {
		name  string
		nodes []rawNode
		count uint64
		msg   string
	}{
		{"valid", []rawNode{u, root(0)}, 2, ""},
		{"task under root", []rawNode{{kind: byte(KindTask), count: 1}, root(0)}, 2, "a Root cannot hold a Task"},
		{"children on a leaf", []rawNode{u, {kind: byte(KindU), count: 1, children: []uint64{0}}, root(1)}, 3, "a U node has children"},
		{"count 0", []rawNode{{kind: byte(KindU), count: 0}, root(0)}, 2, "count 0"},
		{"negative length", []rawNode{{kind: byte(KindU), len: -1, count: 1}, root(0)}, 2, "negative length"},
		{"unknown kind", []rawNode{{kind: 9, count: 1}, root(0)}, 2, "unknown kind 9"},
		{"forward child", []rawNode{root(1), u}, 2, "not an earlier node"},
		{"self child", []rawNode{u, root(1)}, 2, "not an earlier node"},
		{"bad name", []rawNode{{kind: byte(KindU), name: 7, count: 1}, root(0)}, 2, "names string 7"},
		{"huge node count", []rawNode{u, root(0)}, 1 << 60, "does not fit"},
		{"second root", []rawNode{root(), root(0)}, 2, "only the last node"},
		{"orphan", []rawNode{u, u, root(1)}, 3, "belongs to no parent"},
		{"root not last", []rawNode{root(), u}, 2, "only the last node"},
		{"overflow", []rawNode{u,
			{kind: byte(KindTask), count: 1 << 62, children: []uint64{0}},
			{kind: byte(KindSec), count: 1 << 62, children: []uint64{1}}, root(2)}, 4, "too large"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(payloadFile(rawPayload([]string{""}, tc.nodes, tc.count))))
			if tc.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err = %v, want ErrCorrupt containing %q", err, tc.msg)
			}
		})
	}
}

func TestReadDeepNesting(t *testing.T) {
	nodes := []rawNode{{kind: byte(KindU), len: 1, count: 1}}
	for i := 0; i < 2*maxFileDepth+2; i++ {
		k := KindTask
		if i%2 == 1 {
			k = KindSec
		}
		nodes = append(nodes, rawNode{kind: byte(k), count: 1, children: []uint64{uint64(len(nodes) - 1)}})
	}
	nodes = append(nodes, rawNode{kind: byte(KindRoot), count: 1, children: []uint64{uint64(len(nodes) - 1)}})
	_, err := Read(bytes.NewReader(payloadFile(rawPayload([]string{""}, nodes, uint64(len(nodes))))))
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "nesting deeper") {
		t.Errorf("err = %v", err)
	}
}

// TestReadEveryTruncationAndFlip cuts a small file at every byte and flips
// every byte: each must give an error, never a panic or a tree.
func TestReadEveryTruncationAndFlip(t *testing.T) {
	good := encodeTree(t, sample())
	for i := 0; i < len(good); i++ {
		if _, err := Read(bytes.NewReader(good[:i])); err == nil {
			t.Errorf("file cut at %d of %d bytes: no error", i, len(good))
		}
	}
	for i := range good {
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			bad := bytes.Clone(good)
			bad[i] ^= mask
			if _, err := Read(bytes.NewReader(bad)); err == nil {
				t.Errorf("byte %d flipped with %#x: no error", i, mask)
			}
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add(encodeTreeF(sample()))
	f.Add(encodeTreeF(New()))
	f.Add(encodeTreeF(New(U(5), Sec("s", Run(3, Task("t", L(1, 2)))))))
	f.Add([]byte("not a profile"))
	probed := New(Sec("s", Run(3, Task("t", U(5)))))
	probed.Meta.Probe = &MemoryProbe{Cores: 2, Note: "n", Curve: []ProbeStreams{{1, 9000}, {2, 6000}},
		Sections: map[string]ProbeSection{"s": {Points: []ProbePoint{{Bandits: 1, Load: 1, Runs: 2, Slowdown: 1.3, Share: 0.8}}}}}
	f.Add(encodeTreeF(probed))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		if err := Validate(tr); err != nil {
			t.Fatalf("Read returned an invalid tree: %v", err)
		}
		_ = tr.Totals()
		_ = Work(tr.Root)
		var buf bytes.Buffer
		if err := Write(&buf, tr); err != nil {
			t.Fatalf("cannot write a tree Read accepted: %v", err)
		}
		if _, err := Read(&buf); err != nil {
			t.Fatalf("cannot read back a written tree: %v", err)
		}
	})
}

func encodeTreeF(tr *Tree) []byte {
	var buf bytes.Buffer
	if err := Write(&buf, tr); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// TestReadsVersion1 reads a version-1 file, whose Meta ends at CPU, and
// a version-2 file, whose Meta ends at PausedNs: the newer fields come
// back empty.
func TestReadsVersion1(t *testing.T) {
	tr := New(U(5), Sec("s", Run(3, Task("t", L(1, 2)))))
	tr.Meta = Meta{Program: "./p", CPU: "x", Tool: "dropped", PausedNs: 7}
	var buf bytes.Buffer
	if err := Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	payload := data[headerSize:]
	// Cut the two version-2 fields ("dropped" and 7) out of the
	// payload: they follow CPU.
	cpu := bytes.Index(payload, []byte("\x01x"))
	if cpu < 0 {
		t.Fatal("no CPU field found")
	}
	after := cpu + 2
	tool := 1 + len("dropped") // uvarint length, then the bytes
	paused := 1                // varint 7
	sites := 1                 // uvarint 0: no sites
	probe := 1                 // byte 0: no memory probe
	rest := after + tool + paused + sites + probe
	file := func(version uint16, p []byte) []byte {
		h := make([]byte, headerSize)
		copy(h, magic[:])
		binary.LittleEndian.PutUint16(h[8:], version)
		binary.LittleEndian.PutUint64(h[12:], uint64(len(p)))
		binary.LittleEndian.PutUint32(h[20:], crc32IEEE(p))
		return append(h, p...)
	}
	v1 := append(append([]byte{}, payload[:after]...), payload[rest:]...)
	v2 := append(append([]byte{}, payload[:after+tool+paused]...), payload[rest:]...)
	v3 := append(append([]byte{}, payload[:after+tool+paused+sites]...), payload[rest:]...)
	got, err := Read(bytes.NewReader(file(1, v1)))
	if err != nil {
		t.Fatalf("reading version 1: %v", err)
	}
	if got.Meta.Program != "./p" || got.Meta.CPU != "x" || got.Meta.Tool != "" || got.Meta.PausedNs != 0 || Work(got.Root) != Work(tr.Root) {
		t.Errorf("version 1 read back as %+v, work %d", got.Meta, Work(got.Root))
	}
	// And version 2 keeps them.
	got, err = Read(bytes.NewReader(file(2, v2)))
	if err != nil || got.Meta.Tool != "dropped" || got.Meta.PausedNs != 7 {
		t.Errorf("version 2: %+v, %v", got.Meta, err)
	}
	// Version 3 has no memory probe.
	got, err = Read(bytes.NewReader(file(3, v3)))
	if err != nil || got.Meta.Tool != "dropped" || got.Meta.Probe != nil || Work(got.Root) != Work(tr.Root) {
		t.Errorf("version 3: %+v, %v", got.Meta, err)
	}
}

// TestProbeRoundTrip writes a profile with a memory probe and reads it
// back whole; a probe no measurement can give is refused on write.
func TestProbeRoundTrip(t *testing.T) {
	tr := New(Sec("s", Run(3, Task("t", U(5)))))
	tr.Meta.Probe = &MemoryProbe{Cores: 2, Note: "n",
		Curve: []ProbeStreams{{1, 9000}, {2, 6100.5}},
		Sections: map[string]ProbeSection{
			"s": {Points: []ProbePoint{{Bandits: 1, Load: 1, Runs: 4, Slowdown: 1.38, Share: 0.93}}},
			"t": {Points: []ProbePoint{{Bandits: 1, Spin: 8, Load: 0.3, Runs: 1, Slowdown: 1.01}, {Bandits: 3, Load: 3, Runs: 1, Slowdown: 1.2, Share: 0.1}}},
		}}
	var buf bytes.Buffer
	if err := Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Meta.Probe, tr.Meta.Probe) {
		t.Errorf("read back %+v, want %+v", got.Meta.Probe, tr.Meta.Probe)
	}
	for _, bad := range []*MemoryProbe{
		{Curve: []ProbeStreams{{0, 100}}},
		{Curve: []ProbeStreams{{2, 100}, {1, 100}}},
		{Sections: map[string]ProbeSection{"s": {Points: []ProbePoint{{Bandits: 1, Load: 1, Runs: 1, Slowdown: math.NaN()}}}}},
		{Sections: map[string]ProbeSection{"s": {Points: []ProbePoint{{Bandits: 1, Load: 1, Runs: 1, Slowdown: 1, Share: -1}}}}},
	} {
		tr.Meta.Probe = bad
		if err := Write(&buf, tr); !errors.Is(err, ErrInvalid) {
			t.Errorf("Write with probe %+v: %v, want ErrInvalid", bad, err)
		}
	}
}

// TestReadProbeCorrupt cuts a probed profile's payload at every byte and
// flips every byte, with a checksum that matches: each gives an error or
// a tree that validates, never a panic.
func TestReadProbeCorrupt(t *testing.T) {
	tr := New(Sec("s", Run(3, Task("t", U(5)))))
	tr.Meta.Probe = &MemoryProbe{Cores: 2, Note: "n", Curve: []ProbeStreams{{1, 9000}, {2, 6000}},
		Sections: map[string]ProbeSection{"s": {Points: []ProbePoint{
			{Bandits: 1, Spin: 8, Load: 0.25, Runs: 2, Slowdown: 1.1},
			{Bandits: 1, Load: 1, Runs: 2, Slowdown: 1.3, Share: 0.8}}}}}
	payload := encodeTree(t, tr)[headerSize:]
	for i := 0; i < len(payload); i++ {
		if _, err := Read(bytes.NewReader(payloadFile(payload[:i]))); err == nil {
			t.Errorf("payload cut at %d of %d bytes: no error", i, len(payload))
		}
	}
	for i := range payload {
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			bad := bytes.Clone(payload)
			bad[i] ^= mask
			if got, err := Read(bytes.NewReader(payloadFile(bad))); err == nil {
				if err := Validate(got); err != nil {
					t.Errorf("byte %d flipped with %#x: an invalid tree: %v", i, mask, err)
				}
			}
		}
	}
}

// TestIndexedFlagVersion checks that the flag of an indexed critical
// section reads back from version 5 and is refused in an older version,
// which has no such flag.
func TestIndexedFlagVersion(t *testing.T) {
	tr := New(Sec("s", Run(3, Task("t", U(40), IndexedL(1, 5)))))
	data := encodeTreeF(tr)
	got, err := Read(bytes.NewReader(data))
	if err != nil || !got.Root.Children[0].Children[0].Children[1].Indexed {
		t.Fatalf("read back %v, %v: want the L indexed", got, err)
	}
	old := append([]byte{}, data...)
	binary.LittleEndian.PutUint16(old[8:], 4)
	if _, err := Read(bytes.NewReader(old)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "unknown flags 0x8") {
		t.Errorf("version 4 with the flag: %v, want unknown flags 0x8", err)
	}
}
