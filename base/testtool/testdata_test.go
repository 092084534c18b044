package testtool

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// entry is one line of .ci/testdata.txt.
type entry struct{ sum, name, repo, commit, path string }

// manifest reads .ci/testdata.txt.
func manifest(t *testing.T) (root string, list []entry) {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, ".ci", "testdata.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		w := strings.Fields(line)
		if len(w) != 5 || len(w[0]) != 64 || len(w[3]) != 40 {
			t.Fatalf(".ci/testdata.txt: %q is not sha256 NAME REPOSITORY COMMIT PATH", line)
		}
		list = append(list, entry{w[0], w[1], w[2], w[3], w[4]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return root, list
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestManifestMatchesTheSharedData checks .ci/testdata.txt against the
// shared test data: every file it lists has its checksum, and every file
// of the shared data that a test names (its path, its folder's, or its
// base name, as a string in a _test.go file of the module) is listed, so
// that .ci/testdata fetches all the tests read.
func TestManifestMatchesTheSharedData(t *testing.T) {
	root, list := manifest(t)
	listed := map[string]bool{}
	for _, e := range list {
		p := SharedData(t, e.name)
		if got := fileSum(t, p); got != e.sum {
			t.Errorf("%s: sha256 %s, .ci/testdata.txt says %s", p, got, e.sum)
		}
		listed[e.name] = true
	}
	// The strings of every test file of the module.
	named := map[string]bool{}
	str := regexp.MustCompile(`"([^"\\\n]+)"`)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range str.FindAllStringSubmatch(string(b), -1) {
			named[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(SharedData(t, list[0].name))
	for range strings.Count(list[0].name, "/") {
		dir = filepath.Dir(dir)
	}
	used := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		name := filepath.ToSlash(rel)
		folder := filepath.ToSlash(filepath.Dir(rel)) // such as dicom/CT5N_series, not a format's own folder
		if !strings.Contains(name, "/") ||            // its README
			!named[name] && !named[filepath.Base(name)] && !(strings.Contains(folder, "/") && named[folder]) {
			return nil
		}
		used++
		if !listed[name] {
			t.Errorf("%s is read by a test but not listed in .ci/testdata.txt", name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if used < len(list) {
		t.Errorf("the tests name %d files of %s; .ci/testdata.txt lists %d", used, dir, len(list))
	}
}

// script runs .ci/testdata with args and env added, returning its exit
// status and its standard error.
func script(t *testing.T, root string, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(Require(t, "bash"), append([]string{filepath.Join(root, ".ci", "testdata")}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTestdataScript runs .ci/testdata on copies of the shared test data:
// --verify accepts an intact copy and names a file changed or missing;
// fetching from a mirror laid out as raw.githubusercontent.com is (a
// file:// address) fills the cache, keeps intact files, fetches a damaged
// one again, refuses a download whose checksum differs (leaving nothing
// under its name), and the tests then find the files in the cache.
func TestTestdataScript(t *testing.T) {
	Require(t, "sha256sum")
	Require(t, "curl")
	root, list := manifest(t)
	tmp := t.TempDir()

	copyDir := filepath.Join(tmp, "copy")
	for _, e := range list {
		copyFile(t, SharedData(t, e.name), filepath.Join(copyDir, e.name))
	}
	if code, msg := script(t, root, nil, "--verify", copyDir); code != 0 {
		t.Fatalf("--verify of an intact copy: exit %d: %s", code, msg)
	}
	changed, gone := filepath.Join(copyDir, list[0].name), filepath.Join(copyDir, list[len(list)-1].name)
	b, _ := os.ReadFile(changed)
	b[len(b)/2] ^= 1
	os.WriteFile(changed, b, 0o644)
	os.Remove(gone)
	code, msg := script(t, root, nil, "--verify", copyDir)
	if code != 1 || !strings.Contains(msg, changed+": sha256 differs") || !strings.Contains(msg, gone+": missing") ||
		strings.Count(msg, "\n") != 2 {
		t.Errorf("--verify of a copy with a file changed and one missing: exit %d: %q", code, msg)
	}

	mirror := filepath.Join(tmp, "mirror")
	for _, e := range list {
		copyFile(t, SharedData(t, e.name), filepath.Join(mirror, e.repo, e.commit, filepath.FromSlash(e.path)))
	}
	cacheHome := filepath.Join(tmp, "cache")
	env := []string{"XDG_CACHE_HOME=" + cacheHome, "VASTVIEW_TESTDATA_URL=file://" + mirror}
	cache := filepath.Join(cacheHome, "vastview", "testdata")
	if code, msg := script(t, root, env); code != 0 {
		t.Fatalf("fetch: exit %d: %s", code, msg)
	}
	if code, msg := script(t, root, nil, "--verify", cache); code != 0 {
		t.Fatalf("--verify of the fetched cache: exit %d: %s", code, msg)
	}
	damaged := filepath.Join(cache, list[1].name)
	os.WriteFile(damaged, []byte("damaged"), 0o644)
	if code, msg := script(t, root, env); code != 0 || fileSum(t, damaged) != list[1].sum {
		t.Fatalf("fetch over a damaged file: exit %d: %s", code, msg)
	}
	// A mirror whose file differs from the checksum: refused, named.
	bad := filepath.Join(mirror, list[2].repo, list[2].commit, filepath.FromSlash(list[2].path))
	os.WriteFile(bad, []byte("not the file"), 0o644)
	os.Remove(filepath.Join(cache, list[2].name))
	code, msg = script(t, root, env)
	if code != 1 || !strings.Contains(msg, list[2].path+": sha256 differs") || strings.Count(msg, "\n") != 1 {
		t.Errorf("fetch of a file that differs: exit %d: %q", code, msg)
	}
	if _, err := os.Stat(filepath.Join(cache, list[2].name)); err == nil {
		t.Errorf("%s was kept although its checksum differs", list[2].name)
	}
	if left, _ := filepath.Glob(filepath.Join(cache, ".fetch-*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}

	// The locator looks in the cache for what ../shared/testdata lacks.
	saved := cacheHomeDir
	cacheHomeDir = cacheHome
	defer func() { cacheHomeDir = saved }()
	os.WriteFile(filepath.Join(cache, "only-in-the-cache"), nil, 0o644)
	if p, ok := LookSharedData("only-in-the-cache"); !ok || p != filepath.Join(cache, "only-in-the-cache") {
		t.Errorf("LookSharedData of a file only in the cache: %s %v", p, ok)
	}
}
