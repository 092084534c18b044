package fsutil

import (
	"errors"
	"os"
	"strconv"
	"strings"
)

// startTime returns the start time of process pid, in clock ticks since
// boot (field 22 of /proc/<pid>/stat); an error satisfying fs.ErrNotExist
// means that there is no such process.
func startTime(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", err
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return "", errors.New("unreadable /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || !isDigits(f[19]) {
		return "", errors.New("unreadable /proc stat")
	}
	return f[19], nil
}
