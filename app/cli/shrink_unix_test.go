//go:build linux

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"vastview/base/testtool"
)

// TestPyramidOfAFileCutWhileRead runs `vastview pyramid` in a child
// process on a 256 MiB uncompressed TIFF (tifffile) and a NIfTI volume
// (nibabel), and cuts the file to half its size once the child has mapped
// it: the child ends with one line naming the file, not with a crash
// (a fault on the mapping used to be a fatal SIGBUS).
func TestPyramidOfAFileCutWhileRead(t *testing.T) {
	testtool.Long(t, "pyramids of 256 MiB files in a child process")
	testtool.RequirePython(t, "tifffile", "numpy", "nibabel")
	dir := t.TempDir()
	for _, c := range []struct{ name, script string }{
		{"stack.tif", `
import sys, numpy as np, tifffile
a = np.arange(8 * 4096 * 4096, dtype=np.uint32).astype(np.uint16).reshape(8, 4096, 4096)
tifffile.imwrite(sys.argv[1], a)
`},
		{"vol.nii", `
import sys, numpy as np, nibabel
a = np.arange(4096 * 4096 * 8, dtype=np.uint32).astype(np.uint16).reshape(4096, 4096, 8)
nibabel.save(nibabel.Nifti1Image(a, np.eye(4)), sys.argv[1])
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := filepath.Join(dir, c.name)
			testtool.RunPython(t, c.script, src)
			st, err := os.Stat(src)
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd := testtool.CLICommand(t, "pyramid", src, filepath.Join(dir, c.name+".ome.zarr"))
			cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+filepath.Join(dir, "cache-"+c.name), "LANG=en_US.UTF-8")
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			maps := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/maps"
			mapped := false
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
				b, err := os.ReadFile(maps)
				if err != nil { // the child has ended
					break
				}
				if bytes.Contains(b, []byte(src)) {
					mapped = true
					break
				}
				time.Sleep(time.Millisecond) // polling, not ordering
			}
			if !mapped {
				cmd.Wait()
				t.Fatalf("the child never mapped %s: %s", src, stderr.String())
			}
			if err := os.Truncate(src, st.Size()/2); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			msg := strings.TrimSpace(stderr.String())
			if strings.Contains(msg, "fatal error") || strings.Contains(msg, "SIGBUS") || strings.Contains(msg, "goroutine ") {
				t.Fatalf("the child crashed:\n%.2000s", msg)
			}
			if err == nil {
				// It read everything before the cut took effect: nothing
				// to report, but nothing may be wrong either.
				t.Logf("the export finished before the cut: %q", msg)
				return
			}
			t.Logf("%s", msg)
			if code := cmd.ProcessState.ExitCode(); code != 1 || strings.Count(msg, "\n") > 0 || !strings.HasPrefix(msg, "vastview: "+src+": ") {
				t.Errorf("exit %d with %q; want exit 1 and one line naming %s first", code, msg, c.name)
			}
		})
	}
}
