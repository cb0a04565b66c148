package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeCommands returns the prophet command lines of the README's code
// blocks: lines that start with "prophet " or "go run ./cmd/prophet ",
// as argument lists without the command name, and the line numbers.
func readmeCommands(t *testing.T) (cmds [][]string, lines []int) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inCode := false
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			continue
		}
		if !inCode {
			continue
		}
		for _, prefix := range []string{"prophet ", "go run ./cmd/prophet "} {
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				words, err := shellWords(rest)
				if err != nil {
					t.Errorf("README.md:%d: %v", n, err)
					break
				}
				cmds = append(cmds, words)
				lines = append(lines, n)
				break
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds, lines
}

// shellWords splits a command line as a POSIX shell would for the
// simple lines of a README: words separated by blanks, single and double
// quotes, and a comment from an unquoted # that starts a word.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '#' && !inWord:
			return words, nil
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, &usageError{msg: "unterminated quote in " + s}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

func TestShellWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"predict lu.ppt", []string{"predict", "lu.ppt"}},
		{"predict lu.ppt   # a comment", []string{"predict", "lu.ppt"}},
		{`whatif lu.ppt --region "lu row" --faster 2`, []string{"whatif", "lu.ppt", "--region", "lu row", "--faster", "2"}},
		{"run -o x#y.ppt -- ./p 'a b'", []string{"run", "-o", "x#y.ppt", "--", "./p", "a b"}},
	}
	for _, tc := range tests {
		got, err := shellWords(tc.in)
		if err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("shellWords(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := shellWords(`predict "lu.ppt`); err == nil {
		t.Error("an unterminated quote passed")
	}
}

// TestREADMECommandsParse keeps the README in step with the command
// line: every prophet command it shows parses, flags and values, and
// passes the command's checks (nothing is run: env.checkOnly).
func TestREADMECommandsParse(t *testing.T) {
	cmds, lines := readmeCommands(t)
	if len(cmds) < 10 {
		t.Fatalf("found %d prophet commands in README.md; the reader lost them", len(cmds))
	}
	for i, args := range cmds {
		code, _, stderr := prophetWith(&env{checkOnly: true}, args...)
		if code != 0 {
			t.Errorf("README.md:%d: prophet %s: status %d: %s", lines[i], strings.Join(args, " "), code, stderr)
		}
	}
}

// TestCheckOnlyStopsBeforeWork runs every command with valid arguments
// in check-only mode: each must stop at its checks, reading no file
// (the profiles named do not exist) and measuring nothing.
func TestCheckOnlyStopsBeforeWork(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.ppt")
	calls := 0
	e := &env{checkOnly: true, measure: countingMeasure(&calls, 1)}
	for _, args := range [][]string{
		{"run", "-o", missing, "--", "false"},
		{"tree", missing},
		{"predict", missing},
		{"analyze", missing},
		{"whatif", missing, "--region", "r", "--faster", "2"},
		{"report", missing, "-o", missing + ".html"},
		{"calibrate", "-o", missing + ".json"},
		{"validate", "--samples", "1"},
		{"demo"},
		{"race", "--", "false"},
		{"measure", "--", "false"},
		{"vet", "./nosuchpackage"},
	} {
		code, _, stderr := prophetWith(e, args...)
		if code != 0 || stderr != "" {
			t.Errorf("%s: status %d, stderr %q; want 0 and nothing done", args[0], code, stderr)
		}
	}
	if calls != 0 {
		t.Errorf("the machine was measured %d times in check-only mode", calls)
	}
	if len(commands()) != 12 {
		t.Errorf("%d commands: add the new one to this test", len(commands()))
	}
	for _, bad := range [][]string{{"predict", missing, "--threads", "x"}, {"demo", "--scale", "0"}, {"demo", "--example", "nosuch"}} {
		if code, _, _ := prophetWith(e, bad...); code != 2 {
			t.Errorf("%v in check-only mode: status %d, want 2", bad, code)
		}
	}
}
