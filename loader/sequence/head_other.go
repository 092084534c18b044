//go:build !unix

package sequence

import (
	"io"
	"os"
	"vastview/loader"
)

// readHead reads up to len(buf) bytes from the start of the file at path.
func readHead(path string, buf []byte) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, loader.StripPath(err)
	}
	defer f.Close()
	n, err := io.ReadFull(f, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return n, err
}
