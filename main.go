// Command vastview views image volumes and movies too big to load.
//
//	vastview                         the viewer on the built-in demo data
//	vastview SRC                     the viewer on a file, folder or glob
//	vastview info [--json] SRC       metadata
//	vastview plane SRC --out F ...   one plane as .raw samples or a .png
//	vastview pyramid SRC OUT.ome.zarr
//	vastview bench [NAME...]         performance figures, one per line
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"vastview/loader"
	_ "vastview/loader/metaimage"
	_ "vastview/loader/nifti"
	_ "vastview/loader/nrrd"
	_ "vastview/loader/sequence"
	_ "vastview/loader/tiff"
	_ "vastview/loader/video"
	_ "vastview/loader/zarr"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// run executes one command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	var err error
	cmd := ""
	if len(args) > 0 {
		cmd = args[0]
	}
	switch cmd {
	case "info":
		err = cmdInfo(args[1:], stdout)
	case "plane":
		err = cmdPlane(args[1:])
	case "pyramid":
		err = cmdPyramid(args[1:], stderr)
	case "bench":
		err = cmdBench(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = cmdView(args)
	}
	if err == nil {
		return 0
	}
	msg := err.Error()
	if errors.As(err, new(usageError)) {
		msg += " (see vastview help)"
	}
	fmt.Fprintln(stderr, "vastview: "+strings.ReplaceAll(msg, "\n", " "))
	return 1
}

const usage = `vastview views image volumes and movies too big to load.

  vastview [--trace FILE] [SRC]    the viewer (the built-in demo without SRC)
  vastview info [--json] SRC       metadata of a file, folder or glob
  vastview plane SRC --out F [--t N] [--c N] [--z N] [--plane xy|xz|yz]
                 [--index N] [--level L] [--window W,L | --level-range LO,HI]
                 [--colormap NAME]
                                   one plane: F.raw holds the samples
                                   (native type, little-endian, row-major),
                                   F.png the plane as the viewer shows it
  vastview pyramid SRC OUT.ome.zarr [--zarr 2|3] [--method mean|mode] [--budget SIZE]
  vastview bench [NAME...]         performance figures: NAME VALUE UNIT

SRC is a TIFF/BigTIFF/OME-TIFF/ImageJ file, NRRD, MetaImage, NIfTI, or a
folder or glob of PNG, JPEG or TIFF frames.
`

// openSource opens path and wraps any error with the path.
func openSource(path string) (loader.Source, error) {
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return src, nil
}
