package racereport

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// TaskRef names the tasks one call of annotate.Task or annotate.Loop
// started in race mode.
type TaskRef struct {
	// Section is the section's name with the sections around it,
	// outermost first ("outer/inner"); Task is the task's name.
	Section, Task string
}

// Site is a place in the program: a file and a line.
type Site struct {
	File string
	Line int
}

// Log is what annotate's race mode wrote to the file EnvRace named.
type Log struct {
	// Started is set when race mode ran (a "race" line); NoRace when the
	// program was built without -race, so that race mode could not run.
	Started, NoRace bool
	// Sites maps each call of Task or Loop that started tasks to the
	// sections and task names it started them in (several for a
	// recursive function, one per depth), each once.
	Sites map[Site][]TaskRef
	// Tasks counts the tasks race mode ran on goroutines of their own.
	Tasks int
	// Unchecked lists, once each, the sections whose tasks were written
	// with TaskBegin and TaskEnd: they ran inline and were not checked.
	Unchecked []string
}

// ReadLog reads annotate's race-mode log. Lines it does not know are an
// error: the file is annotate's own.
func ReadLog(r io.Reader) (*Log, error) {
	l := &Log{Sites: map[Site][]TaskRef{}}
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		word, rest, _ := strings.Cut(line, " ")
		var err error
		switch word {
		case "race":
			l.Started = true
		case "norace":
			l.NoRace = true
		case "site":
			err = l.site(rest)
		case "tasks":
			var k int
			if k, err = strconv.Atoi(rest); err == nil {
				l.Tasks += k
			}
		case "unchecked":
			var name string
			if name, err = strconv.Unquote(rest); err == nil && !seen[name] {
				seen[name] = true
				l.Unchecked = append(l.Unchecked, name)
			}
		case "":
		default:
			err = fmt.Errorf("unknown record %q", word)
		}
		if err != nil {
			return nil, fmt.Errorf("race-mode log, line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the race-mode log: %w", err)
	}
	return l, nil
}

// site parses `"file" LINE "section" "task"`.
func (l *Log) site(rest string) error {
	file, rest, err := unquotePrefix(rest)
	if err != nil {
		return fmt.Errorf("site record: file: %w", err)
	}
	num, rest, _ := strings.Cut(strings.TrimSpace(rest), " ")
	line, err := strconv.Atoi(num)
	if err != nil {
		return fmt.Errorf("site record: line %q: not a number", num)
	}
	sec, rest, err := unquotePrefix(strings.TrimSpace(rest))
	if err != nil {
		return fmt.Errorf("site record: section: %w", err)
	}
	task, err := strconv.Unquote(strings.TrimSpace(rest))
	if err != nil {
		return fmt.Errorf("site record: task: %w", err)
	}
	s, ref := Site{file, line}, TaskRef{sec, task}
	if !slices.Contains(l.Sites[s], ref) {
		l.Sites[s] = append(l.Sites[s], ref)
	}
	return nil
}

// unquotePrefix unquotes the Go string literal at the start of s and
// returns the rest.
func unquotePrefix(s string) (string, string, error) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", "", err
	}
	v, err := strconv.Unquote(q)
	return v, s[len(q):], err
}
