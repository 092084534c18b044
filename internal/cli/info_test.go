package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// nrrdHeader describes 2 planes of 3x4 bytes.
const nrrdHeader = "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 4 3 2\nencoding: raw\n"

// TestInfoNamesDataFiles checks that info says which files a header makes
// vastview read: a "data" line per file in text, "data_files" in JSON,
// and neither for a file that holds its own data.
func TestInfoNamesDataFiles(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	raw := filepath.Join(dir, "elsewhere.raw")
	write(t, raw, strings.Repeat("x", 24))
	hdr := filepath.Join(sub, "h.nhdr")
	write(t, hdr, nrrdHeader+"data file: ../elsewhere.raw\n")
	list := filepath.Join(sub, "list.nhdr")
	var names []string
	for i := 0; i < 12; i++ { // 12 planes of 3x4
		names = append(names, fmt.Sprintf("../s%02d.raw", i))
		write(t, filepath.Join(dir, fmt.Sprintf("s%02d.raw", i)), strings.Repeat("y", 12))
	}
	write(t, list, strings.Replace(nrrdHeader, "4 3 2", "4 3 12", 1)+"data file: LIST\n"+strings.Join(names, "\n")+"\n")
	attached := filepath.Join(dir, "a.nrrd")
	write(t, attached, nrrdHeader+"\n"+strings.Repeat("z", 24))

	text := mustRun(t, "info", hdr)
	if !slices.Contains(strings.Split(text, "\n"), "  data     "+raw) {
		t.Errorf("info %s does not name %s:\n%s", hdr, raw, text)
	}
	if got := dataFilesJSON(t, hdr); !slices.Equal(got, []string{raw}) {
		t.Errorf("info --json %s: data_files %q, want %q", hdr, got, raw)
	}

	text = mustRun(t, "info", list)
	lines := linesWith(text, "  data     ")
	if len(lines) != maxDataLines || lines[0] != "  data     "+filepath.Join(dir, "s00.raw") || !strings.Contains(lines[len(lines)-1], "and 5 more") {
		t.Errorf("info %s lists its 12 data files as\n%s", list, strings.Join(lines, "\n"))
	}
	if got := dataFilesJSON(t, list); len(got) != 12 || got[11] != filepath.Join(dir, "s11.raw") {
		t.Errorf("info --json %s: data_files %q", list, got)
	}

	if text := mustRun(t, "info", attached); len(linesWith(text, "  data ")) != 0 {
		t.Errorf("info of an attached header names data files:\n%s", text)
	}
	if js := mustRun(t, "info", "--json", attached); strings.Contains(js, "data_files") {
		t.Errorf("info --json of an attached header: %s", js)
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// dataFilesJSON returns the data_files of `info --json path`.
func dataFilesJSON(t *testing.T, path string) []string {
	t.Helper()
	var j struct {
		DataFiles []string `json:"data_files"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "info", "--json", path)), &j); err != nil {
		t.Fatal(err)
	}
	return j.DataFiles
}

// linesWith returns the lines of text that start with prefix.
func linesWith(text, prefix string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}
