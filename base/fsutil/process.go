package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
)

// ProcessTag names the running process in a way that survives the reuse
// of its PID: "<pid>-<start>", where start is the process's start time
// where the system tells it (Linux: /proc/<pid>/stat) and 0 elsewhere.
// Alive tells whether the process a tag names still runs.
func ProcessTag() string { return selfTag() }

var selfTag = sync.OnceValue(func() string {
	pid := os.Getpid()
	start, err := startTime(pid)
	if err != nil {
		start = "0"
	}
	return strconv.Itoa(pid) + "-" + start
})

// Alive reports whether the process that tag (a ProcessTag) names still
// runs: a process with its PID exists and, where the tag holds a start
// time, started then. A tag it cannot parse, or a process whose state it
// cannot learn, counts as running, so that callers never remove what a
// running process owns.
func Alive(tag string) bool {
	p, start, ok := strings.Cut(tag, "-")
	pid, err := strconv.Atoi(p)
	if !ok || err != nil || pid <= 0 || !isDigits(start) {
		return true
	}
	if start != "0" {
		now, err := startTime(pid)
		switch {
		case err == nil:
			return now == start
		case errors.Is(err, fs.ErrNotExist):
			return false
		}
	}
	return running(pid)
}

// OwnerOf returns the ProcessTag that name holds after prefix, as in
// "<prefix><pid>-<start>-<anything>", and whether there is one.
func OwnerOf(name, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return "", false
	}
	f := strings.SplitN(rest, "-", 3)
	if len(f) < 3 || !isDigits(f[0]) || !isDigits(f[1]) {
		return "", false
	}
	return f[0] + "-" + f[1], true
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
