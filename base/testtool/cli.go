package testtool

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// CLIEnv, set to a command line (its arguments one per line), makes the
// test binary of package vastview/app/cli run it as vastview does and exit
// with its status, instead of running its tests.
const CLIEnv = "VASTVIEW_CLI_ARGS"

// CLICommand returns the command that runs `vastview args...` in a child
// process: the command line's core without the window (package
// vastview/app/cli's test binary run with CLIEnv), built without the race
// detector, whose shadow memory and pace would be measured too, and
// without cgo. Tests that measure the process (its peak memory, a fault
// on a mapped file) run it; the others call cli.Run.
func CLICommand(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	goTool := Require(t, "go")
	bin := filepath.Join(t.TempDir(), "vastview-cli")
	build := exec.Command(goTool, "test", "-c", "-o", bin, "vastview/app/cli")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c vastview/app/cli: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), CLIEnv+"="+strings.Join(args, "\n"))
	return cmd
}

// PeakRSS runs cmd to its end and returns its combined output and its
// peak resident memory in bytes. The command runs under GNU time, which
// forks it: a process Go starts shares the parent's memory until it
// execs, and Linux counts the parent's peak as the child's, so the
// child's own rusage would report the test binary's memory.
func PeakRSS(t testing.TB, cmd *exec.Cmd) (out []byte, peak int64, err error) {
	t.Helper()
	gnuTime := Require(t, "time")
	report := filepath.Join(t.TempDir(), "peak")
	cmd.Args = append([]string{gnuTime, "-q", "-o", report, "-f", "%M"}, cmd.Args...)
	cmd.Path = gnuTime
	out, err = cmd.CombinedOutput()
	if b, rerr := os.ReadFile(report); rerr == nil {
		if kib, perr := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); perr == nil {
			return out, kib << 10, err
		}
	}
	if err == nil {
		t.Fatalf("no peak memory from %s", gnuTime)
	}
	return out, 0, err
}
