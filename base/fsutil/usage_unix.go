//go:build unix

package fsutil

import (
	"io/fs"
	"syscall"
)

// DiskUsage returns the bytes a file takes on disk: its allocated blocks,
// less than its size when it has holes; its size where that is unknown.
func DiskUsage(info fs.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return info.Size()
}
