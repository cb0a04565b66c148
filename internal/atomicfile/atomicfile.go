// Package atomicfile writes files so that a reader never sees half of one:
// the content goes to a temporary file in the same directory, which is
// synced and renamed over the destination only when complete. On any
// failure the temporary file is removed and the destination is untouched.
//
// It writes regular files only: a destination that is a device, a FIFO,
// a socket or a directory is refused (a rename would replace it), a
// symbolic link is followed to the file it names, and Check refuses a
// destination that is one of a command's inputs, so that a run never
// destroys what it reads.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Check reports, before any work is done, whether Write could write
// path: its directory exists and takes a new file, the path is a regular
// file or nothing (a symbolic link counts as the file it names), and it
// is none of inputs (files the command reads; missing ones are passed
// over). It returns the path Write will write (the link's target for a
// symbolic link).
func Check(path string, inputs ...string) (string, error) {
	target, err := destination(path)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(target); err == nil {
		for _, in := range inputs {
			if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
				return "", fmt.Errorf("writing %s: it is %s, which this command reads: name another output file", path, in)
			}
		}
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".check*")
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	}
	f.Close()
	os.Remove(f.Name())
	return target, nil
}

// destination returns where a write of path goes: path, or the file a
// symbolic link at path names; an error when that is not a regular file
// or nothing.
func destination(path string) (string, error) {
	if path == "" {
		return "", errors.New("writing: no file named")
	}
	target := path
	if lst, err := os.Lstat(path); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			// A dangling link: write the file it names.
			dest, rerr := os.Readlink(path)
			if rerr != nil {
				return "", fmt.Errorf("writing %s: %w", path, unwrapPath(rerr))
			}
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(filepath.Dir(path), dest)
			}
			target = dest
		}
	}
	st, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return target, nil
	case err != nil:
		return "", fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	case st.Mode().IsRegular():
		return target, nil
	}
	return "", fmt.Errorf("writing %s: it is %s, not a regular file, and prophet writes only regular files", path, kind(st.Mode()))
}

// kind names a file mode's type.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// unwrapPath drops a *fs.PathError's operation and path, which the
// callers' messages already name.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Write writes path with what write produces, atomically: a regular file
// or nothing must be at path (a symbolic link is followed; see Check).
// Errors name path.
func Write(path string, write func(w io.Writer) error) (err error) {
	target, err := destination(path)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, unwrapPath(err))
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
	return os.Rename(f.Name(), target)
}
