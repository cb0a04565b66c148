package calibrate

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/parallel-prophet/prophet/machine"
)

// TestDefaultOtherCores checks that a one-core measurement keeps what
// one core measures and takes every cost that involves a second core
// from the defaults, naming each, and that two cores keep everything.
func TestDefaultOtherCores(t *testing.T) {
	measured := machine.Overheads{}
	for i, f := range overheadFields(&measured) {
		*f = float64(1000 + i) // every field its own value
	}
	d := machine.Default().Overheads
	for _, tc := range []struct {
		procs    int
		defaults bool
	}{{1, true}, {2, false}, {16, false}} {
		ov := measured
		keys := defaultOtherCores(&ov, d, tc.procs)
		if !tc.defaults {
			if keys != nil || ov != measured {
				t.Errorf("GOMAXPROCS %d: keys %v, overheads changed %v", tc.procs, keys, ov != measured)
			}
			continue
		}
		if len(keys) != len(otherCoreCosts) {
			t.Fatalf("GOMAXPROCS 1: %d keys, want %d", len(keys), len(otherCoreCosts))
		}
		// A field that marshals to nothing (omitempty) is 0.
		got, want, dm := jsonFields(t, ov), jsonFields(t, measured), jsonFields(t, d)
		for _, k := range keys {
			want[k] = dm[k]
			if want[k] == 0 {
				delete(want, k)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("GOMAXPROCS 1:\n got  %v\n want %v", got, want)
		}
	}
}

// TestOtherCoreKeys checks that each of otherCoreCosts' keys is the
// JSON key of the field it names, so that the profile's list says
// which values were taken.
func TestOtherCoreKeys(t *testing.T) {
	for _, key := range otherCoreCosts {
		var o machine.Overheads
		f := overheadByKey(&o, key)
		if f == nil {
			t.Errorf("key %q names no field", key)
			continue
		}
		*f = 12345
		m := jsonFields(t, o)
		if m[key] != 12345 {
			t.Errorf("key %q does not name its field (the field marshals as %v)", key, m)
		}
	}
}

func TestDefaultedNote(t *testing.T) {
	if got := DefaultedNote(machine.Default()); got != "" {
		t.Errorf("a profile with every overhead measured: %q, want none", got)
	}
	p := machine.Default()
	p.Defaulted = []string{"lock_handoff_ns", "wake_p50_ns"}
	got := DefaultedNote(p)
	for _, want := range []string{"one core", "2 overheads", "lock_handoff_ns, wake_p50_ns", "built-in"} {
		if !strings.Contains(got, want) {
			t.Errorf("note %q lacks %q", got, want)
		}
	}
}

// jsonFields returns o's overheads by JSON key, the zero ones included.
func jsonFields(t *testing.T, o machine.Overheads) map[string]float64 {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]float64{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
