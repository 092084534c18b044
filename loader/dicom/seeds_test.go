package dicom

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"vastview/base/testtool"
)

// TestWriteSeeds writes FuzzOpen's seed files when VASTVIEW_WRITE_SEEDS
// is set: small files that pydicom, dcmtk's dcmcjpeg write in each
// transfer syntax read.
func TestWriteSeeds(t *testing.T) {
	if os.Getenv("VASTVIEW_WRITE_SEEDS") == "" {
		t.Skip("set VASTVIEW_WRITE_SEEDS=1 to write testdata/fuzz/FuzzOpen")
	}
	out := filepath.Join("testdata", "fuzz", "FuzzOpen")
	os.MkdirAll(out, 0o755)
	n := 0
	add := func(s series, tool string, args ...string) {
		dir, want := generate(t, "", s)
		p := filepath.Join(dir, want[0].Files[0])
		if tool != "" {
			testtool.Run(t, testtool.Require(t, tool), append(args, p, p+".c")...)
			p += ".c"
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		n++
		body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
		if err := os.WriteFile(filepath.Join(out, fmt.Sprintf("seed%02d", n)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	add(series{Rows: 6, Cols: 5, DType: "<u2", Syntax: "implicit"}, "")
	add(series{Rows: 6, Cols: 5, DType: "<i2", Syntax: "bigendian"}, "")
	add(series{Rows: 6, Cols: 5, DType: "<u1", Syntax: "deflated"}, "")
	add(series{Frames: 3, Rows: 6, Cols: 5, DType: "<i2", RLE: true}, "")
	add(series{Rows: 4, Cols: 5, DType: "<u1", SPP: 3, RLE: true}, "")
	add(series{Rows: 8, Cols: 9, DType: "<u2", BitsStored: 12}, "dcmcjpeg", "+el", "+sv", "7")
	add(series{Frames: 2, Rows: 8, Cols: 9, DType: "<u1", SPP: 3}, "dcmcjpeg", "+e1")
	add(series{Rows: 16, Cols: 16, DType: "<u1", SPP: 3}, "dcmcjpeg", "+eb")
	add(series{Frames: 3, Rows: 4, Cols: 4, DType: "<u2"}, "dcmcjpeg", "+e1", "-ot")
}
