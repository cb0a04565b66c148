package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "one"); return err }); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", st.Mode(), err)
	}
	// A failing write leaves the old content and no temporary file.
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error { io.WriteString(w, "half"); return boom })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v, want boom naming the path", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "one" {
		t.Errorf("content %q after a failed write, want the old one", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files left in the directory, want 1", len(entries))
	}
	if err := Write(filepath.Join(dir, "no", "dir", "f"), func(io.Writer) error { return nil }); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

func TestRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscallMkfifo(fifo); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	nothing := func(io.Writer) error { return nil }
	tests := []struct {
		name, path, want string
	}{
		{"a device", os.DevNull, "character device"},
		{"a FIFO", fifo, "named pipe"},
		{"a directory", sub, "directory"},
		{"a missing directory", filepath.Join(dir, "no", "f"), "no such file"},
	}
	for _, tc := range tests {
		for _, op := range []struct {
			name string
			run  func() error
		}{
			{"Check", func() error { _, err := Check(tc.path); return err }},
			{"Write", func() error { return Write(tc.path, nothing) }},
		} {
			err := op.run()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
				t.Errorf("%s of %s: %v; want an error naming the path and %q", op.name, tc.name, err, tc.want)
			}
		}
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("%s is no longer a device: %v", os.DevNull, err)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", err)
	}
}

func TestFollowsLinksAndSparesInputs(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.txt")
	os.WriteFile(real, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("real.txt", link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := Write(link, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file")
	}
	if data, _ := os.ReadFile(real); string(data) != "new" {
		t.Errorf("the link's target holds %q, want the new content", data)
	}
	// The input, by its own name or through the link: refused.
	for _, out := range []string{real, link} {
		if _, err := Check(out, "/nonexistent/input", real); err == nil || !strings.Contains(err.Error(), "reads") {
			t.Errorf("Check(%s) with it as input: %v; want a refusal", out, err)
		}
	}
	if got, err := Check(link); err != nil || got != real {
		t.Errorf("Check(link) = %q, %v; want the target %q", got, err, real)
	}
	if _, err := Check(filepath.Join(dir, "new.txt"), real); err != nil {
		t.Errorf("Check of a new file: %v", err)
	}
}
