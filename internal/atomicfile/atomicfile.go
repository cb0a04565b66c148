// Package atomicfile writes files so that a reader never sees half of one:
// the content goes to a temporary file in the same directory, which is
// synced and renamed over the destination only when complete. On any
// failure the temporary file is removed and the destination is untouched.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes path with what write produces, atomically. Errors name
// path.
func Write(path string, write func(w io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("writing %s: %w", path, err)
		}
	}()
	// CreateTemp makes the file private (0600); the result is an
	// ordinary file that others may read, like one os.Create makes.
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		return err
	}
	if err := errors.Join(bw.Flush(), f.Sync(), f.Close()); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
