package main

import "errors"

// cmdPyramid will write OME-Zarr pyramids; until the level builder exists it
// says so plainly.
func cmdPyramid(args []string) error {
	if len(args) < 2 {
		return usageError{"pyramid needs SRC and OUT.ome.zarr"}
	}
	return errors.New("pyramid: OME-Zarr export is not available in this build yet")
}
