// Command exits records a one-task profile and then ends as its argument
// says, for prophet run's tests: "status N" writes the profile and exits
// with status N, "nostop N" exits with N without writing one, "kill"
// writes it and kills itself with SIGKILL, "sleep" records and sleeps
// until a signal ends it.
package main

import (
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/parallel-prophet/prophet/annotate"
)

func main() {
	annotate.Loop("one", 1, func(int) { time.Sleep(time.Millisecond) })
	mode, arg := os.Args[1], ""
	if len(os.Args) > 2 {
		arg = os.Args[2]
	}
	n, _ := strconv.Atoi(arg)
	switch mode {
	case "status":
		annotate.Stop()
		os.Exit(n)
	case "nostop":
		os.Exit(n)
	case "kill":
		annotate.Stop()
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Second)
	case "sleep":
		time.Sleep(30 * time.Second)
		annotate.Stop()
	}
}
