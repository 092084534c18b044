//go:build unix

package sequence

import (
	"os"
	"syscall"

	"vastview/loader"
)

// readHead reads up to len(buf) bytes from the start of the file at path
// and returns how many it read and the file's size. It uses bare system
// calls: os.File's set-up costs more than the read when Check reads
// thousands of headers. It opens without blocking and refuses what is not
// a regular file (loader.ErrNotRegular): a named pipe among the frames
// would make the read wait forever.
func readHead(path string, buf []byte) (n int, size int64, err error) {
	var fd int
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return 0, 0, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return 0, 0, os.NewSyscallError("fstat", err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return 0, 0, loader.ErrNotRegular
	}
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return n, 0, os.NewSyscallError("read", err)
		}
		if m == 0 {
			break
		}
		n += m
	}
	return n, st.Size, nil
}
