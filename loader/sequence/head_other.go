//go:build !unix

package sequence

import (
	"io"
	"os"

	"vastview/loader"
)

// readHead reads up to len(buf) bytes from the start of the file at path
// and returns how many it read and the file's size. It refuses what is not
// a regular file (loader.ErrNotRegular).
func readHead(path string, buf []byte) (n int, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, loader.StripPath(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	if !st.Mode().IsRegular() {
		return 0, 0, loader.ErrNotRegular
	}
	n, err = io.ReadFull(f, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return n, st.Size(), err
}
