package syn

import (
	"reflect"
	"testing"
	"unsafe"
)

// TestAcctLayout checks that a worker's acct keeps its written fields
// within one 64-byte line and that adjacent accts in a slice (a team's)
// lie at least two lines apart, wherever the slice begins: two workers
// writing the same line, or a pair of lines the core prefetches
// together, slow each other down as a replayed program's workers do not.
func TestAcctLayout(t *testing.T) {
	typ := reflect.TypeFor[acct]()
	end := uintptr(0)
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Name == "_" {
			continue
		}
		end = max(end, f.Offset+f.Type.Size())
	}
	if end > acctFields || acctFields > 64 {
		t.Errorf("acct's fields end at byte %d; acctFields is %d, and must be at least that and at most 64", end, acctFields)
	}
	if got := unsafe.Sizeof(acct{}); got != acctSize {
		t.Errorf("acct is %d bytes, want acctSize %d", got, acctSize)
	}
	if gap := acctSize - acctFields; gap < 128 {
		t.Errorf("adjacent accts' fields lie %d bytes apart, want 128 or more", gap)
	}
}
