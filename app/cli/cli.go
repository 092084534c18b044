// Package cli runs vastview's command lines: the viewer (in the window the
// program's main hands it), info, plane, pyramid, serve and bench. Its contract (flags, JSON, exit status, one line of
// error) is the one ../shared/DESIGN.md gives; scripts depend on it.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"vastview/loader"
	_ "vastview/loader/formats" // every format, in the order help lists them
)

// errReported is an error whose line is on stderr already: the status is
// 1, and nothing more is printed.
var errReported = errors.New("reported")

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// Run executes one command line (without the program's name) as
// RunWithWindow does, in a program without a window: the viewer's command
// line is checked and its files opened, then refused in one line.
func Run(args []string, stdout, stderr io.Writer) int {
	return RunWithWindow(nil, args, stdout, stderr)
}

// RunWithWindow executes one command line (without the program's name)
// and returns the exit status: 0 on success, 1 with one line on stderr
// naming the file and the problem. A command line naming no other command
// runs the viewer in win. Credentials and signatures in addresses never
// reach stdout or stderr (loader.Redact).
func RunWithWindow(win Window, args []string, stdout, stderr io.Writer) int {
	stdout, stderr = loader.RedactingWriter(stdout), loader.RedactingWriter(stderr)
	var err error
	cmd := ""
	if len(args) > 0 {
		cmd = args[0]
	}
	switch cmd {
	case "info":
		err = cmdInfo(args[1:], stdout)
	case "plane":
		err = cmdPlane(args[1:], stderr)
	case "pyramid":
		err = cmdPyramid(args[1:], stderr)
	case "render":
		err = cmdRender(args[1:], stderr)
	case "movie":
		err = cmdMovie(args[1:], stderr)
	case "measure":
		err = cmdMeasure(args[1:], stdout)
	case "serve":
		err = cmdServe(args[1:], stdout, stderr)
	case "bench":
		err = cmdBench(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = cmdView(win, args, stderr)
	}
	if err == nil {
		return 0
	}
	if errors.Is(err, errReported) {
		return 1
	}
	msg := err.Error()
	if errors.As(err, new(usageError)) {
		msg += " (see vastview help)"
	}
	fmt.Fprintln(stderr, "vastview: "+strings.ReplaceAll(msg, "\n", " "))
	return 1
}

const usage = `vastview views image volumes and movies too big to load.

  vastview [--trace FILE] [SRC...] the viewer (the built-in demo without SRC;
                                   several SRC are a browsing list)
           [--overlay LABELS] [--layer IMAGE]
                                   files laid over the first SRC: label
                                   images, images (each repeatable)
  vastview info [--json] SRC       metadata of a file, folder, glob or URL
  vastview plane SRC --out F [--t N] [--c N] [--z N] [--plane xy|xz|yz]
                 [--index N] [--level L] [--window W,C | --level-range LO,HI]
                 [--colormap gray|gray-inverted|fire|viridis|magma|glasbey|#rrggbb|rgb]
                 [--channels all|I,J,... [--colors C1,C2,...] [--windows LO:HI,...]]
                 [--overlay LABELS [--opacity A]]
                 [--project max|min|mean [--slab A:B]] [--scalebar]
                 [--orient radiological|neurological|storage]
                 [--rotate AXIS:DEG[,AXIS:DEG...]] [--center Z,Y,X] [--size H,W]
                 [--pixel S] [--interp nearest|linear]
                                   (an oblique plane, sampled in physical
                                   space; linear .raw is float32; with
                                   --project, projected along its normal
                                   w over the planes k·D from it, D the
                                   smallest spacing, k from A to B of
                                   --slab A:B, or all that meet the data)
                                   one plane: F.raw holds the samples
                                   (native type, little-endian, row-major),
                                   F.png the plane as the viewer shows it
                                   (several channels: their composite;
                                   LABELS, a label image, laid over it
                                   where its physical coordinates say,
                                   on an oblique plane too;
                                   --project: the planes A..B along the
                                   axis normal to the plane reduced to one)
  vastview render SRC --out F [--mode mip|minip|mean|alpha|iso] [--step D]
                 [--iso V] [--opacity A] [oblique options as for plane]
                 [--level L] [view options as for plane]
                                   a 3-D rendering: one ray per sample of the
                                   oblique plane, along its normal, sampled
                                   every D; F.raw (float32, mip, minip,
                                   mean) or F.png (every mode; --overlay
                                   LABELS drawn as opaque shaded surfaces)
  vastview movie SRC OUT [--axis t|z] [--range A:B] [--fps N] [--overwrite]
                 [--timestamp] [view options as for plane]
                                   the view at every time point (t) or plane
                                   (z) A..B: OUT.mp4 (H.264 through ffmpeg),
                                   or a series of images (a folder, or
                                   NAME.png / NAME.tif: NAME_t0000.png, ...)
                 [--render MODE --orbit DEG [render's options]]
                                   a 3-D rendering (as render draws it)
                                   turning DEG degrees about the picture's
                                   vertical axis, a frame per 2°
  vastview measure SRC [--t N] [--c N] [--z N] [--json] [--budget SIZE]
                 --rect Y0,X0,Y1,X1 | --box Z0,Y0,X0,Z1,Y1,X1 |
                 --polygon Y,X;Y,X;... | --line Y0,X0,Y1,X1 [--width W]
                                   statistics of a region (count, sum, mean,
                                   std, min, max, area or volume) read from
                                   full resolution, streaming; or the
                                   profile along a line, as scikit-image's
                                   profile_line
  vastview pyramid SRC OUT.ome.zarr [--zarr 2|3] [--method mean|mode] [--budget SIZE]
                 [--codec zstd|gzip|none] [--overwrite]
                                   every level as OME-Zarr
  vastview serve [--addr HOST:PORT] [--token T] [--compress none|zstd]
                 [--budget SIZE] [--cors ORIGIN]... [--allow-host NAME]... SRC...
                                   each SRC read-only over HTTP as OME-Zarr
                                   v0.4 at http://HOST:PORT/NAME.ome.zarr
                                   (NAME: its base name; default address
                                   127.0.0.1:8000; with --token, requests
                                   need Authorization: Bearer T or ?token=T;
                                   a Host header other than HOST, a loopback
                                   name or an --allow-host NAME is refused;
                                   web pages of the --cors origins only may
                                   read it)
  vastview bench [NAME...] [--dir D] [--repeat N]
                                   performance figures: NAME VALUE UNIT
                                   (NAME: open, camera, pyramid, levels, downsample, codec, zarr, project, measure, movie, video, playback, render, draw)
  vastview help                    this text

SRC is a file (TIFF, BigTIFF, OME-TIFF, ImageJ hyperstack, NRRD, MetaImage,
NIfTI, MRC, DICOM (a file, a series' folder or a DICOMDIR), HDF5 (Imaris
.ims included), BigDataViewer XML, PNG, JPEG, GIF, BMP, a video), a folder
or quoted glob of PNG, JPEG, GIF, BMP or TIFF frames, a Zarr or N5 store (a
folder, or an http:// or https:// address; Zarr also s3:// or gs://), a
camera's cine, seq or SPE file, or a microscope's CZI, LIF or ND2 file. A file that holds several
images takes #N or #NAME after its path to open one of them: info lists them.
`

// openSource opens path and wraps any error with the path.
func openSource(path string) (loader.Source, error) {
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return src, nil
}
