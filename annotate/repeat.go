package annotate

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/parallel-prophet/prophet/internal/atomicfile"
	"github.com/parallel-prophet/prophet/profiler"
)

// EnvRepeat is the environment variable that pools a recording started
// by EnvVar with earlier runs of the same program (profiler.Repeat): its
// value is a file holding what the earlier recordings pooled. A missing
// or empty file starts the pool; Stop writes the pool back, this
// recording included, so the next run goes on from it, and the profile
// it writes takes every interval at the length the recordings agree on
// (profiler.Repeat: the shorter of two, the second shortest of more).
// `prophet run --repeat` sets it.
const EnvRepeat = "PROPHET_REPEAT"

// loadRepeat returns the pool that the file at path holds, or a new one
// where the file is missing or empty.
func loadRepeat(path string) (*profiler.Repeat, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &profiler.Repeat{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s=%s: %w", EnvRepeat, path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		return &profiler.Repeat{}, nil
	}
	rp, err := profiler.ReadRepeat(f)
	if err != nil {
		return nil, fmt.Errorf("%s=%s: %w", EnvRepeat, path, err)
	}
	return rp, nil
}

// saveRepeat writes rp to path, atomically.
func saveRepeat(path string, rp *profiler.Repeat) error {
	err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := rp.WriteTo(w)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s=%s: %w", EnvRepeat, path, err)
	}
	return nil
}
