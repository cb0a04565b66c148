package atomicfile_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/parallel-prophet/prophet/internal/atomicfile"
)

func ExampleWrite() {
	dir, _ := os.MkdirTemp("", "atomicfile")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "out.txt")
	err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := fmt.Fprintln(w, "all or nothing")
		return err
	})
	data, _ := os.ReadFile(path)
	fmt.Print(string(data), err)
	// Output: all or nothing
	// <nil>
}
