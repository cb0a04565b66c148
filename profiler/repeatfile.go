package profiler

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// repeatMagic opens a Repeat written by WriteTo; the byte after it is the
// format's version: 3 keeps each event's two shortest lengths net of
// each recording's own overheads (see Repeat.pool), which can be
// negative; 2 (still read) the two shortest raw, overheads included; 1
// (still read) the shortest raw only.
const (
	repeatMagic   = "PPRP"
	repeatVersion = 3
)

// WriteTo writes r as it stands after its recordings so far (the pooled
// length of every interval, the recordings' count and why the last one
// did not pool, if it did not), so that another process can go on
// pooling with ReadRepeat: a program records once per run, and `prophet
// run --repeat` runs it several times. It implements io.WriterTo.
// A Repeat read from a file of version 2 or less is written as version
// 2: its lengths stay raw.
func (r *Repeat) WriteTo(w io.Writer) (int64, error) {
	if r.raw {
		return r.writeVersion(w, 2)
	}
	return r.writeVersion(w, repeatVersion)
}

// writeVersion is WriteTo in format version (1 leaves out the second
// shortest lengths; tests write versions 1 and 2 to check that they are
// still read). The lengths are written as they are, raw or net.
func (r *Repeat) writeVersion(w io.Writer, version byte) (int64, error) {
	names := map[string]uint64{}
	var table []string
	for i := range r.ev.len() {
		e := r.ev.at(i)
		if _, ok := names[e.name]; !ok {
			names[e.name] = uint64(len(table))
			table = append(table, e.name)
		}
	}
	bw := bufio.NewWriter(w)
	cw := &countWriter{w: bw}
	b := append([]byte(repeatMagic), version)
	b = binary.AppendUvarint(b, uint64(r.runs))
	b = appendString(b, r.off)
	b = binary.AppendUvarint(b, uint64(len(table)))
	for _, s := range table {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(r.ev.len()))
	if _, err := cw.Write(b); err != nil {
		return cw.n, err
	}
	for i := range r.ev.len() {
		e := r.ev.at(i)
		b = append(b[:0], byte(e.op))
		b = binary.AppendUvarint(b, names[e.name])
		b = binary.AppendVarint(b, e.arg)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.ns))
		if version >= 2 {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.ns2))
		}
		if _, err := cw.Write(b); err != nil {
			return cw.n, err
		}
	}
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	return cw.n, nil
}

// ReadRepeat reads a Repeat written by WriteTo. A file that counts more
// events (or names) than a Repeat keeps, MaxRepeatEvents, is refused as
// damaged, so that it cannot make ReadRepeat allocate without limit. A
// file of version 1 (one length an event, the shortest) reads as a pool
// in which, after two recordings or more, that length is both the
// shortest and the second shortest: it stands until two later
// recordings are shorter. A file of version 2 or less holds raw lengths,
// and the Repeat goes on pooling raw (see Repeat.pool).
func ReadRepeat(rd io.Reader) (*Repeat, error) {
	br := bufio.NewReader(rd)
	head := make([]byte, len(repeatMagic)+1)
	if _, err := io.ReadFull(br, head); err != nil {
		return nil, fmt.Errorf("reading pooled recordings: %w", noEOF(err))
	}
	if string(head[:len(repeatMagic)]) != repeatMagic {
		return nil, errors.New("reading pooled recordings: not a file of pooled recordings")
	}
	version := head[len(repeatMagic)]
	if version < 1 || version > repeatVersion {
		return nil, fmt.Errorf("reading pooled recordings: version %d, this prophet reads versions 1 to %d", version, repeatVersion)
	}
	r := Repeat{raw: version <= 2}
	runs, err := binary.ReadUvarint(br)
	if err != nil {
		return nil, fmt.Errorf("reading pooled recordings: %w", noEOF(err))
	}
	if runs > math.MaxInt32 {
		return nil, fmt.Errorf("reading pooled recordings: %d recordings", runs)
	}
	r.runs = int(runs)
	if r.off, err = readString(br); err != nil {
		return nil, err
	}
	nt, err := binary.ReadUvarint(br)
	if err != nil || nt > MaxRepeatEvents {
		return nil, fmt.Errorf("reading pooled recordings: bad name count (%v)", noEOF(err))
	}
	var table []string
	for range nt {
		s, err := readString(br)
		if err != nil {
			return nil, err
		}
		table = append(table, s)
	}
	n, err := binary.ReadUvarint(br)
	if err != nil || n > MaxRepeatEvents {
		return nil, fmt.Errorf("reading pooled recordings: bad event count (%v)", noEOF(err))
	}
	for i := uint64(0); i < n; i++ {
		o, err := br.ReadByte()
		if err != nil {
			return nil, fmt.Errorf("reading pooled recordings: event %d: %w", i+1, noEOF(err))
		}
		k, err := binary.ReadUvarint(br)
		if err != nil || k >= uint64(len(table)) {
			return nil, fmt.Errorf("reading pooled recordings: event %d: bad name (%v)", i+1, noEOF(err))
		}
		arg, err := binary.ReadVarint(br)
		if err != nil {
			return nil, fmt.Errorf("reading pooled recordings: event %d: %w", i+1, noEOF(err))
		}
		var bits [16]byte
		w := 8 * min(int(version), 2)
		if _, err := io.ReadFull(br, bits[:w]); err != nil {
			return nil, fmt.Errorf("reading pooled recordings: event %d: %w", i+1, noEOF(err))
		}
		ns := math.Float64frombits(binary.LittleEndian.Uint64(bits[:8]))
		ns2 := math.Inf(1)
		switch {
		case version >= 2:
			ns2 = math.Float64frombits(binary.LittleEndian.Uint64(bits[8:16]))
		case r.runs >= 2:
			ns2 = ns
		}
		if op(o) < opSecBegin || op(o) > opLockIndexedBegin || math.IsNaN(ns) || (ns < 0 && r.raw) || math.IsInf(ns, 0) || math.IsNaN(ns2) || ns2 < ns {
			return nil, fmt.Errorf("reading pooled recordings: event %d out of range", i+1)
		}
		r.ev.add(repEvent{ns: ns, ns2: ns2, name: table[k], arg: arg, op: op(o)})
	}
	return &r, nil
}

// maxRepeatString bounds a name in a file of pooled recordings.
const maxRepeatString = 1 << 20

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func readString(br *bufio.Reader) (string, error) {
	n, err := binary.ReadUvarint(br)
	if err != nil || n > maxRepeatString {
		return "", fmt.Errorf("reading pooled recordings: bad string (%v)", noEOF(err))
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(br, b); err != nil {
		return "", fmt.Errorf("reading pooled recordings: %w", noEOF(err))
	}
	return string(b), nil
}

// noEOF turns an end of file in the middle of the data into
// io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

// Write writes p through c.w and counts the bytes it took.
func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
