//go:build !unix

package atomicfile

import "errors"

func syscallMkfifo(string) error { return errors.New("no FIFOs on this system") }
