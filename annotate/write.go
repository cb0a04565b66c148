package annotate

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/parallel-prophet/prophet/tree"
)

// checkWritable fails if a file cannot be created next to path (the
// profile is written to a temporary file in path's directory and renamed).
func checkWritable(path string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".prophet-check-*")
	if err != nil {
		return fmt.Errorf("profile %s not writable: %w", path, err)
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}

// writeTree writes t to path atomically in the profile format.
func writeTree(path string, t *tree.Tree) error {
	return tree.WriteFile(path, t)
}
