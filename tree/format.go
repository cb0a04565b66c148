package tree

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"math"
	"os"
	"slices"

	"github.com/parallel-prophet/prophet/internal/atomicfile"
)

// The profile file (.ppt) is a 24-byte header followed by a payload:
//
//	magic    8 bytes  "\x89PPT\r\n\x1a\n"
//	version  uint16   little endian, FormatVersion
//	flags    uint16   0 (reserved)
//	length   uint64   payload bytes
//	crc      uint32   CRC-32 (IEEE) of the payload
//
// The payload is the Meta, a string table (names), and a node table: each
// distinct node once, children by index into the table, each child listed
// before its parents, the root last. Integers are (u)varints, floats are
// float64 bits. Sharing survives the round trip: a node referenced by
// several parents is read back as one *Node.
const (
	// FormatVersion is the version of the file format that Write writes
	// and the newest Read reads. Version 2 added Meta.Tool and
	// Meta.PausedNs after Meta.CPU, version 3 Meta.Sites after them (a
	// count, then region and site strings, sorted by region) and the
	// flag of per-worker setup on U nodes (4), version 4 Meta.Probe
	// after Meta.Sites (a presence byte, then the probe), version 5 the
	// flag of an indexed critical section on L nodes (8). Read reads
	// every version from 1.
	FormatVersion = 5
	headerSize    = 24
	// maxFileDepth bounds the nesting a file may hold, so that no hostile
	// file can exhaust the stack of the recursive walkers.
	maxFileDepth = 10000
)

var magic = [8]byte{0x89, 'P', 'P', 'T', '\r', '\n', 0x1a, '\n'}

// Errors Read returns wrap one of these (test with errors.Is).
var (
	// ErrNotProfile: the input is not a prophet profile at all.
	ErrNotProfile = errors.New("not a prophet profile")
	// ErrTruncated: the input ends before the header's length says.
	ErrTruncated = errors.New("truncated")
	// ErrChecksum: the payload does not match its checksum.
	ErrChecksum = errors.New("checksum mismatch, the file is corrupted")
	// ErrVersion: the format version is one this prophet cannot read.
	ErrVersion = errors.New("unsupported format version")
	// ErrCorrupt: the payload is well-formed bytes but not a valid tree.
	ErrCorrupt = errors.New("corrupt profile")
)

// formatError is an error with its own message that still matches its
// sentinel with errors.Is.
type formatError struct {
	kind error
	msg  string
}

// Error implements error.
func (e *formatError) Error() string { return e.msg }

// Unwrap returns the kind of error (for errors.Is).
func (e *formatError) Unwrap() error { return e.kind }

func ferr(kind error, format string, args ...any) error {
	return &formatError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// Write writes t in the profile format. It fails if t is not valid.
func Write(w io.Writer, t *Tree) error {
	if err := Validate(t); err != nil {
		return fmt.Errorf("writing profile: %w", err)
	}
	payload := encode(t)
	var h [headerSize]byte
	copy(h[:8], magic[:])
	binary.LittleEndian.PutUint16(h[8:], FormatVersion)
	binary.LittleEndian.PutUint16(h[10:], 0)
	binary.LittleEndian.PutUint64(h[12:], uint64(len(payload)))
	binary.LittleEndian.PutUint32(h[20:], crc32.ChecksumIEEE(payload))
	if _, err := w.Write(h[:]); err != nil {
		return fmt.Errorf("writing profile: %w", err)
	}
	if _, err := w.Write(payload); err != nil {
		return fmt.Errorf("writing profile: %w", err)
	}
	return nil
}

// WriteFile writes t to path atomically: to a temporary file in the same
// directory, renamed over path once complete, so a failure never leaves a
// half-written profile behind.
func WriteFile(path string, t *Tree) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		if err := Write(w, t); err != nil {
			return errors.Unwrap(err) // drop Write's own prefix
		}
		return nil
	})
}

// Read reads one profile from r, checks it (magic, version, length,
// checksum, structure) and returns its tree. It reads exactly the header
// and the payload. Errors are one sentence and wrap ErrNotProfile,
// ErrTruncated, ErrChecksum, ErrVersion or ErrCorrupt; Read never panics
// and allocates no more than the input's size justifies.
func Read(r io.Reader) (*Tree, error) {
	var h [headerSize]byte
	n, err := io.ReadFull(r, h[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	m := min(n, len(magic))
	if !bytes.Equal(h[:m], magic[:m]) {
		return nil, ferr(ErrNotProfile, "not a prophet profile (bad magic)")
	}
	if n < headerSize {
		return nil, ferr(ErrTruncated, "truncated (want at least %d bytes, have %d)", headerSize, n)
	}
	version := binary.LittleEndian.Uint16(h[8:])
	if version < 1 || version > FormatVersion {
		if version > FormatVersion {
			return nil, ferr(ErrVersion, "format version %d is newer than this prophet reads (%d)", version, FormatVersion)
		}
		return nil, ferr(ErrVersion, "format version %d is not one this prophet reads (1 to %d)", version, FormatVersion)
	}
	if f := binary.LittleEndian.Uint16(h[10:]); f != 0 {
		return nil, ferr(ErrVersion, "unknown format flags %#x (this prophet reads version %d without flags)", f, FormatVersion)
	}
	size := binary.LittleEndian.Uint64(h[12:])
	sum := binary.LittleEndian.Uint32(h[20:])
	limit := int64(math.MaxInt64 - headerSize)
	if size < uint64(limit) {
		limit = int64(size)
	}
	// ReadAll grows its buffer with the input, so a hostile length
	// allocates nothing until the bytes really come.
	payload, err := io.ReadAll(io.LimitReader(r, limit))
	if err != nil {
		return nil, err
	}
	if uint64(len(payload)) < size {
		return nil, ferr(ErrTruncated, "truncated (want %d bytes, have %d)",
			uint64(headerSize)+size, headerSize+len(payload))
	}
	if crc32.ChecksumIEEE(payload) != sum {
		return nil, ErrChecksum
	}
	return decode(payload, version)
}

// ReadFile reads the profile in the file path; see Read. Bytes after the
// profile are an error too.
func ReadFile(path string) (*Tree, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	t, err := Read(br)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		return nil, fmt.Errorf("reading %s: %w", path, ferr(ErrCorrupt, "unexpected data after the profile"))
	}
	return t, nil
}

const (
	flagNowait   = 1
	flagCounters = 2
	flagSetup    = 4
	flagIndexed  = 8
)

// encode returns the payload of t (a valid tree).
func encode(t *Tree) []byte {
	var p []byte
	str := func(s string) {
		p = binary.AppendUvarint(p, uint64(len(s)))
		p = append(p, s...)
	}
	f64 := func(f float64) { p = binary.LittleEndian.AppendUint64(p, math.Float64bits(f)) }
	m := t.Meta
	str(m.Program)
	str(m.Recorded)
	str(m.Clock)
	f64(m.EventCostNs)
	p = binary.AppendVarint(p, m.MeasuredNs)
	f64(m.Tolerance)
	str(m.CountersNote)
	str(m.CPU)
	str(m.Tool)
	p = binary.AppendVarint(p, m.PausedNs)
	regions := slices.Sorted(maps.Keys(m.Sites))
	p = binary.AppendUvarint(p, uint64(len(regions)))
	for _, r := range regions {
		str(r)
		str(m.Sites[r])
	}
	p = encodeProbe(p, m.Probe)

	// Number the distinct nodes, children first, and the names.
	index := make(map[*Node]int)
	var order []*Node
	names := map[string]int{"": 0}
	nameList := []string{""}
	var visit func(n *Node)
	visit = func(n *Node) {
		if _, ok := index[n]; ok {
			return
		}
		for _, c := range n.Children {
			visit(c)
		}
		index[n] = len(order)
		order = append(order, n)
		if _, ok := names[n.Name]; !ok {
			names[n.Name] = len(nameList)
			nameList = append(nameList, n.Name)
		}
	}
	visit(t.Root)

	p = binary.AppendUvarint(p, uint64(len(nameList)))
	for _, s := range nameList {
		str(s)
	}
	p = binary.AppendUvarint(p, uint64(len(order)))
	for _, n := range order {
		var fl byte
		if n.Nowait {
			fl |= flagNowait
		}
		if n.Counters != nil {
			fl |= flagCounters
		}
		if n.Setup {
			fl |= flagSetup
		}
		if n.Indexed {
			fl |= flagIndexed
		}
		p = append(p, byte(n.Kind), fl)
		p = binary.AppendUvarint(p, uint64(names[n.Name]))
		p = binary.AppendVarint(p, int64(n.Lock))
		p = binary.AppendVarint(p, n.Len)
		p = binary.AppendUvarint(p, uint64(n.Reps()))
		p = binary.AppendUvarint(p, uint64(len(n.Children)))
		for _, c := range n.Children {
			p = binary.AppendUvarint(p, uint64(index[c]))
		}
		if c := n.Counters; c != nil {
			p = binary.AppendUvarint(p, c.Instructions)
			p = binary.AppendUvarint(p, c.Cycles)
			p = binary.AppendUvarint(p, c.LLCMisses)
			p = binary.AppendVarint(p, c.TimeNs)
			p = binary.AppendVarint(p, c.Runs)
		}
	}
	return p
}

// decoder reads a payload; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = ferr(ErrCorrupt, "corrupt profile: "+format, args...)
	}
}

func (d *decoder) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("bad %s", what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint(what string) int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("bad %s", what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte(what string) byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 1 {
		d.fail("payload ends inside %s", what)
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) f64(what string) float64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 8 {
		d.fail("payload ends inside %s", what)
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

func (d *decoder) str(what string) string {
	n := d.uvarint(what)
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.fail("%s longer than the payload", what)
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// count reads a count of items of at least minBytes bytes each and checks
// it against the bytes left, so no hostile count can allocate much.
func (d *decoder) count(what string, minBytes int) int {
	n := d.uvarint(what)
	if d.err != nil {
		return 0
	}
	if n > uint64(len(d.b)/minBytes) {
		d.fail("%s %d does not fit in the payload", what, n)
		return 0
	}
	return int(n)
}

// minNodeBytes is the smallest encoding of a node: kind, flags, name,
// lock, length, count and number of children.
const minNodeBytes = 7

// meta reads the Meta at the start of a payload of format version.
func (d *decoder) meta(version uint16) Meta {
	var m Meta
	m.Program = d.str("program")
	m.Recorded = d.str("recording time")
	m.Clock = d.str("clock")
	m.EventCostNs = d.f64("event cost")
	m.MeasuredNs = d.varint("measured time")
	m.Tolerance = d.f64("tolerance")
	m.CountersNote = d.str("counters note")
	m.CPU = d.str("cpu")
	if version >= 2 {
		m.Tool = d.str("tool")
		m.PausedNs = d.varint("paused time")
	}
	if version >= 3 {
		if n := d.count("number of sites", 2); n > 0 {
			m.Sites = make(map[string]string, n)
			for range n {
				r := d.str("site region")
				m.Sites[r] = d.str("site")
			}
		}
	}
	if version >= 4 {
		m.Probe = d.probe()
	}
	return m
}

func decode(payload []byte, version uint16) (*Tree, error) {
	d := &decoder{b: payload}
	m := d.meta(version)
	names := make([]string, d.count("number of names", 1))
	for i := range names {
		names[i] = d.str("name")
	}
	nodes := make([]*Node, d.count("number of nodes", minNodeBytes))
	refs := make([]int32, len(nodes))
	depth := make([]int32, len(nodes))
	for i := range nodes {
		if d.err != nil {
			break
		}
		n := &Node{}
		k := d.byte("a node kind")
		fl := d.byte("node flags")
		if k > byte(KindL) {
			d.fail("node %d has unknown kind %d", i, k)
			break
		}
		if fl&^(flagNowait|flagCounters|flagSetup|flagIndexed) != 0 || (fl&flagSetup != 0 && (version < 3 || Kind(k) != KindU)) ||
			(fl&flagIndexed != 0 && (version < 5 || Kind(k) != KindL)) {
			d.fail("node %d has unknown flags %#x", i, fl)
			break
		}
		n.Kind = Kind(k)
		n.Nowait = fl&flagNowait != 0
		n.Setup = fl&flagSetup != 0
		n.Indexed = fl&flagIndexed != 0
		ni := d.uvarint("name index")
		if d.err == nil && ni >= uint64(len(names)) {
			d.fail("node %d names string %d of %d", i, ni, len(names))
		}
		lock := d.varint("lock id")
		if lock < math.MinInt32 || lock > math.MaxInt32 {
			d.fail("node %d has lock id %d out of range", i, lock)
		}
		n.Lock = int(lock)
		n.Len = d.varint("length")
		cnt := d.uvarint("count")
		if d.err == nil && (cnt < 1 || cnt > math.MaxInt64) {
			d.fail("node %d has count %d (must be at least 1)", i, cnt)
		}
		n.Count = int64(cnt)
		nc := d.count("number of children", 1)
		if d.err != nil {
			break
		}
		n.Name = names[ni]
		if nc > 0 {
			n.Children = make([]*Node, nc)
		}
		for j := range n.Children {
			c := d.uvarint("child index")
			if d.err != nil {
				break
			}
			if c >= uint64(i) {
				d.fail("node %d has child %d, which is not an earlier node", i, c)
				break
			}
			n.Children[j] = nodes[c]
			refs[c]++
			depth[i] = max(depth[i], depth[c]+1)
		}
		if depth[i] > maxFileDepth {
			d.fail("nesting deeper than %d", maxFileDepth)
		}
		if fl&flagCounters != 0 {
			n.Counters = &Counters{
				Instructions: d.uvarint("instructions"),
				Cycles:       d.uvarint("cycles"),
				LLCMisses:    d.uvarint("LLC misses"),
				TimeNs:       d.varint("counter time"),
				Runs:         d.varint("counter runs"),
			}
		}
		nodes[i] = n
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d bytes after the node table", len(d.b))
	}
	if d.err == nil && len(nodes) == 0 {
		d.fail("no nodes")
	}
	if d.err != nil {
		return nil, d.err
	}
	root := nodes[len(nodes)-1]
	for i, n := range nodes {
		switch {
		case n.Kind == KindRoot && i != len(nodes)-1:
			return nil, ferr(ErrCorrupt, "corrupt profile: node %d is a Root, but only the last node may be", i)
		case i != len(nodes)-1 && refs[i] == 0:
			return nil, ferr(ErrCorrupt, "corrupt profile: node %d belongs to no parent", i)
		case refs[i] > 1:
			n.id = int64(i) + 1 // shared: Work and Totals memoize it
		}
	}
	t := &Tree{Root: root, Meta: m}
	if err := Validate(t); err != nil {
		return nil, ferr(ErrCorrupt, "corrupt profile: %v", err)
	}
	return t, nil
}
