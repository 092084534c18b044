package loadertest_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"vastview/loader"
	_ "vastview/loader/formats" // every format, registered as the commands have them
)

// conformanceCall is a call of the suite in a test file, and the format
// name it passes.
var conformanceCall = regexp.MustCompile(`loadertest\.Conformance(?:File|Glob)?\(\s*\w+\s*,\s*("[^"]*"|[^,)]*)`)

// TestEveryFormatConforms checks that the tests of the loader packages
// run the conformance suite for every registered format, each naming the
// format as a string literal.
func TestEveryFormatConforms(t *testing.T) {
	run := map[string][]string{}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range conformanceCall.FindAllSubmatch(b, -1) {
			name := string(m[1])
			if !strings.HasPrefix(name, `"`) {
				t.Errorf("%s: the conformance suite is called with format %s: name the format as a string literal", path, name)
				continue
			}
			name = strings.Trim(name, `"`)
			run[name] = append(run[name], path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, f := range loader.Formats() {
		if len(run[f.Name]) == 0 {
			missing = append(missing, f.Name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("registered formats without a conformance run: %s", strings.Join(missing, ", "))
	}
	if len(run["demo"]) == 0 {
		t.Error("the demo source has no conformance run")
	}
}
