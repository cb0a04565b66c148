package annotate

import (
	"fmt"

	"github.com/parallel-prophet/prophet/internal/atomicfile"
	"github.com/parallel-prophet/prophet/tree"
)

// checkWritable fails if the profile cannot be written at path: a file
// cannot be created next to it (the profile is written to a temporary
// file in path's directory and renamed), or something other than a
// regular file is there (atomicfile.Check).
func checkWritable(path string) error {
	if _, err := atomicfile.Check(path); err != nil {
		return fmt.Errorf("profile not writable: %w", err)
	}
	return nil
}

// writeTree writes t to path atomically in the profile format.
func writeTree(path string, t *tree.Tree) error {
	return tree.WriteFile(path, t)
}
